#!/bin/sh
# tests/cli/threads.sh: reading the files on several threads gives the very
# report one thread gives.
#
# batch.c cuts the sources into runs, reads each on a thread into an
# incident of its own and takes them into the whole in order; the whole
# must be what one reading makes, byte for byte: processes, ranks, event
# order, tallies.  RANKLINE_BATCH_MIN=0 makes even a small case use the
# threads.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-threads.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# same JOBS DESCRIPTION PATH...: one thread and JOBS threads agree.
same() {
	j=$1
	d=$2
	shift 2
	"$RANKLINE" analyze --no-store --json --jobs 1 "$@" >"$tmp/one.json" 2>&1
	RANKLINE_BATCH_MIN=0 "$RANKLINE" analyze --no-store --json --jobs "$j" \
	    "$@" >"$tmp/many.json" 2>&1
	same_files "$tmp/one.json" "$tmp/many.json" "$d"
}

if [ -d "$RL_SHARED/corpus" ]; then
	for d in $(find "$RL_SHARED/corpus" -name labels.json | sort); do
		d=${d%/labels.json}
		[ "$(find "$d" -type f ! -name labels.json | wc -l)" -ge 2 ] ||
		    continue
		same 3 "corpus ${d#"$RL_SHARED"/corpus/} on 3 threads" "$d"
	done
fi
same 2 "the example incident on 2 threads" "$RL_SRCDIR/examples/torch-multinode"
if command -v python3 >/dev/null 2>&1 &&
    python3 "$RL_SRCDIR/bench/gen" --out "$tmp/gen" --files 8 --size 12MB \
    --seed 5 >/dev/null 2>&1; then
	same 4 "bench/gen, 8 ranks on 4 threads" "$tmp/gen"
fi
tap_done
