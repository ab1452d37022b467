/* A poison header (Makefile.am): first on this library's include path. */
#error "<jansson.h> is core's and the store's: this library must not include it (see docs/design.md)"
