#!/bin/sh
# analyze --follow of a folder that grows while it is followed, as a
# torchrun log folder does when its ranks start: every file is read, and
# a new file costs one look at its name, not a scan of the whole folder
# (a scan per new file, each entry compared with every followed path, was
# n^2: 42 s of CPU for 2,000 files).  The work is counted, not timed: under
# strace, the folder is opened for a scan once at the start and at most
# once per one-second sweep, not once per file.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T='2026-12-02 13:00:0'

# follow OUT DIR [WRAPPER...]: follow DIR in the background until 2 s idle.
follow() {
	out=$1
	dir=$2
	shift 2
	timeout 120 "$@" "$RANKLINE" analyze --follow --until-idle 2 --json \
	    --no-store "$dir" >"$out" 2>"$out.err" &
	fpid=$!
	following "$out.err"
}

# grow DIR N: make rank0.log .. rank(N-1).log in DIR, 3 lines each.
grow() {
	python3 - "$1" "$2" "$T" <<'PY'
import os, sys
d, n, t = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for r in range(n):
    with open(os.path.join(d, "rank%d.log" % r), "w") as f:
        for s in (1, 2, 3):
            f.write("%s%d,000 INFO rank %d step %d\n" % (t, s, r, s))
PY
}

# counts OUT: "sources lines" of the follow's JSON.
counts() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["sources"]), sum(s["lines"] for s in d["sources"]))' "$1"
}

n=3000
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt $((n + 200)) ]
then
	n=$(($(ulimit -Hn) - 200))
fi
mkdir "$tmp/logs" "$tmp/out"
printf '%s1,000 INFO moved in\n' "$T" > "$tmp/out/moved.log"
follow "$tmp/o1" "$tmp/logs"
grow "$tmp/logs" $n
mv "$tmp/out/moved.log" "$tmp/logs/"
mkdir "$tmp/logs/attempt_1"
printf '%s1,000 INFO attempt 1\n' "$T" > "$tmp/logs/attempt_1/rank0.log"
mv "$tmp/logs/rank0.log" "$tmp/logs/rank0.log.1"
wait $fpid
ok $? "the follow of a growing folder ends by itself"
got=$(counts "$tmp/o1")
[ "$got" = "$((n + 2)) $((3 * n + 2))" ]
ok $? "all $n files made while following are read once, and a file moved in and a new folder's file (sources, lines: $got)"

if ! command -v strace >/dev/null 2>&1 ||
    ! strace -o /dev/null true >/dev/null 2>&1; then
	skip "no strace here to count the folder's scans"
else
	mkdir "$tmp/logs2"
	follow "$tmp/o2" "$tmp/logs2" strace -f -qq -e trace=openat \
	    -o "$tmp/trace"
	grow "$tmp/logs2" 400
	wait $fpid
	scans=$(grep -c "\"$tmp/logs2\", .*O_DIRECTORY" "$tmp/trace")
	got=$(counts "$tmp/o2")
	[ "$got" = "400 1200" ] && [ "$scans" -ge 1 ] && [ "$scans" -lt 40 ]
	ok $? "400 new files read with $scans scans of their folder, not one per file (sources, lines: $got)"
fi
tap_done
