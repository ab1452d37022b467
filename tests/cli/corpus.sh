#!/bin/sh
# The labelled corpus in ../shared: every check of score-corpus must pass,
# and the timestamp corpus too.  Skipped only where ../shared is absent.
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
tap_done
