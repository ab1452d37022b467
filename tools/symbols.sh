#!/bin/sh
# tools/symbols.sh BINARY LIB.a...: fail when a global symbol that rankline
# defines has the name of one a shared library it links exports.  The
# binary's definition wins at run time, for the library's own internal
# calls too: a json_string of ours once took the place of jansson's inside
# jansson and corrupted the heap on import.  Run by the build after each
# link, so a clash never gets as far as a test.
set -u
bin=$1
shift
tmp=${TMPDIR:-/tmp}/rl-symbols.$$
trap 'rm -f "$tmp".*' EXIT INT TERM

command -v nm >/dev/null 2>&1 || { echo "symbols: no nm, not checked" >&2; exit 0; }
# Ours: the text and data symbols the libraries define globally.
nm -g --defined-only "$@" 2>/dev/null |
    awk 'NF == 3 && $2 ~ /^[TDBRCV]$/ { print $3 }' | sort -u >"$tmp.ours"
# Theirs: what every shared library the binary loads exports.
libs=$(ldd "$bin" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }')
[ -n "$libs" ] || { echo "symbols: ldd named no library for $bin" >&2; exit 0; }
# shellcheck disable=SC2086
nm -D --defined-only $libs 2>/dev/null |
    awk 'NF == 3 && $2 ~ /^[TDBRCVWi]$/ { sub(/@.*/, "", $3); print $3 }' |
    sort -u >"$tmp.theirs"
clash=$(comm -12 "$tmp.ours" "$tmp.theirs")
if [ -n "$clash" ]; then
	echo "symbols: rankline defines names that a shared library it links" \
	    "also exports; rename them:" >&2
	echo "$clash" | sed 's/^/  /' >&2
	exit 1
fi
exit 0
