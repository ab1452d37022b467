#!/bin/sh
# tests/cli/skipping.sh: reading only the lines a literal names gives the same
# answers as reading every line.
#
# analyze skips the lines of a one-writer source that no rule's literal
# names, and parses times only where an event needs one.  Each case here
# is analyzed twice, with RANKLINE_READ_ALL (every line read, every time
# parsed) and with skipping from early on, and the two JSON reports must be
# the same, but for each source's "time_form": that is the form most of
# the lines whose times were parsed had, and skipping parses fewer.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-skip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT


# A rank's log long enough to skip in, that a second writer joins late:
# the lines read one by one from there must be that writer's.
{
	i=0
	while [ $i -lt 3000 ]; do
		printf '2026-12-02 10:%02d:%02d,%03d INFO     [rank3] train: ' \
		    $((i / 60 % 60)) $((i % 60)) $((i % 1000))
		printf 'iteration %8d/   10000 | loss 2.31 | plain text to skip\n' $i
		printf 'an untimed line with nothing in it %d\n' $i
		i=$((i + 1))
	done
	printf '[rank5]:[E1202 10:50:01.000000000 ProcessGroupNCCL.cpp:1] '
	printf '[PG 0 Rank 5] Watchdog caught collective operation timeout: '
	printf 'WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, '
	printf 'Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\n'
	printf 'Traceback (most recent call last):\n'
	printf 'ValueError: late and untimed\n'
} >"$tmp/rank3.log"
readings_agree 4096 "a second writer late in a rank's log" "$tmp/rank3.log"
readings_agree 0 "skipping from the first line" "$tmp/rank3.log"

if [ -d "$RL_SHARED/corpus" ]; then
	for d in $(find "$RL_SHARED/corpus" -name labels.json | sort); do
		d=${d%/labels.json}
		readings_agree 4096 "corpus ${d#"$RL_SHARED"/corpus/}" "$d"
	done
fi

# The benchmark's own generator: a run long enough for the literals'
# anchors to be chosen again from what was read (after 1 MB).
if command -v python3 >/dev/null 2>&1 &&
    python3 "$RL_SRCDIR/bench/gen" --out "$tmp/gen" --files 4 --size 6MB \
    --seed 3 >/dev/null 2>&1; then
	readings_agree 65536 "bench/gen, 4 ranks x 1.5 MB" "$tmp/gen"
fi
tap_done
