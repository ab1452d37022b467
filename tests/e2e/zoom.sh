#!/bin/sh
# zoom.sh: the time axis of #25, each key checked by what the screen
# shows, at 80x24 and 200x50: + and = zoom in (the scale under the axis
# shrinks), - zooms out, { and } pan (the axis' first label moves), 0 shows
# the whole job again, f focuses on the seconds around the first failure,
# T goes to a time typed as HH:MM:SS, HH:MM:SS.mmm or an ISO date-time, and
# says so when it is not a time or not in the job; the activity row under
# the axis draws bars (blocks in UTF-8, . : | # under LANG=C); zooming in
# shows the checkpoint a failure hid in the same column; help lists the
# keys.
. "$(dirname "$0")/lib.sh"

# is EXPR: an awk condition over numbers, as the test's status.
is() {
	awk "BEGIN { exit !($1) }"
}

# scale: the ms one column holds, from the activity row ("1 col = 27 ms",
# "27 ms/col", "1 col = 2.5 s").
scale() {
	echo "$last_capture" | sed -n 's/^ *\(1 col = \)\{0,1\}\([0-9.]*\) \(ms\|s\|min\)\(\/col\)\{0,1\} *[|│].*/\2 \3/p' |
	    head -1 | awk '{ v = $1; if ($2 == "s") v *= 1000; if ($2 == "min") v *= 60000; print v }'
}

# first_label: the first time label on the axis line.
first_label() {
	echo "$last_capture" | grep -E '^ *RANK' | grep -Eo '[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{3})?' | head -1
}

# window_start: the time of the axis' first column, in ms of the day, from
# its first label, the label's column and what a column holds.
window_start() {
	echo "$last_capture" | grep -E '^ *RANK' | sed 's/^[^│|]*[│|]//' |
	    awk -v scale="$(scale)" '{
		if (!match($0, /[0-9][0-9]:[0-9][0-9]:[0-9][0-9]/)) exit 1
		split(substr($0, RSTART, 12), f, /[:.]/)
		ms = ((f[1] * 60 + f[2]) * 60 + f[3]) * 1000
		if (substr($0, RSTART + 8, 1) == ".") ms += substr($0, RSTART + 9, 3)
		printf "%d\n", ms - (RSTART - 1) * scale
	}'
}

# help_text: every page of the help view, one after the other.
help_text() {
	all=""
	for p in 1 2 3 4 5 6 7 8; do
		capture
		all="$all
$(capture)"
		send Space
		sleep 0.2
	done
	echo "$all"
}

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	run_rankline --no-store --no-follow "$CORPUS/multinode-1"
	wait_for '^ *FIRST FAILURE.*rank 4.* at 13:49:41'
	ok $? "${w}: multinode-1 is up"
	whole=$(scale)
	[ -n "$whole" ] && is "$whole > 0"
	ok $? "${w}: the activity row says what a column holds ($whole ms)"
	echo "$last_capture" | grep -E '^ *(1 col|[0-9.]+ [a-z]+/col)' | grep -q '[▁▂▃▄▅▆▇█]'
	ok $? "${w}: and draws the events per column as blocks"

	send +
	wait_until '[ "$(scale)" != "$whole" ]'
	half=$(scale)
	is "$half * 1.9 <= $whole && $half * 2.1 >= $whole"
	ok $? "${w}: + halves the time a column holds ($whole -> $half ms)"
	send =
	wait_until '[ "$(scale)" != "$half" ]'
	quarter=$(scale)
	is "$quarter < $half"
	ok $? "${w}: = zooms in too ($half -> $quarter ms)"
	send -
	wait_until '[ "$(scale)" = "$half" ]'
	ok $? "${w}: - zooms out ($quarter -> $(scale) ms)"

	a=$(window_start)
	send '{'
	wait_until '[ "$(window_start)" != "$a" ]'
	b=$(window_start)
	[ -n "$b" ] && is "$b < $a"
	ok $? "${w}: { pans back in time (the axis starts at $a -> $b ms)"
	send '}' '}'
	wait_until '[ "$(window_start)" != "$b" ]'
	c=$(window_start)
	[ -n "$c" ] && is "$c > $b"
	ok $? "${w}: } pans forward ($b -> $c ms)"

	send 0
	wait_until '[ "$(scale)" = "$whole" ]'
	ok $? "${w}: 0 shows the whole job again ($(scale) ms)"

	send f
	wait_until '[ "$(scale)" != "$whole" ]'
	ok $? "${w}: f zooms in ($(scale) ms a column)"
	echo "$last_capture" | grep -E '^ *RANK' | grep -q '13:49:4[01]'
	ok $? "${w}: to the seconds around the first failure (13:49:41)"
	echo "$last_capture" | grep -E '^ *▶' | grep -q '✖'
	ok $? "${w}: with its mark in view"

	send T
	wait_for 'go to time'
	ok $? "${w}: T asks a time in the status line"
	send -l '13:49:38.500'
	send Enter
	wait_until 'echo "$last_capture" | grep -E "^ *RANK" | grep -Eq "13:49:3[89]"'
	ok $? "${w}: T 13:49:38.500 goes there (the axis reads 13:49:38-39)"
	send T
	send -l '2026-12-02T13:49:40'
	send Enter
	wait_until 'echo "$last_capture" | grep -E "^ *RANK" | grep -Eq "13:49:(39|40)"'
	ok $? "${w}: T takes an ISO date-time"
	send T
	send -l '10:00:00'
	send Enter
	wait_for 'T: 10:00:00 is outside the job'
	ok $? "${w}: a time outside the job is said to be"
	send T
	send -l 'soon'
	send Enter
	wait_for 'T: not a time: soon'
	ok $? "${w}: a word is not a time"
	send T Escape
	wait_for 'no time given'
	ok $? "${w}: Esc leaves the prompt"

	send F1
	wait_for '^ *Keys'
	last_capture=$(help_text)
	for k in '\+ =' '-' '\{ S-Left' '\} S-Right' '0' 'T' 'z Tab' 'Z'; do
		echo "$last_capture" | grep -Eq "^ +$k +[a-z]"
		ok $? "${w}: help lists '$k'"
	done
	send q q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done

# Zooming parts marks that shared a column: a failure hides the checkpoint
# saved in its column until the window is narrow enough.
start 80 24
run_rankline --no-store --no-follow "$CORPUS/multinode-1"
wait_for '^ *FIRST FAILURE.*rank 4'
n0=$(echo "$last_capture" | grep -E '^ *[▶ ] +[0-9]+ ' | grep -o '◆' | wc -l)
send + + + + + +
sleep 0.5
wait_for '^ *RANK'
n1=$(echo "$last_capture" | grep -E '^ *[▶ ] +[0-9]+ ' | grep -o '◆' | wc -l)
[ "$n1" -gt "$n0" ]
ok $? "zooming in shows checkpoints a failure hid ($n0 -> $n1 saved marks)"
send q
wait_for 'RL_DONE rc=0'

# LANG=C: the activity row is drawn in ASCII.
start 80 24 LANG=C LC_ALL=C
run_rankline --no-store --no-follow "$CORPUS/multinode-1"
wait_for '^ *FIRST FAILURE.*rank 4'
row=$(echo "$last_capture" | grep -E '^ *(1 col|[0-9.]+ [a-z]+/col)' | sed 's/^[^|]*|//')
echo "$row" | grep -q '#' && ! echo "$row" | grep -q '[^ .:|#]'
ok $? "LANG=C: the activity row is . : | # only, its highest column #"
send q
quit_checks

done_testing
