#!/bin/sh
# zone-cross.sh: one node's logs in UTC, the other's in local time 8 h
# ahead without a zone (#25): the console reads the local node in the zone
# the steps both nodes logged agree on, so the axis spans the job's seconds,
# not 8 hours of empty rows, and the diagnosis' Clocks section says so.
. "$(dirname "$0")/lib.sh"

python3 "$(dirname "$0")/../cli/zone-cross.py" "$CORPUS/multinode-1" \
    "$TMPD/job" node0:utc node1:+8

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@" TZ=UTC
	run_rankline --no-store --no-follow "$TMPD/job"
	wait_for '^ *FIRST FAILURE +rank 4 '
	head=$?
	axis=$(echo "$last_capture" | grep '^ *RANK .*STATE')
	labels=$(echo "$axis" | grep -oE '[0-9]{2}:[0-9]{2}:[0-9.]+' | sort -u)
	# Seconds apart: every label within the one minute the job ran in.
	[ $head -eq 0 ] && [ -n "$labels" ] && ! echo "$labels" | grep -qv '^21:49:'
	ok $? "${w}: rank 4 first, every axis label within 21:49, not hours apart ($(echo $labels))"
	send d
	wait_for 'DIAGNOSIS|Clocks|First failure'
	found=1
	for i in 1 2 3 4 5 6 7 8 9 10; do
		if wait_for 'Clocks' 1 && wait_for 'UTC\+08:00' 1; then
			found=0
			break
		fi
		send NPage
	done
	ok $found "${w}: the diagnosis' Clocks say node1's times are UTC+08:00"
	send Escape q
	wait_for 'RL_DONE rc=0'
done

done_testing
