#!/bin/sh
# Faults: the disk fills up while `analyze` saves an incident of some 700
# events and while `history --import` writes 10.  Where the machine lets
# root mount one, a small tmpfs really fills; everywhere, an LD_PRELOAD
# shim (enospc.so, built by make check) fails the database's writes with
# ENOSPC after N bytes, N swept from 0 to all a save writes.  After each:
# the database passes its integrity checks, holds every incident and note
# it held, and a write that failed exited 1 saying the disk is full.
. "${RL_SRCDIR:-.}/tests/lib.sh"
. "$RL_SRCDIR/tests/faults/common.sh"

shim="$RL_BUILDDIR/tests/faults/enospc.so"
seed="$(cd "$ftmp" && pwd -P)/seed.db"
seed_db "$seed" 12 || { echo "Bail out! cannot seed $seed"; exit 1; }
big_logs "$ftmp/big" || skip_all "cannot generate logs (bench/gen)"
"$RANKLINE" --db "$ftmp/src.db" analyze "$ftmp/big" >/dev/null 2>&1
"$RANKLINE" --db "$ftmp/src.db" history --export "$ftmp/one.json"
"$PY" - "$ftmp/one.json" "$ftmp/many.json" 10 <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
one = h["incidents"][0]
h["incidents"] = [dict(one, uid="%032x" % (i + 1), key="copy-%d" % i)
                  for i in range(int(sys.argv[3]))]
json.dump(h, open(sys.argv[2], "w"))
PY

# full_round DB ADDS COMMAND...: run a write on a disk set up to fill, and
# judge it: whole, nothing lost, and either it all went in (exit 0, quiet)
# or none of it did and it said why (exit 1, "full" or "No space").
bad=""
full_round() {
	d=$1 adds=$2
	shift 2
	"$@" >/dev/null 2>"$ftmp/err"
	rc=$?
	set -- $(db_state "$d")
	good=0
	if [ "$1" = ok ] && [ "$3" -ge 2 ]; then
		if [ $rc -eq 0 ] && [ "$2" -eq $((12 + adds)) ] &&
		    [ ! -s "$ftmp/err" ]; then
			good=1 full_ok=$((full_ok + 1))
		elif [ $rc -eq 1 ] && [ "$2" -eq 12 ] &&
		    grep -qE "disk is full|No space left" "$ftmp/err"; then
			good=1 full_refused=$((full_refused + 1))
		fi
	fi
	full_n=$((full_n + 1))
	[ $good -eq 1 ] || bad="$bad
#   $label: exit $rc, $*: $(head -c 300 "$ftmp/err")"
}

# shim_sweep LABEL ADDS COMMAND...: the write under the shim, its limit
# swept over what the write needs.
shim_sweep() {
	label=$1 adds=$2
	shift 2
	cp "$seed" "$ftmp/w.db"
	LD_PRELOAD="$shim" RL_ENOSPC_MATCH="$ftmp/w.db" \
	    RL_ENOSPC_COUNT="$ftmp/count" "$@" >/dev/null 2>&1
	need=$(cat "$ftmp/count" 2>/dev/null)
	if [ "${need:-0}" -eq 0 ]; then
		skip "$label: the shim cannot stand in front of this build's writes"
		return
	fi
	echo "# $label writes $need bytes"
	full_n=0 full_ok=0 full_refused=0
	i=0 steps=${RL_FAULT_ROUNDS:-16}
	fault_phase
	while [ $i -le "$steps" ] && fault_more $i; do
		cp "$seed" "$ftmp/w.db"
		k=$(fault_spread $i $((steps + 1)))
		full_round "$ftmp/w.db" "$adds" env LD_PRELOAD="$shim" \
		    RL_ENOSPC_MATCH="$ftmp/w.db" \
		    RL_ENOSPC_AFTER=$((need * k / steps)) "$@"
		i=$((i + 1))
	done
	[ "$full_n" -gt 0 ] && [ $((full_ok + full_refused)) -eq "$full_n" ]
	ok $? "$label, disk full after 0 to $need bytes: $full_n rounds, $full_refused refused and said so, $full_ok stored whole"
}

# A sanitizer's runtime wants to come first; the shim is only a shim.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS
if [ ! -f "$shim" ]; then
	skip "no $shim (make check builds it)"
	skip "no $shim (make check builds it)"
else
	shim_sweep "analyze" 1 "$RANKLINE" --db "$ftmp/w.db" analyze "$ftmp/big"
	shim_sweep "import of 10" 10 "$RANKLINE" --db "$ftmp/w.db" history \
	    --import "$ftmp/many.json"
fi

# A real full disk: a 4 MB tmpfs, filled to within some KB of the end.
mnt="$ftmp/mnt"
mkdir "$mnt"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=4m,mode=0700 rl-fault \
    "$mnt" 2>/dev/null; then
	fault_cleanups="umount '$mnt' 2>/dev/null; $fault_cleanups"
	full_n=0 full_ok=0 full_refused=0
	for slack in 0 4 16 64 128 256 512 1024; do
		rm -f "$mnt"/*
		cp "$seed" "$mnt/w.db"
		"$PY" - "$mnt" "$slack" <<'PY'
import os, sys
st = os.statvfs(sys.argv[1])
free = st.f_bavail * st.f_frsize - int(sys.argv[2]) * 1024
with open(os.path.join(sys.argv[1], "filler"), "wb") as f:
    while free > 0:
        n = min(free, 1 << 20)
        f.write(b"\0" * n)
        free -= n
PY
		label="tmpfs with $slack KB free"
		"$RANKLINE" --db "$mnt/w.db" analyze "$ftmp/big" >/dev/null \
		    2>"$ftmp/err0"
		rc=$?
		# Still full: the history must read, the -shm it needs or not.
		"$RANKLINE" --db "$mnt/w.db" history --json > "$ftmp/h" \
		    2>"$ftmp/herr"
		n=$(grep -c '"id"' "$ftmp/h")
		[ "$n" -eq 12 ] || [ "$n" -eq 13 ] || bad="$bad
#   $label: history read $n incidents: $(head -c 300 "$ftmp/herr")"
		rm -f "$mnt/filler"
		full_round "$mnt/w.db" 1 sh -c "cat '$ftmp/err0' >&2; exit $rc"
	done
	[ $((full_ok + full_refused)) -eq "$full_n" ] && [ "$full_refused" -gt 0 ]
	ok $? "analyze on a full tmpfs, 0 to 1 MB free: $full_n rounds, $full_refused refused and said so, $full_ok stored whole"
	rm -f "$mnt/filler"
	"$RANKLINE" --db "$mnt/w.db" analyze "$ftmp/big" >/dev/null 2>&1 &&
	    set -- $(db_state "$mnt/w.db") && [ "$2" -eq 13 ]
	ok $? "with room again, the same analysis is stored: $*"
	umount "$mnt"
else
	skip "cannot mount a tmpfs here (not root, or not allowed)"
	skip "cannot mount a tmpfs here (not root, or not allowed)"
fi
[ -z "$bad" ]
ok $? "every disk-full round kept the database whole$bad"
tap_done
