#!/bin/sh
# answers.sh: analyze --json's reasons on the corpus, read in place: every
# answer has an explanation and evidence in the promised shape; node1's
# clock in skew-1 is measured 4 s behind; ckpt-2's shard cut short and
# ckpt-1's missing shard are evidence; vLLM's memory budget is worked out;
# healthy runs report no failure and no advice.
. "${RL_SRCDIR:-.}/tests/lib.sh"

corpus=$RL_SHARED/corpus
[ -d "$corpus/torch" ] || skip_all "no $corpus/torch"
command -v python3 >/dev/null || skip_all "no python3"
# The runs happen inside each case's folder.
RANKLINE=$(cd "$(dirname "$RANKLINE")" && pwd)/$(basename "$RANKLINE")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-answers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# run CASE: analyze a corpus case as score-corpus does, into $tmp/CASE.json.
run() {
	out="$tmp/$(echo "$1" | tr / _).json"
	(cd "$corpus/$1" && find . -type f ! -name labels.json | sort |
	    xargs "$RANKLINE" analyze --json --no-store) > "$out" 2>/dev/null
}

# py CASE DESCRIPTION SCRIPT: run a python check on a case's JSON as d.
py() {
	run "$1"
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $3" \
	    "$out" >/dev/null 2>&1
	ok $? "$1: $2"
}

SHAPE='
ev = lambda l: all(set(x) >= {"source","line","rank","time","text","shows","stance"} and x["stance"] in ("supports","against") for x in l)
ff, v, c = d["first_failure"], d["verdict"], d["checkpoint"]
assert ff is None or (ff["explanation"] and ev(ff["evidence"]) and ff["evidence"])
assert v["explanation"] and ev(v["evidence"]) and isinstance(v["next_steps"], list)
assert c["explanation"] and ev(c["evidence"]) and "suspect_steps" in c
assert ff is None or 0 < v["confidence"] <= 1 and v["confidence_level"] in ("high","medium","low")
assert isinstance(d["skew"]["hosts"], list) and len(d["checklist"]["items"]) == 8
assert all("action" in s for s in d["signatures"])'
for c in hang-1 killed-2 ckpt0-1 common-1 multinode-1 healthy-1; do
	py "torch/$c" "every answer has an explanation and evidence" "$SHAPE"
done

py torch/skew-1 "node1's clock is measured 4 s behind node0's" '
h = {x["host"]: x for x in d["skew"]["hosts"]}
assert h["node0"]["reference"] and abs(h["node1"]["offset_ms"] + 4000) < 50
assert h["node1"]["samples"] >= 5'
py torch/skew-2 "node1's clock is measured 3 s ahead" '
h = {x["host"]: x for x in d["skew"]["hosts"]}
assert abs(h["node1"]["offset_ms"] - 3000) < 50'
py torch/hang-1 "the hang's culprit has role hang and a hang object" '
ff = d["first_failure"]
assert ff["role"] == "hang" and ff["hang"]["culprit"] == 3
assert ff["hang"]["basis"] == "silent" and ff["hang"]["reporters"] == 3'
py torch/ckpt-2 "the shard cut short is checkpoint evidence" '
assert any("cut short" in e["shows"] and "rank4" in e["source"] for e in d["checkpoint"]["evidence"])'
py torch/ckpt-1 "the missing shard and the tracker are checkpoint evidence" '
e = d["checkpoint"]["evidence"]
assert any("missing" in x["shows"] or "lacks" in x["shows"] for x in e)
assert any("tracker" in x["shows"] for x in e)'
py torch/killed-1 "torchrun's record naming another rank argues against" '
assert any(x["stance"] == "against" and "torchrun" in x["shows"] for x in d["first_failure"]["evidence"])'
py real/vllm-kv-cache-too-small "the memory budget and one change" '
c = d["capacity"]
assert abs(c["kv_cache_gib"] - 8.72) < 1e-6 and c["max_model_len"] == 262144
assert c["max_concurrency"] < 1 and any("--max-model-len" in w for w in c["what_if"])'

for c in $(cd "$corpus" && ls -d torch/healthy-* real/*); do
	[ -f "$corpus/$c/labels.json" ] || continue
	grep -q '"failure": false\|"kind": "none"' "$corpus/$c/labels.json" ||
	    continue
	py "$c" "healthy: no failure, no advice" '
assert d["first_failure"] is None and d["verdict"]["next_steps"] == []
assert d["checkpoint"]["status"] == "none"'
done
tap_done
