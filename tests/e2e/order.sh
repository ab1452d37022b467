#!/bin/sh
# order.sh: the timeline never contradicts the header (#25's first defect).
# Every failing line follows the first failure causally, so no failure,
# collateral or wrapper mark may be drawn left of the first failure's mark,
# whatever the line's own clock says: torchrun's whole-second records
# (ckpt-2, killed-1), lines with no time of their own (common-1, drawn in
# event order), another host's clock (multinode-1, skew-1).  Drawn under
# LANG=C, where the marks are single ASCII letters (X first, x failed,
# ! collateral, ^ wrapper), at 80x24 and 200x50.
. "$(dirname "$0")/lib.sh"

# order_ok: the first failure's column on the > row, and the leftmost
# failure mark of any other rank row; fails when one is left of the other.
order_ok() {
	echo "$last_capture" | awk '
	/^ *[>+]? +[0-9?-]+ .*(FAILED|failed|collat|HUNG|exited|ok|errors) *\|/ {
		s = substr($0, index($0, "|") + 1)
		if ($0 ~ /^ *>/) { first = index(s, "X"); next }
		for (k = 1; k <= length(s); k++) {
			c = substr(s, k, 1)
			if (c == "!" || c == "^" || c == "x") {
				if (min == "" || k < min) min = k
				break
			}
		}
	}
	END {
		printf "# first failure at column %s, leftmost other failure at %s\n", first, min > "/dev/stderr"
		exit !(first > 0 && min != "" && min >= first)
	}'
}

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	for c in ckpt-2 killed-1 common-1 multinode-1 skew-1; do
		start "$@" LANG=C
		run_rankline --no-store --no-follow "$CORPUS/$c"
		wait_for '^ *FIRST FAILURE .* at [0-9:]+ '
		ok $? "${w}: $c names its first failure"
		order_ok
		ok $? "${w}: $c draws no failure left of the first failure's mark"
		send q
		wait_for 'RL_DONE rc=0'
	done
done

# The header's time is the first failure's, as the log wrote it, and its
# mark is where that time is on the axis: f zooms to it, and it is there.
start 200 50 LANG=C
run_rankline --no-store --no-follow "$CORPUS/ckpt-2"
wait_for '^ *FIRST FAILURE rank 4 .* at 13:22:26 '
ok $? "ckpt-2: the header says 13:22:26 (torchrun's whole-second record)"
send f
wait_for '13:22:26'
echo "$last_capture" | grep -E '^ *>' | grep -q X
ok $? "ckpt-2: f zooms to 13:22:26, and the first failure's mark is in view"
order_ok
ok $? "ckpt-2: zoomed, still no failure left of it"
send q
wait_for 'RL_DONE rc=0'

done_testing
