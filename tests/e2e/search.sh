#!/bin/sh
# search.sh: / and ? search every rank's lines (#25): smart case, n and N
# between hits in time order across ranks with "hit 3 of 41" in the status
# line, the selection on the hit's rank, hits marked on the timeline, a
# bad pattern said in the status line, LANG=C and NO_COLOR.  On
# multinode-1 (five ranks on two nodes) at 80x24 and 200x50.
. "$(dirname "$0")/lib.sh"

HIT=$(printf '\342\227\217')	# the hit mark

# The status line's hit: "hit K of N · TIME rank R (HOST) · SRC:LINE".
hit_k() { echo "$last_capture" | sed -n 's/.*hit \([0-9]*\) of [0-9]*.*/\1/p' | tail -1; }
hit_n() { echo "$last_capture" | sed -n 's/.*hit [0-9]* of \([0-9]*\).*/\1/p' | tail -1; }
hit_time() { echo "$last_capture" | sed -n 's/.*hit [0-9]* of [0-9]*[^0-9]*\([0-9:.]\{12\}\).*/\1/p' | tail -1; }
hit_rank() { echo "$last_capture" | sed -n 's/.*hit [0-9]* of [0-9]*.* \(rank [0-9]* ([a-z0-9]*)\).*/\1/p' | tail -1; }
pane_rank() { echo "$last_capture" | sed -n 's/^ \(rank [0-9]* ([a-z0-9]*)\) . .*events*$/\1/p' | head -1; }

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	open_logs "$CORPUS/multinode-1" '^ *FIRST FAILURE.*rank 4' --no-follow
	ok $? "${w}: multinode-1 opens on rank 4"

	send /
	wait_for '^ /_'
	ok $? "${w}: / opens the search line at the bottom"
	send -l 'traceback'
	send Enter
	wait_for 'hit [0-9]+ of [0-9]+'
	ok $? "${w}: a lower-case search finds hits: $(hit_k) of $(hit_n)"
	n_lower=$(hit_n)
	[ "$(hit_rank)" = "$(pane_rank)" ] && [ -n "$(hit_rank)" ]
	ok $? "${w}: the selection is on the hit's rank ($(hit_rank))"

	# n through every hit: times never go back, and the count wraps.
	k0=$(hit_k)
	prev=$(hit_time)
	mono=0 i=0 ranks= wrapped=1
	while [ $i -lt "$n_lower" ]; do
		send n
		want=$(( k0 % n_lower + 1 ))
		wait_for "hit $want of $n_lower" || break
		if [ "$want" -eq 1 ]; then
			echo "$last_capture" | grep -q "hit 1 of $n_lower (wrapped)"
			wrapped=$?
		fi
		t=$(hit_time)
		if [ "$want" -ne 1 ] && [ "$t" \< "$prev" ]; then
			mono=1
		fi
		ranks="$ranks$(hit_rank)
"
		prev=$t k0=$want i=$((i + 1))
	done
	[ $i -eq "$n_lower" ]
	ok $? "${w}: n steps through all $n_lower hits and wraps to hit 1"
	[ $mono -eq 0 ]
	ok $? "${w}: n goes forward in time across ranks"
	[ "$(echo "$ranks" | sort -u | grep -c rank)" -ge 3 ]
	ok $? "${w}: the hits are on several ranks"
	[ $wrapped -eq 0 ]
	ok $? "${w}: the status line says when n wrapped to hit 1"
	k=$(hit_k)
	send N
	wait_for "hit $(( (k + n_lower - 2) % n_lower + 1 )) of $n_lower"
	ok $? "${w}: N goes back one hit"

	search 'Traceback'
	wait_for 'hit [0-9]+ of [0-9]+ .*/Traceback'
	n_exact=$(hit_n)
	[ "$n_exact" -le "$n_lower" ] && [ "$n_exact" -gt 0 ]
	ok $? "${w}: a capital makes it exact ($n_exact of $n_lower)"
	search 'TRACEBACK'
	wait_for 'no hit for /TRACEBACK'
	ok $? "${w}: TRACEBACK matches nothing: case matters"
	echo "$last_capture" | grep -Eq '/TRACEBACK: 513 lines of 6 rows searched( |$)'
	ok $? "${w}: the status line says what was searched"

	# Progress and evidence lines are quiet cells: a hit there shows.
	search 'args: steps'
	wait_for 'hit [0-9] of 5 '
	ok $? "${w}: each rank's args line is a hit"
	# The rank rows, wherever the header's lines put them.
	[ "$(echo "$last_capture" | grep -E '^.? +[0-9]+ ' | grep -c "$HIT")" -ge 4 ]
	ok $? "${w}: hits are marked on the timeline's rows"
	echo "$last_capture" | grep -Eq '^ *▶ +4 .*FAILED.*✖'
	ok $? "${w}: the first failure's mark is still drawn"

	send ?
	wait_for '^ \?_'
	ok $? "${w}: ? opens the backward search line"
	send -l 'collective|gloo'
	send Enter
	wait_for 'hit [0-9]+ of [0-9]+ .*\?collective'
	t1=$(hit_time) k1=$(hit_k)
	send n
	wait_for "hit $(( k1 - 1 )) of|hit [0-9]+ of [0-9]+ \\(wrapped\\)"
	t2=$(hit_time)
	[ ! "$t1" \< "$t2" ]
	ok $? "${w}: after ?, n goes back in time ($t1, then $t2)"

	search '(oops'
	wait_for 'search: bad pattern at 6: missing closing parenthesis'
	ok $? "${w}: a bad pattern is said in the status line"
	wait_for '^ *FIRST FAILURE.*rank 4'
	ok $? "${w}: and the console goes on"

	send /
	send -l 'xyz'
	send Escape
	wait_gone '^ /xyz'
	echo "$last_capture" | grep -q 'no hit for /xyz'
	ok $((!$?)) "${w}: Esc cancels a search line"

	send q
	quit_checks
done

# Following: a line written after the search is searched too.
follow_copy code-1 80 24 '^ *FIRST FAILURE.*rank 1'
search 'zebra'
wait_for 'no hit for /zebra'
ok $? "live: /zebra finds nothing yet"
echo '[default1]:RuntimeError: zebra crossing at step 9' >>"$logs/console.log"
wait_for 'following .*(new line|idle)'
next_until 'hit 1 of 1' 20
echo "$last_capture" | grep -q 'hit 1 of 1 .* rank 1 .*console.log:'
ok $? "live: the new line is a hit, on rank 1"
send q
wait_for 'RL_DONE rc=0'
ok $? "live: q quits"

# LANG=C: the hit mark in ASCII, and the same search.
start 80 24 LANG=C NO_COLOR=1
open_logs "$CORPUS/multinode-1" '^ *FIRST FAILURE.*rank 4' --no-follow
search 'args: steps'
wait_for 'hit 1 of 5( \(wrapped\))? - '
ok $? "LANG=C NO_COLOR: the search finds the five ranks' args lines"
echo "$last_capture" | grep -E '^.? +[0-9]+ ' | grep -q '[*]'
ok $? "LANG=C: hits are marked with * on the rows"
! echo "$last_capture" | grep -q "$HIT"
ok $? "LANG=C: no UTF-8 hit mark"
send q
wait_for 'RL_DONE rc=0'
ok $? "LANG=C: q quits"

done_testing
