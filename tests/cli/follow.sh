#!/bin/sh
# analyze --follow: appended lines, truncation, rotation, deletion and
# re-creation, a folder gaining files, a held partial line, --poll, and a
# stop by signal.  Each run is bounded by `timeout 20`, and the sources'
# line counts show that no line was lost or read twice.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T='2026-12-02 13:00:0'

# follow OUT ARGS...: run the follow in the background, its JSON to OUT.
follow() {
	out=$1
	shift
	timeout 20 "$RANKLINE" analyze --follow --json --no-store "$@" \
	    >"$out" 2>"$out.err" &
	fpid=$!
	following "$out.err" 300
}

# py OUT EXPR: assert a Python expression over the JSON d.
py() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lines = {s["path"].rsplit("/", 1)[-1]: s["lines"] for s in d["sources"]}
ff = d["first_failure"] or {}
assert eval(sys.argv[2]), (sys.argv[2], lines, ff)
PY
}

exc() { printf 'Traceback (most recent call last):\n%s: boom\n' "$1"; }

printf '%s1,000 INFO step 1\n' "$T" > "$tmp/a.log"
follow "$tmp/o1" --until-idle 1 "$tmp/a.log"
exc IndexError >> "$tmp/a.log"
wait $fpid
ok $? "the follow ends by itself after --until-idle"
py "$tmp/o1" 'lines["a.log"] == 3 and "IndexError" in ff["text"]'
ok $? "a failure appended while following is found"

# A quiet spell of 3 s ends these follows: a second of sleeps between the
# writes, on a loaded machine, outlasted a spell of 1 s before the last.
printf '%s1,000 INFO step 1\n%s2,000 INFO step 2\n%s3,000 INFO step 3\n' \
    "$T" "$T" "$T" > "$tmp/t.log"
follow "$tmp/o2" --until-idle 3 "$tmp/t.log"
: > "$tmp/t.log"
sleep 0.5
exc KeyError >> "$tmp/t.log"
wait $fpid
py "$tmp/o2" 'lines["t.log"] == 5 and "KeyError" in ff["text"]'
ok $? "a truncated file (copytruncate) is read again from its start"

printf '%s1,000 INFO step 1\n' "$T" > "$tmp/r.log"
follow "$tmp/o3" --until-idle 3 "$tmp/r.log"
printf '%s2,000 INFO step 2\n' "$T" >> "$tmp/r.log"
sleep 0.5
mv "$tmp/r.log" "$tmp/r.log.1"
printf '%s3,000 INFO step 3 (old file, after the rename)\n' "$T" >> "$tmp/r.log.1"
sleep 0.5
exc ValueError > "$tmp/r.log"
wait $fpid
py "$tmp/o3" 'lines["r.log"] == 5 and "ValueError" in ff["text"]'
ok $? "rotation: the old file is drained, the new one read from 0"

printf '%s1,000 INFO step 1\n' "$T" > "$tmp/d.log"
follow "$tmp/o4" --until-idle 3 "$tmp/d.log"
rm "$tmp/d.log"
sleep 0.5
exc OSError > "$tmp/d.log"
wait $fpid
py "$tmp/o4" 'lines["d.log"] == 3 and "OSError" in ff["text"]'
ok $? "a deleted and re-created file is followed"

mkdir -p "$tmp/job/attempt_0"
printf '%s1,000 INFO [rank0] step 1\n' "$T" > "$tmp/job/attempt_0/rank0.log"
follow "$tmp/o5" --until-idle 2 "$tmp/job"
printf '%s2,000 INFO [rank1] step 2\n' "$T" > "$tmp/job/attempt_0/rank1.log"
sleep 0.5
mkdir "$tmp/job/attempt_1"
sleep 0.5
exc RuntimeError > "$tmp/job/attempt_1/rank0.log"
mv "$tmp/job/attempt_0/rank0.log" "$tmp/job/attempt_0/rank0.log.old"
wait $fpid
py "$tmp/o5" 'len(d["sources"]) == 3 and lines["rank1.log"] == 1 and "RuntimeError" in ff["text"] and ff["source"].endswith("attempt_1/rank0.log")'
ok $? "a folder gaining a file and a restart's attempt_1/ folder: both read, a rotated name not twice"

