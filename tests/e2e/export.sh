#!/bin/sh
# export.sh: e in the console writes the report of the incident on screen
# to a file in the working directory, named in the status line, made 0600,
# holding the first failure the screen shows; a second e makes a second
# file rather than overwriting the first.  E asks for the path, whose
# extension picks the format; Esc cancels.
. "$(dirname "$0")/lib.sh"

# A case with one first failing rank, found by its labels.
case=$(python3 -c 'import json, os, sys
c = sys.argv[1]
for d in sorted(os.listdir(c)):
    try:
        l = json.load(open(os.path.join(c, d, "labels.json")))
    except OSError:
        continue
    if l.get("kind") == "code" and isinstance(l.get("first_failing_rank"), int):
        print(os.path.join(c, d), l["first_failing_rank"]); break' "$CORPUS")
rank=${case##* }
case=${case% *}

mkdir "$TMPD/out"
start 100 30
type_line "cd '$TMPD/out' && $RANKLINE --no-store --no-follow '$case'; echo RL_DONE rc=\$?"
wait_for "^ *FIRST FAILURE.*rank $rank"
ok $? "starts with rank $rank first"

send e
wait_for 'report written to rankline-report-[0-9-]*\.md'
ok $? "e says where the report went"
f=$(ls "$TMPD/out"/rankline-report-*.md 2>/dev/null | head -1)
[ -n "$f" ] && [ "$(stat -c %a "$f")" = 600 ]
ok $? "the file is there, made 0600"
grep -q '^# Incident report' "$f" &&
    grep -q "^\*\*First failure: rank $rank" "$f" &&
    grep -q '^## Timeline' "$f"
ok $? "it holds the report of the incident on screen"

send e
wait_for 'report written to rankline-report-[0-9-]*-1\.md' ||
    wait_for 'report written to rankline-report-[0-9-]*\.md'
[ "$(ls "$TMPD/out" | wc -l)" -eq 2 ]
ok $? "a second e writes a second file"

# E: the path typed on the status line, its extension the format.
send E
wait_for 'report to [(][.]md [.]html [.]json'
ok $? "E asks for the path on the status line"
send C-u
type_line "$TMPD/out/asked.html"
wait_for 'report written to .*asked[.]html [(]html'
ok $? "Enter writes it, as HTML from its extension"
python3 "$(dirname "$0")/../cli/report-check.py" html "$TMPD/out/asked.html" 2>/dev/null &&
    [ "$(stat -c %a "$TMPD/out/asked.html")" = 600 ]
ok $? "the HTML parses, made 0600"
send E
wait_for 'report to'
send Escape
wait_for 'report not written'
ok $? "Esc cancels"
[ "$(ls "$TMPD/out" | wc -l)" -eq 3 ]
ok $? "nothing more was written"

send q
quit_checks

done_testing
