#!/bin/sh
# groups.sh: thousands of ranks (#25).  Ranks that behave alike fold into
# one row ("0-57,59-127 x127 collat") when the rows do not fit, so that
# the odd rank stands out on its own row; the verdict line says how many
# ranks there are; z opens the selected group and folds it again, Z opens
# them all and folds them all; j/k step over a folded group as one row.
# The job is bench/gen's (its MANIFEST names the rank that failed), at
# 80x24 and 200x50, in UTF-8 and under LANG=C.
. "$(dirname "$0")/lib.sh"

gen_job 128
ok $? "bench/gen made $n ranks, rank $root the odd one"

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	open_logs "$TMPD/job" "^ *FIRST FAILURE rank $root " --no-follow
	ok $? "${w}: rank $root is named first"
	echo "$last_capture" | grep -q "^ *$n ranks "
	ok $? "${w}: the verdict line says there are $n ranks"
	echo "$last_capture" | grep -Eq "^ *▸ *$others +×$((n - 1)) +collat *│"
	ok $? "${w}: the $((n - 1)) alike ranks are one row: $others ×$((n - 1))"
	echo "$last_capture" | grep -Eq "^ *▶ +$root +[A-Za-z]+ *│"
	ok $? "${w}: rank $root stands out on its own row"
	[ "$(echo "$last_capture" | grep -Ec '^ *[▶▸ ] +[0-9-]+.* *│')" -le 3 ]
	ok $? "${w}: and the rows are few"

	send g
	wait_for "^ *ranks $others collat ×$((n - 1)) \\(z opens\\) · [0-9]+ lines of "
	ok $? "${w}: g selects the group; its list is its members' lines, and says so"
	send z
	wait_for "^ +0 +collat *│"
	ok $? "${w}: z opens the group: rank 0 has its own row"
	echo "$last_capture" | grep -Eq '^ +1 +collat *│'
	ok $? "${w}: and rank 1"
	echo "$last_capture" | tail -1 | grep -q "row 1/$n "
	ok $? "${w}: the status line counts every row again"
	send j j
	wait_for "(^|│) *rank 2 · collat"
	ok $? "${w}: j steps through the opened ranks"
	send z
	wait_for "^ *▸ *$others +×$((n - 1)) +collat *│"
	ok $? "${w}: z on one of them folds the group again"
	send Z
	wait_for "^ +0 +collat *│"
	ok $? "${w}: Z opens every group"
	send Z
	wait_for "^ *▸ *$others +×$((n - 1)) +collat *│"
	ok $? "${w}: Z again folds them"
	send G
	wait_for "^ *rank $root .* events"
	send k
	wait_for "^ *ranks $others "
	ok $? "${w}: k from the odd rank lands on the group, one row up"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

start 80 24 LANG=C LC_ALL=C
open_logs "$TMPD/job" "^ *FIRST FAILURE rank $root " --no-follow
echo "$last_capture" | grep -Eq "^ *\\+ *$others +x$((n - 1)) +collat *\\|"
ok $? "LANG=C: the group reads + $others x$((n - 1))"
! echo "$last_capture" | LC_ALL=C grep -q "$(printf '[\200-\377]')"
ok $? "LANG=C: no byte >= 0x80 on the screen"
send q
quit_checks

done_testing