printf '%s1,000 INFO step 1\n' "$T" > "$tmp/p.log"
follow "$tmp/o6" --until-idle 2 "$tmp/p.log"
printf 'ZeroDivisionError: no newline yet' >> "$tmp/p.log"
wait $fpid
py "$tmp/o6" 'lines["p.log"] == 2 and "ZeroDivisionError" in ff["text"]'
ok $? "a partial last line is flushed after a quiet spell"

printf '%s1,000 INFO step 1\n' "$T" > "$tmp/q.log"
follow "$tmp/o7" --poll --until-idle 1 "$tmp/q.log"
exc TypeError >> "$tmp/q.log"
sleep 0.5
mv "$tmp/q.log" "$tmp/q.log.1"
printf '%s5,000 INFO step 5\n' "$T" > "$tmp/q.log"
wait $fpid
py "$tmp/o7" 'lines["q.log"] == 4 and "TypeError" in ff["text"]'
ok $? "--poll (as on NFS or Lustre) follows appends and rotation"

printf '%s1,000 INFO step 1\n' "$T" > "$tmp/s.log"
follow "$tmp/o8" "$tmp/s.log"
exc MemoryError >> "$tmp/s.log"
sleep 0.5
kill -TERM $fpid
wait $fpid
ok $? "SIGTERM ends the follow cleanly"
py "$tmp/o8" '"MemoryError" in ff["text"]'
ok $? "and it still diagnoses what it read"

# Latency: the time from an append to its line being read, by inotify.
printf '%s1,000 INFO step 1\n' "$T" > "$tmp/l.log"
timeout 20 "$RANKLINE" cat --follow --until-idle 1 "$tmp/l.log" > "$tmp/o9" 2>&1 &
fpid=$!
following "$tmp/o9" 300
exc IndexError >> "$tmp/l.log"
wait $fpid
grep -q IndexError "$tmp/o9"
ok $? "cat --follow prints appended lines"

# inotify's limit (made to bite after one folder): the folders past it are
# polled, said so, and what is appended there is still seen.
for d in n1 n2 n3; do
	mkdir -p "$tmp/lim/$d"
	printf '%s1,000 INFO step 1\n' "$T" > "$tmp/lim/$d/rank.log"
done
RANKLINE_INOTIFY_MAX=1 follow "$tmp/o10" --until-idle 2 "$tmp/lim"
exc KeyError >> "$tmp/lim/n3/rank.log"
wait $fpid
grep -q "inotify's limit is reached after 1 folders" "$tmp/o10.err"
ok $? "inotify's limit is said, with the sysctl to raise"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "KeyError" in d["first_failure"]["text"]' "$tmp/o10"
ok $? "a folder past inotify's limit is polled: its append is seen"

# 1,100 ranks followed at once: the soft limit of open files is raised to
# the hard one; with the hard one too low, the limit is named.
mkdir -p "$tmp/many"
i=0
while [ $i -lt 1100 ]; do
	printf '%s1,000 INFO step 1\n' "$T" > "$tmp/many/rank$i.log"
	i=$((i + 1))
done
exc ValueError >> "$tmp/many/rank1099.log"
sh -c 'ulimit -Sn 256 && exec "$@"' sh timeout 60 "$RANKLINE" analyze \
    --follow --until-idle 1 --json --no-store "$tmp/many" > "$tmp/o11" \
    2>"$tmp/o11.err"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["sources"]) == 1100 and all(s["lines"] >= 1 for s in d["sources"]) and "ValueError" in d["first_failure"]["text"]' "$tmp/o11"
ok $? "1,100 files followed with a soft limit of 256: all read"
if sh -c 'ulimit -n 256' 2>/dev/null; then
	sh -c 'ulimit -n 256 && exec "$@"' sh timeout 60 "$RANKLINE" analyze \
	    --follow --until-idle 1 --json --no-store "$tmp/many" > "$tmp/o12" \
	    2>"$tmp/o12.err"
	grep -q "the limit of open files (256, hard limit 256) holds" \
	    "$tmp/o12.err" && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["sources"]) == 1100 and all(s["lines"] >= 1 for s in d["sources"]) and "ValueError" in d["first_failure"]["text"]' "$tmp/o12"
	ok $? "a hard limit of 256 open files is named, not met in silence, and the 1,100 files past it are read all the same"
fi
tap_done
