#!/bin/sh
# group-events.sh: a folded group's event list (#25).  With 127 alike ranks
# folded into one row, its list is its members' lines merged in time
# order, alike lines once with how many and on which ranks, so that it is
# as short as one rank's; Enter on such a line shows one member's line and
# the ranks it stands for; h/l step along the merged lines.  The job is
# bench/gen's (its MANIFEST names the rank that failed), at 80x24 and 200x50.
. "$(dirname "$0")/lib.sh"

gen_job 128

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	open_logs "$TMPD/job" "^ *FIRST FAILURE rank $root " --no-follow
	send g
	wait_for "^ *ranks $others collat ×$((n - 1)) \\(z opens\\) · [0-9]+ lines of [0-9]+ events"
	title=$(echo "$last_capture" | grep -oE "[0-9]+ lines of [0-9]+ events")
	lines=${title%% lines*}
	events=$(echo "$title" | sed 's/.* of \([0-9]*\) events/\1/')
	# As short as one rank's list: 127 ranks' lines, fewer than 2 per rank.
	[ -n "$lines" ] && [ "$lines" -gt 0 ] && [ "$lines" -lt $((events / 50)) ]
	ok $? "${w}: g selects the group; its list merges its members' lines ($title)"
	echo "$last_capture" | grep -Eq "^ *. [0-9:.]+ ×$((n - 1)) ranks $others "
	ok $? "${w}: a line every member logged is shown once: ×$((n - 1)) ranks $others"
	send Enter
	wait_for "^ *alike +×$((n - 1)) lines on $((n - 1)) ranks: $others"
	ok $? "${w}: Enter shows one member's line and the ranks it stands for"
	src1=$(echo "$last_capture" | grep -E '^ *source ' | awk '{print $2}')
	send Escape
	wait_for "^ *ranks $others collat"
	send l Enter
	wait_for "^ *alike +×[0-9]+ lines? on [0-9]+ ranks?: "
	alike=$?
	src2=$(echo "$last_capture" | grep -E '^ *source ' | awk '{print $2}')
	[ $alike -eq 0 ] && [ -n "$src2" ] && [ "$src1" != "$src2" ]
	ok $? "${w}: l steps to the next merged line, a group's line too ($src2)"
	send Escape q
	wait_for 'RL_DONE rc=0'
done

done_testing
