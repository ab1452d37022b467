#!/bin/sh
# tests/history-source.sh: a history row names the log its first failure was
# read from, not whatever a folder's walk met first: a torchrun folder holds
# checkpoints (binaries, skipped), a latest_checkpointed_iteration.txt and
# the labels before or beside its console log.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-hsource.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export RANKLINE_NO_USER_RULES=1
db="$tmp/incidents.db"

# A job folder whose checkpoint folder sorts before its log.
mkdir -p "$tmp/job/checkpoints/iter_0000005/mp_rank_00" "$tmp/quiet"
printf '\200\003\000\001binary\000' \
    >"$tmp/job/checkpoints/iter_0000005/mp_rank_00/model_optim_rng.pt"
echo 5 >"$tmp/job/checkpoints/latest_checkpointed_iteration.txt"
{
	echo "[default0]:2026-12-02 13:19:54,010 INFO     [rank0] train: iteration 5"
	echo "[default1]:Traceback (most recent call last):"
	echo "[default1]:  File \"train.py\", line 3, in <module>"
	echo "[default1]:IndexError: list index out of range"
} >"$tmp/job/console.log"
"$RANKLINE" analyze --db "$db" "$tmp/job" >/dev/null 2>&1

# A healthy folder: no first failure, so the first source with lines.
: >"$tmp/quiet/a-empty.log"
echo "2026-12-02 13:19:54,010 INFO step 1" >"$tmp/quiet/b.log"
"$RANKLINE" analyze --db "$db" "$tmp/quiet" >/dev/null 2>&1

# source ID: the sources field of incident ID in history --json.
source() {
	"$RANKLINE" --db "$db" history --json | python3 -c '
import json, sys
for r in json.load(sys.stdin):
    if r["id"] == int(sys.argv[1]):
        print(r["sources"])' "$1"
}

s=$(source 1)
case $s in
"$tmp/job/console.log (+"*) ok 0 "history: a failure's row names its log" ;;
*) ok 1 "history: a failure's row names its log (got: $s)" ;;
esac
s=$("$RANKLINE" --db "$db" show 1 | head -1)
case $s in
*"/job/console.log (+"*) ok 0 "show: the same log" ;;
*) ok 1 "show: the same log (got: $s)" ;;
esac
s=$(source 2)
case $s in
"$tmp/quiet/b.log (+"*) ok 0 "history: a healthy row names a source with lines" ;;
*) ok 1 "history: a healthy row names a source with lines (got: $s)" ;;
esac
tap_done
