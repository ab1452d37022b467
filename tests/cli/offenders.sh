#!/bin/sh
# tests/offenders.sh: "rank 1 failed 2x before" counts the same rank of the
# same job on the same host only (#25).  A rank number names a different
# process in every job: counted alone, every job's rank 0 would be a repeat
# offender of every other's.  The job is its name (SLURM_JOB_NAME here);
# the host comes from pdsh's prefix.
. "${RL_SRCDIR:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rl-offenders.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export RANKLINE_NO_USER_RULES=1
db="$tmp/incidents.db"

# run FILE JOB HOST: one run of JOB whose rank 1 on HOST fails.
run() {
	{
		echo "SLURM_JOB_NAME=$2"
		echo "$3: [rank0]: step 5 loss 1.0"
		echo "$3: [rank1]: Traceback (most recent call last):"
		echo "$3: [rank1]:   File \"train.py\", line 3, in <module>"
		echo "$3: [rank1]: RuntimeError: CUDA error: an illegal memory" \
		    "access was encountered"
	} >"$tmp/$1"
}

# offenders FILE: "kind name count" per offender that analyze recalls.
offenders() {
	$RANKLINE analyze --db "$db" --json "$tmp/$1" | python3 -c '
import json, sys
for o in json.load(sys.stdin)["history"]["offenders"]:
    print(o["kind"], o["name"], o["count"])'
}

# one: the offenders on one line, for a check's description.
one() {
	echo "$out" | tr '\n' ';'
}

run a1.log alpha node07
run a2.log alpha node07
run b1.log beta node07
run b2.log beta node08
run a3.log alpha node08

out=$(offenders a1.log)
ok "$([ -z "$out" ]; echo $?)" "the first run recalls no offender"
out=$(offenders a2.log)
echo "$out" | grep -qx 'rank 1 on node07 in alpha 1'
ok $? "alpha's rank 1 on node07 failed once before (got: $(one))"
out=$(offenders b1.log)
echo "$out" | grep -qx 'host node07 2'
ok $? "node07 failed twice before, whatever the job"
! echo "$out" | grep -q '^rank '
ok $? "beta's rank 1 is not alpha's: no rank offender (got: $(one))"
out=$(offenders b2.log)
! echo "$out" | grep -q '^rank '
ok $? "beta's rank 1 on node08 is not beta's on node07 (got: $(one))"
out=$(offenders a3.log)
! echo "$out" | grep -q '^rank '
ok $? "alpha's rank 1 on node08 is not alpha's on node07 (got: $(one))"

out=$($RANKLINE history --db "$db" --hosts --json | python3 -c '
import json, sys
for o in json.load(sys.stdin):
    print(o["kind"], o["name"], o["count"])')
echo "$out" | grep -qx 'rank 1 on node07 in alpha 2'
ok $? "history --hosts: alpha's rank 1 on node07, twice (got: $(one))"
! echo "$out" | grep -q '^rank 1 [0-9]'
ok $? "history --hosts: no rank counted across jobs (got: $(one))"

tap_done
