#!/bin/sh
# tests/walk-special.sh: a named pipe or a socket met in a log folder is
# skipped and said, not opened: opening a pipe with no writer waits for
# ever, and analyze (and the console) with it.  Named on the command line
# a pipe is read, as a <(kubectl logs ...) is.  A folder or file reached
# twice (links to a parent, a path given twice) is read once: two links
# to ".." made the walk 2^32 paths, and the follow's scan never returned.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-walk.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export RANKLINE_NO_USER_RULES=1

mkdir "$tmp/job"
{
	echo "[default1]:Traceback (most recent call last):"
	echo "[default1]:  File \"train.py\", line 3, in <module>"
	echo "[default1]:IndexError: list index out of range"
} >"$tmp/job/console.log"
mkfifo "$tmp/job/stuck.log"
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$tmp/job/agent.sock" 2>/dev/null

timeout -k 5 20 "$RANKLINE" analyze --no-store "$tmp/job" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]
ok $? "a folder with a named pipe is read to its end (exit $rc, not a timeout)"
grep -q "First failure: rank 1" "$tmp/out"
ok $? "the folder's log is diagnosed"
grep -q "stuck.log: a named pipe in a folder, skipped" "$tmp/out"
ok $? "the pipe is said to be skipped"
if [ -S "$tmp/job/agent.sock" ]; then
	grep -q "agent.sock: a socket in a folder, skipped" "$tmp/out"
	ok $? "so is the socket"
else
	skip "no unix socket could be made here"
fi
[ "$rc" -eq 0 ]
ok $? "a skipped pipe is no failed path: exit 0"

# Named, a pipe is read: its writer is there.
mkfifo "$tmp/named"
cat "$tmp/job/console.log" >"$tmp/named" &
timeout -k 5 20 "$RANKLINE" analyze --no-store "$tmp/named" >"$tmp/out2" 2>&1
grep -q "First failure: rank 1" "$tmp/out2"
ok $? "a pipe named on the command line is read"
wait

# Loops: two links to the parent, and the same log named three ways.
mkdir -p "$tmp/root/job"
cp "$tmp/job/console.log" "$tmp/root/job/console.log"
ln -s .. "$tmp/root/job/up"
ln -s .. "$tmp/root/job/up2"
# paths: each source's path in analyze --json, one per line.
paths() {
	python3 -c 'import json, sys
for s in json.load(sys.stdin)["sources"]:
    print(s["path"])' 2>/dev/null
}
timeout -k 5 20 "$RANKLINE" analyze --no-store --json "$tmp/root/job" \
    "$tmp/root/job/console.log" "$tmp/root/job/up/job" >"$tmp/out3" 2>/dev/null
rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]
ok $? "two links to the parent: the walk ends (exit $rc)"
[ "$(paths <"$tmp/out3")" = "$tmp/root/job/console.log" ]
ok $? "the log reached many ways is read once ($(paths <"$tmp/out3" | wc -l) sources)"

# The follow's scan of a folder with the loops, when a new log appears.
(sleep 1; echo "2026-12-02 13:19:59,000 INFO step 9" >"$tmp/root/job/new.log") &
timeout -k 5 20 "$RANKLINE" analyze --no-store --json --follow --until-idle 2 \
    "$tmp/root/job" >"$tmp/out4" 2>/dev/null
rc=$?
wait
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]
ok $? "following the loops, a new log's scan ends (exit $rc)"
paths <"$tmp/out4" | grep -q 'new.log$' &&
    [ "$(paths <"$tmp/out4" | grep -c 'console.log$')" -eq 1 ]
ok $? "the new log is followed, the old one read once"
tap_done
