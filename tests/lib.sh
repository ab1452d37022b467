# tests/lib.sh: TAP for the shell tests, sourced by each of tests/cli/,
# tests/faults/ and tests/fuzz/replay.sh (so it lives above them; the
# console's tests/e2e/lib.sh has its own, on tmux).
# Every check is one "ok N - ..." or "not ok N - ..." line; tap_done prints
# the plan and sets the exit status.

tap_n=0
tap_failed=0

# ok COND-EXIT-STATUS DESCRIPTION: record one check.
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

# check DESCRIPTION COMMAND...: run a command, record its success.
check() {
	d=$1
	shift
	if "$@" >/dev/null 2>&1; then ok 0 "$d"; else ok 1 "$d"; fi
}

# skip REASON: one check that cannot run here.
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $1"
}

# skip_all REASON: nothing can run here.
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# pick FIELD VALUE: the first case under $corpus whose labels.json has
# FIELD == VALUE (python3 reads it).
pick() {
	for l in "$corpus"/*/labels.json; do
		if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(0 if str(d.get(sys.argv[2])) == sys.argv[3] else 1)' \
		    "$l" "$1" "$2" 2>/dev/null; then
			dirname "$l"
			return 0
		fi
	done
	return 1
}

# readings_agree WARMUP DESCRIPTION PATH...: analyze reading every line
# (RANKLINE_READ_ALL) and skipping after WARMUP bytes give the same JSON
# but for "time_form", which the lines whose times were parsed decide;
# $tmp holds the two reports.
readings_agree() {
	w=$1
	d=$2
	shift 2
	RANKLINE_READ_ALL=1 "$RANKLINE" analyze --no-store --json "$@" 2>&1 |
	    sed 's/"time_form": "[^"]*"//' >"$tmp/all.json"
	RANKLINE_WARMUP=$w "$RANKLINE" analyze --no-store --json "$@" 2>&1 |
	    sed 's/"time_form": "[^"]*"//' >"$tmp/skip.json"
	same_files "$tmp/all.json" "$tmp/skip.json" "$d"
}

# same_files A B DESCRIPTION: a check that two outputs are the same bytes;
# where not, the first lines that differ are shown as comments.
same_files() {
	if cmp -s "$1" "$2"; then
		ok 0 "$3"
	else
		diff "$1" "$2" | head -6 | cut -c1-200 | sed 's/^/# /'
		ok 1 "$3"
	fi
}

# following ERR [TRIES]: wait until a follow started in the background
# says, in its standard error ERR, that its first read is done and its
# watches are set (TRIES of 50 ms, 600 unless given).
following() {
	_n=0
	while ! grep -q "rankline: following" "$1" 2>/dev/null &&
	    [ $_n -lt "${2:-600}" ]; do
		sleep 0.05
		_n=$((_n + 1))
	done
}

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

RANKLINE=${RANKLINE:-./rankline}
RL_SHARED=${RL_SHARED:-../shared}
RL_SRCDIR=${RL_SRCDIR:-.}
