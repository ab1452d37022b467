#!/bin/sh
# filter.sh: the command line (:) and its filters and jumps (#25): by rank
# set, host, signature, failures only and progress hidden, each said in
# the header, with the header's first failure kept when a filter hides its
# rank; Esc cancels, Backspace edits; :rank, :goto and :line jump; bad
# commands are said in the status line.  multinode-1 at 80x24 and 200x50.
. "$(dirname "$0")/lib.sh"

# The rank numbers of the timeline's rows on screen, "0 1 2 3 4 ?".
ranks() {
	echo "$last_capture" | sed -nE 's/^[^0-9?]*([0-9]+|\?) +(node[0-9]+ +)?(ok|FAILED|failed|collat|HUNG|exited|errors) *(│|\|).*/\1/p' | tr '\n' ' ' | sed 's/ $//'
}
# The glyphs of the event list's lines.
glyphs() {
	echo "$last_capture" | sed -nE 's/^([^ ]+) [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} .*/\1/p' | sort -u | tr '\n' ' '
}
# The selected line's source:line, as the merged log's status line says.
selected() {
	send L
	wait_for 'MERGED LOG' || return
	echo "$last_capture" | tail -1 | sed -nE 's/.* ([^ ]+:[0-9]+) . line [0-9]+\/[0-9]+ *$/\1/p'
	send Escape
	wait_for '^ *FIRST FAILURE'
}

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	open_logs "$CORPUS/multinode-1" '^ *FIRST FAILURE.*rank 4' --no-follow
	ok $? "${w}: multinode-1 opens on rank 4"
	[ "$(ranks)" = "0 1 2 3 4 ?" ]
	ok $? "${w}: six rows before any filter ($(ranks))"

	send :
	wait_for '^ :_'
	ok $? "${w}: : opens the command line at the bottom"
	send -l 'ranks 0,3-4'
	send Enter
	wait_for 'filter: ranks 0,3-4 \(3 rows'
	ok $? "${w}: :ranks 0,3-4 is said in the status line"
	[ "$(ranks)" = "0 3 4" ]
	ok $? "${w}: and only ranks 0, 3 and 4 are drawn ($(ranks))"
	echo "$last_capture" | sed -n 2p | grep -q 'filter: ranks 0,3-4'
	ok $? "${w}: the header says the view is filtered"

	cmdline 'ranks 0-1'
	wait_for 'filter: ranks 0-1 \(2 rows'
	[ "$(ranks)" = "0 1" ]
	ok $? "${w}: :ranks 0-1 hides the first failure's rank"
	echo "$last_capture" | grep -q '^ *FIRST FAILURE rank 4 (node1)'
	ok $? "${w}: the header still names rank 4 first"

	cmdline 'clear'
	wait_for 'no filter: every row and line shown'
	[ "$(ranks)" = "0 1 2 3 4 ?" ]
	ok $? "${w}: :clear shows every row again"
	echo "$last_capture" | sed -n 2p | grep -q 'filter:'
	ok $((!$?)) "${w}: and the header no longer says filter"

	cmdline 'host node0'
	wait_for 'filter: host node0'
	[ "$(ranks)" = "0 1" ]
	ok $? "${w}: :host node0 keeps node0's ranks ($(ranks))"

	cmdline 'clear'
	cmdline 'sig torch.gloo'
	wait_for 'filter: sig torch.gloo'
	[ "$(ranks)" = "0 1 2 3" ]
	ok $? "${w}: :sig torch.gloo keeps the ranks with that family ($(ranks))"
	[ "$(glyphs)" = "▲ " ]
	ok $? "${w}: and lists only its lines ($(glyphs))"

	cmdline 'clear'
	cmdline 'failures'
	wait_for 'filter: failures'
	echo "$(glyphs)" | grep -Eq '×|▲|✖'
	g1=$?
	echo "$(glyphs)" | grep -Eq '·|◆|◇|∘'
	g2=$?
	[ $g1 -eq 0 ] && [ $g2 -ne 0 ]
	ok $? "${w}: :failures lists failing lines only ($(glyphs))"

	cmdline 'clear'
	cmdline 'progress off'
	wait_for 'filter: no progress'
	echo "$(glyphs)" | grep -Eq '·|◆|◇'
	g1=$?
	echo "$(glyphs)" | grep -Eq '∘|×'
	[ $g1 -ne 0 ] && [ $? -eq 0 ]
	ok $? "${w}: :progress off hides progress lines, not others ($(glyphs))"

	cmdline 'clear'
	cmdline 'ranks 3,5-7'
	cmdline 'failures'
	wait_for 'filter: ranks 3,5-7 . failures'
	echo "$last_capture" | sed -n 2p | grep -q 'filter: ranks 3,5-7 . failures'
	ok $? "${w}: two filters are said together in the header"
	[ "$(ranks)" = "3" ]
	ok $? "${w}: and only rank 3 is left ($(ranks))"

	cmdline 'ranks 99'
	wait_for 'no row passes the filter \(:clear shows all\)'
	ok $? "${w}: a filter that leaves no row says so where the rows were"
	send j k ']' Enter L
	wait_for 'no line passes the filter'
	ok $? "${w}: keys on no row do no harm; the merged log says so too"
	send Escape
	wait_for '^ *FIRST FAILURE rank 4'
	ok $? "${w}: and the header still names the first failure"

	cmdline 'ranks 7-5'
	wait_for 'rank range 7-5 runs backwards'
	ok $? "${w}: a backwards range is refused"
	cmdline 'bogus'
	wait_for "unknown command 'bogus'"
	ok $? "${w}: an unknown command is named"

	cmdline 'clear'
	send :
	send -l 'ranks 1'
	send Escape
	wait_gone '^ :ranks 1'
	[ "$(ranks)" = "0 1 2 3 4 ?" ]
	ok $? "${w}: Esc cancels the command line"
	send :
	send -l 'ranks 13'
	send BSpace
	wait_for '^ :ranks 1_'
	ok $? "${w}: Backspace takes one character back"
	send Enter
	wait_for 'filter: rank 1 \(1 row'
	[ "$(ranks)" = "1" ]
	ok $? "${w}: and the edited line runs (rank 1)"

	cmdline 'clear'
	cmdline 'rank 2'
	wait_for '^ rank 2 \(node1\) . collat'
	ok $? "${w}: :rank 2 selects rank 2"
	cmdline 'goto node1/torchrun.log:152'
	wait_for '^ rank 4 \(node1\) . FAILED'
	ok $? "${w}: :goto node1/torchrun.log:152 goes to rank 4's row"
	[ "$(selected)" = "node1/torchrun.log:152" ]
	ok $? "${w}: and selects that line"
	cmdline 'line 151'
	[ "$(selected)" = "node1/torchrun.log:151" ]
	ok $? "${w}: :line 151 selects line 151 of the same file"
	cmdline 'goto nosuch.log:3'
	wait_for 'goto: no source ends with nosuch.log'
	ok $? "${w}: a file that is not read is said"

	send q
	quit_checks
done

done_testing
