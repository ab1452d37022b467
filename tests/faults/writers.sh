#!/bin/sh
# Faults: writers at once on one database: two `analyze` runs of 16 ranks
# each, a `history --import` of 10 incidents and a `note`, started
# together, round after round.  Each must succeed (they queue on SQLite's
# lock under the busy timeout) and every incident and note must be there,
# once, with the database whole.  Then two consoles (under tmux) quit at
# the same moment, each storing its incident, while an import writes.
. "${RL_SRCDIR:-.}/tests/lib.sh"
. "$RL_SRCDIR/tests/faults/common.sh"

db="$(cd "$ftmp" && pwd -P)/a.db"
seed_db "$db" 6 || { echo "Bail out! cannot seed $db"; exit 1; }
big_logs "$ftmp/big" || skip_all "cannot generate logs (bench/gen)"
"$RANKLINE" --db "$ftmp/src.db" analyze "$ftmp/big" >/dev/null 2>&1
"$RANKLINE" --db "$ftmp/src.db" history --export "$ftmp/one.json"

rounds=${RL_FAULT_ROUNDS:-12}
n=0 nok=0 incidents=6 notes=2 bad=""
# Twice the budget: this is one run of rounds, not three.
RL_FAULT_BUDGET=$((RL_FAULT_BUDGET * 2))
fault_phase
while [ $n -lt "$rounds" ] && fault_more $n; do
	n=$((n + 1))
	# New paths (hard links) are new incidents; new uids, new imports.
	cp -al "$ftmp/big" "$ftmp/a$n" && cp -al "$ftmp/big" "$ftmp/b$n"
	"$PY" - "$ftmp/one.json" "$ftmp/r$n.json" "$n" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
one, r = h["incidents"][0], int(sys.argv[3])
h["incidents"] = [dict(one, uid="%016x%016x" % (r, i + 1),
                       key="round-%d-%d" % (r, i),
                       notes=[{"uid": "%016x%016x" % (r, 100 + i),
                               "created": "2026", "kind": "diagnosis",
                               "text": "round %d" % r}])
                  for i in range(10)]
json.dump(h, open(sys.argv[2], "w"))
PY
	"$RANKLINE" --db "$db" analyze "$ftmp/a$n" >/dev/null 2>"$ftmp/e1" &
	p1=$!
	"$RANKLINE" --db "$db" analyze "$ftmp/b$n" >/dev/null 2>"$ftmp/e2" &
	p2=$!
	"$RANKLINE" --db "$db" history --import "$ftmp/r$n.json" >/dev/null \
	    2>"$ftmp/e3" &
	p3=$!
	"$RANKLINE" --db "$db" note 1 "round $n" >/dev/null 2>"$ftmp/e4" &
	p4=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	wait $p3; r3=$?
	wait $p4; r4=$?
	incidents=$((incidents + 12)) notes=$((notes + 11))
	set -- $(db_state "$db")
	if [ $((r1 + r2 + r3 + r4)) -eq 0 ] && [ "$1" = ok ] &&
	    [ "$2" -eq $incidents ] && [ "$3" -eq $notes ]; then
		nok=$((nok + 1))
	else
		bad="$bad
#   round $n: exits $r1 $r2 $r3 $r4, $* (want $incidents $notes): $(cat "$ftmp"/e[1-4] | head -c 400)"
	fi
	rm -rf "$ftmp/a$n" "$ftmp/b$n"
done
[ $n -gt 0 ] && [ $nok -eq $n ]
ok $? "two analyses, an import and a note at once: $nok of $n rounds all stored ($((n * 4)) writers)$bad"
# Two consoles following logs, quit at the same moment (each stores its
# incident as it ends), and an import, under a private tmux server.
if command -v tmux >/dev/null 2>&1; then
	tm="tmux -L rlfault$$ -f /dev/null"
	fault_cleanups="$tm kill-server 2>/dev/null; $fault_cleanups"
	c=0 cok=0 cbad=""
	while [ $c -lt 3 ]; do
		c=$((c + 1))
		rm -f "$ftmp"/rc-*
		for w in 1 2; do
			cp -al "$ftmp/big" "$ftmp/c$c-$w"
			$tm new-session -d -s "c$w" -x 100 -y 30 \
			    "'$RANKLINE' --db '$db' '$ftmp/c$c-$w' 2>'$ftmp/ce$w'; echo \$? > '$ftmp/rc-$w'"
		done
		"$PY" - "$ftmp/one.json" "$ftmp/cr$c.json" "$((100 + c))" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
one, r = h["incidents"][0], int(sys.argv[3])
h["incidents"] = [dict(one, uid="%016x%016x" % (r, i + 1),
                       key="console-%d-%d" % (r, i), notes=[])
                  for i in range(10)]
json.dump(h, open(sys.argv[2], "w"))
PY
		# Both consoles showing their incident, then all at once.
		i=0
		while [ $i -lt 100 ]; do
			$tm capture-pane -p -t c1 2>/dev/null | grep -q . &&
			    $tm capture-pane -p -t c2 2>/dev/null | grep -q . && break
			sleep 0.1
			i=$((i + 1))
		done
		sleep 0.5
		$tm send-keys -t c1 q
		$tm send-keys -t c2 q
		"$RANKLINE" --db "$db" history --import "$ftmp/cr$c.json" \
		    >/dev/null 2>"$ftmp/ce3"
		r3=$?
		i=0
		while [ $i -lt 300 ] && ! { [ -f "$ftmp/rc-1" ] && [ -f "$ftmp/rc-2" ]; }; do
			sleep 0.1
			i=$((i + 1))
		done
		incidents=$((incidents + 12))
		set -- $(db_state "$db")
		if [ "$(cat "$ftmp/rc-1" "$ftmp/rc-2" 2>/dev/null | tr -d '\n')" = 00 ] &&
		    [ $r3 -eq 0 ] && [ "$1" = ok ] && [ "$2" -eq $incidents ]; then
			cok=$((cok + 1))
		else
			cbad="$cbad
#   round $c: consoles $(cat "$ftmp/rc-1" "$ftmp/rc-2" 2>/dev/null | tr '\n' ' '), import $r3, $* (want $incidents): $(cat "$ftmp"/ce[1-3] | head -c 400)"
		fi
	done
	$tm kill-server 2>/dev/null
	[ $cok -eq $c ]
	ok $? "two consoles quitting and an import at once: $cok of $c rounds all stored$cbad"
else
	skip "no tmux to run two consoles"
fi

"$RANKLINE" --db "$db" history --json > "$ftmp/h" 2>"$ftmp/err" &&
    [ ! -s "$ftmp/err" ]
ok $? "the history reads cleanly afterwards $(cat "$ftmp/err")"
tap_done
