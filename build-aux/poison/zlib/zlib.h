/* A poison header (Makefile.am): first on this library's include path. */
#error "<zlib.h> is core's readers': this library must not include it (see docs/design.md)"
