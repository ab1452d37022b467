#!/bin/sh
# names.sh: two ranks' files that end alike (attempt_0/1/stdout.log on
# node0 and on node1) are listed by names that differ (#25): the shortest
# end of each path that no other file shares.
. "$(dirname "$0")/lib.sh"

# The source names of the pane's event lines that end in stdout.log.
names() {
	echo "$last_capture" | grep -E '^. [0-9]{2}:[0-9]{2}:[0-9.]+ ' |
	    awk '{ sub(/:[0-9]+$/, "", $3); print $3 }' | grep 'stdout\.log$' |
	    sort -u
}

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	run_rankline --no-store --no-follow "$CORPUS/multinode-2"
	wait_for '^ *FIRST FAILURE.*rank 3'
	send g j
	wait_for '^ *rank 1 \(node0\) . '
	ok $? "${w}: rank 1, on node0, is selected"
	one=$(names)
	[ -n "$one" ]
	ok $? "${w}: its stdout.log lines are listed"
	send j j
	wait_for '^ *rank 3 \(node1\) . '
	ok $? "${w}: rank 3, on node1, is selected"
	three=$(names)
	[ -n "$three" ]
	ok $? "${w}: its stdout.log lines are listed"
	[ -z "$(printf '%s\n%s\n' "$one" "$three" | sort | uniq -d)" ]
	ok $? "${w}: the two ranks' stdout.log are named apart ($one / $three)"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

# LANG=C: the elided middle of a name is "...", not an ellipsis drawn as
# three question marks.
start 80 24 LANG=C
run_rankline --no-store --no-follow "$CORPUS/multinode-2"
wait_for '^ *FIRST FAILURE.*rank 3'
send g j
wait_for 'stdout\.log:[0-9]'
echo "$last_capture" | grep -q '/\.\.\./.*stdout\.log:[0-9]' &&
    ! echo "$last_capture" | grep -q '???'
ok $? "LANG=C: an elided name reads '...'"
send q
wait_for 'RL_DONE rc=0'
ok $? "LANG=C: q quits"

done_testing
