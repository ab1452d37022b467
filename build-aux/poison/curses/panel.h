/* A poison header (Makefile.am): first on this library's include path. */
#error "<panel.h> is the console's (tui/): this library must not include it (see docs/design.md)"
