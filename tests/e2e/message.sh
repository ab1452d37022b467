#!/bin/sh
# message.sh: the event list shows each line's message (#25), not the
# timestamp and launcher prefix the row and the time column already say,
# so that at 80 columns the message is visible; the detail view (Enter)
# keeps the whole line.
. "$(dirname "$0")/lib.sh"

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	run_rankline --no-store --no-follow "$CORPUS/killed-2"
	wait_for '^ *FIRST FAILURE.*rank 2'
	ok $? "${w}: killed-2 names rank 2 first"
	echo "$last_capture" | head -1 | grep -Eq '(—|-) traceback : S'
	ok $? "${w}: the header shows the failure's message, not its indent"
	lines=$(echo "$last_capture" | grep -E 'console\.log:[0-9]+ ')
	echo "$lines" | grep -Eq 'console\.log:[0-9]+ +iteration +[0-9]+/'
	ok $? "${w}: a rank's step lines show their message first"
	echo "$lines" | grep -Eq '\[default[0-9]\]:|2026-12-02T13'
	ok $((!$?)) "${w}: no event line repeats the [defaultN]: prefix or the timestamp"
	send h h h h
	send Enter
	wait_for '^ *EVENT '
	wait_for 'line +\[default2\]:2026-12-02T13:20:29'
	ok $? "${w}: the detail keeps the whole line, prefix and time"
	send Escape q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

done_testing
