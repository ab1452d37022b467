#!/bin/sh
# search-all.sh: / and ? reach every line of every rank, not only the
# lines a rule named (#25).  On multinode-1 at 80x24 and 200x50: a word
# only a healthy line holds (the launcher's OMP_NUM_THREADS notice, each
# rank's "initialized process group") is found, n and N count its hits,
# the merged log shows the line with its gutter and Enter shows it whole,
# the timeline marks the rows, a filter's hidden ranks have no hits.
# Following: a line written later, with escape sequences in it, is found
# and drawn safely.  A deleted log is searched by its events, and said.  A thousand generated
# files: the search says its progress, the console answers keys while it
# reads, and Esc stops it.
. "$(dirname "$0")/lib.sh"

HIT=$(printf '\342\227\217')	# the hit mark

for size in "80 24" "200 50"; do
	set -- $size
	w=$1
	start "$@"
	open_logs "$CORPUS/multinode-1" '^ *FIRST FAILURE.*rank 4' --no-follow

	# The launcher's notice is no event: only a search of every line has it.
	search 'omp_num_threads'
	wait_for 'hit [12] of 2 .*torchrun.log:3 '
	ok $? "${w}: a line no rule named is found: the launcher's notice, twice"
	if [ "$w" -ge 200 ]; then
		echo "$last_capture" | grep -Eq 'omp_num_threads . L shows the line'
		ok $? "${w}: on the timeline, the status line says L shows the line"
		echo "$last_capture" | grep -Eq '513 lines of 6 rows searched'
		ok $? "${w}: every line read was searched (513)"
	fi
	k=$(echo "$last_capture" | sed -n 's/.*hit \([12]\) of 2.*/\1/p' | tail -1)
	send n
	wait_for "hit $((3 - k)) of 2"
	ok $? "${w}: n goes to the other node's notice"
	send N
	wait_for "hit $k of 2"
	ok $? "${w}: N comes back"

	send L
	wait_for '^ MERGED LOG  117 lines'
	ok $? "${w}: the merged log lists the two hits among its 115 lines"
	echo "$last_capture" | grep -Eq '^ +\? .*torchrun.log:3 +Setting OMP_NUM_THREADS'
	ok $? "${w}: it shows the line itself, with its source:line in the gutter"
	echo "$last_capture" | tail -1 | grep -Eq 'torchrun.log:3 . line [0-9]+/117'
	ok $? "${w}: the selection is on the hit"
	send Enter
	wait_for 'No rule named this line'
	ok $? "${w}: Enter on the hit shows it"
	echo "$last_capture" | grep -Eq 'multinode-1/node[01]/torchrun.log:3' &&
	    echo "$last_capture" | grep -q 'Setting OMP_NUM_THREADS environment'
	ok $? "${w}: with its path, line number and whole text"
	send q
	wait_for '^ MERGED LOG'
	send Escape
	wait_for '^ *FIRST FAILURE'

	# Each rank's start-up line: a hit on every rank's row, tee'd once.
	search 'initialized process group'
	wait_for 'hit [1-5] of 5 '
	ok $? "${w}: each rank's start-up line is a hit, its tee'd copy not again"
	[ "$(echo "$last_capture" | grep -E '^.? +[0-4] node' | grep -c "$HIT")" -ge 4 ] &&
	    echo "$last_capture" | grep -Eq '^ *▶ +4 .*FAILED.*✖'
	ok $? "${w}: the hits are marked on the ranks' rows, the first failure's mark kept"

	# A filter hides a rank: its lines are no hits.
	cmdline 'ranks 0-2'
	wait_for 'filter: ranks 0-2'
	send /
	send Enter
	wait_for 'hit [1-3] of 3 '
	ok $? "${w}: with ranks 0-2 shown, 3 hits"
	send q
	quit_checks
done

# Following: a line no rule names, written after the search, with
# backspaces that would rub out the word and an escape sequence that would
# set the terminal's title.
follow_copy code-1 200 50 '^ *FIRST FAILURE.*rank 1'
search 'giraffe'
wait_for 'no hit for /giraffe'
printf '[default1]:2026-12-02 13:19:58,000 INFO     [rank1] train: giraffe\b\b\bXYZ \033]2;PWNED\007 fed\n' >>"$logs/console.log"
next_until 'hit 1 of 1' 30
echo "$last_capture" | grep -q 'hit 1 of 1 .* rank 1 .*console.log:'
ok $? "live: the line written later is a hit, on rank 1"
send L
wait_for 'train: giraffe'
ok $? "live: the merged log shows it"
[ "$(pane_var pane_title)" != PWNED ] &&
    echo "$last_capture" | grep -q 'train: giraffe.*XYZ .*fed'
ok $? "live: its escape sequence is drawn as text, not obeyed"
send Escape
send q
wait_for 'RL_DONE rc=0'

# A log deleted after it was read cannot be read again: its events only.
gone=$TMPD/gone
cp -R "$CORPUS/multinode-1" "$gone"
start 200 50
open_logs "$gone" '^ *FIRST FAILURE.*rank 4' --no-follow
rm "$gone"/node1/logs/*/attempt_0/2/stdout.log
search 'iteration'
wait_for 'hit [0-9]+ of [0-9]+ .*; 1 source searched by its events only: 2/stdout.log'
ok $? "gone: the status line names the log searched by its events only"
send q
wait_for 'RL_DONE rc=0'

# A thousand files: progress, keys while it reads, and Esc.
big=$TMPD/big
mkdir "$big"
awk -v d="$big" 'BEGIN {
	for (r = 0; r < 1000; r++) {
		f = sprintf("%s/rank%d.log", d, r)
		for (i = 0; i < 1200; i++) {
			printf "2026-12-02 09:%02d:%02d,%03d INFO     [rank%d] " \
			    "train: iteration %6d/  1200 | lm loss: 1.0%05d | " \
			    "lr: 1.000E-03 | tokens: %d\n", int(i / 60) % 60,
			    i % 60, r, r, i, i * 7, i * r > f
			if (r % 100 == 7 && i == 600)
				printf "2026-12-02 09:10:00,500 INFO     " \
				    "[rank%d] train: zebrafinch warmed up\n",
				    r > f
		}
		close(f)
	}
}'
start 200 50
run_rankline --no-store --no-follow "$big"
wait_for '1000 ranks' 60
search 'zebrafinch'
wait_for 'searching(…|\.\.\.) [0-9,]+ of 1,000 sources'
ok $? "big: the status line says how far the search is"
send F1
wait_for '^ rankline help' 5
help=$?
send q
wait_for 'searching|hit [0-9]+ of 10 ' 60
back=$?
[ $help -eq 0 ] && [ $back -eq 0 ]
ok $? "big: F1 opens the help and q closes it while the search reads on"
wait_for 'hit [0-9]+ of 10 .*1,?200,?010 lines of 1000 rows searched' 60
ok $? "big: when it is done, every line of the thousand files was searched"
search 'lm loss'
wait_for 'searching(…|\.\.\.)'
send Escape
wait_for 'stopped'
ok $? "big: Esc stops a search that reads"
echo "$last_capture" | grep -Eq 'hit [0-9]+ of [0-9]+.*(stopped)|no hit.*(stopped)'
ok $? "big: and says what it found until then"
send q
quit_checks

done_testing
