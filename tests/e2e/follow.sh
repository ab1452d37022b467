#!/bin/sh
# follow.sh: the console follows its sources by default.  A failure
# appended to a rank's file, and a new rank's file in the watched folder,
# change the header while it runs; p pauses the screen (lines are still
# read) and resumes; a --cmd source (a shell loop printing pdsh-style
# `node07: ...` lines) and a piped standard input update it live; the
# incident is stored with its final diagnosis when the console ends, by q
# or by two SIGTERMs, and the terminal is left sane.  Every wait polls.
. "$(dirname "$0")/lib.sh"

D='2026-12-02 13:00:0'
logs=$TMPD/logs
db=$TMPD/follow.db
mkdir -p "$logs"
for r in 0 1; do
	printf '%s1,000 INFO step 1\n%s2,000 INFO step 2\n' "$D" "$D" \
	    >"$logs/rank$r.log"
done

# history_has ERE: the stored incidents (newest first) match ERE.
history_has() {
	"$RANKLINE" history --db "$db" 2>&1 | head -1 | grep -Eq -- "$1"
}

# rankline_pid: the console's pid, a child of the pane's shell.
rankline_pid() {
	ps -o pid=,comm= --ppid "$(pane_var pane_pid)" |
	    awk '$2 == "rankline" { print $1; exit }'
}

start 80 24
run_rankline --db "$db" "$logs"
wait_for '^ *No failure found'
ok $? "80x24: a healthy folder, no failure yet"
wait_for 'following 2 files'
ok $? "the status line says two files are followed"

printf '%s5,000 ERROR RuntimeError: CUDA error: an illegal memory access was encountered\n' \
    "$D" >>"$logs/rank1.log"
wait_for '^ *FIRST FAILURE rank 1 .*cuda\.illegal_address'
ok $? "a failure appended to rank1.log is named in the header"

printf '%s1,000 INFO step 1\n%s4,000 ERROR step 4 failed\nValueError: shapes do not match\n' \
    "$D" "$D" >"$logs/rank2.log"
wait_for '^ *FIRST FAILURE rank 2 .*python\.exception'
ok $? "a new rank file with an earlier failure takes the header"
wait_for 'following 3 files'
ok $? "the new file is followed"
wait_for '^ rank 2 [^ ]+ FAILED'
ok $? "the selection followed the answer to rank 2 (no key was pressed)"

send p
wait_for 'paused'
ok $? "p pauses: the status line says so"
printf '%s3,000 ERROR torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n' \
    "$D" >>"$logs/rank0.log"
wait_for 'paused [^ ]+ 1 new line'
ok $? "paused, the appended line is read and counted"
echo "$last_capture" | grep -Eq '^ *FIRST FAILURE rank 2 '
ok $? "paused, the screen holds still: the header still names rank 2"
send p
wait_for '^ *FIRST FAILURE rank 0 .*torch\.cuda\.oom'
ok $? "p again resumes: the held line is diagnosed, rank 0 is first"
wait_for 'following 3 files'
ok $? "and the status line says following again"

send j
wait_for '^ rank 1 [^ ]+ failed'
ok $? "j selects rank 1"
printf '%s6,000 ERROR step 6 failed\nKeyError: shard7\n' "$D" >>"$logs/rank1.log"
printf '%s6,000 ERROR step 6 failed\nKeyError: shard0\n' "$D" >>"$logs/rank0.log"
wait_for 'KeyError: shard7'
ok $? "a failure appended to the selected rank shows in its list"
echo "$last_capture" | grep -Eq '^ rank 1 [^ ]+ failed' &&
    echo "$last_capture" | grep -Eq '^ *FIRST FAILURE rank 0 '
ok $? "the chosen selection stayed on rank 1 across the diagnosis"

send Enter
wait_for 'EVENT [0-9]+ of [0-9]+ on rank 1'
ok $? "Enter opens rank 1's event"
send Enter
wait_for '5 .* KeyError: shard7'
ok $? "Enter again scrolls to the log around it"
printf '%s7,000 INFO after the detail opened\n' "$D" >>"$logs/rank1.log"
wait_for 'after the detail opened'
ok $? "a line appended below the event shows in its log, which stays at its end"
send Escape
wait_for '^ *FIRST FAILURE rank 0 '
ok $? "Esc goes back to the timeline"

send q
quit_checks
history_has 'torch\.cuda\.oom rank 0'
ok $? "q stored the incident with the final diagnosis (rank 0, torch.cuda.oom)"

# --no-follow: read once, as before; p says so.
start 80 24
run_rankline --no-store --no-follow "$logs"
wait_for '^ *FIRST FAILURE rank 0 '
ok $? "--no-follow: the console shows what the logs hold"
! echo "$last_capture" | grep -q 'following'
ok $? "--no-follow: the status line does not say following"
send p
wait_for 'not following'
ok $? "--no-follow: p says the logs were read once"
send q
wait_for 'RL_DONE rc=0'
ok $? "--no-follow: q quits"

