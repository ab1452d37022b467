#!/bin/sh
# report-stored3.sh: the report made from the store alone (report
# --incident N, the logs removed) says what the report made from the logs
# said, in Markdown, HTML and JSON: the header's job, time window, read
# counts, build and rule packs with their hashes; the first failure, the
# verdict with its confidence and its lines for and against, the
# checkpoint with its unsafe steps and what its folder said, the timeline
# with each rank's first error, last progress and state (table and
# groups, and the drawing: a bar per rank, the first failure's dot, the
# saves), the first lines of each failure, meanings, next steps and
# checklist, each section compared with the live report's, not only
# looked for.  On a single failure, a hang, an interrupted checkpoint, a
# common-mode failure and a healthy run (picked by their labels), and on
# bench/gen's logs of 200 ranks (groups, not a table; more failing lines
# than the store keeps events); the same through history --export and
# --import into another database.  An incident stored before schema 3
# (its new columns emptied with sqlite3) says which parts were not
# stored.
. "${RL_SRCDIR:-.}/tests/lib.sh"

corpus=$RL_SHARED/corpus/torch
[ -d "$corpus" ] || skip_all "no $corpus"
command -v python3 >/dev/null || skip_all "no python3"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-repstore3.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
db=$tmp/s.db

cat > "$tmp/compare.py" <<'PY'
# compare.py FORMAT LIVE STORED: the stored report's sections against the
# live one's; exits 1 naming the first that differs.
import json, re, sys

fmt, live, stored = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
SECTIONS = ["First failure", "Verdict", "Checkpoint", "Timeline",
            "Signatures", "What they mean", "First lines of each failure",
            "Next steps", "Evidence checklist", "Clock offsets", "Capacity",
            "Warnings"]
ROWS = ["job [a-z_]+", "time window", "read", "made by", "rule packs"]

def fail(what, a, b):
    print("# %s differs:\n# live:   %r\n# stored: %r" % (what, a[:300], b[:300]))
    sys.exit(1)

def md_sections(t):
    out = {}
    for m in re.finditer(r"^## ([^\n]+)\n\n(.*?)(?=^## |\Z)", t, re.M | re.S):
        out[m.group(1)] = m.group(2)
    return out

def md_rows(t):
    return [l for l in t.splitlines() if any(re.match(r"^\| %s \| " % r, l)
                                             for r in ROWS)]

def html_sections(t):
    out = {}
    for m in re.finditer(r"<h2>(.+?)</h2>\n(.*?)(?=<h2>|</body>)", t, re.S):
        body = m.group(2)
        if m.group(1) == "Timeline":
            # The drawing needs the logs: compare from the table on.
            body = body[body.find("<table>") if "<table>" in body
                        else body.find("<p>"):]
        out[m.group(1)] = body
    return out

def html_rows(t):
    return re.findall(r"<tr><th>(?:job [a-z_]+|time window|read|made by|"
                      r"rule packs)</th>.*?</tr>", t)

if fmt == "json":
    l, s = json.loads(live), json.loads(stored)
    for k in ("first_failure", "verdict", "checkpoint", "job"):
        if l[k] != s.get(k):
            fail(k, json.dumps(l[k]), json.dumps(s.get(k)))
    for k in ("rule_packs", "window"):
        if l["report"][k] != s["report"].get(k):
            fail("report." + k, json.dumps(l["report"][k]),
                 json.dumps(s["report"].get(k)))
    sys.exit(0)
if fmt == "html":
    # The drawing: a bar per rank, the first failure's dot and the saves
    # (the store keeps no step numbers: their lines, not their labels).
    def svg(t):
        m = re.search(r"<svg.*?</svg>", t, re.S)
        return m.group(0) if m else ""
    ls, ss = svg(live), svg(stored)
    for what in ("<rect", "firstmark"):
        if ls.count(what) != ss.count(what):
            fail("the drawing's " + what, ls, ss)
    if (ls.count('class="ckpt"') > 0) != (ss.count('class="ckpt"') > 0):
        fail("the drawing's checkpoints", ls, ss)
sec, rows = (md_sections, md_rows) if fmt == "md" else (html_sections, html_rows)
a, b = sec(live), sec(stored)
n = 0
for name in SECTIONS:
    if name in a or name in b:
        n += 1
        if a.get(name) != b.get(name):
            fail(name, a.get(name, "(none)"), b.get(name, "(none)"))
if n < 3:
    fail("the sections", str(sorted(a)), str(sorted(b)))
if rows(live) != rows(stored) or len(rows(live)) < 4:
    fail("header rows", "\n".join(rows(live)), "\n".join(rows(stored)))
PY

