#!/bin/sh
# The design card's layering: core/ never includes curses or sqlite, tui/
# never speaks SQL, store/ never includes curses.
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

# No global name of ours is one that a linked shared library exports, and
# the check does catch one: a json_string, as jansson's, in a small archive.
bld=$(dirname "$RANKLINE")
check "no name of ours is a linked library's" sh tools/symbols.sh \
    "$RANKLINE" "$bld/librlcore.a" "$bld/librlstore.a" "$bld/librltui.a" "$bld/librlbase.a"
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
