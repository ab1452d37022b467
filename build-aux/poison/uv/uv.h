/* A poison header (Makefile.am): first on this library's include path. */
#error "<uv.h> is the event loop's (tui/, and core's follow, batch and source-cmd): this library must not include it (see docs/design.md)"
