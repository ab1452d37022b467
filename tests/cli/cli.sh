#!/bin/sh
# The command line: exit statuses, unreadable paths named, the JSON shape,
# the incident stored once and updated, the database private to its user.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/db/incidents.db"
mkdir -p "$tmp/logs"
cat > "$tmp/logs/rank0.log" <<'LOG'
2026-12-02 13:20:01,000 INFO [rank0] step 1
2026-12-02 13:20:02,000 INFO [rank0] step 2
LOG
cat > "$tmp/logs/rank1.log" <<'LOG'
2026-12-02 13:20:01,000 INFO [rank1] step 1
Traceback (most recent call last):
  File "train.py", line 3, in <module>
IndexError: list index out of range
LOG

"$RANKLINE" analyze >/dev/null 2>&1
ok "$([ $? -eq 2 ]; echo $?)" "analyze without a path is a usage error (2)"
"$RANKLINE" frobnicate-option --no-such-flag >/dev/null 2>&1
ok "$([ $? -eq 2 ]; echo $?)" "an unknown option is a usage error (2)"

"$RANKLINE" analyze --json --db "$db" "$tmp/logs" "$tmp/missing.log" \
    >"$tmp/out.json" 2>"$tmp/err"
ok "$([ $? -eq 3 ]; echo $?)" "analyze with a missing path reports the rest and exits 3"
grep -q "missing.log: No such file or directory" "$tmp/err"
ok $? "the missing path is named on stderr"
python3 - "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ff = d["first_failure"]
assert ff["rank"] == 1, ff
assert ff["source"].endswith("logs/rank1.log"), ff
assert ff["line"] == 4 and "IndexError" in ff["text"], ff
for k in ("first_failure", "verdict", "checkpoint", "ranks", "events", "history"):
    assert k in d, k
assert d["verdict"]["domain"] == "code"
assert d["history"] == {"seen_before": 0, "matches": []} or "seen_before" in d["history"]
assert [r["rank"] for r in d["ranks"]] == [0, 1], d["ranks"]
PY
ok $? "the JSON has the promised shape and names rank 1's IndexError"

mode=$(stat -c %a "$db")
ok "$([ "$mode" = 600 ]; echo $?)" "the incident database is 0600 ($mode)"
mode=$(stat -c %a "$tmp/db")
ok "$([ "$mode" = 700 ]; echo $?)" "its folder is 0700 ($mode)"

