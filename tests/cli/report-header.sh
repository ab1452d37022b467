#!/bin/sh
# report-header.sh: the report's header in each format names the rule
# packs that judged the incident (each pack's name and 12 hex digits of
# FNV-1a over its file's bytes, so that two reports can be told apart by
# the pack text they were judged with), and writes the time window's two
# ends alike: both in UTC with Z when a log named a zone, else both as
# written.  Checked on every corpus case and the bundled example.
. "${RL_SRCDIR:-.}/tests/lib.sh"

corpus=$RL_SHARED/corpus
[ -d "$corpus" ] || skip_all "no $corpus"
command -v python3 >/dev/null || skip_all "no python3"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-rephead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
example=${RL_SRCDIR:-.}/examples/torch-multinode

"$RANKLINE" --no-store report --format json "$example" > "$tmp/ex.json" 2>/dev/null
"$RANKLINE" --no-store report --format md "$example" > "$tmp/ex.md" 2>/dev/null
"$RANKLINE" --no-store report --format html "$example" > "$tmp/ex.html" 2>/dev/null

# Every pack in JSON: name, path, the hash of the file at that path.
check "json: report.rule_packs names each pack with its bytes' FNV-1a" \
    python3 - "$tmp/ex.json" <<'PY'
import json, os, sys
packs = json.load(open(sys.argv[1]))["report"]["rule_packs"]
assert len(packs) >= 5, packs
names = set()
for p in packs:
    assert set(p) == {"name", "path", "hash"}, p
    assert p["path"].endswith("/" + p["name"] + ".rules"), p
    names.add(p["name"])
    if not os.path.exists(p["path"]):
        continue                # built in: no file to hash here
    h = 0xcbf29ce484222325
    for c in open(p["path"], "rb").read():
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    assert p["hash"] == ("%016x" % h)[:12], (p, "%016x" % h)
assert {"torch", "nccl", "cuda"} <= names, names
PY
check "md: the header's rule packs row names each pack and its hash" \
    python3 - "$tmp/ex.json" "$tmp/ex.md" <<'PY'
import json, re, sys
packs = json.load(open(sys.argv[1]))["report"]["rule_packs"]
md = open(sys.argv[2]).read()
row = [l for l in md.splitlines() if l.startswith("| rule packs | ")]
assert len(row) == 1, row
for p in packs:
    assert "%s `%s`" % (p["name"], p["hash"]) in row[0], (p, row)
PY
check "html: the header's rule packs row names each pack and its hash" \
    python3 - "$tmp/ex.json" "$tmp/ex.html" <<'PY'
import json, sys
packs = json.load(open(sys.argv[1]))["report"]["rule_packs"]
html = open(sys.argv[2]).read()
i = html.index("<tr><th>rule packs</th>")
row = html[i:html.index("</tr>", i)]
for p in packs:
    assert "%s <span class=\"dim\">%s</span>" % (p["name"], p["hash"]) in row, (p, row)
PY

# Another pack's text, another hash: the same pack edited by one byte.
mkdir -p "$tmp/rules"
cp "${RL_SRCDIR:-.}"/rules/*.rules "$tmp/rules/"
printf '\n# edited\n' >> "$tmp/rules/torch.rules"
RANKLINE_DATADIR=$tmp "$RANKLINE" --no-store report --format json "$example" \
    > "$tmp/ed.json" 2>/dev/null
check "a pack edited by a comment has another hash, the others the same" \
    python3 - "$tmp/ex.json" "$tmp/ed.json" <<'PY'
import json, sys
a = {p["name"]: p["hash"] for p in json.load(open(sys.argv[1]))["report"]["rule_packs"]}
b = {p["name"]: p["hash"] for p in json.load(open(sys.argv[2]))["report"]["rule_packs"]}
assert a.keys() == b.keys(), (a, b)
assert [n for n in a if a[n] != b[n]] == ["torch"], (a, b)
PY

# The window's ends: both with a zone, or neither, in all three formats.
n=0
bad=0
for c in "$corpus"/*/*/ "$example"; do
	[ -d "$c" ] || continue
	n=$((n + 1))
	"$RANKLINE" --no-store report --format md "$c" > "$tmp/c.md" 2>/dev/null
	"$RANKLINE" --no-store report --format html "$c" > "$tmp/c.html" 2>/dev/null
	"$RANKLINE" --no-store report --format json "$c" > "$tmp/c.json" 2>/dev/null
	python3 - "$tmp/c.md" "$tmp/c.html" "$tmp/c.json" <<'PY' || { bad=$((bad + 1)); echo "# window: $c"; }
import json, re, sys
def alike(a, b):
    z = lambda s: s == "unknown" or re.search(r"(Z|[+-]\d\d:\d\d)$", s) is not None
    return z(a) == z(b) or "unknown" in (a, b)
md = re.search(r"^\| time window \| (.*) to (.*) \|$", open(sys.argv[1]).read(), re.M)
ht = re.search(r"<th>time window</th><td>(.*) to (.*)</td>", open(sys.argv[2]).read())
w = json.load(open(sys.argv[3]))["report"]["window"]
assert md and ht, "no window"
assert alike(*md.groups()) and alike(*ht.groups()), (md.groups(), ht.groups())
assert (w["start"] or "unknown", w["end"] or "unknown") == md.groups() == ht.groups(), (w, md.groups())
PY
done
[ "$n" -gt 20 ] && [ "$bad" -eq 0 ]
ok $? "the window's two ends are alike in md, html and json ($n cases, $bad not)"

tap_done
