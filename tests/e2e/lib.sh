# lib.sh: what every e2e script shares (tmux's regress/ style).
#
# Each script gets private tmux servers (-L rl$$-N, no config file), a shell
# in it with HOME in a fresh temporary folder (so no user theme or store
# leaks in), and TAP output.  wait_for polls the pane until a pattern shows
# up, with a timeout; nothing sleeps a fixed time.  The server and the
# folder go away on exit, whatever happens.
#
# Environment: RANKLINE (default ./rankline), RL_SHARED (default ../shared)
# for the corpus, RL_E2E_ARGS (extra arguments before the log folder),
# RL_E2E_TIMEOUT (seconds per wait, default 10).

RANKLINE=${RANKLINE:-./rankline}
RL_SHARED=${RL_SHARED:-../shared}
RL_E2E_TIMEOUT=${RL_E2E_TIMEOUT:-10}

if ! command -v tmux >/dev/null 2>&1; then
	echo "1..0 # SKIP tmux not found"
	exit 0
fi
if [ ! -x "$RANKLINE" ]; then
	echo "Bail out! no rankline binary at $RANKLINE (set RANKLINE)"
	exit 1
fi
if [ ! -d "$RL_SHARED/corpus/torch" ]; then
	echo "Bail out! no corpus at $RL_SHARED/corpus/torch (set RL_SHARED)"
	exit 1
fi

# Absolute paths: the pane's shell runs elsewhere.
RANKLINE=$(cd "$(dirname "$RANKLINE")" && pwd)/$(basename "$RANKLINE")
CORPUS=$(cd "$RL_SHARED/corpus/torch" && pwd)
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/rl-e2e.XXXXXX")
nservers=0
T="tmux -L rl$$-0"
tap_n=0
tap_failed=0

# Kill every server this script started.
cleanup() {
	i=0
	while [ $i -le $nservers ]; do
		tmux -L "rl$$-$i" kill-server >/dev/null 2>&1
		i=$((i + 1))
	done
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP PIPE

# ok STATUS DESCRIPTION: one TAP line.
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
		if [ -n "$last_capture" ]; then
			echo "$last_capture" | sed 's/^/#   /'
		fi
	fi
}

