#!/bin/sh
# report.sh: rankline report on corpus cases picked by their labels.json
# (a single failure, a hang, an interrupted checkpoint, a common-mode
# failure, a healthy run), in each format: Markdown's sections and
# timeline, HTML that parses with no external reference and no script,
# JSON's document with the report's own keys; files made 0600; a hostile
# log whose markup, escape sequences, control and bidi characters survive
# into neither HTML nor Markdown; secrets hidden unless --no-redact; the
# notes of a stored incident; and, where chromium is installed, the HTML
# drawn to a PNG that is not blank (kept in tests/cli/report-artefacts).
. "${RL_SRCDIR:-.}/tests/lib.sh"

corpus=$RL_SHARED/corpus/torch
[ -d "$corpus" ] || skip_all "no $corpus"
command -v python3 >/dev/null || skip_all "no python3"
RANKLINE=$(cd "$(dirname "$RANKLINE")" && pwd)/$(basename "$RANKLINE")
CHECK="python3 ${RL_SRCDIR:-.}/tests/cli/report-check.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# label CASE FIELD: a field of a case's labels.
label() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
	    "$1/labels.json" "$2"
}

for want in kind=code kind=hang kind=checkpoint-interrupted kind=common-mode \
    scenario=healthy; do
	case=$(pick "${want%%=*}" "${want#*=}")
	if [ -z "$case" ]; then
		skip "no case with $want"
		continue
	fi
	name=$(echo "$want" | tr = _)
	"$RANKLINE" --no-store report -o "$tmp/$name.md" "$case" 2>/dev/null
	ok $? "$want: report -o FILE.md"
	"$RANKLINE" --no-store report -o "$tmp/$name.html" "$case" 2>/dev/null
	ok $? "$want: report -o FILE.html"
	"$RANKLINE" --no-store report --format json "$case" \
	    > "$tmp/$name.json" 2>/dev/null
	ok $? "$want: report --format json to stdout"
	check "$want: the HTML parses, no script, no external reference" \
	    $CHECK html "$tmp/$name.html"
	check "$want: the Markdown holds no markup outside its fences" \
	    $CHECK md "$tmp/$name.md"
	check "$want: the files are 0600" \
	    test "$(stat -c %a "$tmp/$name.md" "$tmp/$name.html" | sort -u)" = 600
	check "$want: the format from the extension" \
	    grep -q '^<!DOCTYPE html>' "$tmp/$name.html"
	check "$want: Markdown's header, timeline and redaction line" \
	    sh -c "grep -q '^# Incident report' '$tmp/$name.md' &&
	    grep -q '^## Timeline' '$tmp/$name.md' &&
	    grep -q '^| redaction | applied: 0 values hidden' '$tmp/$name.md'"
	check "$want: the HTML draws the timeline" \
	    grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$tmp/$name.html"
	check "$want: JSON is analyze's document and the report's keys" \
	    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
r = d["report"]
assert r["redacted"] is True and r["hidden"] == 0 and r["notes"] == []
assert "first_failure" in d and "verdict" in d and "ranks" in d' \
	    "$tmp/$name.json"
	if [ "$want" = scenario=healthy ]; then
		check "$want: no failure said, none drawn" sh -c \
		    "grep -q 'No failure found' '$tmp/$name.md' &&
		    ! grep -q 'class=\"firstmark\"' '$tmp/$name.html'"
		continue
	fi
	check "$want: the HTML marks the first failure" \
	    grep -q 'class="firstmark"' "$tmp/$name.html"
	check "$want: the first lines of a failure, fenced" \
	    grep -q '^## First lines of each failure' "$tmp/$name.md"
	rank=$(label "$case" first_failing_rank)
	# A common-mode failure names no rank: every rank failed alike.
	[ "$rank" = None ] && continue
	check "$want: the first failure is rank $rank, as labelled" \
	    grep -q "^\*\*First failure: rank $rank[ *]" "$tmp/$name.md"
	check "$want: the timeline's row of rank $rank in bold, failed or hung" \
	    grep -Eq "^\| $rank \| .* \| \*\*(failed|hung)\*\* \|" "$tmp/$name.md"
done

