#!/bin/sh
# crash.sh: a console that dies of a fault gives the terminal back first.
# Each case kills the console (SIGSEGV and SIGABRT sent with kill, then
# real faults through RANKLINE_TEST_FAULT's key '!': a bad load, a stack
# overflow, abort() and fatal(), and in an ASan build a heap overflow,
# which ASan reports and ends without a signal) and checks that the pane's shell is usable:
# the alternate screen is gone, stty shows echo and icanon, the mouse is
# no longer reported, a typed command runs.  The exit status must be the signal's own (128 + its number), or
# in a sanitizer build, ASan's report and its status.
. "$(dirname "$0")/lib.sh"

# rankline_pid: the console's pid, a child of the pane's shell.
rankline_pid() {
	ps -o pid= --ppid "$(pane_var pane_pid)" | head -1 | tr -d ' '
}

# crash_case NAME HOW STATUS: HOW is kill:SIG or key:FAULT; STATUS the
# exit status the shell must see.
crash_case() {
	name=$1 how=$2 want=$3
	start 80 24 RANKLINE_TEST_FAULT="${how#key:}"
	# A core file would land in the corpus folder, the pane's cwd.
	type_line 'ulimit -c 0'
	run_rankline --no-store "$CORPUS/multinode-1"
	wait_for '^ *FIRST FAILURE.*rank 4'
	ok $? "$name: the console is up"
	[ "$(pane_var alternate_on)" = 1 ]
	ok $? "$name: on the alternate screen"
	case $how in
	kill:*)
		pid=$(rankline_pid)
		[ -n "$pid" ] && kill -s "${how#kill:}" "$pid" ;;
	key:*)
		send '!' ;;
	esac
	wait_for 'RL_DONE rc='
	ok $? "$name: the console dies"
	rc=$(echo "$last_capture" | sed -n 's/.*RL_DONE rc=\([0-9]*\).*/\1/p')
	if echo "$last_capture" | grep -q 'AddressSanitizer'; then
		[ "$rc" -ne 0 ]
		ok $? "$name: ASan's report shows, status $rc"
	else
		[ "$rc" = "$want" ]
		ok $? "$name: exit status $rc, want $want"
	fi
	[ "$(pane_var alternate_on)" = 0 ]
	ok $? "$name: the alternate screen is gone"
	type_line 'stty -a | tr " ;" "\n\n" | grep -Ex -- "-?(icanon|echo)" | tr "\n" " "; echo STTY_DONE'
	wait_for '^-?icanon -?echo STTY_DONE'
	echo "$last_capture" | grep -q '^icanon echo STTY_DONE'
	ok $? "$name: the terminal is back in canonical mode with echo"
	type_line 'echo typed $((6 * 7))'
	wait_for '^typed 42$'
	ok $? "$name: a typed command runs and echoes"
	[ "$(pane_var cursor_flag)" = 1 ]
	ok $? "$name: the cursor shows"
	[ "$(pane_var mouse_standard_flag)" = 0 ] &&
	    [ "$(pane_var mouse_any_flag)" = 0 ]
	ok $? "$name: the terminal reports no mouse (clicks would type escapes)"
	if [ "$how" = key:fatal ]; then
		echo "$last_capture" | grep -q '^rankline: fatal: RANKLINE_TEST'
		ok $? "$name: its message shows on the shell's screen"
	fi
}

crash_case SIGSEGV kill:SEGV 139
crash_case SIGABRT kill:ABRT 134
crash_case "a bad load" key:segv 139
crash_case "a stack overflow" key:stack 139
crash_case "abort()" key:abort 134
crash_case "fatal()" key:fatal 70
# A sanitizer's report without a signal: ASan ends the process itself.
if grep -q __asan_init "$RANKLINE"; then
	crash_case "a heap overflow (ASan)" key:heap 1
	# The alternate screen keeps no history: in it, the report was lost.
	$T capture-pane -p -S - -t rl |
	    grep -q 'SUMMARY: AddressSanitizer: heap-buffer-overflow'
	ok $? "a heap overflow (ASan): its report shows on the shell's screen"
fi

done_testing
