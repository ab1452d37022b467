#!/bin/sh
# Faults: SIGKILL, SIGTERM and SIGHUP sent to `history --import` of 60
# incidents of 700 events each (one transaction, a long write) at times
# swept across it.  After each: the database passes its integrity checks
# and holds what it held, or that and all 60: an import is never half done.
. "${RL_SRCDIR:-.}/tests/lib.sh"
. "$RL_SRCDIR/tests/faults/common.sh"

db="$(cd "$ftmp" && pwd -P)/a.db"
seed_db "$db" 12 || { echo "Bail out! cannot seed $db"; exit 1; }
big_logs "$ftmp/big" || skip_all "cannot generate logs (bench/gen)"

# 60 copies of the big incident, under identities of their own.
"$RANKLINE" --db "$ftmp/src.db" analyze "$ftmp/big" >/dev/null 2>&1
"$RANKLINE" --db "$ftmp/src.db" history --export "$ftmp/one.json"
"$PY" - "$ftmp/one.json" "$ftmp/many.json" 60 <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
one = h["incidents"][0]
v = []
for i in range(int(sys.argv[3])):
    c = dict(one, uid="%032x" % (i + 1), key="copy-%d" % i)
    c["notes"] = [{"uid": "%032x" % (10**6 + i), "created": "2026",
                   "kind": "diagnosis", "text": "copy %d" % i}]
    v.append(c)
h["incidents"] = v
json.dump(h, open(sys.argv[2], "w"))
PY
ok $? "an export of 60 incidents to import"
set -- $(db_state "$db")
want="$2 $(($2 + 60))" notes="$3 $(($3 + 60))"

cp "$db" "$ftmp/t.db"
imp=$(ms_of "$RANKLINE" --db "$ftmp/t.db" history --import "$ftmp/many.json")
echo "# an import of 60 takes ${imp} ms"

rounds=${RL_FAULT_ROUNDS:-8}
for sig in KILL TERM HUP; do
	i=0
	fault_phase
	while [ $i -lt "$rounds" ] && fault_more $i; do
		k=$(fault_spread $i "$rounds")
		round "$sig" $((imp * (k + 1) / (rounds + 1))) import \
		    "$RANKLINE" --db "$db" history --import "$ftmp/many.json"
		# Back to the seed, so that the next import adds again.
		"$PY" - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA foreign_keys = ON")
c.execute("DELETE FROM incidents WHERE key LIKE 'copy-%'")
c.commit()
PY
		i=$((i + 1))
	done
done
for sig in KILL TERM HUP; do report import $sig; done
[ -z "$bad" ]
ok $? "every round kept the database whole$bad"
[ "$told" -gt 0 ]
ok $? "an import: each of the $told rounds stopped by a signal it had a handler for said what it cut short"
tap_done
