#!/bin/sh
# theme.sh: a broken user theme is reported as file:line in the status
# line and the console carries on; t cycles through the shipped themes.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMPD/.config/rankline/themes"
cat >"$TMPD/.config/rankline/themes/broken.theme" <<'THEME'
# a user's theme with a typo on line 3
[theme dark]
timeline.first_failure = rde,blue,bold
THEME

start 100 30
run_rankline "$CORPUS/multinode-1"
wait_for '^ *FIRST FAILURE.*rank 4'
ok $? "the console starts despite the broken theme"
wait_for 'broken\.theme:3'
ok $? "the status line names broken.theme:3"
send t
wait_for '^ *FIRST FAILURE.*rank 4'
ok $? "t switches theme and the console still draws"
send t t t t t
wait_for '^ *FIRST FAILURE.*rank 4'
ok $? "cycling through every theme"
send q
quit_checks

done_testing
