#!/bin/sh
# tests/walk-special.sh: a named pipe or a socket met in a log folder is
# skipped and said, not opened: opening a pipe with no writer waits for
# ever, and analyze (and the console) with it.  Named on the command line
# a pipe is read, as a <(kubectl logs ...) is.
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

timeout 20 "$RANKLINE" analyze --no-store "$tmp/job" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -ne 124 ]
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
timeout 20 "$RANKLINE" analyze --no-store "$tmp/named" >"$tmp/out2" 2>&1
grep -q "First failure: rank 1" "$tmp/out2"
ok $? "a pipe named on the command line is read"
wait
tap_done
