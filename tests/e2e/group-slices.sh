#!/bin/sh
# group-slices.sh: a folded group's list at a few thousand ranks is built
# in slices between frames (#25: at 10,000 ranks it reads half a million
# lines' texts, 150 ms, which held the frame that selected the group).
# While it is built the console answers keys; when it is done the pane is
# the merged list, and the console's log says it took more than one slice.
. "$(dirname "$0")/lib.sh"

GEN=$(cd "$(dirname "$0")/../.." && pwd)/bench/gen
if ! command -v python3 >/dev/null 2>&1 || [ ! -f "$GEN" ]; then
	echo "1..0 # SKIP python3 or bench/gen missing"
	exit 0
fi
n=3000
python3 "$GEN" --out "$TMPD/job" --files $n --size 90MB --jobs 2 >/dev/null 2>&1

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	rm -f "$TMPD/log$w"
	start "$@"
	run_rankline --no-store --no-follow -v "$TMPD/log$w" "$TMPD/job"
	wait_for "^ *FIRST FAILURE rank " 60
	ok $? "${w}: $n ranks open"
	send g
	send F1
	wait_for "KEYS|Keys|keys" 10
	ok $? "${w}: a key while the list is built is answered (help opens)"
	send q
	wait_for "[0-9]+ lines of [0-9]+ events" 20
	ok $? "${w}: the group's merged list is shown when done"
	grep -Eq "group list: [0-9]+ lines of [0-9]+ events in ([2-9]|[1-9][0-9]+) slices" "$TMPD/log$w"
	ok $? "${w}: it was built in slices ($(grep -o 'group list:.*' "$TMPD/log$w" | head -1))"
	send q
	wait_for 'RL_DONE rc=0'
	ok $? "${w}: q quits"
done
done_testing
