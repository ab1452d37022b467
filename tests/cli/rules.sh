#!/bin/sh
# The shipped packs: they parse without errors, every example matches its
# rule and no counter does, and a broken user pack is reported by file and
# line while the shipped rules still load.
. "${RL_SRCDIR:-.}/tests/lib.sh"

out=$("$RANKLINE" rules check 2>&1)
ok $? "rules check passes on the shipped packs"
echo "$out" | sed 's/^/# /'
out=$("$RANKLINE" rules test 2>&1)
ok $? "rules test: every example and counter ($(echo "$out" | tail -1))"
echo "$out" | grep FAIL | sed 's/^/# /'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/bad.rules" <<'PACK'
[rule user.good]
pattern = my own failure text
role = root
domain = code

[rule user.bad]
pattern = unbalanced (paren
role = root
PACK
out=$("$RANKLINE" rules check "$tmp/bad.rules" 2>&1)
ok "$([ $? -ne 0 ]; echo $?)" "rules check exits non-zero on a bad pack"
echo "$out" | grep -q "bad.rules:7: pattern error at offset" ; ok $? "the error names the file, the line and pcre2's offset"

mkdir -p "$tmp/config/rankline/rules"
cp "$tmp/bad.rules" "$tmp/config/rankline/rules/mine.rules"
printf 'x\nmy own failure text here\n' > "$tmp/app.log"
out=$(XDG_CONFIG_HOME="$tmp/config" RANKLINE_NO_USER_RULES=0 \
    "$RANKLINE" analyze --json --no-store "$tmp/app.log" 2>"$tmp/err")
echo "$out" | grep -q '"signature": "user.good"'
ok $? "a user's pack in ~/.config/rankline/rules adds a rule without recompiling"
grep -q "mine.rules:7" "$tmp/err"
ok $? "its bad stanza is reported with file:line, the rest still loads"

"$RANKLINE" rules explain torch.cuda.oom >"$tmp/explain" 2>&1 ||
    "$RANKLINE" rules explain "$("$RANKLINE" rules list | awk 'NR==1{print $1}')" >"$tmp/explain" 2>&1
grep -q "First action" "$tmp/explain"
ok $? "rules explain prints the explanation and the first action"
printf '[attrib my.prefix]\nkind = prefix\npattern = ^box[1-4]: \n' > "$tmp/digit.rules"
"$RANKLINE" rules check "$tmp/digit.rules" >/dev/null 2>"$tmp/digit.err"
grep -q 'digit.rules:1: prefix my.prefix names a digit' "$tmp/digit.err"
ok $? "rules check warns about a prefix that names a digit (it turns the peel memo off)"
"$RANKLINE" rules check 2>&1 | grep -q '0 errors, 0 warnings'
ok $? "the shipped packs have no such warning"
# A rule id twice in one pack: the second replaces the first, as a user's
# pack replaces a shipped rule, but within one file it is a mistake.
cat > "$tmp/dup.rules" <<'PACK'
[rule user.twice]
pattern = first meaning of it
role = root

[attrib user.where]
kind = path
pattern = /(?<host>node\d+)/

[rule user.twice]
pattern = second meaning of it
role = root

[attrib user.where]
kind = path
pattern = /(?<host>gpu\d+)/
PACK
"$RANKLINE" rules check "$tmp/dup.rules" >/dev/null 2>"$tmp/dup.err"
grep -q "dup.rules:9: rule user.twice is defined again; it replaces the one \
at .*dup.rules:1\$" "$tmp/dup.err"
ok $? "rules check warns of a rule id twice in one pack, with both lines"
grep -q "dup.rules:13: attrib user.where is defined again; it replaces the \
one at .*dup.rules:5\$" "$tmp/dup.err"
ok $? "and of an attribution id twice"
mkdir -p "$tmp/dupcfg/rankline/rules"
cp "$tmp/dup.rules" "$tmp/dupcfg/rankline/rules/"
printf '[rule torch.cuda.oom]\npattern = my own out of memory\nrole = root\n' \
    > "$tmp/dupcfg/rankline/rules/override.rules"
printf 'second meaning of it\n' > "$tmp/dup.log"
XDG_CONFIG_HOME="$tmp/dupcfg" RANKLINE_NO_USER_RULES=0 \
    "$RANKLINE" analyze --json --no-store "$tmp/dup.log" >"$tmp/dup.json" \
    2>"$tmp/dup.err"
grep -q "warning: .*dup.rules:9: rule user.twice is defined again" "$tmp/dup.err"
ok $? "loading a user's pack warns of it too"
grep -q '"signature": "user.twice"' "$tmp/dup.json"
ok $? "the later of the two is the one that matches"
! grep -q "override.rules" "$tmp/dup.err"
ok $? "a user's pack replacing a shipped rule by id is no mistake: no warning"
# A pattern that backtracks without end gives lines up at pcre2's match
# limit: analyze says how many, and whose, in its text and its JSON.
mkdir -p "$tmp/slowcfg/rankline/rules"
printf '[rule user.slow]\npattern = ^(a+)+$\nliteral = aaaa\nrole = root\n' \
    > "$tmp/slowcfg/rankline/rules/slow.rules"
{
	echo 'RuntimeError: boom'
	for i in 1 2 3; do echo 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab'; done
	echo 'aaaa'
} > "$tmp/slow.log"
XDG_CONFIG_HOME="$tmp/slowcfg" RANKLINE_NO_USER_RULES=0 \
    "$RANKLINE" analyze --no-store "$tmp/slow.log" >"$tmp/slow.txt" 2>&1
grep -q "^warning: 3 lines hit rule user.slow's match limit (.*slow.rules:1)" \
    "$tmp/slow.txt"
ok $? "analyze warns that 3 lines hit user.slow's match limit, and where"
XDG_CONFIG_HOME="$tmp/slowcfg" RANKLINE_NO_USER_RULES=0 \
    "$RANKLINE" analyze --json --no-store "$tmp/slow.log" >"$tmp/slow.json"
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
m = s["match_limits"]
sys.exit(not (s["limit_hits"] == 3 and len(m) == 1 and
    m[0]["rule"] == "user.slow" and m[0]["lines"] == 3 and
    m[0]["file"].endswith("slow.rules") and m[0]["line"] == 1))
' "$tmp/slow.json"
ok $? "its JSON has the same under stats.match_limits, and 3 limit_hits"
"$RANKLINE" analyze --json --no-store "$tmp/slow.log" | python3 -c '
import json, sys
s = json.load(sys.stdin)["stats"]
sys.exit(not (s["limit_hits"] == 0 and s["match_limits"] == []))'
ok $? "without the pack no line hits a limit, and the list is empty"
# Nested quantifiers backtrack without end on a line that almost matches:
# rules check names the rule, its file:line and the group; a repeat each
# of whose iterations starts apart from its end is left alone.
cat > "$tmp/nested.rules" <<'PACK'
[rule user.nested]
pattern = ^(x+x+)+$
literal = xxxx
role = root

[rule user.dotted]
pattern = host(?:\.[a-z0-9]+)+$
role = evidence
PACK
"$RANKLINE" rules check "$tmp/nested.rules" >/dev/null 2>"$tmp/nested.err"
grep -q 'nested.rules:1: rule user.nested repeats a group .*, (x+x+)+, which backtracks' \
    "$tmp/nested.err"
ok $? "rules check warns of ^(x+x+)+\$, naming the rule, its file:line and the group"
! grep -q user.dotted "$tmp/nested.err"
ok $? "and not of host(?:\\.[a-z0-9]+)+\$, whose iterations cannot split a run"
n=$("$RANKLINE" rules list | wc -l)
ok "$([ "$n" -gt 50 ]; echo $?)" "rules list shows the shipped rules ($n)"
tap_done
