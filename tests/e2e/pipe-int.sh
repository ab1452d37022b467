#!/bin/sh
# pipe-int.sh: Ctrl-C and Ctrl-\ meant for a command the | key runs (a
# stuck one, a pager left open) stop the command, not the console: the
# console comes back with Enter, says the command was killed, and quits
# only on q.  Before, the console took the Ctrl-C too and quit on Enter.
. "$(dirname "$0")/lib.sh"

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	for key in C-c 'C-\'; do
		start "$@"
		run_rankline --no-store --no-follow "$CORPUS/code-1"
		wait_for '^ *FIRST FAILURE.*rank 1'
		ok $? "${w} ${key}: the console is up"
		send '|'
		wait_for 'shell command'
		send -l "echo PIPE-STARTED; sleep 60"
		send Enter
		wait_for '^PIPE-STARTED'
		ok $? "${w} ${key}: the command runs"
		send "$key"
		wait_for '\[rankline: killed by signal [0-9]+; Enter goes back\]'
		ok $? "${w} ${key}: the key stops the command, which is said"
		send "$key"
		send Enter
		wait_for 'the command did not run to its end'
		ok $? "${w} ${key}: Enter goes back to the console, still running"
		! echo "$last_capture" | grep -q 'RL_DONE'
		ok $? "${w} ${key}: the console did not quit"
		send q
		quit_checks
	done
done
done_testing
