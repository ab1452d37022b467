#!/bin/sh
# lines-keys.sh: the keys that work the selected line (#25): m marks it and
# ' lists the marks and goes to one, ] and [ go to the next and previous
# failing line across ranks in time order, | pipes the line to a shell
# command (on its stdin only, never on its command line, made safe for the
# terminal), y copies it with OSC 52 (and says when TERM cannot).  On
# multinode-1 and on code-1 with a hostile line, at 80x24 and 200x50.
. "$(dirname "$0")/lib.sh"

logs=$TMPD/hostile
cp -R "$CORPUS/code-1" "$logs"
# A failing line that would run commands if it reached a shell's command
# line, and would clear the screen and set the clipboard if sent raw.
hostile=$(printf '[default1]:RuntimeError: $(touch %s/pwned) `touch %s/pwned2` \033]52;c;cHduZWQ=\007 \033[2J HOSTILE-PIPE' "$TMPD" "$TMPD")
sed "56a\\
$hostile" "$CORPUS/code-1/console.log" >"$logs/console.log"
grep -q 'HOSTILE-PIPE' "$logs/console.log"
ok $? "the hostile log is in place"

# failing K: the K of "failing line K of N" in the status line.
failing_k() { echo "$last_capture" | sed -nE 's/.*failing line ([0-9]+) of [0-9]+.*/\1/p' | tail -1; }
failing_n() { echo "$last_capture" | sed -nE 's/.*failing line [0-9]+ of ([0-9]+).*/\1/p' | tail -1; }
failing_time() { echo "$last_capture" | sed -nE 's/.*failing line [0-9]+ of [0-9]+ . ([0-9:.]{12}) .*/\1/p' | tail -1; }

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	run_rankline --no-store --no-follow "$CORPUS/multinode-1"
	wait_for '^ *FIRST FAILURE.*rank 4'
	ok $? "${w}: multinode-1 opens on rank 4"

	# ] from the first line: every failing line, forward in time (the
	# first line may be one: then ] goes to the second).
	send L
	wait_for 'MERGED LOG'
	send g
	wait_for 'line 1/115'
	send ']'
	wait_for 'failing line [12] of [0-9]+'
	ok $? "${w}: ] goes to the first failing line after the first line"
	n=$(failing_n) prev=$(failing_time) k=$(failing_k) mono=0
	while [ "$k" -lt "$n" ]; do
		send ']'
		wait_for "failing line $((k + 1)) of $n" || break
		[ "$(failing_time)" \< "$prev" ] && mono=1
		prev=$(failing_time) k=$((k + 1))
	done
	[ "$k" -eq "$n" ] && [ "$n" -ge 10 ]
	ok $? "${w}: ] steps through all $n failing lines"
	[ $mono -eq 0 ]
	ok $? "${w}: forward in time, across ranks"
	send ']'
	wait_for 'no later failing line'
	ok $? "${w}: and says when there is no later one"
	send '['
	wait_for "failing line $((n - 1)) of $n"
	ok $? "${w}: [ goes back one"
	send Escape
	wait_for '^ *FIRST FAILURE.*rank 4'

	# Marks: m on two lines, ' lists them, Enter goes to one.
	send f m
	wait_for 'marked: 1 mark '
	ok $? "${w}: m marks the selected line"
	send k
	wait_for '^ rank 3 \(node1\)'
	send m
	wait_for 'marked: 2 marks'
	ok $? "${w}: m on rank 3's line makes two"
	send "'"
	wait_for '^ MARKS  2 marked lines'
	ok $? "${w}: ' lists the marks"
	echo "$last_capture" | grep -q "rank 4 (node1)  2/stderr.log:15  RuntimeError: shape" &&
	    echo "$last_capture" | grep -q "rank 3 (node1)"
	ok $? "${w}: with their rank, place and message"
	# Each Enter is waited out (the list gone) before the pane is read:
	# under load the frame before the keys still shows a rank's line.
	send g Enter
	wait_gone '^ MARKS  2 marked lines'
	wait_for '^ *FIRST FAILURE.*rank 4'
	wait_for '^ rank [34] \(node1\)'
	first=$(echo "$last_capture" | sed -nE 's/^ (rank [34]) \(node1\).*/\1/p')
	send "'"
	wait_for '^ MARKS  2 marked lines'
	send G Enter
	wait_gone '^ MARKS  2 marked lines'
	wait_for '^ *FIRST FAILURE.*rank 4'
	wait_for '^ rank [34] \(node1\)'
	second=$(echo "$last_capture" | sed -nE 's/^ (rank [34]) \(node1\).*/\1/p')
	[ -n "$first" ] && [ -n "$second" ] && [ "$first" != "$second" ]
	ok $? "${w}: Enter goes to the chosen mark ($first, then $second)"
	send "'" m
	wait_for '^ MARKS  1 marked line,'
	ok $? "${w}: m in the list takes a mark away"
	send Escape
	wait_for '^ *FIRST FAILURE'
	send L
	wait_for 'MERGED LOG'
	[ "$(echo "$last_capture" | grep -c "^'")" -eq 1 ]
	ok $? "${w}: the merged log shows the marked line"
	send Escape
	send q
	wait_for 'RL_DONE rc=0'

	# | and y on the hostile line.
	start "$@"
	$T set -g set-clipboard on
	run_rankline --no-store --no-follow "$logs"
	wait_for '^ *FIRST FAILURE.*rank 1'
	send :
	send -l 'goto console.log:57'
	send Enter
	send L
	wait_for 'console.log:57 . line'
	ok $? "${w}: the hostile line is selected"
	send Escape
	send '|'
	wait_for '^ \| shell command \(the line goes to its stdin\): _'
	ok $? "${w}: | asks for a command at the bottom"
	send -l "cat > $TMPD/piped$w; echo PIPE-RAN"
	send Enter
	wait_for '^PIPE-RAN'
	ok $? "${w}: the command runs with the console put away"
	wait_for '\[rankline: exit 0; Enter goes back\]'
	ok $? "${w}: and its exit is said until Enter"
	send Enter
	wait_for 'piped [0-9]+ bytes; the command exited 0'
	ok $? "${w}: Enter goes back to the console, which says what ran"
	wait_for '^ *FIRST FAILURE.*rank 1'
	ok $? "${w}: the screen is drawn again"
	grep -q 'HOSTILE-PIPE' "$TMPD/piped$w" &&
	    grep -qF '$(touch' "$TMPD/piped$w"
	ok $? "${w}: the line reached the command's stdin, as text"
	[ ! -e "$TMPD/pwned" ] && [ ! -e "$TMPD/pwned2" ]
	ok $? "${w}: nothing in the line was run"
	! grep -q "$(printf '\033')" "$TMPD/piped$w"
	ok $? "${w}: no escape byte reached the command"
	[ "$(wc -l <"$TMPD/piped$w")" -eq 1 ]
	ok $? "${w}: one line, with its newline"

	$T delete-buffer >/dev/null 2>&1
	send y
	wait_for 'copied [0-9]+ bytes \(OSC 52\)'
	ok $? "${w}: y says it copied"
	wait_until '$T show-buffer 2>/dev/null | grep -q HOSTILE-PIPE'
	ok $? "${w}: the terminal's clipboard holds the line"
	! $T show-buffer | grep -q "$(printf '\033')" &&
	    ! $T show-buffer | grep -q 'cHduZWQ=.*pwned'
	ok $? "${w}: sanitized: no escape byte in it"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

start 80 24 TERM=linux
run_rankline --no-store --no-follow "$CORPUS/multinode-1"
wait_for 'FIRST FAILURE'
send y
wait_for 'not copied: TERM=linux cannot take OSC 52'
ok $? "TERM=linux: y says the terminal cannot take it"
send q
wait_for 'RL_DONE rc=0'
ok $? "TERM=linux: q quits"

done_testing
