#!/bin/sh
# zone.sh: a log whose local times are 8 h ahead of the UTC epochs beside
# them (#25) draws its seconds, not 8 hours of empty axis: the axis is
# labelled in the first failure's clock, as the header says it, and the
# diagnosis says which zone the local times were read in.
. "$(dirname "$0")/lib.sh"

python3 "$(dirname "$0")/../cli/zone-log.py" 8 0 >"$TMPD/zone.log"

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@" TZ=UTC
	run_rankline --no-store --no-follow "$TMPD/zone.log"
	wait_for '^ *FIRST FAILURE +rank 0 .* at 23:32:32'
	ok $? "${w}: the header: rank 0 at 23:32:32, as its line says"
	axis=$(echo "$last_capture" | grep '^ *RANK STATE')
	labels=$(echo "$axis" | grep -oE '[0-9]{2}:[0-9]{2}:[0-9.]+' | sort -u)
	[ -n "$labels" ] && ! echo "$labels" | grep -qv '^23:32:'
	ok $? "${w}: every axis label is within 23:32 ($(echo $labels))"
	row=$(echo "$last_capture" | grep -E '^.? *0 FAILED')
	# The progress lines are drawn along the row, not squeezed at one end.
	[ "$(echo "$row" | grep -o '·' | wc -l)" -ge 5 ]
	ok $? "${w}: rank 0's steps spread over its row"
	send d
	wait_for 'DIAGNOSIS|Clocks|First failure'
	# Page down until the clocks show (a narrow screen holds less).
	found=1
	for i in 1 2 3 4 5 6; do
		if wait_for 'UTC\+08:00' 1; then
			found=0
			break
		fi
		send NPage
	done
	ok $found "${w}: the diagnosis says its local times are UTC+08:00"
	send Escape q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

done_testing
