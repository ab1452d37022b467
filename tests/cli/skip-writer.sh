#!/bin/sh
# tests/cli/skip-writer.sh: a writer new to a source, met while skipping,
# leaves the lines before it where reading every line leaves them.
#
# While skipping, a line of a writer the source has not had yet brings the
# first writer's time up to that line first (ingest_settle), walking back
# over the skipped lines and numbering them from the count of lines so
# far.  That count must not take in the new writer's own line: a rank
# that went quiet would be said to have gone quiet one line later than
# it did.  Each case is analyzed with RANKLINE_READ_ALL (every line read)
# and RANKLINE_WARMUP=0 (skipping from the first line); the two JSON
# reports must be the same but for "time_form" (see skipping.sh).
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-skipw.XXXXXX")
trap 'rm -rf "$tmp"' EXIT


# rank N: N timed lines of a rank's training, nothing a rule names.
rank() {
	i=1
	while [ "$i" -le "$1" ]; do
		printf '2026-12-02 09:00:%02d,000 INFO     train: iteration %d | loss 2.31\n' \
		    "$i" "$i"
		i=$((i + 1))
	done
}

# Rank 0 times out waiting; rank 1 went quiet at its 8th line, after which
# a worker of its own (a pid prefix) printed a traceback header.
mkdir "$tmp/hang"
rank 9 >"$tmp/hang/rank0.log"
printf '[rank0]:[E1202 09:10:54.059664388 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=61, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600035 milliseconds before timing out.\n' \
    >>"$tmp/hang/rank0.log"
rank 8 >"$tmp/hang/rank1.log"
printf '(WorkerDict pid=55984) Traceback (most recent call last):\n' \
    >>"$tmp/hang/rank1.log"
readings_agree 0 "a new writer's line after the quiet rank's last" \
    "$tmp/hang/rank0.log" "$tmp/hang/rank1.log"
RANKLINE_WARMUP=0 "$RANKLINE" analyze --no-store --json \
    "$tmp/hang/rank0.log" "$tmp/hang/rank1.log" >"$tmp/hang.json" 2>&1
check "skipping: the quiet rank's last line is its 8th" \
    grep -q '"first_failure": {"rank": 1, "host": null, "source": "[^"]*rank1.log", "line": 8,' \
    "$tmp/hang.json"

# The same after a progress bar redrawn with carriage returns on one line
# (tqdm's, as an evaluation prints it), which skipping counts as one line.
mkdir "$tmp/bar"
cp "$tmp/hang/rank0.log" "$tmp/bar/rank0.log"
{
	rank 6
	printf 'Evaluating:   0%%|          | 0/200\rEvaluating:  50%%|#####     | 100/200\rEvaluating: 100%%|##########| 200/200\n'
	printf '2026-12-02 09:00:07,000 INFO     train: validation loss 2.04\n'
	printf '(WorkerDict pid=55984) Traceback (most recent call last):\n'
} >"$tmp/bar/rank1.log"
readings_agree 0 "a new writer's line after a carriage-return progress bar" \
    "$tmp/bar/rank0.log" "$tmp/bar/rank1.log"

tap_done
