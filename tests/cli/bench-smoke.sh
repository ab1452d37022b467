#!/bin/sh
# The benchmark harness keeps working: bench/run --smoke (a tiny dataset,
# one run of each tool, seconds, no network) prints its table with a
# rankline row, a peer that is not installed shows as skipped rather than
# failing, --json is well formed, and bench/gen is deterministic.
. "${RL_SRCDIR:-.}/tests/lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
[ -x "$RANKLINE" ] || skip_all "no rankline binary at $RANKLINE"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run="$RL_SRCDIR/bench/run"
gen="$RL_SRCDIR/bench/gen"
set -- --smoke --data "$tmp/data" --rankline "$RANKLINE" \
    --rules "$RL_SRCDIR/rules"

python3 "$run" "$@" >"$tmp/table" 2>"$tmp/err"
ok $? "bench/run --smoke completes"
grep -q '^dataset  *tool  *patterns  *runs  *MB/s' "$tmp/table"
ok $? "it prints the table's header"
grep -Eq '^smoke-[^ ]+  +rankline  +[0-9]+\+[0-9]+L  +1  +[0-9.]+  +1\.00x' \
    "$tmp/table"
ok $? "the table has a measured rankline row"
for tool in "rankline no rules" "rg -j1" "grep -E" "lnav" "wc -l"; do
	grep -Eq "^smoke-[^ ]+  +$tool  +[^ ]+  +(1  +[0-9.]+|-  +skip) " \
	    "$tmp/table"
	ok $? "$tool is measured or marked skip"
done
! grep -q 'FAIL' "$tmp/table"
ok $? "no tool failed"

python3 "$run" "$@" --json >"$tmp/json" 2>>"$tmp/err"
ok $? "bench/run --smoke --json completes"
python3 - "$tmp/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ds = d["datasets"][0]
rl = [r for r in ds["rows"] if r["tool"] == "rankline"][0]
assert rl["mbps"] > 0 and rl["matches"] > 0 and rl["rss_mb"] > 0, rl
assert d["patterns"]["pcre"]["regexes"] > 0
assert d["machine"]["nproc"] >= 1
PY
ok $? "the JSON has a rankline row that did real work"

python3 "$gen" --out "$tmp/g1" --files 3 --size 30KB --seed 7 2>/dev/null &&
python3 "$gen" --out "$tmp/g2" --files 3 --size 30KB --seed 7 2>/dev/null &&
python3 "$gen" --out "$tmp/g3" --files 3 --size 30KB --seed 8 2>/dev/null
ok $? "bench/gen writes three small datasets"
cmp -s "$tmp/g1/rank1.log" "$tmp/g2/rank1.log"
ok $? "the same seed gives the same bytes"
! cmp -s "$tmp/g1/rank1.log" "$tmp/g3/rank1.log"
ok $? "another seed gives other bytes"
python3 "$gen" --out "$tmp/g1" --files 3 --size 30KB --seed 7 2>"$tmp/again"
grep -q "up to date" "$tmp/again"
ok $? "an unchanged dataset is not written again"

# bench/follow, small: 16 files, 3 samples each.
if command -v tmux >/dev/null 2>&1; then
	python3 "$RL_SRCDIR/bench/follow" --bin "$RANKLINE" --files 16 -n 3 \
	    --json >"$tmp/follow.json" 2>"$tmp/follow.err"
	ok $? "bench/follow completes on 16 files"
	python3 - "$tmp/follow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r, t = d["rankline"], d["tail"]["line"]
assert d["files"] == 16 and r["frame"]["samples"] == 3, d
assert 0 <= r["frame"]["median_ms"] < 10000 and t["samples"] == 3, d
assert "tok0002x" in r["header"][0], r
PY
	ok $? "it measured rankline's frame and tail's line; the console named the last token"
else
	skip "bench/follow: tmux is not installed"
	skip "bench/follow: tmux is not installed"
fi

# bench/scale, small: 40 one-file ranks and a console of 8.
if command -v rg >/dev/null 2>&1; then
	python3 "$RL_SRCDIR/bench/scale" --rankline "$RANKLINE" --ranks 40 \
	    --console-ranks 8 --small-ranks 30 --runs 1 --data "$tmp/scale" \
	    >"$tmp/scale.out" 2>"$tmp/scale.err"
	ok $? "bench/scale completes on 40 ranks, a console of 8 and 30 small ranks"
	grep -q "^| 40 ranks, a file each | [0-9]* | [0-9.]* s |" \
	    "$tmp/scale.out" &&
	    grep -q "^| srun --label console, 8 ranks | [0-9]* | [0-9.]* s " \
	    "$tmp/scale.out" &&
	    grep -q "^| 30 ranks, small files | [0-9]* | [0-9.]* s .* MB |$" \
	    "$tmp/scale.out" &&
	    [ "$(ls "$tmp/scale/30small" | wc -l)" -eq 30 ] &&
	    [ "$(grep -c "^  [0-7]: " "$tmp/scale/srun-8.log")" -gt 0 ]
	ok $? "it timed the three sets with rankline's RSS, and the console holds labelled lines"
else
	skip "bench/scale: rg is not installed"
	skip "bench/scale: rg is not installed"
fi

# bench/store finds what it stored: its incidents carry the fingerprint the
# pipeline makes (a fill without it found no failure seen before).
store="$(dirname "$RANKLINE")/bench/store"
if [ -x "$store" ]; then
	(cd "$tmp" && "$store" --incidents 300 --lookups 5 \
	    --rankline "$RANKLINE" >"$tmp/store.out" 2>&1)
	ok $? "bench/store completes: $(tail -1 "$tmp/store.out")"
	grep -q "^bench-store: ok" "$tmp/store.out"
	ok $? "and finds each failure seen before"
else
	skip "bench/store is not built"
	skip "bench/store is not built"
fi

tap_done
