#!/bin/sh
# defects.sh: the console's defects of #25, each driven through the real
# binary at 80x24 and 200x50.  A missing path is an error on the first
# screen (not an empty "no failure"), is not stored, and is read as soon
# as it appears (tail -F); --no-store still recalls what is stored and
# shows the history, read only.
. "$(dirname "$0")/lib.sh"

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	db="$TMPD/missing-$w.db"
	start "$@"
	run_rankline --db "$db" "$TMPD/nowhere-$w/rank0.log"
	wait_for "^ *NOTHING READ .*nowhere-$w/rank0.log: No such file"
	ok $? "${w}: a path in a missing folder is named in the header"
	echo "$last_capture" | grep -q "No failure found"
	ok $((!$?)) "${w}: and it does not say 'No failure found'"
	send q
	wait_for 'RL_DONE rc=3'
	ok $? "${w}: the console exits 3 when nothing could be read"
	"$RANKLINE" history --db "$db" 2>/dev/null | grep -q 'no failure'
	ok $((!$?)) "${w}: no 'no failure' incident was stored"

	# Named before the rank writes it: an error now, read when it appears.
	mkdir -p "$TMPD/later-$w"
	log="$TMPD/later-$w/rank3.log"
	start "$@"
	type_line "cd '$TMPD/later-$w'"
	run_rankline --db "$db" rank3.log
	wait_for "^ *rank3.log: No such file or directory; it is followed"
	ok $? "${w}: a missing file in a folder that exists is said to be followed"
	echo "$last_capture" | tail -1 | grep -q 'rank3.log: No such file'
	ok $? "${w}: the status line says it too"
	printf '%s\n' '[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered' >"$log"
	wait_for '^ *FIRST FAILURE +rank 3 +cuda'
	ok $? "${w}: the file is read when it appears, as tail -F does"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: and the console then exits 0"
	"$RANKLINE" history --db "$db" 2>/dev/null | grep -q 'cuda.* rank 3'
	ok $? "${w}: the incident read is stored"
done

"$RANKLINE" analyze --no-store "$TMPD/nowhere/x.log" >"$TMPD/out" 2>"$TMPD/err"
ok $(($? != 3)) "analyze of a missing path exits 3"
grep -q "nowhere/x.log: No such file or directory" "$TMPD/err"
ok $? "and names the path on stderr"

# --no-store writes nothing, but recalls: the header's history line and H.
db="$TMPD/recall.db"
"$RANKLINE" analyze --db "$db" "$CORPUS/killed-1" >/dev/null 2>&1
"$RANKLINE" note --db "$db" 1 "host OOM killed rank 0" >/dev/null
ok $? "a stored incident with a diagnosis"
for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	run_rankline --db "$db" --no-store --no-follow "$CORPUS/killed-2"
	wait_for '^ *SEEN 1x BEFORE.*diagnosis: host OOM killed'
	ok $? "${w}: --no-store still recalls the stored diagnosis"
	send H
	wait_for '^ *HISTORY +1 incident'
	ok $? "${w}: H lists the store's incidents"
	send n
	wait_for 'read only \(--no-store\)'
	ok $? "${w}: n says the store is read only"
	send Escape q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
	[ "$("$RANKLINE" history --db "$db" 2>/dev/null | grep -Ec '^ *[0-9]+ ')" -eq 1 ]
	ok $? "${w}: nothing was written to the store"
done

start 80 24
run_rankline --db "$TMPD/none.db" --no-store --no-follow "$CORPUS/code-1"
wait_for '^ *FIRST FAILURE.*rank 1'
send H
wait_for 'Nothing stored yet'
ok $? "--no-store with no store at all: H says nothing is stored"
[ ! -e "$TMPD/none.db" ]
ok $? "and no database was made"
send Escape q
quit_checks

done_testing
