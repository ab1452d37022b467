#!/bin/sh
# Faults: a database from an older rankline.  A version 1 database (the
# schema of store-migrate.c's first step, made here with SQL) of 2,000
# incidents with notes is brought to the current version by the first
# command that opens it, and that migration is interrupted by SIGKILL,
# SIGTERM and SIGHUP at swept times, and by a full disk.  After each: the
# database is whole, at version 1 or the current one, never between, with
# every incident and note; the next command finishes the migration.  A
# version 1 database that cannot be written, and one from a newer
# rankline, are refused with the reason and left as they were.
. "${RL_SRCDIR:-.}/tests/lib.sh"
. "$RL_SRCDIR/tests/faults/common.sh"

v1="$(cd "$ftmp" && pwd -P)/v1.db"
"$PY" - "$v1" 2000 <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""
CREATE TABLE incidents (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,
  created TEXT NOT NULL, updated TEXT NOT NULL, started TEXT, ended TEXT,
  signature TEXT, fingerprint TEXT, rank INTEGER, host TEXT, role TEXT,
  domain TEXT, grp TEXT, scope TEXT, summary TEXT, explanation TEXT,
  ckpt_status TEXT, last_safe_step INTEGER, text TEXT,
  nsources INTEGER NOT NULL DEFAULT 0, nranks INTEGER NOT NULL DEFAULT 0,
  nevents INTEGER NOT NULL DEFAULT 0, nlines INTEGER NOT NULL DEFAULT 0,
  nbytes INTEGER NOT NULL DEFAULT 0);
CREATE INDEX incidents_fingerprint ON incidents (fingerprint);
CREATE INDEX incidents_signature ON incidents (signature);
CREATE INDEX incidents_created ON incidents (created);
CREATE INDEX incidents_updated ON incidents (updated);
CREATE TABLE sources (id INTEGER PRIMARY KEY, incident_id INTEGER NOT NULL
  REFERENCES incidents (id) ON DELETE CASCADE, path TEXT NOT NULL,
  rank INTEGER, host TEXT, lines INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0);
CREATE INDEX sources_incident ON sources (incident_id);
CREATE TABLE ranks (id INTEGER PRIMARY KEY, incident_id INTEGER NOT NULL
  REFERENCES incidents (id) ON DELETE CASCADE, rank INTEGER, host TEXT,
  state TEXT, first_time TEXT, last_time TEXT,
  lines INTEGER NOT NULL DEFAULT 0, last_step INTEGER);
CREATE INDEX ranks_incident ON ranks (incident_id);
CREATE TABLE events (id INTEGER PRIMARY KEY, incident_id INTEGER NOT NULL
  REFERENCES incidents (id) ON DELETE CASCADE, source TEXT, line INTEGER,
  byte_offset INTEGER, time TEXT, rank INTEGER, signature TEXT, role TEXT,
  domain TEXT, root INTEGER NOT NULL DEFAULT 0, text TEXT, context TEXT);
CREATE INDEX events_incident ON events (incident_id);
CREATE INDEX events_signature ON events (signature);
CREATE TABLE notes (id INTEGER PRIMARY KEY, incident_id INTEGER NOT NULL
  REFERENCES incidents (id) ON DELETE CASCADE, created TEXT NOT NULL,
  text TEXT NOT NULL);
