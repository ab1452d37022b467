#!/bin/sh
# Following more files than the limit of open files lets be held open.
# Every followed file was held open: past the limit the rest went unread,
# and the console could open neither its terminal nor the store (under a
# limit of 1,024, a job of 10,000 rank files did not start).  Past the
# budget a file is closed once read and looked at by name, so that what
# its path's file gets later is still read: lines appended, a file
# truncated or rotated, and a new one.  Run under a limit of 64 (a budget
# of 48) with 300 rank files.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T='2026-12-02 13:00:0'

python3 - "$tmp/logs" "$T" <<'PY'
import os, sys
d, t = sys.argv[1], sys.argv[2]
os.makedirs(d)
for r in range(300):
    with open(os.path.join(d, "rank%d.log" % r), "w") as f:
        for s in (1, 2, 3):
            f.write("%s%d,000 INFO [rank%d] train: step %d\n" % (t, s, r, s))
PY

# follow OUT: follow the logs in the background, under the limit, until
# 3 s idle; returns once the follow has read them.
follow() {
	out=$1
	(ulimit -n 64 && exec timeout 120 "$RANKLINE" analyze --follow \
	    --until-idle 3 --json --no-store "$tmp/logs") >"$out" \
	    2>"$out.err" &
	fpid=$!
	following "$out.err"
}

# sources OUT: how many sources, and their lines.
counts() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["sources"]), sum(s["lines"] for s in d["sources"]))' "$1"
}

follow "$tmp/o1"
sleep 1
# rank 250 is past the budget: its file was read and closed.
printf '%s4,000 ERROR [rank250] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.25 GiB of which 1.12 GiB is free.\n' \
    "$T" >> "$tmp/logs/rank250.log"
# rank 260's is rotated, rank 270's truncated and written again.
mv "$tmp/logs/rank260.log" "$tmp/rank260.old"
printf '%s5,000 INFO [rank260] train: step 4\n' "$T" > "$tmp/logs/rank260.log"
printf '%s6,000 INFO [rank270] train: step 9\n' "$T" > "$tmp/logs/rank270.log"
wait $fpid
ok $? "the follow under a limit of 64 open files ends by itself"

first=$(python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["first_failure"] or {}
print(f.get("rank"), f.get("signature"))' "$tmp/o1")
[ "$first" = "250 torch.cuda.oom" ]
ok $? "a line appended to a file past the budget is read: rank 250's OOM is the first failure ($first)"

got=$(counts "$tmp/o1")
[ "$got" = "300 903" ]
ok $? "every file is read once, and the rotated and the truncated ones' new lines (sources, lines: $got)"

grep -q "the limit of open files (64, hard limit 64) holds 48 followed files open: the others are looked at by name" "$tmp/o1.err"
ok $? "the follow names the limit and says that files past it are looked at by name"

python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("\n".join(d["errors"]))' "$tmp/o1" | grep -q "not followed"
[ $? -ne 0 ]
ok $? "no file is left unfollowed"

tap_done
