#!/bin/sh
# Faults: a database that cannot be written.  A folder this user cannot
# write (root writes anywhere, so the reader is nobody, through setpriv),
# with and without another process holding the database open; a read-only
# bind mount; a file made immutable (chattr +i, which stops root too).
# Reading must work; writing must fail, exit 1 and say why; the database
# stays whole, and a WAL left with saves and no -shm is named, not skipped.
. "${RL_SRCDIR:-.}/tests/lib.sh"
. "$RL_SRCDIR/tests/faults/common.sh"

ro="$(cd "$ftmp" && pwd -P)/ro"
mkdir "$ro" "$ftmp/logs"
seed_db "$ro/a.db" 6 || { echo "Bail out! cannot seed"; exit 1; }
printf 'RuntimeError: a new failure\n' > "$ftmp/logs/new.log"
chmod 755 "$ftmp" "$ftmp/logs" "$ftmp/seed"
chmod 644 "$ro/a.db" "$ftmp/logs/new.log"

# reads LABEL [RUNNER...]: history, show and --export read all 6.
reads() {
	label=$1
	shift
	"$@" "$RANKLINE" --db "$ro/a.db" history --json > "$ftmp/h" \
	    2>"$ftmp/err" &&
	[ "$(grep -c '"id"' "$ftmp/h")" -eq 6 ] &&
	"$@" "$RANKLINE" --db "$ro/a.db" show 1 > "$ftmp/s" 2>>"$ftmp/err" &&
	grep -q "seed diagnosis" "$ftmp/s" &&
	"$@" "$RANKLINE" --db "$ro/a.db" history --export - > "$ftmp/e" \
	    2>>"$ftmp/err" && [ "$(grep -c '"uid"' "$ftmp/e")" -ge 6 ]
	ok $? "$label: history, show and --export read it $(head -c 300 "$ftmp/err")"
}

# refuses LABEL [RUNNER...]: analyze and note fail, exit 1, say so, and
# change nothing (checked after $refuses_after, which lets the checker in).
refuses_after=""
refuses() {
	label=$1
	shift
	"$@" "$RANKLINE" --db "$ro/a.db" analyze "$ftmp/logs/new.log" \
	    >/dev/null 2>"$ftmp/err"
	rc1=$?
	"$@" "$RANKLINE" --db "$ro/a.db" note 1 "more" >/dev/null 2>>"$ftmp/err"
	rc2=$?
	eval "$refuses_after"
	set -- $(db_state "$ro/a.db")
	[ $rc1 -eq 1 ] && [ $rc2 -eq 1 ] && [ "$1" = ok ] && [ "$2" -eq 6 ] &&
	    [ "$3" -eq 2 ] && [ "$(grep -ci "$ro/a.db.*\(read\|written\)" "$ftmp/err")" -eq 2 ]
	ok $? "$label: analyze and note exit $rc1 and $rc2 and say why, nothing changed ($*): $(tr '\n' ' ' < "$ftmp/err" | head -c 300)"
}

# As nobody, in a folder only root may write.
if [ "$(id -u)" -ne 0 ]; then
	as_nobody() { "$@"; }
	have_reader=1
elif command -v setpriv >/dev/null 2>&1; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	have_reader=1
else
	have_reader=0
fi
chmod 555 "$ro"
if [ $have_reader -eq 1 ] && as_nobody "$RANKLINE" --version >/dev/null 2>&1 &&
    ! as_nobody sh -c ": > '$ro/probe'" 2>/dev/null; then
	reads "a folder this user cannot write" as_nobody
	refuses "a folder this user cannot write" as_nobody
	# Another process holds it with saves in its WAL: read through its -shm.
	chmod 755 "$ro"
	"$PY" - "$ro/a.db" "$ftmp/go" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA wal_autocheckpoint = 0")
c.execute("INSERT INTO notes (incident_id, created, kind, text, uid)"
          " VALUES (1, '2026', 'diagnosis', 'held open', 'h1')")
os.chmod(sys.argv[1] + "-wal", 0o644)
os.chmod(sys.argv[1] + "-shm", 0o644)
open(sys.argv[2], "w").close()
for i in range(300):
    if not os.path.exists(sys.argv[2]):
        break
    time.sleep(0.05)
PY
	holder=$!
	i=0
	while [ ! -f "$ftmp/go" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	chmod 555 "$ro"
	as_nobody "$RANKLINE" --db "$ro/a.db" show 1 > "$ftmp/s" 2>"$ftmp/err"
	grep -q "held open" "$ftmp/s"
	ok $? "held open by another process: its unsaved WAL is read too $(cat "$ftmp/err")"
	# It crashed, and someone removed the -shm: the saves are named.
	chmod 755 "$ro"
	cp "$ro/a.db" "$ro/a.db-wal" "$ftmp/"
	rm -f "$ftmp/go"
	wait $holder
	mkdir "$ftmp/c" && cp "$ftmp/a.db" "$ftmp/a.db-wal" "$ftmp/c/" &&
	chmod 555 "$ftmp/c" && chmod 644 "$ftmp/c/a.db" "$ftmp/c/a.db-wal"
	as_nobody "$RANKLINE" --db "$ftmp/c/a.db" history > /dev/null 2>"$ftmp/err"
	[ $? -eq 1 ] && grep -q "a.db-wal holds saves" "$ftmp/err"
	ok $? "a WAL with saves and no -shm is named, not skipped: $(cat "$ftmp/err")"
	chmod 755 "$ftmp/c"
	# Once its folder is writable again, nothing was lost.
	set -- $(db_state "$ftmp/c/a.db")
	[ "$1" = ok ] && [ "$3" -eq 3 ]
	ok $? "and the saves are all there for one who may write: $*"
	"$PY" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("DELETE FROM notes WHERE uid = ?", ("h1",)); c.commit()' "$ro/a.db"
	chmod 555 "$ro"
else
	skip "no user here for whom $ro is read only"
	skip "no user here for whom $ro is read only"
	skip "no user here for whom $ro is read only"
	skip "no user here for whom $ro is read only"
	skip "no user here for whom $ro is read only"
fi
chmod 755 "$ro"

# A read-only bind mount, in a mount namespace of its own.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null 2>&1 &&
    unshare -m sh -c "mount --bind '$ro' '$ro' && mount -o remount,bind,ro '$ro' '$ro'" 2>/dev/null; then
	sh_runner() { unshare -m sh -c "mount --bind '$ro' '$ro' && mount -o remount,bind,ro '$ro' '$ro' && exec \"\$@\"" sh "$@"; }
	reads "a read-only mount" sh_runner
	refuses "a read-only mount" sh_runner
else
	skip "cannot bind-mount read only here"
	skip "cannot bind-mount read only here"
fi

# chattr +i: root's access() says yes, the write still fails.
if [ "$(id -u)" -eq 0 ] && command -v chattr >/dev/null 2>&1 &&
    chattr +i "$ro/a.db" 2>/dev/null; then
	fault_cleanups="chattr -i '$ro/a.db' 2>/dev/null; $fault_cleanups"
	chmod 555 "$ro"
	reads "an immutable file in a read-only folder"
	chmod 755 "$ro"
	reads "an immutable file"
	refuses_after="chattr -i '$ro/a.db'"
	refuses "an immutable file"
else
	skip "chattr +i is not possible here"
	skip "chattr +i is not possible here"
	skip "chattr +i is not possible here"
fi
set -- $(db_state "$ro/a.db")
[ "$1" = ok ] && [ "$2" -eq 6 ] && [ "$3" -eq 2 ]
ok $? "after all that, the database is whole and holds all it held: $*"
tap_done