"$RANKLINE" analyze --db "$db" "$tmp/logs" >/dev/null 2>&1
n=$("$RANKLINE" history --json --db "$db" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
ok "$([ "$n" = 1 ]; echo $?)" "re-analyzing the same logs stores the incident once ($n)"
echo "2026-12-02 13:20:09,000 INFO [rank0] step 3" >> "$tmp/logs/rank0.log"
"$RANKLINE" analyze --db "$db" "$tmp/logs" >/dev/null 2>&1
n=$("$RANKLINE" history --json --db "$db" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
ok "$([ "$n" = 1 ]; echo $?)" "grown logs update the same incident ($n)"
"$RANKLINE" note 1 "bad shard index in the loader; fixed in 4f2a" --db "$db" >/dev/null
ok $? "note records a diagnosis"
"$RANKLINE" history --db "$db" | grep -q "bad shard index"
ok $? "history shows the note"
"$RANKLINE" show 1 --db "$db" | grep -q "IndexError"
ok $? "show prints the stored evidence"

printf 'plain\n\033]0;pwned\007\033[2Jtitle\nValueError: \033[31mred\033[0m\n' > "$tmp/hostile.log"
"$RANKLINE" analyze --no-store "$tmp/hostile.log" > "$tmp/text" 2>&1
! grep -q "$(printf '\033')" "$tmp/text"
ok $? "analyze's text output carries no escape byte from the log"
"$RANKLINE" cat --json "$tmp/hostile.log" | python3 -c '
import json, sys
for l in sys.stdin: json.loads(l)' 
ok $? "cat --json prints valid JSON Lines for hostile bytes"
"$RANKLINE" cat "$tmp/logs" | head -1 | grep -q "13:20:01"
ok $? "cat merges the sources in time order"
cat "$tmp/logs/rank1.log" "$tmp/logs/rank0.log" | "$RANKLINE" cat - |
    wc -l | grep -qx "$(cat "$tmp/logs/rank1.log" "$tmp/logs/rank0.log" | wc -l)"
ok $? "cat - prints every line of standard input (read again from its spill)"
printf '[default1]:hello before the rank is known\n[default1]:2026-12-02 13:20:01,000 INFO     [rank5] train: step 1\n' > "$tmp/console.log"
"$RANKLINE" cat "$tmp/console.log" | head -1 | grep -q " r5 .*hello before"
ok $? "cat prints a line with the rank learnt after it"
head -c 3000 /dev/urandom > "$tmp/blob.bin"
printf '\0\0\0' >> "$tmp/blob.bin"
"$RANKLINE" analyze --json --no-store "$tmp/blob.bin" "$tmp/logs" > "$tmp/o2" 2>&1
ok $? "a binary file among the logs breaks nothing"
gzip -c "$tmp/logs/rank1.log" > "$tmp/rank1.log.gz"
"$RANKLINE" analyze --json --no-store "$tmp/rank1.log.gz" | grep -q IndexError
ok $? "a gzip-compressed log is read transparently"
# Standard input cannot be read twice: its lines are kept in a spill, so
# the store still copies the lines around the failure.
printf '2026-12-02 10:00:00,000 INFO train: step 1\nTraceback (most recent call last):\nValueError: from a pipe\n' |
    "$RANKLINE" analyze --db "$tmp/spill.db" - >/dev/null 2>&1
"$RANKLINE" show 1 --db "$tmp/spill.db" 2>&1 | grep -q "INFO train: step 1"
ok $? "standard input's lines are kept for the store's context (spill)"
printf 'Traceback (most recent call last):\nValueError: no tmp\n' |
    TMPDIR=/nonexistent "$RANKLINE" analyze --no-store - > "$tmp/nospill" 2>&1
grep -q "ValueError: no tmp" "$tmp/nospill" &&
    grep -q "no temporary file to keep its lines in" "$tmp/nospill"
ok $? "without a spill, the pipe is still read and the reason is said"
if command -v zstd >/dev/null 2>&1; then
	zstd -q -c "$tmp/logs/rank1.log" > "$tmp/rank1.log.zst"
	"$RANKLINE" analyze --json --no-store "$tmp/rank1.log.zst" |
	    grep -q IndexError
	ok $? "a zstd-compressed log is read transparently"
	{ zstd -q -c "$tmp/logs/rank1.log"; zstd -q -c "$tmp/logs/rank1.log"; } |
	    "$RANKLINE" cat - | grep -c IndexError | grep -qx 2
	ok $? "zstd from a pipe, two frames one after the other"
	head -c 60 "$tmp/rank1.log.zst" > "$tmp/cut.log.zst"
	"$RANKLINE" analyze --no-store "$tmp/cut.log.zst" 2>&1 >/dev/null |
	    grep -q "cut.log.zst: zstd: the stream is cut short"
	ok $? "a zstd stream cut short is named, with the file"
fi
cat > "$tmp/vllm.log" <<'LOG'
INFO 09-01 10:00:00 [loggers.py:123] Engine 000: Avg prompt throughput: 812.3 tokens/s, Avg generation throughput: 140.2 tokens/s, Running: 64 reqs, Waiting: 12 reqs, Preemptions: 7, GPU KV cache usage: 99.1%, Prefix cache hit rate: 12.0%
INFO 09-01 10:01:00 [loggers.py:123] Engine 000: Avg prompt throughput: 812.3 tokens/s, Avg generation throughput: 140.2 tokens/s, Running: 64 reqs, Waiting: 12 reqs, Preemptions: 3, GPU KV cache usage: 99.1%, Prefix cache hit rate: 12.0%
INFO 09-01 10:02:00 [loggers.py:123] Engine 000: Avg prompt throughput: 812.3 tokens/s, Avg generation throughput: 140.2 tokens/s, Running: 64 reqs, Waiting: 12 reqs, Preemptions: 5, GPU KV cache usage: 99.1%, Prefix cache hit rate: 12.0%
LOG
"$RANKLINE" analyze --json --no-store "$tmp/vllm.log" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = [x for x in d["signatures"] if x["signature"] == "vllm.sched.preemptions_v1"][0]
assert s["count"] == 15 and abs(s["per_minute"] - 7.5) < 0.01, s'
ok $? "vLLM V1 preemptions are counted from its stats lines, with a rate"
printf '2026-12-02 13:20:01,000 INFO step 1\nTraceback (most recent call last):\nIndexError: list index out of range\n' |
    "$RANKLINE" analyze --json --no-store - | python3 -c '
import json, sys
d = json.load(sys.stdin)
ff = d["first_failure"]
assert ff["source"] == "-" and "IndexError" in ff["text"], ff'
ok $? "analyze reads standard input for a path of - and finds its IndexError"
cat "$tmp/logs/rank1.log" | "$RANKLINE" analyze --json --no-store - "$tmp/logs/rank0.log" |
    grep -q IndexError
ok $? "standard input mixes with files"
printf 'a 2026-12-02 13:20:01,000\nb' | "$RANKLINE" cat - | grep -c . | grep -qx 2
ok $? "cat reads standard input, its unterminated last line too"

# An error, then a save completed after it: no step is safe or unsafe, and
# analyze and cat once read an unsafe step that was not there (SIGSEGV).
printf 'RuntimeError: boom\n12/02/2026 13:20:20 - INFO - train - [rank0] successfully saved checkpoint from iteration 10 to checkpoints\n' > "$tmp/late.log"
"$RANKLINE" analyze --no-store "$tmp/late.log" > "$tmp/late.out" 2>&1
[ $? -eq 0 ] && grep -q "only after the first failure" "$tmp/late.out"
ok $? "a save completed after the failure: analyze says so, no crash"
"$RANKLINE" analyze --json --no-store "$tmp/late.log" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["checkpoint"]["status"] == "unsafe", d["checkpoint"]'
ok $? "and its JSON says unsafe"
"$RANKLINE" cat "$tmp/late.log" > /dev/null
ok $? "cat reads it with status 0"

# A right-to-left override or a zero-width space in a log line reorders or
# hides what a reader sees: analyze and cat show them as \uNNNN.
printf 'Traceback (most recent call last):\nRuntimeError: bad \342\200\256evil\342\200\213x\n' > "$tmp/bidi.log"
"$RANKLINE" analyze --no-store "$tmp/bidi.log" > "$tmp/bidi.a"
"$RANKLINE" cat "$tmp/bidi.log" > "$tmp/bidi.c"
grep -q 'bad \\u202eevil\\u200bx' "$tmp/bidi.a" &&
grep -q 'bad \\u202eevil\\u200bx' "$tmp/bidi.c" &&
! LC_ALL=C grep -q "$(printf '\342\200[\256\213]')" "$tmp/bidi.a" "$tmp/bidi.c"
ok $? "bidi overrides and zero-width characters are shown escaped by analyze and cat"

# One rule's lines with a wall-clock time, then a boot time (dmesg): the
# rate is left out, not computed from an unset end (signed overflow under
# UBSan, which the sanitizer run of this suite makes fatal).
printf '2026-12-02 13:20:01,000 Out of memory: Killed process 11 (python) total-vm:1kB\n[812345.121000] Out of memory: Killed process 12 (python) total-vm:1kB\n' > "$tmp/boot.log"
"$RANKLINE" analyze --json --no-store "$tmp/boot.log" | python3 -c '
import json, sys
s = [x for x in json.load(sys.stdin)["signatures"] if x["lines"] == 2]
assert len(s) == 1 and "per_minute" not in s[0], s'
ok $? "a signature with wall-clock and boot times has no rate, and no overflow"

# 1,000 files under a limit of 256 descriptors: cat opened every file at
# once to read it again and printed 251 of them, with status 0.  Now it
# reads them in turns; analyze reads all; a follow holds open what the
# limit lets it, names the limit, and reads the others by name (it left
# them out and exited 3); cat names the lines it cannot print.
mkdir "$tmp/many"
awk -v d="$tmp/many" 'BEGIN { for (i = 0; i < 1000; i++) {
	f = sprintf("%s/rank%d.log", d, i)
	printf "2026-12-02 13:20:%02d,000 INFO [rank%d] step 1\n", i % 60, i > f
	printf "2026-12-02 13:21:%02d,000 INFO [rank%d] step 2\n", i % 60, i > f
	close(f) } }'
