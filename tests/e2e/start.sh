#!/bin/sh
# start.sh: the two starting points of #25.  On a terminal, rankline with
# no path opens the history of this machine's incidents (q leaves it, and
# the console), and "rankline -" takes a log pasted into the terminal,
# ended by Ctrl-D, and diagnoses it.  Without a terminal, no path is still
# a usage error.
. "$(dirname "$0")/lib.sh"

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@" XDG_DATA_HOME="$TMPD/data$w"
	# The store is the pane's own ($HOME is fresh): one incident in it.
	type_line "$RANKLINE analyze $CORPUS/code-1 >/dev/null; echo STORED rc=\$?"
	wait_for 'STORED rc=0'
	ok $? "${w}: an incident is stored"
	run_rankline
	wait_for '^ *HISTORY +1 incident'
	ok $? "${w}: no path opens the history"
	echo "$last_capture" | grep -Eq '^ *#1 .*python\.exception.*rank 1'
	ok $? "${w}: it lists the stored incident"
	echo "$last_capture" | grep -Eq '^ *#1 .*python\.exception IndexError: l'
	ok $? "${w}: with the exception's text beside its rule"
	send q
	quit_checks

	type_line "clear; $RANKLINE </dev/null; echo NOTTY rc=\$?"
	wait_for 'NOTTY rc=2'
	ok $? "${w}: without a terminal, no path is a usage error (2)"

	run_rankline --no-store -
	wait_for 'paste the log, then press Ctrl-D'
	ok $? "${w}: - on a terminal asks for the log"
	$T load-buffer "$CORPUS/code-1/console.log"
	$T paste-buffer -t rl
	send C-d
	wait_for '^ *FIRST FAILURE +rank 1 +python\.exception'
	ok $? "${w}: the pasted log is diagnosed: rank 1 failed first"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

done_testing
