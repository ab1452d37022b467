#!/bin/sh
# tee.sh: a line torchrun --tee wrote to a rank's own log and to the
# launcher's log is listed once (#25), and its detail names both places.
. "$(dirname "$0")/lib.sh"

# Pairs of event lines of the pane ("glyph time source:line message")
# with the same time and the same message, from different files;
# lines cut short (…) are not compared.
dups() {
	echo "$last_capture" | grep -E '^. [0-9]{2}:[0-9]{2}:[0-9.]+ ' |
	    grep -v '…$' |
	    awk '{ k = $2; for (i = 4; i <= NF; i++) k = k " " $i; n[k]++ }
	    END { d = 0; for (k in n) if (n[k] > 1) d++; print d }'
}

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	run_rankline --no-store --no-follow "$CORPUS/multinode-1"
	wait_for '^ *rank 4 \(node1\) . FAILED . [0-9]+ events'
	ok $? "${w}: multinode-1 selects rank 4 on node1"
	echo "$last_capture" | grep -Eq 'stderr\.log:[0-9]+ +RuntimeError'
	ok $? "${w}: the failure is listed from the rank's stderr.log"
	[ "$(dups)" -eq 0 ]
	ok $? "${w}: no line is listed twice at the same time with the same text"
	[ "$w" -lt 200 ] || [ "$(echo "$last_capture" | grep -Ec '^. [0-9]{2}:.*[^…]$')" -ge 10 ]
	ok $? "${w}: enough whole lines to compare"
	send Enter
	wait_for '^ *FIRST FAILURE +EVENT'
	ok $? "${w}: Enter opens the first failure"
	wait_for '^ *also in +/'
	echo "$last_capture" | tr -d '\n ' | grep -Eq 'alsoin/[^(]*torchrun\.log:[0-9]+\(acopy'
	ok $? "${w}: its detail names the launcher's copy too"
	echo "$last_capture" | tr -d '\n ' | grep -Eq 'source/[^(]*stderr\.log:[0-9]+\(byte'
	ok $? "${w}: and its own place"
	send Escape q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

done_testing
