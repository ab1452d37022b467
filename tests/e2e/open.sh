#!/bin/sh
# open.sh: Enter on an incident of the history opens it in the console's
# views (#25), its logs read again; Esc goes back to the history, then to
# the console's own incident, which kept following meanwhile.  When the
# logs are gone, the incident's report is read from the store alone.
. "$(dirname "$0")/lib.sh"

cp -r "$CORPUS/code-1" "$CORPUS/hang-1" "$TMPD/"

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@" XDG_DATA_HOME="$TMPD/data$w"
	[ -d "$TMPD/hang-1" ] || cp -r "$CORPUS/hang-1" "$TMPD/"
	type_line "$RANKLINE analyze $TMPD/code-1 >/dev/null; $RANKLINE analyze $TMPD/hang-1 >/dev/null; rm -rf $TMPD/hang-1; echo STORED"
	wait_for '^STORED'
	run_rankline
	wait_for '^ *HISTORY +2 incidents'
	ok $? "${w}: the history lists both incidents"
	send Enter
	wait_for 'incident #2 from the store: its logs cannot be read again'
	ok $? "${w}: #2's logs are gone: its stored report opens instead"
	wait_for 'logs of #2 cannot be read again'
	ok $? "${w}: the status line says why"
	# The report, read from the store: the hang's rank 3, in its words.
	found=1
	for i in 1 2 3 4 5 6; do
		if echo "$last_capture" | grep -q 'rankline.hang.quiet'; then
			found=0
			break
		fi
		send NPage
		sleep 0.2
		last_capture=$(capture)
	done
	ok $found "${w}: it holds the stored diagnosis (rankline.hang.quiet)"
	send Escape
	wait_for '^ *HISTORY +2 incidents'
	ok $? "${w}: Esc goes back to the history"
	send j Enter
	wait_for '^ *FIRST FAILURE +rank 1 +python\.exception'
	ok $? "${w}: Enter on #1 opens it: rank 1 failed first"
	# The frame's first lines may be in the pane before its last.
	wait_for 'incident #1, its logs read again'
	ok $? "${w}: the status line says which incident is open"
	send Escape
	wait_for '^ *HISTORY +2 incidents'
	ok $? "${w}: Esc goes back to the history"
	send Escape
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: Esc again leaves: there was no incident of its own"

	# A console on a live incident: the stored one opens over it.
	run_rankline --no-store --no-follow "$CORPUS/killed-1"
	wait_for '^ *FIRST FAILURE'
	home=$(echo "$last_capture" | grep -m1 'FIRST FAILURE' |
	    sed 's/ *at .*//; s/  */ /g')
	send H
	wait_for '^ *HISTORY'
	send j Enter
	wait_for '^ *FIRST FAILURE +rank 1 +python\.exception'
	ok $? "${w}: from a console, H and Enter open #1 over its own incident"
	send q
	wait_for '^ *HISTORY'
	ok $? "${w}: q goes back to the history, not out"
	send Escape
	wait_until "echo \"\$last_capture\" | grep -m1 'FIRST FAILURE' |
	    sed 's/ *at .*//; s/  */ /g' | grep -qxF -- \"$home\""
	ok $? "${w}: Esc: the console's own incident is back ($home)"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"

	# Following: what the followed log gets meanwhile is there on return.
	printf '[rank0]: step 1 loss 1.0\n' >"$TMPD/live$w.log"
	run_rankline --no-store "$TMPD/live$w.log"
	wait_for 'following'
	send H
	wait_for '^ *HISTORY'
	send j Enter
	wait_for '^ *FIRST FAILURE +rank 1 +python\.exception'
	printf '%s\n' '[rank0]: Traceback (most recent call last):' \
	    '[rank0]:   File "train.py", line 3, in <module>' \
	    '[rank0]: ZeroDivisionError: division by zero' >>"$TMPD/live$w.log"
	sleep 1
	send Escape
	wait_for '^ *HISTORY'
	send Escape
	wait_for '^ *FIRST FAILURE +rank 0 .*ZeroDivisionError'
	ok $? "${w}: the followed log's failure, written while #1 was open, is shown"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

done_testing
