#!/bin/sh
# hostile.sh: a log line carrying terminal escapes (set the title with
# ESC ] 0 ; ... BEL, clear the screen with ESC [ 2 J) is drawn as text,
# never sent to the terminal raw, in the timeline and in the detail view.
. "$(dirname "$0")/lib.sh"

logs=$TMPD/hostile
cp -R "$CORPUS/code-1" "$logs"
esc=$(printf '\033')
bel=$(printf '\007')
# A new line after the root error, so the diagnosis itself is unchanged.
sed "56a\\
[default1]:RuntimeError: ${esc}]0;PWNED${bel} hostile ${esc}[2J HOSTILE-MARK" \
    "$CORPUS/code-1/console.log" >"$logs/console.log"
grep -q HOSTILE-MARK "$logs/console.log"
ok $? "the hostile log is in place"

start 200 50
title=$(pane_var pane_title)
run_rankline "$logs"
wait_for '^ *FIRST FAILURE.*rank 1'
ok $? "the header names rank 1"
wait_for 'HOSTILE-MARK'
ok $? "the hostile line is drawn as text in the timeline"
[ "$(pane_var pane_title)" = "$title" ]
ok $? "the pane title was not set by the log line"
wait_for '^ *FIRST FAILURE.*rank 1'
ok $? "the screen was not cleared by the log line"

send f
send Enter
wait_for 'EVENT [0-9]+ of [0-9]+ on rank 1'
ok $? "the detail view of the first failure opens"
send Enter
wait_for 'HOSTILE-MARK'
ok $? "the raw log context shows the hostile line as text"
[ "$(pane_var pane_title)" = "$title" ]
ok $? "the pane title is still untouched"
wait_for 'EVENT [0-9]+ of [0-9]+ on rank 1'
ok $? "the detail title is still on screen"

send Escape
send q
quit_checks

done_testing
