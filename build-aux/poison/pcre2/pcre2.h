/* A poison header (Makefile.am): first on this library's include path. */
#error "<pcre2.h> is the rule engine's (core/): this library must not include it (see docs/design.md)"
