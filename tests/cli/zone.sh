#!/bin/sh
# tests/zone.sh: a log with UTC epoch times (:::MLLOG time_ms) beside local
# wall-clock times of another zone (#25): its local times are read in that
# zone, found from the lines around them, so that the job's times are not
# hours apart; the answer says so.  A gap that is not a whole quarter hour,
# or a zone the lines do not bound, changes nothing.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-zone.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export RANKLINE_NO_USER_RULES=1
gen="${RL_SRCDIR:-.}/tests/cli/zone-log.py"

# facts FILE [TZ]: "zones:<tz minutes>... last:<last event time> span:<s>"
facts() {
	TZ=${2:-UTC} $RANKLINE analyze --no-store --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
z = ",".join(str(x["tz_minutes"]) for x in d["skew"]["zones"])
print("zones:%s last:%s" % (z, d["events"][-1]["time"]))'
}

python3 "$gen" 8 0 >"$tmp/plus8.log"
out=$(facts "$tmp/plus8.log")
[ "$out" = "zones:480 last:2024-05-17T23:32:32.000+08:00" ]
ok $? "local times 8 h ahead of the epochs beside them are UTC+08:00 ($out)"
out=$(facts "$tmp/plus8.log" IST-5:30)
[ "$out" = "zones:480 last:2024-05-17T23:32:32.000+08:00" ]
ok $? "whatever this machine's own zone is (TZ=IST-5:30: $out)"
TZ=UTC $RANKLINE analyze --no-store "$tmp/plus8.log" >"$tmp/t" 2>&1
grep -q 'plus8.log: its times without a zone are local time at UTC+08:00' "$tmp/t"
ok $? "the text output says so, under Clocks"

python3 "$gen" -7 0 >"$tmp/minus7.log"
out=$(facts "$tmp/minus7.log")
[ "$out" = "zones:-420 last:2024-05-17T08:32:32.000-07:00" ]
ok $? "west of UTC too: UTC-07:00 ($out)"

python3 "$gen" 0 0 >"$tmp/utc.log"
out=$(facts "$tmp/utc.log")
[ "$out" = "zones: last:2024-05-17T15:32:32.000" ]
ok $? "local times that agree with the epochs are left as they are ($out)"

python3 "$gen" 8 420 >"$tmp/gap.log"
out=$(facts "$tmp/gap.log")
[ "${out%% *}" = "zones:" ]
ok $? "8 h 7 min is no time zone: nothing is read otherwise ($out)"

python3 "$gen" 8 300 0 >"$tmp/after.log"
out=$(facts "$tmp/after.log")
[ "${out%% *}" = "zones:" ]
ok $? "local lines only after the epochs, 8 h 5 min on: a gap, not a zone ($out)"

python3 "$gen" 8 0 0 >"$tmp/after0.log"
out=$(facts "$tmp/after0.log")
[ "${out%% *}" = "zones:480" ]
ok $? "local lines only after the epochs, right after them: a zone ($out)"

tap_done
