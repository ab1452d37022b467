#!/bin/sh
# axis-days.sh: a job that ran for days is labelled by its dates on the
# time axis ("12-03"), not by a row of "00:00:00" midnights; a log whose
# yearless lines come before its dated ones stays in its own year, so
# its axis spans its seconds (#25: a 2024 MLPerf log copied in 2026 had
# its glog lines read in 2026 and the axis at 312.9 hours a column).
. "$(dirname "$0")/lib.sh"

days="$TMPD/days"
mkdir -p "$days"
{
	echo "2026-12-01 09:00:00,000 INFO     [rank0] train: iteration 1/900"
	echo "2026-12-02 21:00:00,000 INFO     [rank0] train: iteration 450/900"
	echo "2026-12-04 09:00:00,000 INFO     [rank0] train: iteration 899/900"
} >"$days/rank0.log"
{
	echo "2026-12-01 09:00:00,000 INFO     [rank1] train: iteration 1/900"
	echo "2026-12-04 09:00:01,000 ERROR    [rank1] train: step failed"
	echo "Traceback (most recent call last):"
	echo "  File \"train.py\", line 3, in <module>"
	echo "RuntimeError: CUDA error: an illegal memory access was encountered"
} >"$days/rank1.log"

old="$TMPD/old"
mkdir -p "$old"
{
	echo "W0501 22:03:53.288000 1396 torch/distributed/run.py:757] start"
	echo "[NeMo W 2024-05-01 22:04:11 nemo_logging:349] warming up"
	echo "[rank0]: Traceback (most recent call last):"
	echo "[rank0]:   File \"train.py\", line 3, in <module>"
	echo "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered"
	echo "E0501 22:05:19.414000 1396 torch/distributed/elastic/multiprocessing/api.py:881] failed (exitcode: 1) local_rank: 0 (pid: 222) of binary: /usr/bin/python"
} >"$old/train.log"
touch -d '2026-12-05 10:00' "$old/train.log"

for size in "80 24" "200 50"; do
	set -- $size
	start "$@"
	run_rankline --no-store --no-follow "$days"
	wait_for 'FIRST FAILURE'
	ok $? "$1: the three-day job opens"
	axis=$(echo "$last_capture" | grep -E '^ *RANK')
	echo "$axis" | grep -Eq '12-0[1-4]'
	ok $? "$1: the axis is labelled by dates ($axis)"
	! echo "$axis" | grep -q '00:00:00 *00:00:00'
	ok $? "$1: not by a row of midnights"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "$1: q quits"

	start "$@"
	run_rankline --no-store --no-follow "$old"
	wait_for 'FIRST FAILURE'
	ok $? "$1: the copied 2024 log opens"
	echo "$last_capture" | grep -Eq '1 col = [0-9.]+ (ms|s)|[0-9.]+ (ms|s)/col'
	ok $? "$1: its axis spans seconds, not years ($(echo "$last_capture" | grep -Eo '[0-9.]+ (ms|s|min|h)(/col)?' | head -1))"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "$1: q quits"
done
done_testing
