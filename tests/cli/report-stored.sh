#!/bin/sh
# report-stored.sh: the report made from the store alone (report
# --incident N, after the logs are gone) against the report made from the
# logs, on a single failure, a hang and an interrupted checkpoint picked by
# their labels: the same per-rank table and groups of ranks that behaved
# alike, the verdict's domain, group and scope, the checkpoint's status and
# last safe step, the time window, the first failure with its lines around
# it, only failing lines listed, and the fingerprint's history (a second
# copy of a run is its earlier match, with the note written on it).
. "${RL_SRCDIR:-.}/tests/lib.sh"

corpus=$RL_SHARED/corpus/torch
[ -d "$corpus" ] || skip_all "no $corpus"
command -v python3 >/dev/null || skip_all "no python3"
CHECK="python3 ${RL_SRCDIR:-.}/tests/cli/report-check.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-repstore.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
db=$tmp/s.db

n=0
for want in kind=code kind=hang kind=checkpoint-interrupted; do
	case=$(pick "${want%%=*}" "${want#*=}")
	if [ -z "$case" ]; then
		skip "no case with $want"
		continue
	fi
	n=$((n + 1))
	cp -r "$case" "$tmp/run$n"
	"$RANKLINE" --db "$db" report -o "$tmp/live$n.md" "$tmp/run$n" 2>/dev/null
	"$RANKLINE" --db "$db" report --format json "$tmp/run$n" \
	    > "$tmp/live$n.json" 2>/dev/null
	echo "$want" > "$tmp/want$n"
done
[ "$n" -gt 0 ] || skip_all "no case to report"
# A second copy of the first run: the same fingerprint, another incident.
cp -r "$tmp/run1" "$tmp/again"
"$RANKLINE" --db "$db" analyze "$tmp/again" >/dev/null 2>&1
again=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"]["incident"])' "$tmp/live1.json")
"$RANKLINE" --db "$db" note "$again" 'bad shard in the loader' >/dev/null 2>&1
rm -rf "$tmp"/run* "$tmp/again"

i=1
while [ $i -le $n ]; do
	want=$(cat "$tmp/want$i")
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"]["incident"])' "$tmp/live$i.json")
	"$RANKLINE" --db "$db" report --incident "$id" -o "$tmp/s$i.md" &&
	    "$RANKLINE" --db "$db" report --incident "$id" -o "$tmp/s$i.html" &&
	    "$RANKLINE" --db "$db" report --incident "$id" -o "$tmp/s$i.json"
	ok $? "$want: report --incident $id with the logs gone, in each format"
	check "$want: the stored per-rank table and groups are the logs' report's" \
	    python3 - "$tmp/live$i.md" "$tmp/s$i.md" <<'PY'
import re, sys
def parts(p):
    t = open(p).read()
    rows = [re.sub(r"\*\*", "", l) for l in t.splitlines() if re.match(r"^\| (\d+|unranked) \|", l)]
    g = t[t.index("groups that behaved alike"):].split("\n\n")[1]
    return rows, g
live, stored = parts(sys.argv[1]), parts(sys.argv[2])
assert live[0] and live == stored, (live, stored)
PY
	check "$want: verdict, checkpoint and window as the logs' report gave them" \
	    python3 - "$tmp/live$i.json" "$tmp/live$i.md" "$tmp/s$i.md" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
live, s = open(sys.argv[2]).read(), open(sys.argv[3]).read()
row = lambda t, k: re.search(r"^\| %s \| (.*) \|$" % k, t, re.M).group(1)
v, c = d["verdict"], d["checkpoint"]
assert row(s, "domain") == v["domain"] and row(s, "verdict group") == v["group"] \
    and row(s, "scope") == v["scope"], v
assert row(s, "checkpoint") == c["status"], c
if c["last_safe_step"] is not None:
    assert row(s, "last safe step") == str(c["last_safe_step"]), c
assert row(s, "time window") == row(live, "time window"), (row(s, "time window"), row(live, "time window"))
PY
	check "$want: the first failure first, with its lines; only failing lines" \
	    python3 - "$tmp/live$i.json" "$tmp/s$i.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["first_failure"]
s = json.load(open(sys.argv[2]))
e = s["events"]
assert e[0]["root"] and e[0]["signature"] == f["signature"] and e[0]["line"] == f["line"], (e[0], f)
assert f["text"] in (e[0]["context"] or e[0]["text"]), e[0]
assert all(x["role"] in ("root", "symptom", "collateral", "wrapper", "hang") for x in e), [x["role"] for x in e]
assert [g["ranks"] for g in s["groups"]] and len(s["ranks"]) == s["incident"]["ranks"], s["groups"]
PY
	check "$want: the stored HTML parses, the Markdown's fences hold" \
	    sh -c "$CHECK html '$tmp/s$i.html' && $CHECK md '$tmp/s$i.md'"
	i=$((i + 1))
done

id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"]["incident"])' "$tmp/live1.json")
"$RANKLINE" --db "$db" report --last -o "$tmp/last.json"
check "history: the second copy's report names the first as the same failure, with its note" \
    python3 - "$tmp/last.json" "$id" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["history"]
assert h["seen_before"] == 1, h
m = [x for x in h["matches"] if x["exact"]]
assert m[0]["incident"] == int(sys.argv[2]) and m[0]["diagnosis"] == "bad shard in the loader", h
PY
"$RANKLINE" --db "$db" report --last -o "$tmp/last.md"
check "history: in Markdown too" \
    grep -q "^- same failure #$id at .*; diagnosis: bad shard in the loader$" "$tmp/last.md"

tap_done