(ulimit -n 256 && "$RANKLINE" cat "$tmp/many") > "$tmp/many.out" 2> "$tmp/many.err"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l < "$tmp/many.out")" -eq 2000 ] &&
    [ "$(grep -c 'step 2' "$tmp/many.out")" -eq 1000 ] && [ ! -s "$tmp/many.err" ]
ok $? "cat under ulimit -n 256 prints all 2,000 lines of 1,000 files (status $rc, $(wc -l < "$tmp/many.out") lines)"
(ulimit -n 256 && "$RANKLINE" analyze --json --no-store "$tmp/many") > "$tmp/many.json"
rc=$?
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["ranks"]) == 1000 and d["errors"] == [], d["errors"][:3]
assert sum(s["lines"] for s in d["sources"]) == 2000' "$tmp/many.json" && [ $rc -eq 0 ]
ok $? "analyze under ulimit -n 256 reads all 1,000 files (status $rc)"
# And stores the failure with the lines around it: the store read every
# log again at once, and past the limit kept no context, unsaid.
cp -r "$tmp/many" "$tmp/many2"
printf '2026-12-02 13:20:03,000 INFO [rank999] before\nTraceback (most recent call last):\nIndexError: list index out of range\n2026-12-02 13:20:04,000 INFO [rank999] after the end\n' \
    >> "$tmp/many2/rank999.log"
