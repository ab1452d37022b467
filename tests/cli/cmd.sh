#!/bin/sh
# --cmd: a command's stdout and stderr as sources, batch and followed,
# --restart, stand-ins for journalctl -o json, kubectl logs --prefix and
# docker compose, syslog prefixes, and pdsh when it is installed.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

loop='for i in 1 2 3; do echo "node0$i: 2026-12-02 13:00:0$i,000 INFO step $i"; done; echo "node02: IndexError: boom"'
timeout 20 "$RANKLINE" analyze --json --no-store --cmd "$loop" > "$tmp/o1" 2>"$tmp/e1"
ok $? "analyze --cmd runs the command to the end of its output"
python3 - "$tmp/o1" "$loop" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ff = d["first_failure"]
assert ff["host"] == "node02" and "IndexError" in ff["text"], ff
assert ff["source"] == "cmd:" + sys.argv[2], ff
names = [s["path"] for s in d["sources"]]
assert "cmd:" + sys.argv[2] + " (stderr)" in names, names
PY
ok $? "the first failure's host is node02, from the prefix, in source cmd:COMMAND"

timeout 20 "$RANKLINE" analyze --json --no-store --cmd 'echo "RuntimeError: on stderr" >&2' > "$tmp/o2"
grep -q '"source": "cmd:echo \\"RuntimeError: on stderr\\" >&2 (stderr)"' "$tmp/o2"
ok $? "stderr is its own source"

echo 0 > "$tmp/n"
timeout 20 "$RANKLINE" analyze --follow --until-idle 2.5 --restart --json --no-store \
    --cmd "n=\$(cat $tmp/n); echo \$((n+1)) > $tmp/n; echo \"2026-12-02 13:00:01,000 INFO run \$n\"" \
    > "$tmp/o3"
n=$(cat "$tmp/n")
ok "$([ "$n" -ge 2 ] && [ "$n" -le 3 ]; echo $?)" "--restart runs an exited command again after a backoff of 1 s, then 2 s ($n runs before 2.5 s of quiet)"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sources"][0]["lines"] == int(sys.argv[2]), d["sources"]' "$tmp/o3" "$n"
ok $? "every run's line is read, once"

timeout 20 "$RANKLINE" analyze --follow --until-idle 1 --json --no-store \
    --cmd 'sleep 0.3; echo "ValueError: late"; sleep 0.2' > "$tmp/o4"
grep -q "ValueError: late" "$tmp/o4"
ok $? "--follow with --cmd reads the command's later output"

# A command that is not there, or fails, or is killed: its status or signal
# is said on stderr and in errors, and analyze exits 3, as for a path it
# could not read; a command stopped by rankline itself is no failure.
for c in "/nonexistent/binary:status 127 (the shell found no such command)" \
    "exit 42:status 42" 'echo INFO up; kill -9 $$:signal 9'; do
	cmd=${c%%:*}
	timeout 20 "$RANKLINE" analyze --json --no-store --cmd "$cmd" \
	    > "$tmp/f.json" 2> "$tmp/f.err"
	rc=$?
	python3 - "$tmp/f.json" "$cmd" "${c#*:}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert any(e.startswith("cmd:" + sys.argv[2] + ":") and sys.argv[3] in e
           for e in d["errors"]), d["errors"]
PY
	[ $? -eq 0 ] && [ $rc -eq 3 ] && grep -q "${c#*:}" "$tmp/f.err"
	ok $? "--cmd '$cmd': ${c#*:} on stderr and in errors, exit $rc"
done
timeout 20 "$RANKLINE" analyze --no-store --cmd 'exit 42' > "$tmp/f.txt" 2>/dev/null
grep -q "cmd:exit 42: exited with status 42" "$tmp/f.txt"
ok $? "the text report names the command's status"
timeout 20 "$RANKLINE" analyze --follow --until-idle 1 --json --no-store \
    --cmd 'echo INFO up; sleep 60' > "$tmp/f.json" 2> "$tmp/f.err"
