#!/bin/sh
# merged.sh: the merged log (#25): L lists every rank's lines in time order
# around the selected line, rank and host in a gutter, < and > scroll the
# lines sideways, Enter opens the detail, and Enter on a diagnosis
# evidence line (file:line) goes to that line here.  multinode-1 at 80x24
# and 200x50, and LANG=C.
. "$(dirname "$0")/lib.sh"

# The times of the merged log's lines on screen, one a line.
line_times() {
	echo "$last_capture" | sed -n '3,$p' | sed -nE 's/^[^:]* ([0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}) .*/\1/p'
}
# The selected line's source:line and position, from the status line.
where() {
	echo "$last_capture" | tail -1 | sed -nE 's/.* ([^ ]+:[0-9]+) . line ([0-9]+)\/[0-9]+ *$/\1 \2/p'
}

for size in "80 24" "200 50"; do
	set -- $size
	w=$1 h=$2
	start "$@"
	run_rankline --no-store --no-follow "$CORPUS/multinode-1"
	wait_for '^ *FIRST FAILURE.*rank 4'
	ok $? "${w}: multinode-1 opens on rank 4"

	send L
	wait_for '^ MERGED LOG  115 lines of 6 rows, in time order'
	ok $? "${w}: L opens the merged log of every row's lines"
	set -- $(where)
	[ "$1" = "2/stderr.log:15" ]
	ok $? "${w}: around the selected line, the first failure ($1)"
	at=$2
	[ "$(line_times | wc -l)" -ge $((h - 4)) ]
	ok $? "${w}: the screen is full of lines ($(line_times | wc -l))"
	line_times | sort -c
	ok $? "${w}: in time order"
	echo "$last_capture" | grep -Eq '^ +[0-4] node0 ' &&
	    echo "$last_capture" | grep -Eq '^ +[0-4] node1 '
	ok $? "${w}: the gutter names the rank and the host, of both nodes"
	echo "$last_capture" | grep -Eq "2/stderr.log:15 +RuntimeError: shape"
	ok $? "${w}: the whole line follows the gutter"

	send j
	wait_for "line $((at + 1))/115"
	ok $? "${w}: j selects the next line"
	send k
	wait_for "line $at/115"
	ok $? "${w}: k the one before"
	send G
	wait_for 'line 115/115'
	ok $? "${w}: G the last"
	send g
	wait_for 'line 1/115'
	ok $? "${w}: g the first"

	send :
	send -l 'goto 2/stderr.log:15'
	send Enter
	wait_for "2/stderr.log:15 . line $at/115"
	ok $? "${w}: :goto works in the merged log too"
	send '>'
	wait_for 'in time order \(scrolled right\)'
	ok $? "${w}: > scrolls the lines to the right"
	echo "$last_capture" | grep -Eq "2/stderr.log:15 +ape '\[-1, 11\]'" &&
	    ! echo "$last_capture" | grep -q "RuntimeError: shape"
	ok $? "${w}: the line's first 16 columns are scrolled away"
	echo "$last_capture" | grep -Eq '^ +4 node1 '
	ok $? "${w}: the gutter stays"
	send '<'
	wait_gone 'scrolled right'
	echo "$last_capture" | grep -Eq "2/stderr.log:15 +RuntimeError: shape"
	ok $? "${w}: < scrolls back"

	send /
	send -l 'gloo'
	send Enter
	wait_for 'hit [0-9]+ of [0-9]+'
	ok $? "${w}: / searches from the merged log"
	# k and j clear the message, so the status line says where we are.
	send k j
	wait_gone 'hit [0-9]+ of'
	set -- $(where)
	[ "$2" -gt "$at" ]
	ok $? "${w}: and n's first hit is after the selected line ($2 > $at)"

	send Enter
	wait_for 'EVENT [0-9]+ of [0-9]+ on rank [0-9]'
	ok $? "${w}: Enter opens the selected line's detail"
	send Escape
	wait_for 'MERGED LOG'
	ok $? "${w}: Esc goes back to the merged log"
	send Escape
	wait_for '^ *FIRST FAILURE.*rank 4'
	ok $? "${w}: and Esc again to the timeline"

	# The diagnosis: Enter goes to the evidence line marked on screen.
	send d
	wait_for '^ DIAGNOSIS'
	target=$(echo "$last_capture" | sed -nE 's/^(▸|>) +([^ ]+:[0-9]+): .*/\2/p' | head -1)
	[ -n "$target" ]
	ok $? "${w}: the diagnosis points at an evidence line ($target)"
	send Enter
	wait_for 'MERGED LOG'
	set -- $(where)
	[ "$1" = "$target" ]
	ok $? "${w}: Enter shows it in the merged log ($1)"
	send Escape
	wait_for '^ DIAGNOSIS'
	i=0
	while [ $i -lt 30 ]; do
		send j
		i=$((i + 1))
		wait_until '[ -n "$(echo "$last_capture" | sed -nE "s/^(▸|>) +([^ ]+:[0-9]+): .*rank 0 is collateral.*/\\2/p")" ]' 1 && break
	done
	target=$(echo "$last_capture" | sed -nE 's/^(▸|>) +([^ ]+:[0-9]+): .*/\2/p' | head -1)
	echo "$target" | grep -q '/0/stderr.log:13$'
	ok $? "${w}: j moves the pointer to rank 0's collateral line ($target)"
	send Enter
	wait_for 'MERGED LOG'
	set -- $(where)
	[ "$1" = "$target" ]
	ok $? "${w}: Enter goes to that line ($1)"
	echo "$last_capture" | grep -Eq '^ +0 node0 .*RuntimeError: \[./gloo'
	ok $? "${w}: rank 0's line is on screen"
	send Escape Escape
	wait_for '^ *FIRST FAILURE.*rank 4'

	send q
	quit_checks
done

start 80 24 LANG=C
run_rankline --no-store --no-follow "$CORPUS/multinode-1"
wait_for '^ *FIRST FAILURE.*rank 4'
send L
wait_for '^ MERGED LOG  115 lines'
ok $? "LANG=C: L opens the merged log"
! capture | LC_ALL=C grep -q "$(printf '[\200-\377]')"
ok $? "LANG=C: no byte >= 0x80 on the screen"
send q q
wait_for 'RL_DONE rc=0'
ok $? "LANG=C: q q quits"

done_testing
