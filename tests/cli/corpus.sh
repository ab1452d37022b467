#!/bin/sh
# The labelled corpus in ../shared: every check of score-corpus must pass,
# and the timestamp corpus too; on the logs users pasted in public threads
# (../shared/wild) at least 95% of score-wild's checks pass and no healthy
# log raises an alarm.  Skipped only where ../shared is absent.
. "${RL_SRCDIR:-.}/tests/lib.sh"

[ -x "$RL_SHARED/tools/score-corpus" ] || skip_all "no $RL_SHARED/tools/score-corpus"
out=$("$RL_SHARED/tools/score-corpus" --bin "$RANKLINE" "$RL_SHARED/corpus" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
ok $rc "score-corpus: $(echo "$out" | tail -1)"
out=$("$RL_SHARED/tools/score-timestamps" --bin "$RANKLINE" "$RL_SHARED/corpus/timestamps" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
ok $rc "score-timestamps: $(echo "$out" | tail -1)"
if [ -x "$RL_SHARED/tools/score-wild" ] && [ -d "$RL_SHARED/wild" ]; then
	out=$("$RL_SHARED/tools/score-wild" --bin "$RANKLINE" "$RL_SHARED/wild" 2>&1)
	echo "$out" | sed 's/^/# /'
	last=$(echo "$out" | tail -1)
	pass=$(echo "$last" | sed -n 's/^\([0-9][0-9]*\) passed, [0-9][0-9]* failed$/\1/p')
	fail=$(echo "$last" | sed -n 's/^[0-9][0-9]* passed, \([0-9][0-9]*\) failed$/\1/p')
	check "score-wild: $last (at least 95%)" \
	    test "$((100 * ${pass:-0}))" -ge "$((95 * (${pass:-0} + ${fail:-1})))"
	quiet=$(echo "$out" | sed -n 's/^ *e_quiet *[0-9][0-9]* passed, \([0-9][0-9]*\) failed$/\1/p')
	check "score-wild: no healthy log raises an alarm (${quiet:-?} did)" \
	    test "${quiet:-x}" = 0
else
	skip "no $RL_SHARED/wild to score"
fi
tap_done
