#!/bin/sh
# open-files.sh: the console on more rank files than the limit of open
# files lets it hold open.  It held every followed file open and then
# could not open its terminal ("no terminal for the console: Too many open
# files"): under a limit of 1,024, a job of 10,000 rank files did not
# start.  Under a limit of 64, 300 rank files: the console starts, names
# the first failure, and reads a line appended later to a file past the
# budget.  At 80x24 and 200x50.
. "$(dirname "$0")/lib.sh"

D='2026-12-02 13:00:0'
for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	logs="$TMPD/many-$w"
	mkdir -p "$logs"
	r=0
	while [ $r -lt 300 ]; do
		printf '%s1,000 INFO [rank%d] iteration 1/30 | lm loss: 1.2\n' \
		    "$D" $r >"$logs/rank$r.log"
		r=$((r + 1))
	done
	printf '%s3,000 ERROR [rank7] step 3 failed\nValueError: shapes do not match\n' \
	    "$D" >>"$logs/rank7.log"
	start "$@"
	type_line "ulimit -n 64"
	run_rankline --no-store "$logs"
	wait_for '^ *FIRST FAILURE rank 7 '
	ok $? "${w}: under a limit of 64 open files, the console starts on 300 files and names rank 7"
	printf '%s2,000 ERROR [rank280] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.25 GiB of which 1.12 GiB is free.\n' \
	    "$D" >>"$logs/rank280.log"
	wait_for '^ *FIRST FAILURE rank 280 '
	ok $? "${w}: a line appended to a file past the budget is read: rank 280 failed first"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

done_testing
