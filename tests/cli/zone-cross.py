#!/usr/bin/env python3
# zone-cross.py SRC DST NODE:MODE...: copy a case's folder SRC to DST with
# each NODE's times rewritten, to give one job two kinds of clock (#25).
# MODE "utc" writes its "2026-12-02 13:49:40,783" times as ISO UTC with Z;
# a number of hours ("+8", "-7", "+8.1") writes every time without a zone
# that many hours on (local wall clock east of UTC, no zone written);
# "+0.001" etc. give a skew of seconds instead.  Other nodes are copied.
import datetime
import os
import re
import shutil
import sys

src, dst = sys.argv[1], sys.argv[2]
modes = dict(a.split(":", 1) for a in sys.argv[3:])
ISO = re.compile(r"(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d),(\d{3})")
GLOG = re.compile(r"([IWEF])(\d{8}) (\d\d:\d\d:\d\d)\.(\d{6})")
REC = re.compile(r"(\d{4}-\d\d-\d\d)_(\d\d:\d\d:\d\d)")


def shift(text, fmt, hours):
    t = datetime.datetime.strptime(text, fmt)
    return (t + datetime.timedelta(hours=hours)).strftime(fmt)


def rewrite(text, mode):
    if mode == "utc":
        return ISO.sub(lambda m: "%sT%s.%sZ" % m.groups(), text)
    h = float(mode)
    text = ISO.sub(lambda m: shift("%s %s" % m.groups()[:2],
                                   "%Y-%m-%d %H:%M:%S", h) + "," + m[3], text)
    text = GLOG.sub(lambda m: m[1] + shift(m[2] + " " + m[3],
                                           "%Y%m%d %H:%M:%S", h) + "." + m[4],
                    text)
    return REC.sub(lambda m: shift(m[0], "%Y-%m-%d_%H:%M:%S", h), text)


for root, dirs, files in os.walk(src):
    rel = os.path.relpath(root, src)
    os.makedirs(os.path.join(dst, rel), exist_ok=True)
    node = rel.split(os.sep)[0]
    for f in files:
        a, b = os.path.join(root, f), os.path.join(dst, rel, f)
        if f == "labels.json":
            continue
        if node not in modes or not f.endswith(".log"):
            shutil.copyfile(a, b)
            continue
        with open(a, encoding="utf-8", errors="surrogateescape") as i:
            text = i.read()
        with open(b, "w", encoding="utf-8", errors="surrogateescape") as o:
            o.write(rewrite(text, modes[node]))