rc=$?
[ $rc -eq 0 ] && python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["errors"] == []' "$tmp/f.json"
ok $? "a command rankline stops at the end of a follow is no failure (exit $rc)"

# A command's copy of its lines (its spill) stops at RANKLINE_SPILL_MAX:
# the analysis still reads every line and names the failure past the cap;
# the cap is said; cat prints what was kept, names the rest and exits 3.
big='seq 20000 | sed "s/^/INFO step /"; echo "RuntimeError: past the cap"'
RANKLINE_SPILL_MAX=64K timeout 60 "$RANKLINE" analyze --json --no-store \
    --cmd "$big" > "$tmp/sp.json" 2> "$tmp/sp.err"
rc=$?
python3 - "$tmp/sp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert "past the cap" in d["first_failure"]["text"], d["first_failure"]
assert d["sources"][0]["lines"] == 20001, d["sources"]
assert any("reached its cap of 65536 bytes" in e for e in d["errors"]), d["errors"]
PY
[ $? -eq 0 ] && [ $rc -eq 0 ] && grep -q "reached its cap" "$tmp/sp.err"
ok $? "a spill capped at 64K: every line analyzed, the cap said, exit $rc"
RANKLINE_SPILL_MAX=64K timeout 60 "$RANKLINE" cat --cmd "$big" \
    > "$tmp/sp.out" 2> "$tmp/sp.err"
rc=$?
n=$(wc -c < "$tmp/sp.out")
[ $rc -eq 3 ] && grep -q "INFO step 1$" "$tmp/sp.out" &&
    ! grep -q "past the cap" "$tmp/sp.out" &&
    grep -q "left out" "$tmp/sp.err"
ok $? "cat prints the kept lines ($n bytes), names the rest and exits $rc"
# A file of its own: the cat above said the cap in sp.err, and this loop
# could read that before the background shell truncates it.
RANKLINE_SPILL_MAX=64K "$RANKLINE" analyze --follow --no-store \
    --cmd "$big; sleep 60" > /dev/null 2> "$tmp/spf.err" &
pid=$!
i=0
while [ $i -lt 100 ] && ! grep -q "reached its cap" "$tmp/spf.err" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
grep -q "reached its cap" "$tmp/spf.err"
ok $? "analyze --follow says the cap while it follows ($((i / 10)) s)"
kill "$pid"
wait "$pid"

# journalctl -f -o json, stood in for by a command that prints its lines
# (two hosts; the kernel's Xid on node08 first, then a rank's error).
cat > "$tmp/journal.json" <<'EOF'
{"__REALTIME_TIMESTAMP":"1764683100000000","_HOSTNAME":"node07","_PID":"4242","SYSLOG_IDENTIFIER":"python","MESSAGE":"[rank3]: 2025-12-02 13:45:00,000 INFO step 10"}
{"__REALTIME_TIMESTAMP":"1764683203123456","_HOSTNAME":"node08","_PID":"0","SYSLOG_IDENTIFIER":"kernel","MESSAGE":"NVRM: Xid (PCI:0000:97:00): 79, pid=1234, GPU has fallen off the bus."}
{"__REALTIME_TIMESTAMP":"1764683204000000","_HOSTNAME":"node07","_PID":"4242","SYSLOG_IDENTIFIER":"python","MESSAGE":"[rank3]: RuntimeError: NCCL error: unhandled system error"}
EOF
timeout 20 "$RANKLINE" analyze --follow --until-idle 1 --json --no-store \
    --cmd "cat $tmp/journal.json; sleep 0.3" > "$tmp/o6"