(ulimit -n 256 && "$RANKLINE" analyze --db "$tmp/many.db" "$tmp/many2") > /dev/null
rc=$?
"$RANKLINE" show --db "$tmp/many.db" 1 > "$tmp/many.show"
[ $rc -eq 0 ] && grep -q '| 2026-12-02 13:20:04,000 INFO \[rank999\] after the end' "$tmp/many.show"
ok $? "under ulimit -n 256 the last of 1,000 files is stored with its context (status $rc)"
(ulimit -n 256 && timeout 30 "$RANKLINE" analyze --follow --until-idle 1 --json \
    --no-store "$tmp/many") > "$tmp/many.json" 2> "$tmp/many.err"
rc=$?
[ $rc -eq 0 ] && grep -q "limit of open files (256, hard limit 256) holds" \
    "$tmp/many.err" && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["ranks"]) == 1000, len(d["ranks"])
assert sum(s["lines"] for s in d["sources"]) == 2000
assert any("limit of open files" in e for e in d["errors"]), d["errors"][:3]' \
    "$tmp/many.json"
ok $? "a follow under ulimit -n 256 reads all 1,000 files, past the limit by name, and names the limit (status $rc)"
printf 'a 2026-12-02 13:20:01,000\nb\n' | TMPDIR=/nonexistent "$RANKLINE" cat - \
    > "$tmp/lost.out" 2> "$tmp/lost.err"
rc=$?
[ $rc -eq 3 ] && grep -q "^rankline: -: cannot be read again: its lines from byte 0 on are left out" "$tmp/lost.err"
ok $? "cat names a source whose lines it left out and exits 3 (status $rc)"

# Distinct writers in one file, each its own rank: all 100,000 are told
# apart by analyze and by cat.  How the time grows with them (it grew with
# their square) is bench/writers' to measure, not a test's.
awk 'BEGIN { for (r = 0; r < 100000; r++)
    printf "[rank%d]: step 100 loss 0.25\n", r }' > "$tmp/w100k.log"
"$RANKLINE" analyze --no-store --json "$tmp/w100k.log" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = sorted(x["rank"] for x in d["ranks"])
assert r == list(range(100000)), (len(r), r[:3], r[-3:])'
ok $? "analyze: 100,000 writers in one file are 100,000 ranks"
"$RANKLINE" cat --json "$tmp/w100k.log" | python3 -c '
import json, sys
r = [json.loads(l)["rank"] for l in sys.stdin]
assert r == list(range(100000)), (len(r), r[:3])'
ok $? "cat: each of their lines carries its own rank"
tap_done
