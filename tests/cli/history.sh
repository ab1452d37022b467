#!/bin/sh
# The history from the command line: a recurring failure meets its earlier
# diagnosis in analyze (text and JSON), note --resolution, show with the
# context kept, history --hosts, and export/import between two databases.
. "${RL_SRCDIR:-.}/tests/lib.sh"

corpus="$RL_SHARED/corpus/torch"
[ -d "$corpus/killed-1" ] && [ -d "$corpus/killed-2" ] ||
    skip_all "no corpus at $corpus"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/a.db"

"$RANKLINE" --db "$db" analyze --json "$corpus/killed-1" > "$tmp/o1"
python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["history"]
assert h["seen_before"] == 0 and h["matches"] == [], h' "$tmp/o1"
ok $? "a first failure has not been seen before"

"$RANKLINE" --db "$db" note 1 "host OOM killer: too many dataloader workers" >/dev/null &&
"$RANKLINE" --db "$db" note 1 --resolution "num_workers 8 -> 4" >/dev/null
ok $? "note and note --resolution"

"$RANKLINE" --db "$db" analyze --json "$corpus/killed-2" > "$tmp/o2"
python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["history"]
assert h["seen_before"] == 1, h
m = h["matches"][0]
assert m["incident"] == 1 and m["exact"] and "score" not in m, m
assert m["diagnosis"].startswith("host OOM killer"), m
assert m["resolution"] == "num_workers 8 -> 4", m
assert m["fingerprint"] == h["fingerprint"] and m["time"].startswith("2026-"), m' "$tmp/o2"
ok $? "analyze --json: seen once, in incident 1, with its diagnosis"

"$RANKLINE" --db "$db" analyze "$corpus/killed-2" > "$tmp/t2"
grep -q "^Seen before: 1 time," "$tmp/t2" && grep -q "Diagnosis: host OOM killer" "$tmp/t2"
ok $? "analyze (text) says so too, the same logs not counting themselves twice"

"$RANKLINE" --db "$db" show 1 > "$tmp/s1"
grep -q "resolution *num_workers" "$tmp/s1" && grep -q "^      > " "$tmp/s1"
ok $? "show: the notes, and the context lines kept around failures"

"$RANKLINE" --db "$db" analyze "$corpus/code-1" >/dev/null
"$RANKLINE" --db "$db" analyze --json "$corpus/skew-1" > "$tmp/o3"
python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["history"]
assert h["seen_before"] == 1, h' "$tmp/o3"
ok $? "IndexError under [default1]: and without it: the same failure"

"$RANKLINE" --db "$db" history --hosts --json > "$tmp/h"
python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
assert all(o["count"] >= 2 for o in v), v
# These runs name neither their job nor their host: rank 1 of one is not
# rank 1 of another (#25; tests/cli/offenders.sh counts those that do).
assert not any(o["kind"] == "rank" for o in v), v' "$tmp/h"
ok $? "history --hosts --json lists what failed twice or more, no rank of an unknown job"

"$RANKLINE" --db "$db" history --export "$tmp/e1.json" &&
"$RANKLINE" --db "$tmp/b.db" history --import "$tmp/e1.json" > "$tmp/i1" &&
"$RANKLINE" --db "$tmp/b.db" history --import "$tmp/e1.json" > "$tmp/i2" &&
"$RANKLINE" --db "$tmp/b.db" history --export "$tmp/e2.json" &&
cmp -s "$tmp/e1.json" "$tmp/e2.json" && grep -q "imported 0 new" "$tmp/i2"
ok $? "export, import twice, export: identical, the second import adds nothing"

printf '{"rankline_history": 1,\n "incidents": [oops]}\n' > "$tmp/bad.json"
"$RANKLINE" --db "$tmp/b.db" history --import "$tmp/bad.json" 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "bad.json:2:" "$tmp/err"
ok $? "a bad import file is named with its line: $(cat "$tmp/err")"

"$RANKLINE" --db "$tmp/b.db" history sigkill > "$tmp/q"
[ "$(grep -c exit_sigkill "$tmp/q")" -eq 2 ]
ok $? "history QUERY finds the imported incidents"

# Two engineers analysed the same folder, one imports the other's export:
# the incident's key is taken, so the import renames it through jansson's
# json_string, which a name of ours once shadowed (heap corruption).
"$RANKLINE" --db "$tmp/t1.db" analyze "$corpus/killed-1" >/dev/null 2>&1
"$RANKLINE" --db "$tmp/t2.db" analyze "$corpus/killed-1" >/dev/null 2>&1
"$RANKLINE" --db "$tmp/t1.db" history --export "$tmp/t1.json" &&
"$RANKLINE" --db "$tmp/t2.db" history --import "$tmp/t1.json" >"$tmp/ti" 2>&1 &&
"$RANKLINE" --db "$tmp/t2.db" history --export "$tmp/t2.json" &&
python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["incidents"]
keys = [o["key"] for o in v]
assert len(v) == 2 and sum(k.startswith("import:") for k in keys) == 1, keys' \
    "$tmp/t2.json"
