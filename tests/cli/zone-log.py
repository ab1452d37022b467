#!/usr/bin/env python3
# zone-log.py HOURS GAP_S [INTERLEAVED]: a rank's log as MLPerf's are,
# :::MLLOG lines with time_ms (an epoch, UTC) beside the framework's own
# lines in local wall-clock time HOURS ahead of UTC, then a failure.
# GAP_S seconds more are added to the local lines (a real gap, not a zone);
# with INTERLEAVED 0 every local line comes after the last MLLOG line.
import datetime
import sys

hours = float(sys.argv[1])
gap = float(sys.argv[2])
inter = len(sys.argv) < 4 or sys.argv[3] != "0"
base = 1715959927000  # 2024-05-17T15:32:07Z


def local(ms):
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(
        milliseconds=ms, hours=hours, seconds=gap)
    return t.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]


mllog, own = [], []
for i in range(12):
    ms = base + i * 2000
    mllog.append(':::MLLOG {"namespace": "", "time_ms": %d, "event_type": '
                 '"POINT_IN_TIME", "key": "block_start", "value": null, '
                 '"metadata": {"file": "train.py", "lineno": 10, '
                 '"first_epoch_num": %d}}' % (ms, i))
    # Interleaved, each a second after its MLLOG line; else all after.
    own.append("%s - INFO - [rank0]: iteration %d/ 100 | lm loss: 1.0"
               % (local(ms + 1000 if inter else base + 23000 + i * 100),
                  i + 1))
lines = []
if inter:
    for a, b in zip(mllog, own):
        lines += [a, b]
else:
    lines = mllog + own
lines.append("%s - ERROR - [rank0]: Traceback (most recent call last):"
             % local(base + 25000))
lines.append('[rank0]:   File "train.py", line 3, in <module>')
lines.append("[rank0]: RuntimeError: CUDA error: an illegal memory access "
             "was encountered")
sys.stdout.write("\n".join(lines) + "\n")