python3 - "$tmp/o6" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ff = d["first_failure"]
assert ff["host"] == "node08" and ff["text"].startswith("NVRM: Xid"), ff
assert ff["time"].startswith("2025-12-02T13:46:43.123"), ff
assert d["verdict"]["domain"] == "hardware", d["verdict"]
PY
ok $? "journalctl -o json through --cmd: each line is its MESSAGE, with its host and time"
timeout 20 "$RANKLINE" cat --json --cmd "cat $tmp/journal.json" > "$tmp/o7"
python3 - "$tmp/o7" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in rows if "RuntimeError" in x["text"]][0]
assert r["host"] == "node07" and r["pid"] == 4242 and r["rank"] == 3, r
assert r["text"] == "[rank3]: RuntimeError: NCCL error: unhandled system error", r
PY
ok $? "cat --json: a journal line's host, pid, rank and message"

# kubectl logs -f --prefix and docker compose, stood in for by printf.
timeout 20 "$RANKLINE" analyze --json --no-store --cmd \
    "printf '[pod/train-w-0/pytorch] 2026-12-02 13:00:01,000 INFO step 1\n[pod/train-w-2/pytorch] 2026-12-02 13:00:02,000 INFO step 1\n[pod/train-w-2/pytorch] IndexError: list index out of range\n'" \
    > "$tmp/o8"
python3 -c '
import json, sys
ff = json.load(open(sys.argv[1]))["first_failure"]
assert ff["host"] == "train-w-2" and "IndexError" in ff["text"], ff' "$tmp/o8"
ok $? "kubectl logs --prefix: the failing pod is named"
timeout 20 "$RANKLINE" analyze --json --no-store --cmd \
    "printf 'trainer-1  | 2026-12-02 13:00:01,000 INFO step 1\ntrainer-2  | KeyError: shard\n'" \
    > "$tmp/o9"
python3 -c '
import json, sys
ff = json.load(open(sys.argv[1]))["first_failure"]
assert ff["host"] == "trainer-2" and "KeyError" in ff["text"], ff' "$tmp/o9"
ok $? "docker compose: the failing service replica is named"

# journalctl's default output (syslog form): host and pid from the prefix,
# the time from it too, and the prefixes after it still peeled.
printf '%s\n' \
    'Dec  2 13:06:40 node07 python3[4242]: [default3]:2026-12-02 13:06:40,000 INFO step 1' \
    'Dec  2 13:06:43 node07 python3[4242]: [default3]:Traceback (most recent call last):' \
    'Dec  2 13:06:44 node08 kernel: NVRM: Xid (PCI:0000:97:00): 79, pid=1234, GPU has fallen off the bus.' \
    '2026-12-02T13:06:45.000+00:00 INFO torch: not a host' > "$tmp/syslog.log"
"$RANKLINE" cat --json "$tmp/syslog.log" > "$tmp/o10"
python3 - "$tmp/o10" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert r[1]["host"] == "node07" and r[1]["pid"] == 4242, r[1]
assert r[1]["time"] == "2026-12-02T13:06:43.000", r[1]
assert r[2]["host"] == "node08" and r[2]["time"] == "2026-12-02T13:06:44.000", r[2]
assert r[3]["host"] is None, r[3]
PY
ok $? "syslog prefixes: host, pid and time from the prefix; a log level is no host"

if command -v pdsh >/dev/null 2>&1 && pdsh -V 2>&1 | grep -q exec; then
	printf '2026-12-02 13:00:01,000 INFO step 1\n' > "$tmp/node01.log"
	printf '2026-12-02 13:00:01,000 INFO step 1\nKeyError: shard\n' > "$tmp/node02.log"
	timeout 20 "$RANKLINE" analyze --json --no-store \
	    --cmd "pdsh -R exec -w node[01-02] sh -c 'cat $tmp/%h.log'" > "$tmp/o5"
	python3 -c '
import json, sys
ff = json.load(open(sys.argv[1]))["first_failure"]
assert ff["host"] == "node02" and "KeyError" in ff["text"], ff' "$tmp/o5"
	ok $? "pdsh -R exec: the failing node is named"
else
	echo "ok $((tap_n + 1)) # SKIP pdsh with the exec module is not installed"
	tap_n=$((tap_n + 1))
fi
tap_done
