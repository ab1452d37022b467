#!/bin/sh
# tests/cli/zone-cross.sh: one job, two kinds of clock (#25).  A torch case
# of two nodes is rewritten (zone-cross.py): one node's times in UTC with
# Z, the other's in its local wall clock without a zone.  The local node's
# files are read in the zone that the steps and events both nodes logged
# agree on, so the job spans seconds, not hours, and the answer says how
# the zone was found.  A skew of seconds stays a skew, an offset that is
# no quarter hour is no zone, and a job in one clock gets none.
. "${RL_SRCDIR:-.}/tests/lib.sh"

case=$RL_SHARED/corpus/torch/multinode-1
[ -d "$case" ] || skip_all "no $case"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-zone-cross.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export RANKLINE_NO_USER_RULES=1
gen="${RL_SRCDIR:-.}/tests/cli/zone-cross.py"

# make NAME CASE NODE:MODE...: the rewritten copy in $tmp/NAME
make() {
	n=$1 c=$2
	shift 2
	python3 "$gen" "$c" "$tmp/$n" "$@"
}

# facts NAME [TZ]: "zones:<tz>/<how>x<sources> span:<s> first:<rank>@<time>"
facts() {
	TZ=${2:-UTC} $RANKLINE analyze --no-store --json "$tmp/$1" |
	    python3 -c '
import datetime, json, sys
d = json.load(sys.stdin)
z = sorted(set("%d/%s" % (x["tz_minutes"], x["found"])
               for x in d["skew"]["zones"]))
def utc(s):
    t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=datetime.timezone.utc)
ts = [utc(e["time"]) for e in d["events"] if e.get("time")]
f = d["first_failure"]
print("zones:%s x%d span:%d first:%s@%s" % (",".join(z), len(d["skew"]["zones"]),
      (max(ts) - min(ts)).total_seconds(), f["rank"], f["time"]))'
}

make p8 "$case" node0:utc node1:+8
out=$(facts p8)
p8=$(facts p8)
[ "$p8" = "zones:480/matched x4 span:6 first:4@2026-12-02T21:49:41.895+08:00" ]
ok $? "node1's local times 8 h ahead of node0's UTC: read at UTC+08:00, all 4 of its timed files, 6 s of job ($p8)"
# Here node0's launcher log, its glog lines local and its others UTC, is
# found to be UTC from its own lines (diag-zone.c): 0/neighbours.
out=$(facts p8 IST-5:30)
[ "$out" = "zones:0/neighbours,480/matched x5 span:6 first:4@2026-12-02T21:49:41.895+08:00" ]
ok $? "whatever this machine's own zone is (TZ=IST-5:30: $out)"
TZ=UTC $RANKLINE analyze --no-store "$tmp/p8" >"$tmp/t" 2>&1
grep -q '^Clocks' "$tmp/t" &&
    grep -Eq 'node1/torchrun.log: its times without a zone are local time at UTC\+08:00, as [0-9]+ steps and events matched with the zoned sources. say' "$tmp/t"
ok $? "the text says so under Clocks, with how many lines matched"
TZ=UTC $RANKLINE analyze --no-store --json "$tmp/p8" |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
z = d["skew"]["zones"]
sys.exit(not (z and all(x["matched"] >= 3 and "/node1/" in x["source"]
                        for x in z)))'
ok $? "skew.zones lists node1's files only, each from 3 or more matched lines"
TZ=UTC $RANKLINE analyze --no-store --json "$case" >"$tmp/orig.json"
TZ=UTC $RANKLINE analyze --no-store --json "$tmp/p8" >"$tmp/p8.json"
python3 - "$tmp/orig.json" "$tmp/p8.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ka = [(x["host"], x["offset_ms"]) for x in a["skew"]["hosts"]]
kb = [(x["host"], x["offset_ms"]) for x in b["skew"]["hosts"]]
ra = [(r["rank"], r["state"]) for r in a["ranks"]]
rb = [(r["rank"], r["state"]) for r in b["ranks"]]
sys.exit(not (ka == kb and ra == rb and
              a["first_failure"]["line"] == b["first_failure"]["line"] and
              a["first_failure"]["source"].split("/")[-4:] ==
              b["first_failure"]["source"].split("/")[-4:]))
PY
ok $? "the hosts' skew, the ranks' states and the first failure are the case's own"

make m7 "$case" node0:utc node1:-7
out=$(facts m7)
[ "${out%% first*}" = "zones:-420/matched x4 span:6" ]
ok $? "west of UTC too: UTC-07:00 ($out)"

make s55 "$RL_SHARED/corpus/torch/skew-1" node0:+5.5 node1:utc
out=$(facts s55)
[ "${out%% span*}" = "zones:330/matched x4" ]
ok $? "a half-hour zone on the other node, beside its own skew of 4 s ($out)"

make skew "$case" node0:utc node1:+0.001
out=$(facts skew)
[ "${out%% first*}" = "zones: x0 span:6" ] && [ "${p8%% span*}" = "zones:480/matched x4" ]
ok $? "3.6 s apart is a skew, not a zone, where 8 h is one ($out)"

make odd "$case" node0:utc node1:+8.1
out=$(facts odd)
[ "${out%% span*}" = "zones: x0" ] && [ "${p8%% span*}" = "zones:480/matched x4" ]
ok $? "8 h 6 min apart is no zone, where 8 h is one: nothing is read otherwise ($out)"

make naive "$case" node0:+8 node1:+8
out=$(facts naive)
[ "${out%% span*}" = "zones: x0" ] && [ "${p8%% span*}" = "zones:480/matched x4" ]
ok $? "a job all in local time gets no zone, one of local and UTC does ($out)"

make utc "$case" node0:utc node1:utc
out=$(facts utc)
[ "${out%% first*}" = "zones: x0 span:6" ] && [ "${p8%% span*}" = "zones:480/matched x4" ]
ok $? "a job all in UTC gets none either ($out)"

tap_done
