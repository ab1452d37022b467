#!/bin/sh
# timeline.sh: the console names the first failure at 80x24 and 200x50,
# and q gives the terminal back as it was.
. "$(dirname "$0")/lib.sh"

start 80 24
run_rankline "$CORPUS/multinode-1"
wait_for '^ *FIRST FAILURE.*rank 4'
ok $? "80x24: the header names rank 4 as the first failure (multinode-1)"
echo "$last_capture" | head -1 | grep -q 'node1'
ok $? "80x24: the header names its host, node1"
echo "$last_capture" | grep -Eq 'checkpoint'
ok $? "80x24: the verdict line shows the checkpoint"
[ "$(echo "$last_capture" | wc -l)" -le 24 ] &&
    [ "$(echo "$last_capture" | LC_ALL=C.UTF-8 wc -L)" -le 80 ]
ok $? "80x24: nothing drawn past the screen"
send q
quit_checks

start 200 50
run_rankline "$CORPUS/code-1"
wait_for '^ *FIRST FAILURE.*rank 1'
ok $? "200x50: the header names rank 1 as the first failure (code-1)"
send q
quit_checks

done_testing