ok $? "an import whose key is taken is kept under a key of its own: $(cat "$tmp/ti")"

# Reading never makes a database: a typo in --db is said, and leaves nothing.
for cmd in "history" "history --hosts" "history --export $tmp/x.json" \
    "show 1" "note 1 text"; do
	# shellcheck disable=SC2086
	"$RANKLINE" --db "$tmp/typo/dir/x.db" $cmd >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "no incident database at $tmp/typo/dir/x.db" \
	    "$tmp/err" && [ ! -e "$tmp/typo" ] && [ ! -e "$tmp/x.json" ]
	ok $? "$cmd --db a path that is not there: exit $rc, nothing made: $(cat "$tmp/err")"
done
# On a new machine the default history is empty, and stays uncreated.
mkdir "$tmp/home"
HOME="$tmp/home" XDG_DATA_HOME="" "$RANKLINE" history > "$tmp/h" 2>&1 &&
grep -q "^no incidents$" "$tmp/h" && [ -z "$(ls -A "$tmp/home")" ]
ok $? "history with no database yet: no incidents, exit 0, nothing made"
HOME="$tmp/home" XDG_DATA_HOME="" "$RANKLINE" show 1 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "no incident database at $tmp/home/" "$tmp/err" &&
    [ -z "$(ls -A "$tmp/home")" ]
ok $? "show with no database yet says so: $(cat "$tmp/err")"

# A database in a folder this user cannot write (someone else's, shared):
# it is read, read only.  Root writes anywhere, so the reader is nobody.
# A name with what a URI gives a meaning to: the read-only open is by URI.
ro="$tmp/ro %41?#"
if [ "$(id -u)" -ne 0 ]; then
	as_reader() { "$@"; }
elif command -v setpriv >/dev/null 2>&1; then
	as_reader() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	as_reader=""
fi
mkdir "$ro" "$ro/out" && cp "$db" "$ro/a.db" && chmod 755 "$tmp" "$ro" &&
    chmod 644 "$ro/a.db" && chmod 777 "$ro/out"
n=$("$RANKLINE" --db "$db" history --json | grep -c '"id"')
chmod 555 "$ro"
if ! command -v as_reader >/dev/null 2>&1 ||
    ! as_reader "$RANKLINE" --version >/dev/null 2>&1 ||
    as_reader sh -c ": > '$ro/probe'" 2>/dev/null; then
	skip "no user here for whom $ro is read only"
	skip "no user here for whom $ro is read only"
	skip "no user here for whom $ro is read only"
else
	as_reader "$RANKLINE" --db "$ro/a.db" history --json > "$tmp/h" 2>"$tmp/err"
	[ $? -eq 0 ] && [ "$(grep -c '"id"' "$tmp/h")" -eq "$n" ]
	ok $? "history of a database in a read-only folder: $n incidents $(cat "$tmp/err")"
	as_reader "$RANKLINE" --db "$ro/a.db" show 1 > "$tmp/s" 2>"$tmp/err" &&
	grep -q "resolution *num_workers" "$tmp/s" &&
	as_reader "$RANKLINE" --db "$ro/a.db" history --export "$ro/out/e.json" \
	    2>>"$tmp/err" && cmp -s "$ro/out/e.json" "$tmp/e1.json"
	ok $? "show and --export read it too $(cat "$tmp/err")"
	as_reader "$RANKLINE" --db "$ro/a.db" note 1 "x" >/dev/null 2>"$tmp/err"
	[ $? -eq 1 ] && grep -q "$ro/a.db" "$tmp/err" &&
	    [ -z "$(find "$ro" -newer "$ro/a.db" ! -path "$ro/out*")" ]
	ok $? "a note there fails and says why: $(cat "$tmp/err")"
fi
chmod 755 "$ro"

# Dates are text to the store, and an import brings whatever another
# machine's file says: history, show and --hosts print them made safe.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
esc = "\u001b]0;pwned\u0007\u001b[2J"
for i in d["incidents"]:
    i["uid"] += "e"
    i["created"] = i["occurred"] = esc
    for e in i["events"]:
        e["time"] = esc
    for n in i["notes"]:
        n["uid"] += "e"
        n["created"] = esc
json.dump(d, open(sys.argv[2], "w"))' "$tmp/t1.json" "$tmp/esc.json" &&
"$RANKLINE" --db "$tmp/t3.db" history --import "$tmp/esc.json" >/dev/null &&
"$RANKLINE" --db "$tmp/t3.db" note 1 "seen" >/dev/null &&
{ "$RANKLINE" --db "$tmp/t3.db" history; "$RANKLINE" --db "$tmp/t3.db" show 1;
  "$RANKLINE" --db "$tmp/t3.db" history --hosts; } > "$tmp/esc.out" 2>&1 &&
[ -s "$tmp/esc.out" ] && ! grep -q "$(printf '\033')" "$tmp/esc.out" &&
! grep -q "$(printf '\007')" "$tmp/esc.out"
ok $? "an imported date's escape sequences reach no terminal (history, show, --hosts)"
tap_done
