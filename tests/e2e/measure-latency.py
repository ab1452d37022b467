#!/usr/bin/env python3
# measure-latency.py: how long an appended log line takes to reach the
# console's screen, quiet and under a flood of other lines, and how long a
# key takes under that flood.  A measurement, not a test: it is not part of
# `make check` (timings on a shared machine are not pass/fail).
#
#   tests/e2e/measure-latency.py [--bin ./rankline] [--flood 20000] [-n 40]
#       [--copy DIR]
#
# The console runs in a private tmux server (200x50) on a folder of rank
# files, with -v LOG.  Each sample appends to rank1.log one failure line with
# a unique token, timed earlier than any before it so that the header names
# it, with the clock read just before write(), and measures:
#  - frame: until the first frame after the diagnosis that read it, from
#    the -v log's wall-clock stamps (inotify, read, ingest, diagnose, index,
#    doupdate: everything inside rankline);
#  - pane:  until `tmux capture-pane` shows the token, polled in a tight
#    loop (adds tmux's own parsing and each capture's ~5-10 ms).
# With --flood, a thread appends that many progress lines a second (in 10 ms
# batches) to the other ranks' files meanwhile; the lines/s it reached is
# printed, since a loaded machine may not keep up.  --copy DIR starts from a
# copy of a folder of rankN.log files (bench/gen's output) instead of small
# ones, to see the cost of diagnosing a large incident again.
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time


def selected(screen):
    """The selected rank, from the event list's title (below or beside)."""
    m = re.search(r"rank (\d+)(?: \([^)]*\))? \S+ \S+ \S+ \d+ events?", screen)
    return m.group(1) if m else None


def summary(v):
    v = sorted(v)
    return "median %.1f ms, p90 %.1f ms, max %.1f ms (n=%d)" % (
        statistics.median(v), v[max(0, int(len(v) * 0.9) - 1)], v[-1], len(v))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="./rankline")
    ap.add_argument("--flood", type=int, default=0, help="lines/s meanwhile")
    ap.add_argument("-n", type=int, default=30, help="samples")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--copy", help="a folder of rankN.log files to start from")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    d = tempfile.mkdtemp(prefix="rl-latency.")
    tm = ["tmux", "-L", "rl-latency-%d" % os.getpid()]
    logs = os.path.join(d, "logs")
    vlog = os.path.join(d, "v.log")
    if a.copy:
        shutil.copytree(a.copy, logs)
    else:
        os.makedirs(logs)
    for r in range(a.ranks):
        with open(os.path.join(logs, "rank%d.log" % r), "a") as f:
            for s in range(1, 200):
                f.write("2026-12-02 13:00:%02d,%03d INFO step %d\n" % (s % 60, s, s))
    stop = threading.Event()
    written = [0]

    def cap():
        return subprocess.run(tm + ["capture-pane", "-p"], capture_output=True,
                              text=True).stdout

    def flood():
        fs = [open(os.path.join(logs, "rank%d.log" % r), "a", buffering=1)
              for r in range(2, a.ranks)]
        per = max(1, a.flood // 100)
        while not stop.is_set():
            for _ in range(per):
                fs[written[0] % len(fs)].write(
                    "2026-12-02 13:00:30,000 INFO step %d\n" % written[0])
                written[0] += 1
            time.sleep(0.01)

    try:
        subprocess.run(tm + ["-f", "/dev/null", "new-session", "-d", "-x", "200",
                             "-y", "50", "env TERM=screen LANG=C.UTF-8 HOME=%s %s "
                             "--no-store -v %s %s; sleep 600" % (d, binary, vlog, logs)],
                       check=True)
        t = time.time()
        while "following" not in cap():
            if time.time() - t > 120:
                raise SystemExit("the console did not start")
            time.sleep(0.05)
        th = None
        if a.flood:
            th = threading.Thread(target=flood)
            th.start()
            time.sleep(2)
        f0, t_f0 = written[0], time.time()
        pane, frame = [], []
        for i in range(a.n):
            tok = "tok%03dx" % i
            # Earlier than every line before it: the header names it.
            line = ("2026-12-02 08:%02d:00,000 ERROR RuntimeError: %s CUDA error: "
                    "an illegal memory access was encountered\n" % (59 - i % 60, tok))
            with open(os.path.join(logs, "rank1.log"), "a") as f:
                t0 = time.time()
                f.write(line)
            while tok not in cap():
                if time.time() - t0 > 10:
                    raise SystemExit("%s never shown" % tok)
            pane.append((time.time() - t0) * 1000)
            time.sleep(0.05)
            diag = False
            for l in open(vlog).read().split("\n"):
                if not l or float(l.split(" ", 1)[0]) + 0.0015 < t0:
                    continue
                if " diagnosis " in l:
                    diag = True
                elif diag and l.endswith(" frame"):
                    frame.append(max(0.0, (float(l.split()[0]) - t0) * 1000))
                    break
            time.sleep(0.05 if a.flood else 0.3)
        keys = []
        for i in range(10 if a.flood else 0):
            before = selected(cap())
            t0 = time.time()
            subprocess.run(tm + ["send-keys", "j" if i % 2 == 0 else "k"])
            while selected(cap()) == before:
                if time.time() - t0 > 10:
                    raise SystemExit("the key never moved the selection")
            keys.append((time.time() - t0) * 1000)
        rate = (written[0] - f0) / (time.time() - t_f0)
        stop.set()
        if th is not None:
            th.join()
        diags = [l for l in open(vlog).read().split("\n") if " diagnosis " in l]
        costs = [int(l.split(", ")[2].split()[0]) for l in diags]
        print("flood: %s" % ("%d lines/s asked, %.0f reached" % (a.flood, rate)
                             if a.flood else "none"))
        print("append -> frame (-v log):       " + summary(frame))
        print("append -> pane (capture-pane):  " + summary(pane))
        if keys:
            print("key -> pane, under the flood:   " + summary(keys))
        print("diagnoses: %d, cost %s; last: %s" % (
            len(costs), summary(costs), diags[-1].split(" ", 1)[1] if diags else "-"))
    finally:
        stop.set()
        subprocess.run(tm + ["kill-server"], stderr=subprocess.DEVNULL)
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
