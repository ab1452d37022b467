#!/bin/sh
# Faults: SIGKILL, SIGTERM and SIGHUP sent to `analyze` at times swept
# across a run over 10 MB of logs from 16 ranks (ingestion, then a save of
# some 700 events).  After each: the database passes its integrity checks
# and holds every incident and note stored before; a run that was killed
# exits with the signal, one that finished stored its incident.
. "${RL_SRCDIR:-.}/tests/lib.sh"
. "$RL_SRCDIR/tests/faults/common.sh"

db="$(cd "$ftmp" && pwd -P)/a.db"
seed_db "$db" 12 || { echo "Bail out! cannot seed $db"; exit 1; }
big_logs "$ftmp/big" || skip_all "cannot generate logs (bench/gen)"
set -- $(db_state "$db")
[ "$1" = ok ] && [ "$2" -eq 12 ] && [ "$3" -eq 2 ]
ok $? "seeded: $*"
# The big incident may be stored by a run that finished: one more.
want="$2 $(($2 + 1))" notes="$3"

full=$(ms_of "$RANKLINE" --db "$ftmp/t.db" analyze "$ftmp/big")
full=$(ms_of "$RANKLINE" --db "$ftmp/t.db" analyze "$ftmp/big")
echo "# analyze takes ${full} ms"

rounds=${RL_FAULT_ROUNDS:-16}
for sig in KILL TERM HUP; do
	i=0
	fault_phase
	while [ $i -lt "$rounds" ] && fault_more $i; do
		# Swept from the start to just past the end of a run.
		k=$(fault_spread $i "$rounds")
		round "$sig" $((full * (k * 11 / 10 + 1) / rounds)) analyze \
		    "$RANKLINE" --db "$db" analyze "$ftmp/big"
		i=$((i + 1))
	done
done
for sig in KILL TERM HUP; do report analyze $sig; done
[ -z "$bad" ]
ok $? "every round kept the database whole$bad"
[ "$told" -gt 0 ]
ok $? "analyze: each of the $told rounds stopped by a signal it had a handler for said what it cut short"
set -- $(db_state "$db")
"$RANKLINE" --db "$db" history > "$ftmp/h" 2>"$ftmp/err" &&
    [ ! -s "$ftmp/err" ] && [ "$1" = ok ]
ok $? "the database reads cleanly afterwards: $* $(cat "$ftmp/err")"
tap_done
