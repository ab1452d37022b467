#!/bin/sh
# Every seed and every crash input kept under tests/fuzz/regress, through
# its harness's replay program: a bug a fuzzer once found stays fixed, in
# every make check and in CI's ASan build.  One check per harness.
. "${RL_SRCDIR:-.}/tests/lib.sh"
bld=$(cd "$(dirname "$RANKLINE")" && pwd)
fz=$RL_SRCDIR/tests/fuzz
for h in ingest clock peel rules import; do
	prog=$bld/tests/fuzz/replay-$h
	if [ ! -x "$prog" ]; then
		ok 1 "$h: no replay program $prog"
		continue
	fi
	dirs=$fz/corpus/$h
	[ -d "$fz/regress/$h" ] && dirs="$dirs $fz/regress/$h"
	# shellcheck disable=SC2086
	out=$("$prog" $dirs 2>&1)
	r=$?
	n=$(printf '%s\n' "$out" | sed -n 's/^replayed \([0-9]*\) inputs.*/\1/p')
	ok "$([ "$r" -eq 0 ] && [ "${n:-0}" -gt 0 ]; echo $?)" \
	    "$h: ${n:-no} seeds and kept crash inputs replay cleanly"
	[ "$r" -ne 0 ] && printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
done
tap_done
