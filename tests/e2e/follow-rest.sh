#!/bin/sh
# follow-rest.sh: a followed file not written for a while rests (its
# reading keeps only the bytes its failure's window has, ingest_rest), and
# reads on when it grows: the lines written after the failure, once the
# file had rested, are in the failure's context in the detail view, as
# they are in a report of the same file read once.  At 80x24 and 200x50.
. "$(dirname "$0")/lib.sh"

D='2026-12-02 13:00:'
logs=$TMPD/logs

# job: two ranks; rank 1's last lines are its failure, written an hour ago.
job() {
	rm -rf "$logs"
	mkdir -p "$logs"
	for r in 0 1; do
		for s in 10 11 12 13; do
			printf '%s%s,000 INFO rank %s step %s\n' "$D" "$s" "$r" \
			    "$s"
		done >"$logs/rank$r.log"
	done
	printf '%s14,000 ERROR rank 1 Traceback (most recent call last):\n  File "train.py", line 10, in <module>\nRuntimeError: CUDA error: an illegal memory access was encountered\n' \
	    "$D" >>"$logs/rank1.log"
	touch -d '1 hour ago' "$logs/rank0.log" "$logs/rank1.log"
}

for size in "80 24" "200 50"; do
	job
	start $size
	run_rankline --no-store "$logs"
	wait_for '^ *FIRST FAILURE.*rank 1'
	ok $? "$size: the failure an hour old is named"
	# The file rests at its first read, an hour quiet; then it grows.
	sleep 1
	printf 'AFTER-REST-ONE\nAFTER-REST-TWO\n' >>"$logs/rank1.log"
	wait_for 'following 2 files'
	send f
	send Enter
	wait_for 'EVENT [0-9]+ of [0-9]+ on rank 1'
	ok $? "$size: the detail view of the failure opens"
	# The context is below the fold of a small screen: scrolled to.
	_i=0
	until wait_for 'AFTER-REST-TWO' 1 || [ $_i -ge 60 ]; do
		send j
		_i=$((_i + 1))
	done
	wait_for 'AFTER-REST-TWO'
	ok $? "$size: the lines written after the file rested are in its context"
	"$RANKLINE" report --format md "$logs" 2>/dev/null |
	    grep -q 'AFTER-REST-TWO'
	ok $? "$size: as in a report of the file read once"
	send Escape
	send q
	quit_checks
done

done_testing
