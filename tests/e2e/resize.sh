#!/bin/sh
# resize.sh: the console follows resizes, says when the terminal is too
# small, and comes back when it grows again.
. "$(dirname "$0")/lib.sh"

start 80 24
run_rankline "$CORPUS/multinode-1"
wait_for '^ *FIRST FAILURE.*rank 4'
ok $? "starts at 80x24"

$T resize-window -t rl -x 200 -y 50
wait_until 'echo "$last_capture" | grep -Eq "^ *FIRST FAILURE.*rank 4" &&
    [ "$(echo "$last_capture" | LC_ALL=C.UTF-8 wc -L)" -gt 150 ] &&
    [ "$(echo "$last_capture" | wc -l)" -gt 40 ]'
ok $? "redraws at 200x50, using the whole screen"

$T resize-window -t rl -x 30 -y 8
wait_for 'terminal too small'
ok $? "says the terminal is too small at 30x8"

$T resize-window -t rl -x 40 -y 10
wait_for '^ *FIRST FAILURE'
ok $? "draws again at the 40x10 minimum"

$T resize-window -t rl -x 120 -y 40
wait_for '^ *FIRST FAILURE.*rank 4'
ok $? "redraws at 120x40"
i=0
while [ $i -lt 10 ]; do
	$T resize-window -t rl -x $((60 + i * 17)) -y $((12 + i * 3))
	i=$((i + 1))
done
$T resize-window -t rl -x 80 -y 24
wait_for '^ *FIRST FAILURE.*rank 4'
ok $? "survives a burst of resizes"
send q
quit_checks

done_testing
