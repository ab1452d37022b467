#!/bin/sh
# mouse.sh: the console takes clicks and the wheel (#25), and leaves the
# mouse alone with --no-mouse.  tmux cannot click, so the pane is sent what
# a terminal writes for one: X10 mouse reports, ESC [ M, then the button,
# column and line, each plus 32 (tmux's own flags say whether the program
# asked for the mouse).
. "$(dirname "$0")/lib.sh"

# click X Y / wheel_up X Y / wheel_down X Y: one report at 0-based X, Y.
report() {
	$T send-keys -t rl -l "$(printf '\033[M%b%b%b' \
	    "\\$(printf %o $(($1 + 32)))" "\\$(printf %o $(($2 + 33)))" \
	    "\\$(printf %o $(($3 + 33)))")"
}
# A terminal reports the release too (button 3): curses waits for it.
click() { report 0 "$1" "$2"; report 3 "$1" "$2"; }
wheel_up() { report 64 "$1" "$2"; }
wheel_down() { report 65 "$1" "$2"; }

# The screen line of the rank row whose label is $1.
row_y() {
	capture | grep -n "^. *$1 [a-zA-Z]" | head -1 | cut -d: -f1 |
	    awk '{ print $1 - 1 }'
}

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	run_rankline --no-store --no-follow "$CORPUS/code-1"
	wait_for '^ *FIRST FAILURE.*rank 1'
	[ "$(pane_var mouse_standard_flag)" = 1 ]
	ok $? "${w}: the console asks the terminal for the mouse"
	y=$(row_y 2)
	click 3 "$y"
	wait_for 'rank 2 . collat'
	ok $? "${w}: a click on rank 2's row selects it (line $y)"
	# The event list's third line is one of rank 2's events: its place.
	line=$(capture | grep -n 'console\.log:[0-9]' | sed -n 3p)
	ly=$(($(echo "$line" | cut -d: -f1) - 1))
	where=$(echo "$line" | grep -o 'console\.log:[0-9]*')
	click $((w - 10)) "$ly"
	send Enter
	wait_for "$where"
	ok $? "${w}: a click on the event list selects that event ($where)"
	send Escape
	wait_for 'rank 2 . collat'
	wheel_down 3 "$y"
	wait_for 'row 5/5'
	ok $? "${w}: the wheel scrolls down three ranks"
	wheel_up 3 "$y"
	wait_for 'row 2/5'
	ok $? "${w}: and up three"
	send q
	quit_checks
	[ "$(pane_var mouse_standard_flag)" = 0 ] &&
	    [ "$(pane_var mouse_any_flag)" = 0 ]
	ok $? "${w}: the terminal's mouse is back as it was"

	run_rankline --no-store --no-follow --no-mouse "$CORPUS/code-1"
	wait_for '^ *FIRST FAILURE.*rank 1'
	[ "$(pane_var mouse_standard_flag)" = 0 ] &&
	    [ "$(pane_var mouse_any_flag)" = 0 ]
	ok $? "${w}: --no-mouse leaves the mouse to the terminal"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

done_testing