CREATE INDEX notes_incident ON notes (incident_id);
""")
for i in range(1, int(sys.argv[2]) + 1):
    text = ("RuntimeError: CUDA error: an illegal memory access at 0x%x"
            " on node-%d rank %d step %d" % (i * 4096, i % 37, i % 64, i))
    c.execute("INSERT INTO incidents (id, key, created, updated, started,"
              " signature, rank, host, domain, summary, text, nsources,"
              " nranks) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 8)",
              (i, "k%d" % i, "2026-01-01T00:00:%02d.000Z" % (i % 60),
               "2026-01-01T00:00:00.000Z", "2026-01-01 00:00:00",
               "cuda.illegal_address", i % 64, "node-%d" % (i % 37),
               "hardware", "rank %d hit an illegal address" % (i % 64),
               text))
    c.execute("INSERT INTO sources (incident_id, path, rank) VALUES (?, ?, ?)",
              (i, "/logs/job%d/rank%d.log" % (i, i % 64), i % 64))
    for j in range(5):
        c.execute("INSERT INTO events (incident_id, source, line, text,"
                  " signature, role, root) VALUES (?, ?, ?, ?, ?, ?, ?)",
                  (i, "/logs/job%d/rank0.log" % i, j + 1, text,
                   "cuda.illegal_address", "root" if j == 0 else "symptom",
                   1 if j == 0 else 0))
    c.execute("INSERT INTO notes (incident_id, created, text) VALUES (?, ?, ?)",
              (i, "2026-01-02T00:00:00.000Z", "bad HBM on node-%d" % (i % 37)))
c.execute("PRAGMA user_version = 1")
c.commit()
PY
set -- $(db_state "$v1")
[ "$1" = ok ] && [ "$2" -eq 2000 ] && [ "$3" -eq 2000 ] && [ "$4" -eq 1 ]
ok $? "a version 1 database of 2000 incidents and notes: $*"

# The whole migration, once, and how long it takes.
cp "$v1" "$ftmp/m.db"
ms=$(ms_of "$RANKLINE" --db "$ftmp/m.db" history)
set -- $(db_state "$ftmp/m.db")
current=$4
"$RANKLINE" --db "$ftmp/m.db" history "node-5 " > "$ftmp/q" 2>"$ftmp/err"
[ "$1" = ok ] && [ "$2" -eq 2000 ] && [ "$3" -eq 2000 ] && [ "$4" -gt 1 ] &&
    [ "$(grep -c "rank" "$ftmp/q")" -ge 50 ] && [ ! -s "$ftmp/err" ]
ok $? "history migrates it in $ms ms to version $current, every incident and note kept and searchable: $*"

# A version 1 database nobody may write: said, and left as it was.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	mkdir "$ftmp/ro" && cp "$v1" "$ftmp/ro/v1.db" &&
	chmod 755 "$ftmp" "$ftmp/ro" && chmod 644 "$ftmp/ro/v1.db"
	sum=$(cksum < "$ftmp/ro/v1.db")
	setpriv --reuid=65534 --regid=65534 --clear-groups "$RANKLINE" \
	    --db "$ftmp/ro/v1.db" history >/dev/null 2>"$ftmp/err"
	[ $? -eq 1 ] && grep -q "version 1 needs bringing up" "$ftmp/err" &&
	    [ "$(cksum < "$ftmp/ro/v1.db")" = "$sum" ]
	ok $? "read only, it is refused with the reason: $(cat "$ftmp/err")"
else
	skip "no user here for whom a database is read only"
fi

# From a newer rankline: refused, untouched.
cp "$ftmp/m.db" "$ftmp/new.db"
"$PY" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version = 99"); c.commit()' "$ftmp/new.db"
sum=$(cksum < "$ftmp/new.db")
"$RANKLINE" --db "$ftmp/new.db" analyze "$ftmp/q" >/dev/null 2>"$ftmp/err"
[ $? -eq 1 ] && grep -q "version 99 .*newer" "$ftmp/err" &&
    [ "$(cksum < "$ftmp/new.db")" = "$sum" ]
ok $? "a newer database is refused by analyze, exit 1, untouched: $(cat "$ftmp/err")"

# Signals during the migration.
db="$(cd "$ftmp" && pwd -P)/k.db"
rounds=${RL_FAULT_ROUNDS:-10}
tally="" bad=""
for sig in KILL TERM HUP; do
	i=0
	fault_phase
	while [ $i -lt "$rounds" ] && fault_more $i; do
		cp "$v1" "$db"
		k=$(fault_spread $i "$rounds")
		set -- $(signal_at "$sig" $((ms * (k + 1) / (rounds + 1))) "$db" \
		    "$ftmp/err" "$RANKLINE" --db "$db" history)
		phase=$1 rc=$2
		set -- $(db_state "$db")
		good=0
		[ "$1" = ok ] && [ "$2" -eq 2000 ] && [ "$3" -eq 2000 ] &&
		    { [ "$4" -eq 1 ] || [ "$4" -eq "$current" ]; } && good=1
		# The next command finishes it.
		"$RANKLINE" --db "$db" history >/dev/null 2>>"$ftmp/err" || good=0
		set -- $(db_state "$db")
		[ "$4" = "$current" ] && [ "$2" -eq 2000 ] || good=0
		tally="$tally migrate-$sig-$phase-$good"
		[ $good -eq 1 ] || bad="$bad
#   SIG$sig at round $i ($phase, exit $rc): $*: $(head -c 300 "$ftmp/err")"
		i=$((i + 1))
	done
done
for sig in KILL TERM HUP; do report migrate $sig; done

# A full disk during the migration.
shim="$RL_BUILDDIR/tests/faults/enospc.so"
if [ -f "$shim" ]; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	export ASAN_OPTIONS
	cp "$v1" "$db"
	LD_PRELOAD="$shim" RL_ENOSPC_MATCH="$db" RL_ENOSPC_COUNT="$ftmp/count" \
	    "$RANKLINE" --db "$db" history >/dev/null 2>&1
	need=$(cat "$ftmp/count" 2>/dev/null)
	[ "${need:-0}" -gt 0 ] || rounds=-1
	n=0 nok=0 refused=0 i=0
	fault_phase
	while [ $i -le "$rounds" ] && fault_more $i; do
		cp "$v1" "$db"
		k=$(fault_spread $i $((rounds + 1)))
		LD_PRELOAD="$shim" RL_ENOSPC_MATCH="$db" \
		    RL_ENOSPC_AFTER=$((need * k / rounds)) \
		    "$RANKLINE" --db "$db" history >/dev/null 2>"$ftmp/err"
		rc=$?
		set -- $(db_state "$db")
		n=$((n + 1))
		if [ "$1" = ok ] && [ "$2" -eq 2000 ] && [ "$3" -eq 2000 ] &&
		    { { [ $rc -eq 0 ] && [ "$4" -eq "$current" ]; } ||
		    { [ $rc -eq 1 ] && grep -qE "full|No space" "$ftmp/err"; }; }; then
			nok=$((nok + 1))
			[ $rc -eq 1 ] && refused=$((refused + 1))
		else
			bad="$bad
#   disk full after $((need * k / rounds)) of $need bytes: exit $rc, $*: $(head -c 300 "$ftmp/err")"
		fi
		i=$((i + 1))
	done
	if [ "$rounds" -lt 0 ]; then
		skip "the shim cannot stand in front of this build's writes"
	else
		[ $n -gt 0 ] && [ $nok -eq $n ]
		ok $? "migration on a disk full after 0 to $need bytes: $nok of $n whole, $refused refused and said so"
	fi
else
	skip "no $shim (make check builds it)"
fi
[ -z "$bad" ]
ok $? "every interrupted migration left a whole database$bad"
tap_done
