#!/bin/sh
# tests/cli/skew-hosts.sh: each host's clock offset is measured against the
# reference host from the step lines, for a job of many hosts (#26: every
# host's differences are had in one pass over the steps, and a host's
# estimate is found by its name's hash, not by a walk of all hosts).
#
# 48 hosts of two ranks each print iterations 1 to 6 at the same instants,
# host k's clock ahead by 37 k ms (host 11 behind by 250 ms), and for host
# 5 one iteration of a rank is missing: every host but the reference is
# measured at each step both logged, with the offset its clock has.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-skewh.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export RANKLINE_NO_USER_RULES=1

python3 - "$tmp" <<'PY'
import os, sys
root = sys.argv[1]
for k in range(48):
    off = -250 if k == 11 else 37 * k
    d = os.path.join(root, "node%02d" % k)
    os.makedirs(d)
    for j in range(2):
        r = 2 * k + j
        with open(os.path.join(d, "rank%d.log" % r), "w") as f:
            for step in range(1, 7):
                if k == 5 and j == 1 and step == 3:
                    continue
                ms = 1000 * step + 3 * j + off
                f.write("2026-12-02 10:00:%02d,%03d INFO     [rank%d] train: "
                        "iteration %8d/     100 | lm loss: 2.0E+00 |\n"
                        % (10 + ms // 1000, ms % 1000, r, step))
PY

$RANKLINE analyze --no-store --json "$tmp" >"$tmp/out.json" 2>&1
python3 - "$tmp/out.json" <<'PY' >"$tmp/check" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))["skew"]
bad = []
if d["reference"] != "node00":
    bad.append("reference %s" % d["reference"])
hosts = {h["host"]: h for h in d["hosts"]}
if len(hosts) != 48:
    bad.append("%d hosts" % len(hosts))
for k in range(1, 48):
    h = hosts.get("node%02d" % k)
    want = -250 if k == 11 else 37 * k
    if h is None or h["offset_ms"] != want or h["samples"] != 6 or \
            h["reference"]:
        bad.append("node%02d: %s" % (k, h))
print("; ".join(bad) or "ok")
PY
[ "$(cat "$tmp/check")" = ok ]
ok $? "48 hosts' offsets against node00, each at its 6 steps ($(head -c 300 "$tmp/check"))"

# With a failure to explain, the explanation names the four clocks
# furthest off, furthest first, and counts the rest: one sentence a host
# was 10 MB at 100,000 hosts.
printf '%s\n' "2026-12-02 10:00:20,000 INFO     [rank95] train: step" \
    "[rank95]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB." \
    >>"$tmp/node47/rank95.log"
$RANKLINE analyze --no-store --json "$tmp" >"$tmp/out2.json" 2>&1
python3 - "$tmp/out2.json" <<'PY' >"$tmp/check2" 2>&1
import json, re, sys
d = json.load(open(sys.argv[1]))
sk = d["skew"]
off = sorted((h for h in sk["hosts"] if not h["reference"] and
              abs(h["offset_ms"]) >= sk["tolerance_ms"]),
             key=lambda h: -abs(h["offset_ms"]))
ex = d["first_failure"]["explanation"]
named = re.findall(r"(node\d+)'s clock is", ex)
more = re.search(r"So were (\d+) more hosts' clocks", ex)
bad = []
if named != [h["host"] for h in off[:4]]:
    bad.append("named %s, want %s" % (named, [h["host"] for h in off[:4]]))
if len(off) <= 4 or more is None or int(more.group(1)) != len(off) - 4:
    bad.append("%d off, %s" % (len(off), more and more.group(0)))
print("; ".join(bad) or "ok")
PY
[ "$(cat "$tmp/check2")" = ok ]
ok $? "the explanation names the 4 clocks furthest off and counts the rest ($(head -c 300 "$tmp/check2"))"

tap_done
