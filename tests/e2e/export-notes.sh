#!/bin/sh
# export-notes.sh: the report the console's e (and E) writes carries what
# `rankline report` carries for a stored incident: its id in the store and
# the engineer's notes on it, read through the caller's history callbacks.
# The note is written before the console starts, by rankline note, and
# holds markup, which the report escapes.
. "$(dirname "$0")/lib.sh"

case=$(python3 -c 'import json, os, sys
c = sys.argv[1]
for d in sorted(os.listdir(c)):
    try:
        l = json.load(open(os.path.join(c, d, "labels.json")))
    except OSError:
        continue
    if l.get("kind") == "code" and isinstance(l.get("first_failing_rank"), int):
        print(os.path.join(c, d)); break' "$CORPUS")

db="$TMPD/n.db"
mkdir "$TMPD/out"
# Another incident first, so that the id is not 1 by chance.
other=$(ls -d "$CORPUS"/*/ | grep -v "^$case/\$" | head -1)
"$RANKLINE" analyze --db "$db" "$other" >/dev/null 2>&1
"$RANKLINE" analyze --db "$db" "$case" >/dev/null 2>&1
id=$("$RANKLINE" history --db "$db" --json | python3 -c 'import json, sys
print(max(r["id"] for r in json.load(sys.stdin)))')
"$RANKLINE" note --db "$db" "$id" 'loader bug <b>seen</b> & fixed in 1.2' \
    >/dev/null 2>&1
"$RANKLINE" note --db "$db" --resolution "$id" 'pinned the dataset index' \
    >/dev/null 2>&1
[ "$id" -ge 2 ]
ok $? "the incident is stored as #$id, with two notes"

start 100 30
type_line "cd '$TMPD/out' && $RANKLINE --db '$db' --no-follow '$case'; echo RL_DONE rc=\$?"
wait_for "FIRST FAILURE"
ok $? "the console shows the incident"

send e
wait_for 'report written to rankline-report-[0-9-]*\.md'
ok $? "e says where the report went"
f=$(ls "$TMPD/out"/rankline-report-*.md 2>/dev/null | head -1)
grep -q "^# Incident report #$id\$" "$f"
ok $? "e's report names the incident #$id"
grep -q '^## Notes' "$f" &&
    grep -q '^- \*\*diagnosis\*\* .*: loader bug &lt;b&gt;seen&lt;/b&gt; &amp; fixed in 1\.2$' "$f" &&
    grep -q '^- \*\*resolution\*\* .*: pinned the dataset index$' "$f"
ok $? "e's report holds both notes, the markup escaped"

send E
wait_for 'report to'
send C-u
type_line "$TMPD/out/asked.json"
wait_for 'report written to .*asked[.]json [(]json'
ok $? "E writes JSON"
python3 - "$TMPD/out/asked.json" "$id" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["report"]
assert r["incident"] == int(sys.argv[2]), r
assert [n["kind"] for n in r["notes"]] == ["diagnosis", "resolution"], r
assert r["notes"][0]["text"] == "loader bug <b>seen</b> & fixed in 1.2", r
PY
ok $? "E's JSON report has the id and the notes"

send q
quit_checks

done_testing