# One case: copied, reported from the logs, the copy removed, reported
# from the store; each format's sections compared.
n=0
report_case() {
	what=$1 src=$2
	n=$((n + 1))
	cp -r "$src" "$tmp/run$n"
	for f in md html json; do
		"$RANKLINE" --db "$db" report -o "$tmp/live$n.$f" "$tmp/run$n" \
		    2>/dev/null
	done
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"]["incident"])' "$tmp/live$n.json")
	rm -rf "$tmp/run$n"
	rc=0
	for f in md html json; do
		"$RANKLINE" --db "$db" report --incident "$id" \
		    -o "$tmp/s$n.$f" || rc=1
	done
	ok $rc "$what: report --incident $id with the logs gone, in each format"
	for f in md html json; do
		check "$what: the stored $f says what the live $f said" \
		    python3 "$tmp/compare.py" $f "$tmp/live$n.$f" "$tmp/s$n.$f"
	done
}

for want in kind=code kind=hang kind=checkpoint-interrupted \
    kind=common-mode kind=none; do
	case=$(pick "${want%%=*}" "${want#*=}")
	if [ -z "$case" ]; then
		skip "no case with $want"
		continue
	fi
	report_case "$want" "$case"
done

# The sections these cases must have had for the comparison to mean it.
check "the checkpoint case's stored verdict has its confidence and lines for" \
    python3 - "$tmp/s3.md" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
v = re.search(r"^## Verdict\n\n(.*?)^## ", t, re.M | re.S).group(1)
assert re.search(r"confidence \w+, 0\.\d\d", v), v
assert "- (for) " in v, v
c = re.search(r"^## Checkpoint\n\n(.*?)^## ", t, re.M | re.S).group(1)
assert re.search(r"unsafe: \d+", c), c
PY
check "the first failure's lines against are kept" \
    sh -c "grep -q '^- (against) ' '$tmp/s3.md'"

# Beyond 64 ranks: groups, each rank's own first error (bench/gen).
python3 "${RL_SRCDIR:-.}/bench/gen" --out "$tmp/gen" --files 200 \
    --size 4000KB --seed 24 >/dev/null 2>&1
if [ -f "$tmp/gen/rank0.log" ]; then
	report_case "200 generated ranks" "$tmp/gen"
	check "200 ranks: the stored groups name every rank's own first error" \
	    python3 - "$tmp/s$n.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["ranks"]) == 200, len(d["ranks"])
failing = [r for r in d["ranks"] if r["state"] != "ok"]
assert failing and all(r["first_error"] and r["at"] for r in failing), \
    [r for r in failing if not r["first_error"]][:3]
assert len(d["groups"]) < 10, d["groups"]
PY
else
	skip "bench/gen made no logs"
fi

# Through history --export and --import into another database: the same.
"$RANKLINE" --db "$db" history --export "$tmp/h.json" >/dev/null 2>&1 &&
    "$RANKLINE" --db "$tmp/b.db" history --import "$tmp/h.json" \
    >/dev/null 2>&1 &&
    "$RANKLINE" --db "$tmp/b.db" report --incident 3 -o "$tmp/b3.md" &&
    "$RANKLINE" --db "$tmp/b.db" report --incident 3 -o "$tmp/b3.json"
ok $? "the history exported and imported elsewhere is reported"
check "imported: the checkpoint case's report is the live one's" \
    sh -c "python3 '$tmp/compare.py' md '$tmp/live3.md' '$tmp/b3.md' &&
    python3 '$tmp/compare.py' json '$tmp/live3.json' '$tmp/b3.json'"

# An incident as an older rankline stored it: no facts, no first errors.
if command -v sqlite3 >/dev/null; then
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"]["incident"])' "$tmp/live1.json")
	sqlite3 "$db" "UPDATE incidents SET facts = NULL WHERE id = $id;
	    UPDATE ranks SET first_signature = NULL, first_error_time = NULL,
	    first_root = 0, progress_time = NULL WHERE incident_id = $id;"
	"$RANKLINE" --db "$db" report --incident "$id" -o "$tmp/old.md" &&
	    "$RANKLINE" --db "$db" report --incident "$id" -o "$tmp/old.html" &&
	    "$RANKLINE" --db "$db" report --incident "$id" -o "$tmp/old.json"
	ok $? "an incident stored before schema 3 is still reported"
	check "and says which parts were not stored, in each format" \
	    sh -c "grep -q 'before schema 3: the verdict.s confidence' '$tmp/old.md' &&
	    grep -q 'before schema 3: the verdict.s confidence' '$tmp/old.html' &&
	    python3 -c 'import json,sys; assert \"before schema 3\" in json.load(open(sys.argv[1]))[\"report\"][\"not_stored\"]' '$tmp/old.json'"
	check "and keeps what it has: the verdict's domain, the ranks' states" \
	    python3 - "$tmp/live1.json" "$tmp/old.json" <<'PY'
import json, sys
l, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s["incident"]["domain"] == l["verdict"]["domain"], s["incident"]
assert [r["state"] for r in s["ranks"]] == [r["state"] for r in l["ranks"]]
PY
else
	for k in 1 2 3; do
		skip "no sqlite3 to make an older incident"
	done
fi

tap_done
