#!/bin/sh
# rotate.sh: a followed log rotated or truncated under the console (#25).
# The new file's lines are its own, numbered from 1 and named with their
# generation (rank0.log#2:1), not the old file's; after a truncation the
# line numbers start again; the old file's lines stay listed under the old
# name and number; a rank file that appears later gets its row.  Live, at
# 80x24 and 200x50.
. "$(dirname "$0")/lib.sh"

D='2026-12-02 13:00:0'
for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	logs="$TMPD/rot-$w"
	mkdir -p "$logs"
	printf '%s1,000 INFO [rank0] iteration 1/30 | lm loss: 1.2\n%s2,000 INFO [rank0] iteration 2/30 | lm loss: 1.1\n%s3,000 ERROR [rank0] step 3 failed\nValueError: shapes do not match\n' \
	    "$D" "$D" "$D" >"$logs/rank0.log"
	printf '%s1,000 INFO [rank1] iteration 1/30 | lm loss: 1.2\n' "$D" >"$logs/rank1.log"
	start "$@"
	run_rankline --no-store "$logs"
	wait_for '^ *FIRST FAILURE rank 0 '
	ok $? "${w}: rank 0's failure is read"
	wait_for 'rank0.log:4 '
	ok $? "${w}: listed as rank0.log:4"

	# Rotation: the old file renamed away, a new one at its name.
	mv "$logs/rank0.log" "$logs/rank0.log.1"
	printf '%s5,000 ERROR [rank0] step 5 failed\nKeyError: shard7\n' "$D" >"$logs/rank0.log"
	wait_for 'rank0.log#2:2 '
	ok $? "${w}: the rotated-in file's failure is its own line 2 (rank0.log#2:2)"
	echo "$last_capture" | grep -q 'rank0.log:4 '
	ok $? "${w}: the old file's lines keep their name and number (rank0.log:4)"
	! echo "$last_capture" | grep -Eq 'rank0.log:[56] '
	ok $? "${w}: no line of the new file is numbered on from the old one"

	# Truncation in place (copytruncate): numbers start again.
	: >"$logs/rank0.log"
	sleep 0.3
	printf '%s7,000 ERROR [rank0] step 7 failed\nIndexError: list index out of range\n' "$D" >>"$logs/rank0.log"
	wait_for 'rank0.log#3:2 '
	ok $? "${w}: after a truncation the file's lines are numbered from 1 again (rank0.log#3:2)"
	echo "$last_capture" | grep -q 'rank0.log#2:2 ' &&
	    echo "$last_capture" | grep -q 'rank0.log:4 '
	ok $? "${w}: and both earlier files' lines are still listed under their names"

	# A rank's file that appears in the followed folder gets its row.
	printf '%s8,000 ERROR [rank2] step 8 failed\nOSError: disk quota exceeded\n' "$D" >"$logs/rank2.log"
	wait_for '^ *(▶ *)?2 +[a-zA-Z]+ *│'
	ok $? "${w}: a new rank file in the folder is read: rank 2 has a row"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

done_testing
