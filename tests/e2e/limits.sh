#!/bin/sh
# limits.sh: a user's rule whose pattern backtracks without end gives lines
# up at pcre2's match limit; the diagnosis view says how many and whose, so
# the engineer knows what the answers above could not see.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMPD/.config/rankline/rules"
cat >"$TMPD/.config/rankline/rules/slow.rules" <<'PACK'
[rule user.slow]
pattern = ^(a+)+$
literal = aaaa
role = root
PACK
{
	echo 'RuntimeError: boom'
	for i in 1 2 3; do
		echo 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab'
	done
} >"$TMPD/app.log"

start 80 24 RANKLINE_NO_USER_RULES=0
run_rankline --no-store "$TMPD/app.log"
wait_for '^ *FIRST FAILURE'
ok $? "the console is up on the log"
send d
wait_for '^ *DIAGNOSIS'
ok $? "d opens the diagnosis view"
send G
wait_for "3 lines hit rule user.slow's match limit"
ok $? "it says 3 lines hit user.slow's match limit"
echo "$last_capture" | grep -q 'slow.rules:1)'
ok $? "and names the rule's file:line"
[ "$(echo "$last_capture" | wc -l)" -le 24 ] &&
    [ "$(echo "$last_capture" | LC_ALL=C.UTF-8 wc -L)" -le 80 ]
ok $? "80x24: nothing drawn past the screen"
send q
send q
quit_checks

done_testing
