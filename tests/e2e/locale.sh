#!/bin/sh
# locale.sh: LANG=C draws ASCII only; NO_COLOR draws no colour but the
# first failure still stands out.
. "$(dirname "$0")/lib.sh"

high=$(printf '[\200-\377]')

start 80 24 LANG=C LC_ALL=C
run_rankline "$CORPUS/multinode-1"
wait_for '^ *FIRST FAILURE.*rank 4'
ok $? "LANG=C: the header names rank 4"
! echo "$last_capture" | LC_ALL=C grep -q "$high"
ok $? "LANG=C: no byte >= 0x80 on the screen"
send j
send k
wait_for '^ *FIRST FAILURE.*rank 4'
ok $? "LANG=C: still drawing after keys"
send q
quit_checks

start 80 24 NO_COLOR=1
run_rankline "$CORPUS/multinode-1"
wait_for '^ *FIRST FAILURE.*rank 4'
ok $? "NO_COLOR: the header names rank 4"
esc=$(printf '\033')
colour="$esc\\[([0-9]*;)*(3[0-7]|4[0-7]|9[0-7]|10[0-7]|38|48)[;m]"
! capture -e | grep -Eq "$colour"
ok $? "NO_COLOR: no colour on the screen"
capture -e | head -1 | grep -Eq "$esc\\[([0-9]*;)*(1|7)[;m]"
ok $? "NO_COLOR: the first failure line is bold or reverse"
send q
quit_checks

done_testing