# A checkpoint case's verdict, in the report.
case=$(pick kind checkpoint-interrupted)
if [ -n "$case" ]; then
	step=$(label "$case" last_safe_checkpoint_step)
	check "checkpoint: the last safe step $step" \
	    grep -q "last safe step $step" "$tmp/kind_checkpoint-interrupted.md"
fi

# A hostile log: markup, quotes, ampersands, escape sequences, control and
# bidi characters, and secrets, in the lines a report quotes.
mkdir "$tmp/hostile"
printf '[rank0]:2026-12-02 10:00:00,000 INFO step 1\n' > "$tmp/hostile/rank0.log"
printf '[rank0]:2026-12-02 10:00:01,000 Traceback (most recent call last):\n' >> "$tmp/hostile/rank0.log"
printf '[rank0]:  File "t.py", line 1, in <module> HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123 \033]0;pwned\007\n' >> "$tmp/hostile/rank0.log"
printf '[rank0]:RuntimeError: <script>alert("x")</script></svg></pre><img src=x onerror=1> & &amp; '"'"'q'"'"' \033[31mred\033[0m \001\002\177 \342\200\256evil ```\n' >> "$tmp/hostile/rank0.log"
printf '[rank0]:Authorization: Bearer abcdefghijklmnop1234\n' >> "$tmp/hostile/rank0.log"
"$RANKLINE" --no-store report -o "$tmp/h.html" "$tmp/hostile" 2>/dev/null
"$RANKLINE" --no-store report -o "$tmp/h.md" "$tmp/hostile" 2>/dev/null
"$RANKLINE" --no-store report --no-redact -o "$tmp/hn.md" "$tmp/hostile" \
    2>/dev/null
check "hostile: the report quotes the line" grep -q 'RuntimeError' "$tmp/h.html"
check "hostile: the HTML parses to nothing but our own elements" \
    $CHECK html "$tmp/h.html"
check "hostile: the Markdown holds no markup outside a fence" \
    $CHECK md "$tmp/h.md"
check "hostile: no raw <script> or <img> in the HTML" \
    sh -c "! grep -qi '<script\|<img' '$tmp/h.html'"
check "hostile: one </svg>, ours" \
    test "$(grep -o '</svg>' "$tmp/h.html" | wc -l)" -le 1
check "hostile: no ESC, BEL or DEL byte" \
    sh -c "! LC_ALL=C grep -q \"\$(printf '[\\033\\007\\177\\001]')\" '$tmp/h.html' '$tmp/h.md'"
check "hostile: the escaped text is there to read" \
    grep -q '&lt;script&gt;' "$tmp/h.html"
check "hostile: secrets hidden, and counted" \
    sh -c "! grep -q 'hf_abcdefghij\|abcdefghijklmnop1234' '$tmp/h.html' '$tmp/h.md' &&
    grep -q '^| redaction | applied: [1-9][0-9]* value' '$tmp/h.md'"
check "hostile: --no-redact keeps them, and says so" \
    sh -c "grep -q 'hf_abcdefghij' '$tmp/hn.md' &&
    grep -q 'not applied (--no-redact)' '$tmp/hn.md'"

# A stored incident: its id and its notes are in the report.
db=$tmp/db.sqlite
case=$(pick kind code)
"$RANKLINE" --db "$db" report --format json -o "$tmp/s.json" "$case" 2>/dev/null
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"]["incident"])' "$tmp/s.json")
"$RANKLINE" --db "$db" note "$id" 'bad batch <b>x</b> & WANDB_API_KEY=0123456789abcdef' >/dev/null 2>&1
"$RANKLINE" --db "$db" report -o "$tmp/s.md" "$case" 2>/dev/null
"$RANKLINE" --db "$db" report -o "$tmp/s.html" "$case" 2>/dev/null
check "store: the report names the stored incident" \
    grep -q "^# Incident report #$id\$" "$tmp/s.md"
check "store: the note is in the report, escaped and redacted" \
    sh -c "grep -q 'bad batch &lt;b&gt;x&lt;/b&gt; &amp; WANDB.*REDACTED' '$tmp/s.md' &&
    grep -q 'bad batch &lt;b&gt;x&lt;/b&gt; &amp; WANDB_API_KEY=\[REDACTED\]' '$tmp/s.html' &&
    ! grep -q 0123456789abcdef '$tmp/s.md' '$tmp/s.html'"
