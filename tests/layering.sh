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
tap_done