# done_testing: the plan, and the exit status.
done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# start W H [VAR=value...]: a fresh server with a shell in a W x H pane.
# Each start gets a new socket: a server still dying must not be reused.
start() {
	w=$1 h=$2
	shift 2
	$T kill-server >/dev/null 2>&1
	nservers=$((nservers + 1))
	T="tmux -L rl$$-$nservers"
	cat >"$TMPD/shell" <<SH
export HOME='$TMPD' XDG_CONFIG_HOME='$TMPD/.config' PS1='rl\$ '
export LANG=C.UTF-8 TERM=screen
unset LC_ALL LC_CTYPE NO_COLOR
[ \$# -gt 0 ] && export "\$@"
cd '$CORPUS'
exec sh
SH
	$T -f /dev/null new-session -d -s rl -x "$w" -y "$h" \
	    "sh $TMPD/shell $*"
	wait_for 'rl\$'
}

# capture [-e]: the pane's text now.
capture() {
	$T capture-pane -p "$@" -t rl
}

# send KEYS...: keys by tmux name (Enter, Escape, q).
send() {
	$T send-keys -t rl "$@"
}

# type TEXT: literal text, then Enter.
type_line() {
	$T send-keys -t rl -l "$1"
	$T send-keys -t rl Enter
}

# wait_for ERE [SECONDS]: poll the pane until ERE matches; 1 on timeout.
wait_for() {
	deadline=$(($(date +%s) + ${2:-$RL_E2E_TIMEOUT}))
	while :; do
		last_capture=$(capture)
		if echo "$last_capture" | grep -Eq -- "$1"; then
			return 0
		fi
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.1
	done
}

# wait_gone ERE [SECONDS]: poll until ERE no longer matches.
wait_gone() {
	deadline=$(($(date +%s) + ${2:-$RL_E2E_TIMEOUT}))
	while :; do
		last_capture=$(capture)
		if ! echo "$last_capture" | grep -Eq -- "$1"; then
			return 0
		fi
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.1
	done
}

# wait_until COMMAND [SECONDS]: poll until COMMAND succeeds; it reads the
# pane's text from $last_capture.
wait_until() {
	deadline=$(($(date +%s) + ${2:-$RL_E2E_TIMEOUT}))
	while :; do
		last_capture=$(capture)
		if eval "$1"; then
			return 0
		fi
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.1
	done
}

# run_rankline ARGS...: start the console in the pane; RL_DONE marks its end.
run_rankline() {
	type_line "clear; $RANKLINE ${RL_E2E_ARGS:-} $*; echo RL_DONE rc=\$?"
}

# pane_var NAME: a tmux format variable of the pane (alternate_on, ...).
pane_var() {
	$T display-message -p -t rl "#{$1}"
}

# quit_checks: after q, the shell is back, the terminal is sane and the
# program left no sanitizer report behind.
quit_checks() {
	wait_for 'RL_DONE rc=0'
	ok $? "q quits with status 0 and the shell runs the next command"
	[ "$(pane_var alternate_on)" = 0 ]
	ok $? "the alternate screen is gone"
	type_line 'stty -a | tr " ;" "\n\n" | grep -Ex -- "-?(icanon|echo)" | tr "\n" " "; echo STTY_DONE'
	wait_for '^-?icanon -?echo STTY_DONE'
	echo "$last_capture" | grep -q '^icanon echo STTY_DONE'
	ok $? "the terminal is back in canonical mode with echo"
	! echo "$last_capture" | grep -Eq 'Sanitizer|runtime error:'
	ok $? "no sanitizer report"
}

# open_logs DIR ERE [OPTION...]: the console on DIR in the pane, with no
# store and the options given, until ERE (its header) shows; wait_for's
# status.
open_logs() {
	_dir=$1 _ere=$2
	shift 2
	run_rankline --no-store "$@" "$_dir"
	wait_for "$_ere"
}

# follow_copy CASE W H ERE: a copy of corpus CASE in $TMPD/live ($logs),
# to write to, and a fresh W x H console following it until ERE shows.
follow_copy() {
	logs=$TMPD/live
	cp -R "$CORPUS/$1" "$logs"
	start "$2" "$3"
	open_logs "$logs" "$4"
}

# search PATTERN: / with PATTERN, and Enter.
search() {
	send /
	send -l "$1"
	send Enter
}

# cmdline TEXT: : with TEXT, and Enter.
cmdline() {
	send :
	send -l "$1"
	send Enter
}

# next_until ERE TRIES: n until ERE shows, a second's wait after each, at
# most TRIES times (a followed line reaches the search between two n).
next_until() {
	_i=0
	while [ $_i -lt "$2" ]; do
		send n
		wait_for "$1" 1 && return 0
		_i=$((_i + 1))
	done
	return 1
}

# gen_job N: bench/gen's job of N ranks of 2 MB in $TMPD/job (the script
# is skipped without python3 or bench/gen); sets root, the rank that
# failed as its MANIFEST says, and others, the rest as ranges
# ("0-57,59-127").  The status is that of reading root.
gen_job() {
	GEN=$(cd "$(dirname "$0")/../.." && pwd)/bench/gen
	if ! command -v python3 >/dev/null 2>&1 || [ ! -f "$GEN" ]; then
		echo "1..0 # SKIP python3 or bench/gen missing"
		exit 0
	fi
	n=$1
	python3 "$GEN" --out "$TMPD/job" --files "$n" --size 2MB --jobs 1 \
	    >/dev/null 2>&1
	root=$(sed -n 's/.*"root_rank": *\([0-9]*\).*/\1/p' \
	    "$TMPD/job/MANIFEST.json")
	_rc=$?
	if [ "$root" -eq 0 ]; then others="1-$((n - 1))"
	elif [ "$root" -eq $((n - 1)) ]; then others="0-$((n - 2))"
	else others="0-$((root - 1)),$((root + 1))-$((n - 1))"; fi
	return $_rc
}