# From the store alone, after the logs are gone.
mkdir "$tmp/gone"
cp -r "$case" "$tmp/gone/run"
rank=$(label "$case" first_failing_rank)
"$RANKLINE" --db "$tmp/gone.db" report -o "$tmp/gone/first.md" "$tmp/gone/run" 2>/dev/null
"$RANKLINE" --db "$tmp/gone.db" note 1 'node <i>3</i> replaced' >/dev/null 2>&1
"$RANKLINE" --db "$tmp/gone.db" --no-store report -o "$tmp/gone/h.md" "$tmp/hostile" 2>/dev/null
"$RANKLINE" --db "$tmp/gone.db" report -o "$tmp/gone/h2.md" "$tmp/hostile" 2>/dev/null
rm -rf "$tmp/gone/run" "$tmp/hostile"
"$RANKLINE" --db "$tmp/gone.db" report --incident 1 -o "$tmp/gone/s.md"
ok $? "store: report --incident 1 with the logs gone"
"$RANKLINE" --db "$tmp/gone.db" report --incident 1 -o "$tmp/gone/s.html"
"$RANKLINE" --db "$tmp/gone.db" report --incident 1 --format json > "$tmp/gone/s.json"
"$RANKLINE" --db "$tmp/gone.db" report --last -o "$tmp/gone/last.html"
ok $? "store: report --last"
check "store: the first failure, the note, and what a stored report lacks" \
    sh -c "grep -q '^| first failing rank | $rank |' '$tmp/gone/s.md' &&
    grep -q 'node &lt;i&gt;3&lt;/i&gt; replaced' '$tmp/gone/s.md' &&
    grep -q 'Made from the store alone' '$tmp/gone/s.md' &&
    grep -q '^\*\*first failure\*\*' '$tmp/gone/s.md'"
check "store: its HTML parses, and the Markdown's fences hold" \
    sh -c "$CHECK html '$tmp/gone/s.html' && $CHECK md '$tmp/gone/s.md'"
check "store: JSON has the events, the note and the id" \
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["report"]["incident"] == 1 and d["report"]["from_store"]
assert d["events"] and d["report"]["notes"][0]["text"] == "node <i>3</i> replaced"' \
    "$tmp/gone/s.json"
check "store: --last is the hostile log's, escaped and redacted" \
    sh -c "$CHECK html '$tmp/gone/last.html' &&
    grep -q '&lt;script&gt;' '$tmp/gone/last.html' &&
    ! grep -q 'hf_abcdefghij' '$tmp/gone/last.html'"
check "store: the files are 0600" \
    test "$(stat -c %a "$tmp/gone/s.md" "$tmp/gone/last.html" | sort -u)" = 600
check "usage: an unknown format is refused" \
    sh -c "! '$RANKLINE' --no-store report --format pdf '$case' 2>/dev/null"

# Chromium draws the HTML: the picture is not blank.
if command -v chromium >/dev/null 2>&1; then
	case=$(pick kind hang)
	"$RANKLINE" --no-store report -o "$tmp/draw.html" "$case" 2>/dev/null
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
	    --hide-scrollbars --window-size=1000,1400 \
	    --screenshot="$tmp/draw.png" "file://$tmp/draw.html" \
	    >/dev/null 2>&1
	check "chromium: the report drawn to a PNG that is not blank" \
	    python3 -c 'import sys, zlib, struct
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n"
i, idat = 8, b""
while i < len(d):
    n, t = struct.unpack(">I4s", d[i:i+8]); i += 8
    if t == b"IDAT": idat += d[i:i+n]
    i += n + 4
raw = zlib.decompress(idat)
assert len(set(raw[j] for j in range(0, len(raw), 97))) > 8' "$tmp/draw.png"
	mkdir -p report-artefacts 2>/dev/null &&
	    cp "$tmp/draw.png" report-artefacts/report.png 2>/dev/null
else
	skip "no chromium (Debian package chromium) to draw the HTML"
fi
tap_done
