#!/bin/sh
# tests/cli/shapes.sh: naming lines by their shape gives the same answers as
# scanning each line for its literals and matching it.
#
# Where most lines of a block hold a literal, analyze names each line by
# its shape (the line with its digits masked) as the first line of that
# shape was named (core/shape.c).  Each case is analyzed with
# RANKLINE_NO_SHAPES (every line scanned and matched) and without, and the
# two JSON reports must be the same, byte for byte.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-shape.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# same DESCRIPTION PATH...: both ways of naming lines agree.
same() {
	d=$1
	shift
	RANKLINE_NO_SHAPES=1 "$RANKLINE" analyze --no-store --json "$@" \
	    >"$tmp/scan.json" 2>&1
	"$RANKLINE" analyze --no-store --json "$@" >"$tmp/shape.json" 2>&1
	same_files "$tmp/scan.json" "$tmp/shape.json" "$d"
}

# Two writers in one rank's log, every line a rule's, with lines that look
# alike but for digits a rule tells apart: torchrun's exit codes (only a
# negative one is a signal), Xid numbers, and exit codes in colour and in
# CRLF lines.  A shape seen first with one value must not answer for the
# other.
{
	i=0
	while [ $i -lt 4000 ]; do
		t=$(printf '2026-12-02 10:%02d:%02d' $((i / 60 % 60)) $((i % 60)))
		printf '%s,%03d INFO     [rank3] train: [%s] iteration %8d/' \
		    "$t" $((i % 1000)) "$t" $i
		printf '   10000 | consumed samples: %12d | elapsed time per ' \
		    $((i * 1024))
		printf 'iteration (ms): 2%03d.1 | lm loss: 9.47E+00 |\n' \
		    $((i % 1000))
		printf '%s,%03d DEBUG    [rank3] train.timers: step %d: fwd ' \
		    "$t" $((i % 1000)) $i
		printf '%d.5 ms | bwd 579.0 ms | allreduce %d.8 ms\n' \
		    $((200 + i % 90)) $((i % 70))
		printf '(WorkerDict pid=2%04d) INFO 12-02 10:%02d:%02d ' \
		    $((i % 7)) $((i / 60 % 60)) $((i % 60))
		printf '[loggers.py:118] Engine 000: Avg prompt throughput: '
		printf '%d.%d tokens/s, Avg generation throughput: 1111.6 ' \
		    $((i * 7 % 9000)) $((i % 10))
		printf 'tokens/s, Running: %d reqs, Waiting: 0 reqs, ' $((i % 40))
		printf 'GPU KV cache usage: %d.%d%%\r\n' $((i % 90)) $((i % 10))
		# Every 500 lines, one value and then the other.
		k=$((i / 500 % 2))
		case $((i % 500)) in
		17)	printf 'NVRM: Xid (PCI:0000:%02d:00): %d, pid=%d\n' \
			    $((i % 90)) $((k == 0 ? 79 : 13)) $i ;;
		123)	printf 'torch.distributed.elastic: failed (exitcode: %d) ' \
			    $((k == 0 ? 1 : -9))
			printf 'local_rank: %d (pid: %d) of binary: train.py\n' \
			    $((i % 8)) $((40000 + i)) ;;
		321)	printf '\033[31mERROR\033[0m exitcode: %d\n' $k ;;
		esac
		i=$((i + 1))
	done
} >"$tmp/rank3.log"
same "two writers, digits that matter, colour and CRLF" "$tmp/rank3.log"
# Not a vacuous case: the lines named by shape carry rules, and both
# values of each digit that matters were met.
"$RANKLINE" analyze --no-store --json "$tmp/rank3.log" >"$tmp/one.json" 2>&1
for sig in vllm.stats.periodic kernel.xid.fallen_off_bus \
    kernel.xid.app_fault torch.elastic.exit_sigkill \
    torch.elastic.worker_failed; do
	grep -q "\"signature\": \"$sig" "$tmp/one.json"
	ok $? "the case names $sig"
done
# Iterations, timers and vLLM's stats: 12,000 lines matched, of 12,024.
grep -Eq '"matched": 120[0-9]{2}\b' "$tmp/one.json"
ok $? "the case's periodic lines all match a rule"

# Lines that are each a new shape (a request id in every one) cost more
# by shape than by block scan: after a poor block the source is scanned by
# blocks for a while, then tried again.  Nothing may be lost on the way.
awk 'BEGIN {
	srand(11);
	for (i = 0; i < 60000; i++) {
		id = sprintf("%08x-%04x-%04x", rand() * 4294967295,
		    rand() * 65535, rand() * 65535);
		gsub(/[0-9]/, "f", id);
		printf "2026-12-02 10:%02d:%02d,%03d INFO     [rank3] request " \
		    "%s done, Running: %d reqs\n", int(i / 60) % 60, i % 60,
		    i % 1000, id, i % 40;
		if (i % 4 == 0)
			printf "[rank3]:RuntimeError: [../gloo/transport/tcp/" \
			    "pair.cc:598] Connection closed by peer " \
			    "[%s]:44735\n", id;
	}
}' >"$tmp/ids.log"
same "a new shape on every line, past several blocks" "$tmp/ids.log"
"$RANKLINE" analyze --no-store --json "$tmp/ids.log" >"$tmp/one.json" 2>&1
grep -Eq '"matched": 15000\b' "$tmp/one.json"
ok $? "the 15,000 peer lines of that case are all matched"

if [ -d "$RL_SHARED/corpus" ]; then
	for d in $(find "$RL_SHARED/corpus" -name labels.json | sort); do
		d=${d%/labels.json}
		same "corpus ${d#"$RL_SHARED"/corpus/}" "$d"
	done
fi

# The benchmark's own generator: the logs the memo was made for.
if command -v python3 >/dev/null 2>&1 &&
    python3 "$RL_SRCDIR/bench/gen" --out "$tmp/gen" --files 4 --size 6MB \
    --seed 5 >/dev/null 2>&1; then
	same "bench/gen, 4 ranks x 1.5 MB" "$tmp/gen"
fi
tap_done
