#!/bin/sh
# history.sh: H opens the history at 80x24 with the stored incidents, newest
# first; / searches it; n and R write a diagnosis and a resolution on the
# selected incident, typed on the status line where q and Q are letters;
# `rankline show` reads them back, and analyze meets the diagnosis on
# another instance of the same failure; Esc goes back.  With --no-store, H
# still reads the history.
. "$(dirname "$0")/lib.sh"

db="$TMPD/h.db"
"$RANKLINE" analyze --db "$db" "$CORPUS/killed-1" >/dev/null 2>&1 &&
    "$RANKLINE" analyze --db "$db" "$CORPUS/hang-1" >/dev/null 2>&1
ok $? "two incidents stored by analyze"

start 80 24
run_rankline --db "$db" --no-follow "$CORPUS/code-1"
wait_for '^ *FIRST FAILURE.*rank 1'
ok $? "starts on code-1, which is stored too"

send H
wait_for '^ *HISTORY +3 incidents'
ok $? "H opens the history: three incidents"
# The detail under the list is drawn last: once it is there, all is.
wait_for 'none yet: n writes one'
ok $? "the selected incident has no diagnosis yet, and says how to write one"
echo "$last_capture" | sed -n '2,4p' | grep -n 'rank' | tr '\n' ' ' |
    grep -Eq '^1:.*#3 .*rank 1 .*2:.*#2 .*hang.*3:.*#1 '
ok $? "newest first: code-1, then the hang, then the kill"
[ "$(echo "$last_capture" | wc -l)" -le 24 ] &&
    [ "$(echo "$last_capture" | LC_ALL=C.UTF-8 wc -L)" -le 80 ]
ok $? "80x24: nothing drawn past the screen"

send j j
wait_for 'incident #1'
ok $? "j j selects the kill, #1"
send n
wait_for '^ *diagnosis: _'
ok $? "n asks for the diagnosis on the status line"
$T send-keys -t rl -l 'host OOM killed rank 0; q and Q are text'
send BSpace BSpace BSpace BSpace
wait_for 'diagnosis: host OOM killed rank 0; q and Q are _'
ok $? "every key is text while typing, and Backspace takes one back"
send Enter
wait_for 'diagnosis written on incident #1'
ok $? "Enter writes it"
echo "$last_capture" | grep -Eq '^ *diagnosis +host OOM killed rank 0; q and Q are$'
ok $? "the detail under the list shows it"
echo "$last_capture" | grep -Eq '^ *#1 .* n rank 0'
ok $? "the row is marked as noted"

send R
$T send-keys -t rl -l 'replaced the IB cable'
send Enter
wait_for '^ *resolution +replaced the IB cable'
ok $? "R writes the resolution"

send n
$T send-keys -t rl -l 'never written'
send Escape
wait_gone 'diagnosis: never'
echo "$last_capture" | grep -q '^ *HISTORY'
ok $? "Esc while typing drops the line and stays in the history"

send /
$T send-keys -t rl -l 'cable'
send Enter
wait_for 'HISTORY +1 incident matching "cable"'
ok $? "/ searches the notes too: one incident"
send /
send C-u Enter
wait_for 'HISTORY +3 incidents$'
ok $? "an empty search shows all again"

send Escape
wait_for '^ *FIRST FAILURE.*rank 1'
ok $? "Esc goes back to the timeline"
send q
quit_checks

"$RANKLINE" show --db "$db" 1 | grep -Eq 'diagnosis +host OOM killed rank 0; q and Q are$' &&
    "$RANKLINE" show --db "$db" 1 | grep -Eq 'resolution +replaced the IB cable'
ok $? "rankline show reads both notes back"
"$RANKLINE" analyze --db "$db" "$CORPUS/killed-2" 2>/dev/null |
    grep -q 'Diagnosis: host OOM killed rank 0'
ok $? "analyze meets the diagnosis on another instance of the failure"

start 80 24
run_rankline --db "$db" --no-store --no-follow "$CORPUS/code-1"
wait_for '^ *FIRST FAILURE.*rank 1'
send H
wait_for '^ *HISTORY +4 incidents'
ok $? "with --no-store, H still reads the history (#25: it only stops writing)"
send Escape
send q
wait_for 'RL_DONE rc=0'
ok $? "and the console still quits cleanly"

done_testing
