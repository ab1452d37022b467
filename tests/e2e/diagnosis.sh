#!/bin/sh
# diagnosis.sh: d opens the diagnosis view at 80x24: the first failure's
# reasons, the verdict with its confidence, the next steps, the checkpoint
# and the checklist; j scrolls; d goes back to the timeline.
. "$(dirname "$0")/lib.sh"

start 80 24
run_rankline "$CORPUS/ckpt-1"
wait_for '^ *FIRST FAILURE.*rank 1'
ok $? "starts on ckpt-1 with rank 1 first"

send d
wait_for '^ *DIAGNOSIS'
ok $? "d opens the diagnosis view"
echo "$last_capture" | grep -q 'First failure' &&
    echo "$last_capture" | grep -Eq '^ *[+] .*earliest root-capable' &&
    echo "$last_capture" | grep -Eq '^ *[+] .*rank 0 is collateral'
ok $? "it starts with the first failure and its evidence, each marked"
[ "$(echo "$last_capture" | wc -l)" -le 24 ] &&
    [ "$(echo "$last_capture" | LC_ALL=C.UTF-8 wc -L)" -le 80 ]
ok $? "80x24: nothing drawn past the screen"

send G
wait_for 'Evidence checklist'
ok $? "End shows the checklist"
echo "$last_capture" | grep -Eq 'framework versions'
ok $? "the checklist says the versions are missing"

# page_to ERE: from the top, page down until ERE shows (or give up).
page_to() {
	send g
	n=0
	while [ $n -lt 6 ]; do
		wait_for "$1" 1 && return 0
		send Space
		n=$((n + 1))
	done
	return 1
}

page_to 'Verdict: infrastructure, .*confidence'
ok $? "paging reaches the verdict, with its domain and confidence"
page_to 'Next steps'
ok $? "paging reaches the next steps"
page_to 'Checkpoint: unsafe, last safe step 10'
ok $? "paging reaches the checkpoint: unsafe, last safe step 10"

send d
wait_for '^ *FIRST FAILURE.*rank 1'
ok $? "d again goes back to the timeline"

send q
quit_checks

done_testing