# A command: pdsh-style output of two nodes, then a failure on node07
# once the trigger exists.  It stays alive, as `pdsh tail -F` would.
cat >"$TMPD/gen.sh" <<'SH'
i=0
while [ ! -e "$1" ] && [ $i -lt 3000 ]; do
	i=$((i + 1))
	echo "node07: 2026-12-02 13:00:01,000 INFO [rank7] step $i"
	echo "node03: 2026-12-02 13:00:01,000 INFO [rank3] step $i"
	sleep 0.1
done
echo "node07: 2026-12-02 13:00:09,000 ERROR [rank7] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
exec sleep 60
SH
rm -f "$db"
start 120 30
run_rankline --db "$db" --cmd "'sh $TMPD/gen.sh $TMPD/trigger'"
wait_for 'following 1 command [^ ]+ [0-9]+ new lines?/s'
ok $? "120x30: --cmd: the status line counts the command's new lines"
wait_for '^ +3 node03 ok'
ok $? "the command's node03 lines make a row for rank 3"
touch "$TMPD/trigger"
wait_for '^ *FIRST FAILURE rank 7 \(node07\) .*torch\.cuda\.oom'
ok $? "the command's failure on node07 is named in the header"
pid=$(rankline_pid)
[ -n "$pid" ] && kill -TERM "$pid" && kill -TERM "$pid"
wait_for 'RL_DONE rc='
ok $? "two SIGTERMs end the console"
[ "$(pane_var alternate_on)" = 0 ]
ok $? "the alternate screen is gone"
type_line 'stty -a | tr " ;" "\n\n" | grep -Ex -- "-?(icanon|echo)" | tr "\n" " "; echo STTY_DONE'
wait_for '^-?icanon -?echo STTY_DONE'
echo "$last_capture" | grep -q '^icanon echo STTY_DONE'
ok $? "the terminal is back in canonical mode with echo"
history_has 'torch\.cuda\.oom rank 7 on node07'
ok $? "SIGTERM stored the incident with the command's failure"

# A pipe on standard input: curses reads the keyboard from /dev/tty.
cat >"$TMPD/pipe.sh" <<'SH'
i=0
echo "2026-12-02 13:00:01,000 INFO [rank0] step 0"
while [ ! -e "$1" ] && [ $i -lt 3000 ]; do
	i=$((i + 1))
	sleep 0.1
done
echo "[rank1]: 2026-12-02 13:00:02,000 ERROR torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
# Until the console is gone: the next write fails, and this ends.
while echo "2026-12-02 13:00:03,000 INFO [rank0] step $i"; do
	i=$((i + 1))
	sleep 0.2
done
SH
rm -f "$db" "$TMPD/trigger"
start 100 24
type_line "clear; sh $TMPD/pipe.sh $TMPD/trigger | $RANKLINE --db $db -; echo RL_DONE rc=\$?"
wait_for 'following stdin'
ok $? "100x24: a piped stdin is followed"
touch "$TMPD/trigger"
wait_for '^ *FIRST FAILURE rank 1 .*torch\.cuda\.oom'
ok $? "a failure written into the pipe is named in the header"
send q
quit_checks
history_has 'torch\.cuda\.oom rank 1'
ok $? "the piped incident is stored"

# An error, then, while followed, a save completed after it: the console
# once died here (an unsafe step read that was not there) and left the
# terminal raw.  It shows the failure and an unsafe checkpoint, and quits.
late=$TMPD/late
mkdir -p "$late"
printf 'RuntimeError: boom\n' >"$late/rank0.log"
start 80 24
run_rankline --no-store "$late"
wait_for '^ *FIRST FAILURE .*python\.exception'
ok $? "late save: the error is the first failure"
printf '12/02/2026 13:20:20 - INFO - train - [rank0] successfully saved checkpoint from iteration 10 to checkpoints\n' \
    >>"$late/rank0.log"
wait_for 'checkpoint unsafe'
ok $? "a save logged after it, while followed: the checkpoint reads unsafe"
send q
quit_checks

# A command's copy of its lines at its cap (RANKLINE_SPILL_MAX) is said in
# the status line while it is followed.
cat >"$TMPD/big.sh" <<'SH'
i=0; while [ $i -lt 20000 ]; do echo "INFO step $i"; i=$((i+1)); done; sleep 60
SH
start 160 24
type_line "clear; RANKLINE_SPILL_MAX=64K $RANKLINE --no-store --cmd 'sh $TMPD/big.sh'; echo RL_DONE rc=\$?"
wait_for 'the copy of its lines reached its cap of 65536 bytes'
ok $? "a spill at its cap is said in the status line"
send q
quit_checks

done_testing
