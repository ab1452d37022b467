#!/bin/sh
# keys.sh: j/k move the selection, Enter opens the event and Esc closes
# it, F1 opens the help (? searches backwards on the timeline).
. "$(dirname "$0")/lib.sh"

start 80 24
run_rankline "$CORPUS/code-1"
wait_for '^ *FIRST FAILURE.*rank 1'
ok $? "starts on code-1"
wait_for '^ rank 1( |$)'
ok $? "the event list is of the first failure's rank"

send k
wait_for '^ rank 0( |$)'
ok $? "k selects rank 0"
send j
wait_for '^ rank 1( |$)'
ok $? "j selects rank 1 again"
send Down
wait_for '^ rank 2( |$)'
ok $? "Down selects rank 2"
send Home
wait_for '^ rank 0( |$)'
ok $? "Home selects rank 0"
send f
wait_for '^ rank 1( |$)'
ok $? "f goes back to the first failure"

send Enter
wait_for 'EVENT [0-9]+ of [0-9]+ on rank 1'
ok $? "Enter opens the selected event"
wait_for '^ *source +[^ ]' &&
    echo "$last_capture" | tr -d '\n' | grep -Eq 'console\.log:[0-9]+'
ok $? "the detail names the source file and line"
send Escape
wait_for '^ rank 1( |$)'
ok $? "Esc goes back to the timeline"

send F1
wait_for 'Keys'
ok $? "F1 opens the help"
send Escape
wait_for '^ *FIRST FAILURE.*rank 1'
ok $? "Esc closes the help"

send q
quit_checks

done_testing
