#!/bin/sh
# tests/open-once.sh: analyze --db opens each input file once.
#
# Everything a reader of the model needs (each failure's context lines, each
# process's last line, the job's identity, a checkpoint tracker's step) is
# kept while ingestion reads the bytes, so that neither the diagnosis nor
# the store opens a log again: a log on a busy network file system costs a
# round trip per open, and a rotated one is no longer the file that was
# read.  strace counts the opens of each input; without strace (it is not
# in every build image) the test skips.
. "${RL_SRCDIR:-.}/tests/lib.sh"

command -v strace >/dev/null 2>&1 || skip_all "strace is not installed"
# A sanitized build or a restricted container may forbid ptrace.
strace -f -e trace=openat -o /dev/null true >/dev/null 2>&1 ||
    skip_all "strace cannot trace here"

# LeakSanitizer cannot work under ptrace: a sanitized build's leak check
# would fail every traced run (the untraced suite still runs it).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-open.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export RANKLINE_NO_USER_RULES=1

# A run of two ranks that failed, with a tracker and two shards of a step.
run="$tmp/run"
mkdir -p "$run/logs/0" "$run/logs/1" "$run/ckpt/iter_0000010/mp_rank_00" \
    "$run/ckpt/iter_0000010/mp_rank_01"
{
	echo "SLURM_JOB_ID=4242"
	echo "+ srun torchrun --nproc_per_node=2 train.py"
	i=0
	while [ $i -lt 40 ]; do
		echo "[2026-12-01 10:00:$((10 + i / 4))] step $i loss 1.0"
		i=$((i + 1))
	done
	echo "Traceback (most recent call last):"
	echo '  File "/job/train.py", line 10, in <module>'
	echo "RuntimeError: shard 7 is missing"
	echo "[2026-12-01 10:01:00] exiting"
} >"$run/logs/1/stderr.log"
{
	echo "[2026-12-01 10:00:10] step 0 loss 1.0"
	echo "[2026-12-01 10:00:59] RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:38042"
} >"$run/logs/0/stderr.log"
echo 10 >"$run/ckpt/latest_checkpointed_iteration.txt"
head -c 4096 /dev/zero >"$run/ckpt/iter_0000010/mp_rank_00/model_optim_rng.pt"
head -c 4096 /dev/zero >"$run/ckpt/iter_0000010/mp_rank_01/model_optim_rng.pt"

find "$run" -type f | sort >"$tmp/inputs"
# shellcheck disable=SC2046
strace -f -e trace=openat -o "$tmp/trace" "$RANKLINE" analyze \
    --db "$tmp/x.db" $(cat "$tmp/inputs") >"$tmp/out" 2>&1
ok $? "analyze --db ran under strace"
grep -q 'RuntimeError' "$tmp/out"
ok $? "it found the failure"

bad=0
while read -r f; do
	n=$(grep -F "\"$f\"" "$tmp/trace" | grep -vc ENOENT)
	if [ "$n" -ne 1 ]; then
		echo "# $f opened $n times"
		bad=1
	fi
done <"$tmp/inputs"
ok $bad "each input file was opened exactly once"

# The same through a folder: the walk lists it, the reading opens each once.
strace -f -e trace=openat -o "$tmp/trace2" "$RANKLINE" analyze \
    --db "$tmp/y.db" "$run" >/dev/null 2>&1
bad=0
while read -r f; do
	n=$(grep -F "\"$f\"" "$tmp/trace2" | grep -vc ENOENT)
	if [ "$n" -gt 1 ]; then
		echo "# $f opened $n times"
		bad=1
	fi
done <"$tmp/inputs"
ok $bad "given as a folder, no input file is opened twice"

tap_done
