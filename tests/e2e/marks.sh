#!/bin/sh
# marks.sh: the timeline's states and marks agree with the legend (#25):
# one rank reads FAILED (the first failure's), ranks that failed the same
# way later read "failed"; the row of lines with no rank reads "errors",
# not "ok", when it holds failures (and n stops on it); a hang's quiet
# rank is drawn with the legend's hung mark; help lists each key once.
. "$(dirname "$0")/lib.sh"

UTF8=$(printf '\342\200\226')	# the hung mark

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	run_rankline --no-store --no-follow "$CORPUS/common-1"
	wait_for '^ *FIRST FAILURE.*rank 0'
	ok $? "${w}: common-1 names rank 0 first"
	[ "$(echo "$last_capture" | grep -c ' FAILED *[|│]')" -eq 1 ]
	ok $? "${w}: exactly one row reads FAILED, as the legend says"
	echo "$last_capture" | grep -Eq '^ *▶ +0 .*FAILED'
	ok $? "${w}: and it is the first failure's row"
	[ "$(echo "$last_capture" | grep -c ' failed *[|│]')" -ge 4 ]
	ok $? "${w}: the ranks that failed alike after it read 'failed'"
	send q
	wait_for 'RL_DONE rc=0'

	start "$@"
	run_rankline --no-store --no-follow "$CORPUS/killed-2"
	wait_for '^ *FIRST FAILURE.*rank 2'
	ok $? "${w}: killed-2 names rank 2 first"
	echo "$last_capture" | grep -Eq '^ +\? +errors *[|│].*[×x]'
	ok $? "${w}: the row with no rank holds a failure and reads 'errors'"
	echo "$last_capture" | grep -Eq '^ +\? +ok '
	ok $((!$?)) "${w}: it does not read 'ok'"
	send G k
	wait_for '^ *rank 4 . collat'
	send n
	wait_for '^ *(unattributed lines|no rank) . errors . [0-9]+ events'
	ok $? "${w}: n goes on from the last rank to the row with no rank"
	send q
	wait_for 'RL_DONE rc=0'

	start "$@"
	run_rankline --no-store --no-follow "$CORPUS/hang-1"
	wait_for '^ *FIRST FAILURE.*rank 3 went quiet'
	ok $? "${w}: hang-1 names rank 3, which went quiet"
	echo "$last_capture" | grep -E '^ *▶ +3 .*HUNG' | grep -q "$UTF8"
	ok $? "${w}: the quiet rank's row carries the legend's hung mark"
	send F1
	wait_for '^ *Keys'
	[ "$(echo "$last_capture" | grep -Ec '^ +n +')" -eq 1 ]
	ok $? "${w}: help lists n once"
	send q q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

done_testing
