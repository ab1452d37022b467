# tests/faults/common.sh: what the fault scripts share, sourced after
# tests/lib.sh.
#
# Every fault ends the same way: the database must pass PRAGMA
# integrity_check and both FTS5 indexes' own integrity-check, hold every
# incident and note it held before the fault, and the user must have been
# told (a non-zero exit and stderr naming the problem where a write
# failed).  The database is read with python3's sqlite3 module, since the
# sqlite3 shell may be absent.  Each run of rounds keeps to a time budget
# (RL_FAULT_BUDGET seconds, 5 by default; RL_FAULT_ROUNDS caps the rounds)
# so that a slow machine or a sanitizer build runs fewer rounds rather
# than longer.

command -v python3 >/dev/null 2>&1 || skip_all "python3 reads the databases"
# The interpreter itself: a version manager's shim costs a second a call.
PY=$(python3 -c 'import sys; print(sys.executable)')
[ -x "$RANKLINE" ] || { echo "Bail out! no rankline at $RANKLINE"; exit 1; }
RANKLINE=$(cd "$(dirname "$RANKLINE")" && pwd)/$(basename "$RANKLINE")
RL_BUILDDIR=$(dirname "$RANKLINE")
RL_FAULT_BUDGET=${RL_FAULT_BUDGET:-5}
ftmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-fault.XXXXXX")
fault_cleanups=""
# Run the cleanups a script registered (umounts first), then the folder.
fault_exit() {
	eval "$fault_cleanups"
	rm -rf "$ftmp"
}
trap fault_exit EXIT
trap 'exit 1' INT TERM HUP

# fault_phase: start the clock of a run of rounds.
fault_phase() {
	fault_start=$(date +%s)
}

# fault_more I: whether round I (from 0) may run: the first two always,
# then while the phase is within its budget.
fault_more() {
	[ "$1" -lt 2 ] || [ $(($(date +%s) - fault_start)) -lt "$RL_FAULT_BUDGET" ]
}
fault_phase

# fault_spread I N: the I-th of N points in 0..N-1, in an order (the golden
# ratio's) that spreads the first few over the whole range, so that a
# budget cut short still sweeps it.
fault_spread() {
	echo $(($1 * 618034 % 1000000 * $2 / 1000000))
}

# db_state DB: "ok INCIDENTS NOTES VERSION" when every check passes, else
# what failed.
db_state() {
	"$PY" - "$1" <<'PY'
import os, sqlite3, sys
p = sys.argv[1]
if not os.path.exists(p):
    print("missing"); sys.exit(0)
try:
    c = sqlite3.connect(p, timeout=10)
    ic = c.execute("PRAGMA integrity_check").fetchall()
    if ic != [("ok",)]:
        print("integrity:", ic[:5]); sys.exit(0)
    v = c.execute("PRAGMA user_version").fetchone()[0]
    names = {r[0] for r in c.execute("SELECT name FROM sqlite_master")}
    for fts in ("fingerprints_fts", "incidents_grep"):
        if fts in names:
            c.execute("INSERT INTO %s(%s) VALUES('integrity-check')" %
                      (fts, fts))
    n = c.execute("SELECT count(*) FROM incidents").fetchone()[0]
    nn = c.execute("SELECT count(*) FROM notes").fetchone()[0]
    c.rollback()
    print("ok", n, nn, v)
except Exception as e:
    print("error:", e)
PY
}

# seed_db DB N: N incidents of N different logs, a note on each of the
# first two; the logs are under $ftmp/seed.
seed_db() {
	mkdir -p "$ftmp/seed"
	i=1
	while [ "$i" -le "$2" ]; do
		printf '12/02/2026 13:20:%02d - INFO - train - [rank%d] step %d\nRuntimeError: seed failure %d in shard %d\n' \
		    $((i % 60)) "$i" "$i" "$i" "$i" > "$ftmp/seed/s$i.log"
		"$RANKLINE" --db "$1" analyze "$ftmp/seed/s$i.log" >/dev/null ||
		    return 1
		i=$((i + 1))
	done
	"$RANKLINE" --db "$1" note 1 "seed diagnosis" >/dev/null &&
	"$RANKLINE" --db "$1" note 2 --resolution "seed resolution" >/dev/null
}

