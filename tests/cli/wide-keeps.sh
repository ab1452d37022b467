#!/bin/sh
# tests/cli/wide-keeps.sh: what a wide job's ranks keep (#26).  Past 512
# sources a collateral rank's repeated lines are kept as its first, its
# latest and a count; past 8,192 a step rule samples two steps and its
# latest.  The answers must not move: the first failure, the collateral
# count, every line counted, and hosts' clocks still matched by step.
#
# 8,200 ranks on 41 hosts print iterations 1 to 40, host k's clock ahead
# by 37 k ms; rank 7 runs out of memory, and each other rank then prints
# 20 watchdog timeouts for the collectives it had queued.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-wide.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export RANKLINE_NO_USER_RULES=1

python3 - "$tmp/job" <<'PY'
import os, sys
root = sys.argv[1]
HOSTS, PER = 41, 200
def at(ms):
    return "2026-12-02 10:%02d:%02d,%03d" % (ms // 60000, ms // 1000 % 60,
                                            ms % 1000)
for k in range(HOSTS):
    off = 37 * k
    d = os.path.join(root, "node%02d" % k)
    os.makedirs(d)
    for j in range(PER):
        r = PER * k + j
        out = []
        for step in range(1, 41):
            out.append("%s INFO     [rank%d] train: iteration %8d/     100 |"
                       " lm loss: 2.0E+00 |" % (at(10000 + 1000 * step + off),
                                               r, step))
        if r == 7:
            out.append("[rank7]: torch.OutOfMemoryError: CUDA out of memory."
                       " Tried to allocate 2.00 GiB. GPU 7 has a total "
                       "capacity of 79.10 GiB of which 1.10 GiB is free.")
        else:
            for i in range(20):
                ms = 60000 + 1000 * i + off
                out.append("[rank%d]:[E1202 10:%02d:%02d.%03d000000 "
                           "ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog "
                           "caught collective operation timeout: "
                           "WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, "
                           "NumelIn=2097152, NumelOut=2097152, "
                           "Timeout(ms)=600000) ran for 600074 milliseconds "
                           "before timing out." % (r, 10 + ms // 60000,
                                                   ms // 1000 % 60, ms % 1000,
                                                   r, 41 + i))
        with open(os.path.join(d, "rank%d.log" % r), "w") as f:
            f.write("\n".join(out) + "\n")
PY

$RANKLINE analyze --no-store --json "$tmp/job" >"$tmp/out.json" 2>"$tmp/err"
ok $? "analyze reads 8,200 ranks ($(head -c 200 "$tmp/err"))"

check() {
	python3 - "$tmp/out.json" "$1" >"$tmp/check" 2>&1
	[ "$(cat "$tmp/check")" = ok ]
}

check first <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ff = d["first_failure"]
col = sum(1 for r in d["ranks"] if r["state"] == "collateral")
bad = []
if ff["rank"] != 7 or ff["signature"] != "torch.cuda.oom":
    bad.append("first %s %s" % (ff["rank"], ff["signature"]))
if col != 8199:
    bad.append("%d collateral" % col)
print("; ".join(bad) or "ok")
PY
ok $? "rank 7 first, 8,199 collateral ($(head -c 200 "$tmp/check"))"

check lines <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["signature"]: x for x in d["signatures"]}
w = s.get("torch.nccl.watchdog_timeout", {})
print("ok" if w.get("lines") == 20 * 8199 and d["stats"]["lines"] ==
      8200 * 40 + 8199 * 20 + 1 else "watchdog %s, lines %s" %
      (w.get("lines"), d["stats"]["lines"]))
PY
ok $? "every watchdog line counted, 163,980 ($(head -c 200 "$tmp/check"))"

# Kept: per collateral rank the first watchdog line and the latest (2), per
# rank 2 sampled steps and the latest (3), and rank 7's failure.  Before, 20
# and 9 were kept: 237,800 events.
check kept <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = d["stats"]["events"]
print("ok" if n <= 8199 * 2 + 8200 * 3 + 1 else "%d events kept" % n)
PY
ok $? "a wide job keeps first and latest of its repeats ($(head -c 200 "$tmp/check"))"

# Each collateral rank's timeouts that are listed begin at its first one,
# and the latest is still its rank's last line (c10 drops its fraction,
# a monotonic clock's).
check span <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
seen = {}
for e in d["events"]:
    if e["signature"] == "torch.nccl.watchdog_timeout":
        seen.setdefault(e["rank"], []).append(e["line"])
r = [x for x in d["ranks"] if x["rank"] == 4100][0]
bad = ["rank %s: %s" % (k, v) for k, v in seen.items()
       if v[0] != 41 or len(v) > 2]
if len(seen) < 100:
    bad.append("%d ranks' timeouts listed" % len(seen))
if r["last_time"] != "2026-12-02T10:11:19.000":
    bad.append("last %s" % r["last_time"])
print("; ".join(bad[:5]) or "ok")
PY
ok $? "collateral timeouts from the first, the last time kept ($(head -c 200 "$tmp/check"))"

check skew <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["skew"]
hosts = {h["host"]: h for h in d["hosts"]}
bad = []
if d["reference"] != "node00" or len(hosts) != 41:
    bad.append("reference %s, %d hosts" % (d["reference"], len(hosts)))
for k in range(1, 41):
    h = hosts.get("node%02d" % k)
    if h is None or h["offset_ms"] != 37 * k:
        bad.append("node%02d: %s" % (k, h))
print("; ".join(bad) or "ok")
PY
ok $? "41 hosts' clocks matched from the sampled steps ($(head -c 300 "$tmp/check"))"

tap_done
