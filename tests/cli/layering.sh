#!/bin/sh
# The design card's layering: core/ never includes curses or sqlite, tui/
# never speaks SQL, store/ never includes curses.  The build enforces it
# (each library's include path starts with poison headers, Makefile.am): the
# probes below compile one line with each library's real flags and prove a
# forbidden header fails and an allowed one compiles.  The greps stay as a
# second check, and catch what a flag cannot (a path reaching past ../).
. "${RL_SRCDIR:-.}/tests/lib.sh"
cd "$RL_SRCDIR" || exit 1

bad=$(grep -lE '#include *[<"](n?curses|ncursesw/|sqlite3)' core/*.c core/*.h 2>/dev/null)
ok "$([ -z "$bad" ]; echo $?)" "core/ includes neither curses nor sqlite ${bad}"
bad=$(grep -lE '#include *[<"]sqlite3|sqlite3_[a-z_]+ *\(' tui/*.c tui/*.h 2>/dev/null)
ok "$([ -z "$bad" ]; echo $?)" "tui/ never speaks SQL ${bad}"
bad=$(grep -lE '#include *[<"](n?curses|ncursesw/)' store/*.c store/*.h 2>/dev/null)
ok "$([ -z "$bad" ]; echo $?)" "store/ never includes curses ${bad}"
bad=$(grep -lE '#include *[<"](n?curses|ncursesw/)' main.c cmd-*.c 2>/dev/null)
ok "$([ -z "$bad" ]; echo $?)" "the commands leave curses to tui/ ${bad}"

bad=$(grep -lE '#include *"(model|rules|rules-int|engine)\.h"|#include *<' \
    core/base/*.c core/base/*.h 2>/dev/null |
    xargs -r grep -lE '#include *("(model|engine|diag|rules|rules-int)\.h"|<(pcre2|jansson|zlib|zstd|uv|sqlite3|n?curses)\.h>)')
ok "$([ -z "$bad" ]; echo $?)" "core/base/ knows no rankline type and no library ${bad}"
bad=$(grep -lE '#include *"(model|store|tui|engine|diag)\.h"' core/rules*.c \
    core/rules*.h core/prefilter.c 2>/dev/null)
ok "$([ -z "$bad" ]; echo $?)" "the rule engine sees rules.h, never the model ${bad}"
# The readers of the model see model.h (and base.h, rules.h, wording.h,
# report.h, find.h, their own headers), never ingestion's bookkeeping (engine.h, ingest-int.h)
# nor the diagnosis's parts (diag.h); the console's live loop may follow
# (follow.h).  core.h is gone: a file still including it would not build.
hdrs() { grep -hoE '#include *"[^"]+"' "$@" | sed 's/.*"\(.*\)"/\1/' | sort -u; }
bad=$(hdrs tui/*.c tui/*.h store/*.c store/*.h |
    grep -vxE 'model\.h|base\.h|rules\.h|wording\.h|report\.h|follow\.h|find\.h|tui\.h|cmdline\.h|search-int\.h|store\.h|store-int\.h|config\.h' |
    tr '\n' ' ')
ok "$([ -z "$bad" ]; echo $?)" "tui/ and store/ include the model's header, not the engine's ${bad}"
bad=$(grep -lE '#include *"follow\.h"' tui/*.c store/*.c 2>/dev/null |
    grep -vx 'tui/live\.c' | tr '\n' ' ')
ok "$([ -z "$bad" ]; echo $?)" "of the readers, only the console's live loop follows ${bad}"
bad=$(grep -lE '#include *"diag\.h"' core/*.c 2>/dev/null |
    grep -vxE 'core/(diagnose[a-z-]*|diag-[a-z]+|ckptdir|pipeline)\.c' | tr '\n' ' ')
ok "$([ -z "$bad" ]; echo $?)" "diag.h is the diagnosis's and the pipeline's alone ${bad}"
bad=$(grep -lE '#include *"(engine|diag|ingest-int)\.h"' core/report-*.c \
    core/report.h core/redact.[ch] core/wording.[ch] core/model.h core/follow.h 2>/dev/null | tr '\n' ' ')
ok "$([ -z "$bad" ]; echo $?)" "the reports and the wording read the model alone ${bad}"
bad=$(grep -lE '#include *"[^"]*\.\./' core/*.[ch] core/base/*.[ch] \
    store/*.[ch] tui/*.[ch] 2>/dev/null)
ok "$([ -z "$bad" ]; echo $?)" "no library reaches another's folder by ../ ${bad}"

# probe LAYER FLAGS HEADER WANT: compile "#include <HEADER>" with a
# library's flags; WANT is "fails" (and by our poison header, named) or
# "compiles".
probe() {
	printf '#define PCRE2_CODE_UNIT_WIDTH 8\n#include <%s>\nint rl_probe;\n' "$3" >"$t/p.c"
	# shellcheck disable=SC2086
	(cd "$bld" && $RL_CC $2 -std=c11 -D_DEFAULT_SOURCE \
	    -D_XOPEN_SOURCE=600 -fsyntax-only "$t/p.c") >"$t/err" 2>&1
	r=$?
	if [ "$4" = fails ]; then
		ok "$([ "$r" -ne 0 ] && grep -q 'must not include' "$t/err";
		    echo $?)" "$1: #include <$3> fails to compile"
	else
		ok "$r" "$1: #include <$3> compiles"
		[ "$r" -eq 0 ] || sed 's/^/# /' "$t/err"
	fi
}

bld=$(cd "$(dirname "$RANKLINE")" && pwd)
t=$(mktemp -d "${TMPDIR:-/tmp}/rl-layer.XXXXXX")
if [ -z "$RL_CC" ] || [ -z "$RL_CORE_CPPFLAGS" ]; then
	skip "no library flags in the environment (run through make check)"
else
	for h in curses.h ncurses.h ncursesw/curses.h sqlite3.h uv.h \
	    pcre2.h jansson.h zlib.h zstd.h; do
		probe base "$RL_BASE_CPPFLAGS" "$h" fails
	done
	probe base "$RL_BASE_CPPFLAGS" base.h compiles
	for h in curses.h ncurses.h ncursesw/curses.h sqlite3.h uv.h; do
		probe core "$RL_CORE_CPPFLAGS" "$h" fails
	done
	for h in pcre2.h jansson.h zlib.h zstd.h model.h engine.h diag.h; do
		probe core "$RL_CORE_CPPFLAGS" "$h" compiles
	done
	for h in curses.h ncursesw/curses.h sqlite3.h; do
		probe core-uv "$RL_COREUV_CPPFLAGS" "$h" fails
	done
	for h in uv.h model.h follow.h; do
		probe core-uv "$RL_COREUV_CPPFLAGS" "$h" compiles
	done
	for h in curses.h ncursesw/curses.h uv.h; do
		probe store "$RL_STORE_CPPFLAGS" "$h" fails
	done
	for h in sqlite3.h jansson.h store.h; do
		probe store "$RL_STORE_CPPFLAGS" "$h" compiles
	done
	probe tui "$RL_TUI_CPPFLAGS" sqlite3.h fails
	for h in curses.h ncursesw/curses.h uv.h tui.h; do
		probe tui "$RL_TUI_CPPFLAGS" "$h" compiles
	done
fi
rm -rf "$t"

# No global name of ours is one that a linked shared library exports, and
# the check does catch one: a json_string, as jansson's, in a small archive.
check "no name of ours is a linked library's" sh tools/symbols.sh \
    "$RANKLINE" "$bld/librlcore.a" "$bld/librlstore.a" "$bld/librltui.a" \
    "$bld/librlcoreuv.a" "$bld/librlbase.a"
if command -v cc >/dev/null 2>&1 && command -v ar >/dev/null 2>&1; then
	t=${TMPDIR:-/tmp}/rl-clash.$$
	mkdir -p "$t"
	echo 'void json_string(void) {}' >"$t/c.c"
	if cc -c -o "$t/c.o" "$t/c.c" && ar rc "$t/libclash.a" "$t/c.o"; then
		sh tools/symbols.sh "$RANKLINE" "$t/libclash.a" 2>"$t/err"
		r=$?
		ok "$([ "$r" -ne 0 ] && grep -q json_string "$t/err"; echo $?)" \
		    "a json_string of ours fails the check, named"
	else
		skip "cannot compile the clash archive"
	fi
	rm -rf "$t"
else
	skip "no cc or ar for the clash archive"
fi
tap_done
