#!/bin/sh
# signals.sh: SIGTERM, SIGHUP and SIGINT end the console cleanly (curses
# ended, terminal restored), like q does, and the incident it followed is
# stored.  SIGTERM and SIGHUP are sent twice, as timeout(1) and a closing
# terminal's process group may: the second must not cut the store.
. "$(dirname "$0")/lib.sh"

# rankline_pid: the console's pid, a child of the pane's shell.
rankline_pid() {
	ps -o pid= --ppid "$(pane_var pane_pid)" | head -1 | tr -d ' '
}

for sig in TERM HUP INT; do
	start 80 24
	run_rankline --db "$TMPD/$sig.db" "$CORPUS/multinode-1"
	wait_for '^ *FIRST FAILURE.*rank 4'
	ok $? "SIG$sig: the console is up"
	pid=$(rankline_pid)
	[ -n "$pid" ] && kill -s "$sig" "$pid"
	[ -n "$pid" ] && [ "$sig" != INT ] && kill -s "$sig" "$pid"
	wait_for 'RL_DONE rc='
	ok $? "SIG$sig: the console ends"
	"$RANKLINE" history --db "$TMPD/$sig.db" 2>&1 | grep -q 'rank 4'
	ok $? "SIG$sig: the incident is stored, rank 4 first"
	[ "$(pane_var alternate_on)" = 0 ]
	ok $? "SIG$sig: the alternate screen is gone"
	type_line 'stty -a | tr " ;" "\n\n" | grep -Ex -- "-?(icanon|echo)" | tr "\n" " "; echo STTY_DONE'
	wait_for '^-?icanon -?echo STTY_DONE'
	echo "$last_capture" | grep -q '^icanon echo STTY_DONE'
	ok $? "SIG$sig: the terminal is back in canonical mode with echo"
done

done_testing