# big_logs DIR: a run of 16 ranks, 10 MB, whose analysis stores some
# 700 events, so that a save is a good part of the run.
big_logs() {
	"$PY" "$RL_SRCDIR/bench/gen" --jobs 1 --files 16 --size 10MB \
	    --out "$1" >/dev/null 2>&1
}

# ms_of COMMAND...: how long a command takes, in milliseconds.
ms_of() {
	"$PY" - "$@" <<'PY'
import subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
print(int((time.monotonic() - t) * 1000))
PY
}

# signal_at SIGNAL MS DB ERRFILE COMMAND...: run a command, send it a
# signal MS milliseconds in, and print where it was (ingesting: not
# holding the database; writing: holding it; done: already exited) and
# its exit status as the shell gives it (128 + the signal if killed), and
# 1 if the process had a handler for the signal when it was sent (else 0).
# Before the save is ingestion for the most part; after it, the report.
signal_at() {
	"$PY" - "$@" <<'PY'
import os, signal, subprocess, sys, time
sig, ms, db, err = sys.argv[1:5]
with open(err, "wb") as e:
    p = subprocess.Popen(sys.argv[5:], stdout=subprocess.DEVNULL, stderr=e)
    time.sleep(int(ms) / 1000)
    phase = "done"
    caught = 0
    if p.poll() is None:
        phase = "ingesting"
        signum = getattr(signal, "SIG" + sig)
        try:
            for fd in os.listdir("/proc/%d/fd" % p.pid):
                if os.readlink("/proc/%d/fd/%s" % (p.pid, fd)).startswith(db):
                    phase = "writing"
            # Whether the program had its handler in place yet: a signal
            # that lands before main() can be told of by nobody.
            with open("/proc/%d/status" % p.pid) as st:
                for line in st:
                    if line.startswith("SigCgt:"):
                        caught = (int(line.split()[1], 16) >> (signum - 1)) & 1
        except OSError:
            pass
        p.send_signal(signum)
    rc = p.wait()
    # It finished between the look and the signal.
    if rc == 0:
        phase = "done"
print(phase, 128 - rc if rc < 0 else rc, caught)
PY
}

# round SIGNAL MS KIND COMMAND...: one fault, a signal MS ms into the
# command, against $db.  The incidents and notes after it must be one of
# the counts in $want and $notes (before, or before and what the command
# adds, never a part).  The round is tallied as KIND-SIGNAL-PHASE-GOOD,
# and what went wrong is added to $bad.
bad=""
tally=""
told=0
round() {
	sig=$1 ms=$2 kind=$3
	shift 3
	set -- $(signal_at "$sig" "$ms" "$db" "$ftmp/err" "$@")
	phase=$1 rc=$2 caught=$3
	set -- $(db_state "$db")
	state="$*"
	good=1
	[ "$1" = ok ] || good=0
	case " $want " in *" $2 "*) ;; *) good=0 ;; esac
	case " $notes " in *" $3 "*) ;; *) good=0 ;; esac
	# Killed: the exit says so.  Finished: it succeeded.
	if [ "$phase" = "done" ]; then [ "$rc" -eq 0 ] || good=0
	else [ "$rc" -ne 0 ] || good=0; fi
	# An analysis or an import stopped by a signal it had its handler for
	# (past its first steps) says what it cut short.
	case $kind in analyze|import) said=1 ;; *) said=0 ;; esac
	if [ $said -eq 1 ] && [ "$caught" = 1 ] && [ "$phase" != done ]; then
		grep -q "^rankline: stopped by SIG$sig " "$ftmp/err" || good=0
		told=$((told + 1))
	fi
	tally="$tally $kind-$sig-$phase-$good"
	[ $good -eq 1 ] || bad="$bad
#   $kind SIG$sig at ${ms} ms ($phase, exit $rc): $state: $(head -c 300 "$ftmp/err")"
}

# report KIND SIG: one check for the rounds of a kind and signal.
report() {
	n=0 nok=0 ing=0 wri=0
	for t in $tally; do
		case $t in "$1-$2-"*) ;; *) continue ;; esac
		n=$((n + 1))
		case $t in *-1) nok=$((nok + 1)) ;; esac
		case $t in *-ingesting-*) ing=$((ing + 1)) ;; *-writing-*) wri=$((wri + 1)) ;; esac
	done
	[ "$n" -gt 0 ] && [ "$nok" -eq "$n" ]
	ok $? "$1, SIG$2: $nok of $n survived ($ing while ingesting, $wri while holding the database)"
}
