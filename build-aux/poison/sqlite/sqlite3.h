/* A poison header (Makefile.am): first on this library's include path. */
#error "<sqlite3.h> is the store's (store/): this library must not include it (see docs/design.md)"
