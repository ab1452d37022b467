/*
 * test-rules.c: the pack parser, the literal prefilter and the matcher.
 * Packs here are written inline, so the tests say exactly what they rely
 * on; the shipped packs are tested by `rankline rules test` (tests/cli/rules.sh).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "rules-int.h"
#include "tap.h"

/* Load a pack from a string; returns the number of errors. */
static int
load(struct ruleset *rs, const char *text, struct errlist *e)
{
	return ruleset_load(rs, "test.rules", text, strlen(text), e);
}

/* Does any error message contain s? */
static bool
errs_have(const struct errlist *e, const char *s)
{
	size_t	i;

	for (i = 0; i < e->n; i++) {
		if (strstr(e->v[i], s) != NULL)
			return true;
	}
	return false;
}

static void
test_ini(void)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };
	const struct rl_rule *r;

	load(rs, "# comment\n; also a comment\n[rule a.b]\n"
	    "pattern = x#y;z\nrole = root\n"
	    "explain = one\n    two\n\tthree\n", &e);
	is_int(e.n, 0, "clean pack parses without errors");
	r = ruleset_find(rs, "a.b");
	ok(r != NULL, "rule a.b is loaded");
	is_str(r ? r->explain : NULL, "one two three",
	    "continuation lines join with a space");
	is_str(r ? r->pat[0].source : NULL, "x#y;z",
	    "no inline comments: '#' and ';' stay in patterns");
	errlist_clear(&e);

	load(rs, "key = v\n[rule c.d]\nrole = root\npattern = ok\n"
	    "[rule e.f]\nno equals sign\n", &e);
	ok(errs_have(&e, "test.rules:1:"), "key outside a section names line 1");
	ok(errs_have(&e, "test.rules:6:"), "a line without '=' names line 6");
	ok(ruleset_find(rs, "c.d") != NULL, "a good stanza among bad ones loads");
	errlist_clear(&e);
	ruleset_free(rs);
}

static void
test_errors(void)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };

	load(rs, "[rule good.one]\npattern = fine\nrole = root\n"
	    "[rule bad.regex]\nrole = root\npattern = abc(def\n"
	    "[rule bad.role]\npattern = x\nrole = boss\n"
	    "[rule no.pattern]\nrole = root\n"
	    "[thing x]\n", &e);
	ok(errs_have(&e, "test.rules:6:") && errs_have(&e, "offset 7"),
	    "a bad regex names file:line and pcre2's offset");
	ok(errs_have(&e, "'boss' is not one of"), "a bad role lists the choices");
	ok(errs_have(&e, "rule no.pattern has no pattern"),
	    "a rule without a pattern is refused");
	ok(errs_have(&e, "unknown section kind"), "an unknown section is refused");
	ok(ruleset_find(rs, "good.one") != NULL, "the good rule still loads");
	ok(ruleset_find(rs, "bad.regex") == NULL, "the bad rule is dropped");
	errlist_clear(&e);
	ruleset_free(rs);
}

static void
test_override(void)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };
	const struct rl_rule *r;

	load(rs, "[rule x.y]\npattern = old text\nrole = root\ntitle = old\n", &e);
	load(rs, "[rule x.y]\npattern = new text\nrole = symptom\ntitle = new\n",
	    &e);
	is_int(ruleset_nrules(rs), 1, "an override replaces, never duplicates");
	r = ruleset_find(rs, "x.y");
	is_str(r ? r->title : NULL, "new", "the later pack wins by id");
	is_int(r ? r->role : 0, ROLE_SYMPTOM, "the override's role is used");
	errlist_clear(&e);
	ruleset_free(rs);
}

/* Check the literal derived from a pattern. */
static void
lit_is(const char *pattern, const char *want)
{
	char	**v;
	size_t	  n = pattern_literals(pattern, &v);

	if (want == NULL) {
		ok(n == 0, "no literal from %s", pattern);
	} else {
		is_str(n ? v[0] : NULL, want, "literal of %s", pattern);
	}
	if (n)
		free(v[0]);
	free(v);
}

static void
test_literals(void)
{
	lit_is("CUDA out of memory\\. Tried to allocate", "CUDA out of memory. Tried to allocate");
	lit_is("^Traceback \\(most recent call last\\):$", "Traceback (most recent call last):");
	lit_is("Xid \\(PCI:(?<pci>[0-9a-f:]+)\\): (?<xid>\\d+)", "Xid (PCI:");
	lit_is("foo|bar", NULL);
	lit_is("(?i)error", NULL);
	lit_is("ab?cdef", "cdef");
	lit_is("a(x|y)longer literal", "longer literal");
	lit_is("[a-z]+ ok", " ok");
	lit_is("\\d+", NULL);
	lit_is("exitcode\\s*:\\s*(?<exitcode>-?\\d+)", "exitcode");
}

/* Brute force: which of the literals occur in s? */
static unsigned
brute(const char *const *lit, size_t n, const char *s)
{
	unsigned	mask = 0;
	size_t		i;

	for (i = 0; i < n; i++) {
		if (strstr(s, lit[i]) != NULL)
			mask |= 1u << i;
	}
	return mask;
}

static void
test_prefilter(void)
{
	static const char *lit[] = { "he", "she", "his", "hers", "s", "ab",
	    "bab", "abab", "xyz" };
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };
	struct rl_match	 m;
	struct buf	 pack = { 0 };
	char		 s[40];
	size_t		 i, k, n = sizeof lit / sizeof lit[0];
	unsigned	 mask, want, bad = 0;

	for (i = 0; i < n; i++)
		buf_printf(&pack, "[rule l.%zu]\npattern = %s\nliteral = %s\n"
		    "role = root\n",
		    i, lit[i], lit[i]);
	load(rs, pack.p, &e);
	ruleset_finish(rs);
	srand(7);
	for (k = 0; k < 5000; k++) {
		size_t len = (size_t)(rand() % 30);

		for (i = 0; i < len; i++)
			s[i] = "abehirsxyz "[rand() % 11];
		s[len] = '\0';
		(void)ruleset_match(rs, s, len, &m);
		mask = 0;
		for (i = 0; i < rs->ncand; i++)
			mask |= 1u << rs->cand[i];
		want = brute(lit, n, s);
		if (mask != want)
			bad++;
	}
	is_int(bad, 0, "prefilter finds exactly the literals brute force finds "
	    "(5000 random lines, overlapping literals)");
	buf_clear(&pack);
	errlist_clear(&e);
	ruleset_free(rs);
}

/*
 * The block scan against brute force: literals of every length from one
 * byte to twenty (so each of the scan's three ways is used), planted in
 * long random blocks at every alignment, before and after the anchors are
 * learnt from input, with the vector code and without.
 */
static size_t
brute_hits(char **lit, size_t nlit, const char *b, size_t n, bool *want)
{
	size_t	i, k, c = 0, len;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nlit; k++) {
			len = strlen(lit[k]);
			want[i * nlit + k] = len <= n - i &&
			    memcmp(b + i, lit[k], len) == 0;
			c += want[i * nlit + k];
		}
	}
	return c;
}

static void
scan_round(const char *how, bool simd, bool learn)
{
	enum { NLIT = 40, N = 20000 };
	static const char alpha[] = "abcdeSTEP: \n=\033xyz";
	struct prefilter pf = { 0 };
	struct pf_hits	 h = { 0 };
	char		*lit[NLIT], *b = malloc(N + 1);
	uint32_t	 tg[NLIT];
	bool		*want = calloc((size_t)N * NLIT, sizeof *want);
	bool		*got = calloc((size_t)N * NLIT, sizeof *got);
	size_t		 i, k, len, nwant, bad = 0, extra = 0, order = 0, n;
	uint32_t	 li;
	int		 round;

	if (simd)
		unsetenv("RANKLINE_NO_SIMD");
	else
		setenv("RANKLINE_NO_SIMD", "1", 1);
	srand(11);
	for (k = 0; k < NLIT; k++) {
		len = 1 + k % 20;
		lit[k] = malloc(len + 1);
		for (i = 0; i < len; i++)
			lit[k][i] = "abcdeSTEP: xyz"[rand() % 14];
		if (len == 1)
			lit[k][0] = '\033';
		lit[k][len] = '\0';
		tg[k] = (uint32_t)k;
	}
	prefilter_build(&pf, lit, tg, NLIT);
	for (round = 0; round < 6; round++) {
		n = N - (size_t)round * 7;	/* every tail length */
		for (i = 0; i < n; i++)
			b[i] = alpha[rand() % (sizeof alpha - 1)];
		for (k = 0; k < 400; k++) {	/* plant literals */
			li = (uint32_t)(rand() % NLIT);
			len = strlen(lit[li]);
			i = (size_t)rand() % (n - len);
			memcpy(b + i, lit[li], len);
		}
		if (learn && round == 2)
			prefilter_learnt(&pf);
		if (learn && round < 2)
			prefilter_learn(&pf, (const uint8_t *)b, n);
		memset(got, 0, (size_t)N * NLIT * sizeof *got);
		memset(want, 0, (size_t)N * NLIT * sizeof *want);
		nwant = brute_hits(lit, NLIT, b, n, want);
		prefilter_scan(&pf, (const uint8_t *)b, n, &h);
		for (i = 0; i < h.all.n; i++) {
			size_t at = h.all.v[i].pos;

			/* pf->lit is interned: mark every test literal alike. */
			for (k = 0; k < NLIT; k++) {
				if (strcmp(lit[k], pf.lit[h.all.v[i].lit]) != 0)
					continue;
				if (!want[at * NLIT + k] || got[at * NLIT + k])
					extra++;
				got[at * NLIT + k] = true;
			}
			/* Hits keep line order: no newline between a hit
			 * and an earlier one placed after it. */
			if (i > 0 && h.all.v[i - 1].pos > at &&
			    memchr(b + at, '\n', h.all.v[i - 1].pos - at))
				order++;
		}
		for (i = 0; i < (size_t)N * NLIT; i++) {
			bad += want[i] && !got[i];
		}
		if (nwant == 0)
			bad++;
	}
	is_int(bad, 0, "block scan %s: every planted and chance literal "
	    "found", how);
	is_int(extra, 0, "block scan %s: no hit twice or where no literal "
	    "is", how);
	is_int(order, 0, "block scan %s: hits in line order", how);
	prefilter_clear(&pf);
	pf_hits_clear(&h);
	for (k = 0; k < NLIT; k++)
		free(lit[k]);
	free(b);
	free(want);
	free(got);
	unsetenv("RANKLINE_NO_SIMD");
}

static void
test_block_scan(void)
{
	scan_round("(vector)", true, false);
	scan_round("(scalar)", false, false);
	scan_round("(vector, learnt anchors)", true, true);
	scan_round("(scalar, learnt anchors)", false, true);
}

/*
 * Lines named by their shape against lines scanned and matched afresh:
 * the same candidates, the same rule, the same offsets, line after line,
 * for lines that differ only in their digits, where a rule or a literal
 * tells one digit from another, and at the edges (CRLF, escapes, long
 * lines, a line that ends the block).
 */
static const char shape_pack[] =
    "[rule step]\npattern = step (?<step>\\d+): loss\nrole = progress\n"
    "[rule exit1]\npattern = exitcode: 1\\b\nliteral = exitcode: \n"
    "role = root\npriority = 50\n"
    "[rule gpu]\npattern = H\\d+ GPU\nliteral = H100\nrole = evidence\n"
    "[rule any]\npattern = (?<count>\\d+) lines\nliteral = lines\n"
    "role = evidence\n"
    "[rule color]\npattern = \\[31mred\nliteral = red\nrole = evidence\n";

static const char *shape_forms[] = {
	"step #: loss #.#",
	"[rank#] step #: loss #.# and # lines",
	"worker exitcode: # (pid #)",
	"found H#00 GPU at slot #",
	"nothing at all here, # times",
	"# lines dropped\r",
	"\033[31mred # alert",
	"",
	/*
	 * Longer than a shape's head (64 bytes) and alike in it: named by
	 * what comes after, at one length and at several.
	 */
	"#-#-# #:#:#,# INFO     [rank#] trainer.loop.worker: all is well, "
	    "step #: loss #.#",
	"#-#-# #:#:#,# INFO     [rank#] trainer.loop.worker: all is well, "
	    "step #: lost #.#",
	"#-#-# #:#:#,# INFO     [rank#] trainer.loop.worker: all is well, "
	    "# lines at step #",
	"#-#-# #:#:#,# INFO     [rank#] trainer.loop.worker: all is well, "
	    "exitcode: # now\r",
};

static void
shape_line(char *buf, size_t cap, unsigned *seed)
{
	const char	*f = shape_forms[rand_r(seed) % (sizeof shape_forms /
			    sizeof shape_forms[0])];
	size_t		 n = 0;

	for (; *f != '\0' && n + 4 < cap; f++) {
		if (*f == '#') {
			/* One to three digits: shapes of several lengths. */
			int	k = 1 + rand_r(seed) % 2;

			while (k-- > 0 && n + 4 < cap)
				buf[n++] = (char)('0' + rand_r(seed) % 10);
		} else
			buf[n++] = *f;
	}
	buf[n] = '\0';
}

static int
u32_cmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The candidates of the last scan, sorted, into v. */
static size_t
shape_cands(const struct ruleset *rs, uint32_t *v)
{
	memcpy(v, rs->cand, rs->ncand * sizeof *v);
	qsort(v, rs->ncand, sizeof *v, u32_cmp);
	return rs->ncand;
}

/*
 * Every compare of a line with a kept shape this machine has gives the
 * same answer: lines of every length to 300 bytes, each against its own
 * masked bytes (the same, whatever its digits) and against those bytes
 * with one byte changed, at every place in turn (a digit for another
 * digit is still the same; anything else is not).
 */
static void
test_shape_compares(void)
{
	uint8_t		 k[320], was;
	char		 s[320], swas;
	unsigned	 seed = 11, nimpl = 1, bits, all, want;
	size_t		 n, i, at, bad = 0, tried = 0;

	for (n = 0; n <= 300; n++) {
		for (i = 0; i < n; i++) {
			s[i] = rand_r(&seed) % 3 == 0 ?
			    (char)('0' + rand_r(&seed) % 10) :
			    (char)(' ' + rand_r(&seed) % 95);
			k[i] = s[i] >= '0' && s[i] <= '9' ? '0' : (uint8_t)s[i];
		}
		for (at = 0; at <= n; at++) {
			/* at == n: unchanged; else byte at is changed. */
			was = at < n ? k[at] : 0;
			swas = at < n ? s[at] : 0;
			want = 1;
			if (at < n && rand_r(&seed) % 2 == 0 && was == '0')
				s[at] = (char)('0' + (s[at] - '0' + 1) % 10);
			else if (at < n) {
				k[at] = was == 'x' ? 'y' : 'x';
				want = 0;
			}
			bits = shape_same_each(s, k, n, &nimpl);
			all = (1u << nimpl) - 1;
			tried++;
			if (bits != (want ? all : 0) && bad++ < 3)
				printf("# length %zu, byte %zu: answers %x, "
				    "want %x\n", n, at, bits, want ? all : 0);
			if (at < n) {
				k[at] = was;
				s[at] = swas;
			}
		}
	}
	ok(bad == 0, "%u compares agree on %zu lines and changes", nimpl,
	    tried);
}

static void
shape_round(const char *what, bool simd)
{
	struct ruleset	*plain, *shaped;
	struct errlist	 e = { 0 };
	struct rl_match	 m1, m2;
	uint32_t	 c1[64], c2[64];
	char		*b, line[2048];
	size_t		 n1, n2, cap = 1 << 20, len = 0, pos, nl, ln, i;
	unsigned	 seed = 7;
	int		 bad = 0, lines = 0, matched = 0;
	bool		 r1, r2;

	if (!simd)
		setenv("RANKLINE_NO_SIMD", "1", 1);
	setenv("RANKLINE_NO_SHAPES", "1", 1);
	plain = ruleset_create();
	load(plain, shape_pack, &e);
	ruleset_finish(plain);
	unsetenv("RANKLINE_NO_SHAPES");
	shaped = ruleset_create();
	load(shaped, shape_pack, &e);
	ok(ruleset_shapes(shaped) && !ruleset_shapes(plain),
	    "%s the memo is on, and off when told", what);
	b = malloc(cap);
	while (len + sizeof line + 2 < cap - 4096) {
		shape_line(line, sizeof line, &seed);
		ln = strlen(line);
		memcpy(b + len, line, ln);
		len += ln;
		b[len++] = '\n';
	}
	/* A line too long to keep, twice, then one that ends the block. */
	for (i = 0; i < 2; i++) {
		memset(b + len, 'x', 1500);
		memcpy(b + len + 700, " 12 lines ", 10);
		len += 1500;
		b[len++] = '\n';
	}
	memcpy(b + len, "step 7: loss 1", 14);
	len += 14;
	b[len++] = '\n';
	for (pos = 0; pos < len; pos = nl + 1) {
		nl = pos + ruleset_shape_scan(shaped, b + pos, len - pos);
		ln = nl - pos;
		if (ln > 0 && b[nl - 1] == '\r')
			ln--;
		n2 = shape_cands(shaped, c2);
		r2 = ruleset_match_shape(shaped, b + pos, ln, 0, &m2);
		ruleset_scan_line(plain, b + pos, ln);
		n1 = shape_cands(plain, c1);
		r1 = ruleset_match_cands(plain, b + pos, ln, &m1);
		lines++;
		matched += r1;
		if (nl != pos + (size_t)((char *)memchr(b + pos, '\n',
		    len - pos) - (b + pos)) || n1 != n2 ||
		    memcmp(c1, c2, n1 * sizeof *c1) != 0 || r1 != r2 ||
		    (r1 && (strcmp(m1.rule->id, m2.rule->id) != 0 ||
		    m1.pat - m1.rule->pat != m2.pat - m2.rule->pat ||
		    m1.subject != m2.subject || m1.ngroups != m2.ngroups ||
		    memcmp(m1.ovec, m2.ovec, 2 * (size_t)m1.ngroups *
		    sizeof *m1.ovec) != 0 || match_int(&m1, CAP_STEP) !=
		    match_int(&m2, CAP_STEP) || match_int(&m1, CAP_COUNT) !=
		    match_int(&m2, CAP_COUNT)))) {
			if (bad++ < 5)
				printf("# differs: %.*s\n", (int)(ln > 80 ? 80 :
				    ln), b + pos);
		}
	}
	is_int(bad, 0, "%s shapes name %d lines as a scan does (%d matched)",
	    what, lines, matched);
	ok(matched > lines / 4 && matched < lines, "%s both kinds of line "
	    "were seen", what);
	free(b);
	errlist_clear(&e);
	ruleset_free(plain);
	ruleset_free(shaped);
	unsetenv("RANKLINE_NO_SIMD");
}

static void
test_shapes(void)
{
	test_shape_compares();
	shape_round("(vector)", true);
	shape_round("(scalar)", false);
}

static void
test_priority(void)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };
	struct rl_match	 m;
	const char	*line = "RuntimeError: Connection closed by peer";

	load(rs, "[rule generic.exc]\npattern = ^(?<exc>\\w+Error): \n"
	    "literal = Error: \nrole = root\npriority = 10\n"
	    "[rule gloo.closed]\npattern = Connection closed by peer\n"
	    "role = collateral\npriority = 80\n", &e);
	ok(ruleset_match(rs, line, strlen(line), &m), "the line matches");
	is_str(m.rule->id, "gloo.closed",
	    "the specific rule wins over the generic one on one line");
	line = "IndexError: list index out of range";
	ok(ruleset_match(rs, line, strlen(line), &m) &&
	    strcmp(m.rule->id, "generic.exc") == 0,
	    "the generic rule names a line no specific rule matches");
	line = "nothing to see here";
	ok(!ruleset_match(rs, line, strlen(line), &m), "a plain line matches nothing");
	errlist_clear(&e);
	ruleset_free(rs);
}

static void
test_captures(void)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };
	struct rl_match	 m;
	const char	*line = "failed (exitcode: -9) local_rank: 5 (pid: 2630)";
	char		*s;

	load(rs, "[rule exit]\npattern = failed \\(exitcode: (?<exitcode>-?\\d+)\\) "
	    "local_rank: (?<local_rank>\\d+) \\(pid: (?<pid>\\d+)\\)\n"
	    "role = symptom\nmark = exit\n", &e);
	ok(ruleset_match(rs, line, strlen(line), &m), "exit line matches");
	is_int(match_int(&m, CAP_EXITCODE), -9, "negative exit code captured");
	is_int(match_int(&m, CAP_LOCAL_RANK), 5, "local rank captured");
	is_int(match_int(&m, CAP_PID), 2630, "pid captured");
	is_int(match_int(&m, CAP_STEP), RL_CAP_UNSET, "absent capture is unset");
	s = match_str(&m, CAP_PID);
	is_str(s, "2630", "capture as text");
	free(s);
	errlist_clear(&e);
	ruleset_free(rs);

	/* Up to 18 digits are read as they are; a longer run must fit. */
	rs = ruleset_create();
	load(rs, "[rule step]\npattern = step (?<step>-?\\d+)\nrole = progress\n",
	    &e);
	line = "step 999999999999999999";
	ok(ruleset_match(rs, line, strlen(line), &m) &&
	    match_int(&m, CAP_STEP) == INT64_C(999999999999999999),
	    "18 digits are read");
	line = "step -999999999999999999";
	ok(ruleset_match(rs, line, strlen(line), &m) &&
	    match_int(&m, CAP_STEP) == -INT64_C(999999999999999999),
	    "and 18 digits with a minus");
	line = "step 1000000000000000000";
	ok(ruleset_match(rs, line, strlen(line), &m) &&
	    match_int(&m, CAP_STEP) == INT64_C(1000000000000000000),
	    "19 digits that fit are read");
	line = "step 99999999999999999999";
	ok(ruleset_match(rs, line, strlen(line), &m) &&
	    match_int(&m, CAP_STEP) == RL_CAP_UNSET,
	    "20 digits are no number");
	errlist_clear(&e);
	ruleset_free(rs);

	/*
	 * A signal is read as logs name it: a number, SIGKILL, KILL or
	 * strsignal's words, as Linux numbers them; nothing else is one.
	 */
	rs = ruleset_create();
	load(rs, "[rule sig]\nrole = symptom\nmark = exit\n"
	    "pattern = ^sig (?<signal>.+?)\\.?$\n"
	    "[rule other]\nrole = progress\npattern = ^step (?<step>.+)$\n", &e);
	{
		static const struct { const char *line; int64_t want; } v[] = {
			{ "sig 9", 9 }, { "sig SIGKILL", 9 }, { "sig KILL", 9 },
			{ "sig Killed", 9 },
			{ "sig Segmentation fault", 11 }, { "sig SIGSEGV", 11 },
			{ "sig Aborted", 6 }, { "sig Bus error", 7 },
			{ "sig Terminated", 15 }, { "sig SIGTERM", 15 },
			{ "sig Floating point exception", 8 },
			{ "sig Illegal instruction", 4 }, { "sig SIGXCPU", 24 },
			{ "sig SIGFOO", RL_CAP_UNSET }, { "sig SIG", RL_CAP_UNSET },
			{ "sig killed", RL_CAP_UNSET },
			{ "sig Killed by the OOM killer", RL_CAP_UNSET },
			{ "sig -SIGKILL", RL_CAP_UNSET }, { "sig S", RL_CAP_UNSET },
			{ "step KILL", RL_CAP_UNSET },
		};
		size_t	i;
		int64_t	got;

		for (i = 0; i < sizeof v / sizeof v[0]; i++) {
			got = INT64_MAX;	/* no match */
			if (ruleset_match(rs, v[i].line, strlen(v[i].line), &m))
				got = match_int(&m, m.rule == ruleset_find(rs,
				    "sig") ? CAP_SIGNAL : CAP_STEP);
			is_int(got, v[i].want, "\"%s\" as a signal", v[i].line);
		}
	}
	is_str(signal_name(11), "SIGSEGV", "signal 11 is SIGSEGV by name");
	ok(signal_name(0) == NULL && signal_name(64) == NULL &&
	    signal_name(RL_CAP_UNSET) == NULL, "no name for what is no signal");
	errlist_clear(&e);
	ruleset_free(rs);

	/* ckpt says a failure writing a checkpoint, and nothing else. */
	rs = ruleset_create();
	load(rs, "[rule w]\nrole = root\nckpt = write\npattern = w\n"
	    "[rule bad]\nrole = root\nckpt = maybe\npattern = b\n", &e);
	ok(ruleset_find(rs, "w") != NULL && ruleset_find(rs, "w")->ckpt_write,
	    "ckpt = write marks a failure while writing a checkpoint");
	ok(errs_have(&e, "test.rules:7:") && errs_have(&e, "ckpt 'maybe'"),
	    "any other value is refused, with its line");
	errlist_clear(&e);
	ruleset_free(rs);

	/* An event keeps EVENT_CAPS numbers: a rule naming more is refused. */
	rs = ruleset_create();
	load(rs, "[rule many]\nrole = root\npattern = (?<rank>\\d) "
	    "(?<local_rank>\\d) (?<pid>\\d) (?<step>\\d) (?<seq>\\d) "
	    "(?<exitcode>\\d) (?<signal>\\d)\n"
	    "[rule six]\nrole = root\npattern = (?<rank>\\d) "
	    "(?<local_rank>\\d) (?<pid>\\d) (?<step>\\d) (?<seq>\\d) "
	    "(?<exitcode>\\d)\n", &e);
	ok(errs_have(&e, "test.rules:3:") && errs_have(&e, "7 numeric "
	    "captures"), "seven numeric captures in a rule's pattern are "
	    "refused, with the line");
	ok(ruleset_find(rs, "six") != NULL && ruleset_find(rs, "six")->npat
	    == 1, "six are kept");
	errlist_clear(&e);
	ruleset_free(rs);

	/* Which names a rule captures, in any of its patterns. */
	rs = ruleset_create();
	load(rs, "[rule nccl]\nrole = evidence\n"
	    "pattern = cudaDev (?<cuda_dev>\\d+) busId (?<busid>[0-9a-f]+)\n"
	    "pattern = (?<pci>[0-9a-f:.]+) fell off\n"
	    "[rule plain]\nrole = evidence\npattern = no groups here\n", &e);
	ok(rule_has_capture(ruleset_find(rs, "nccl"), "busid") &&
	    rule_has_capture(ruleset_find(rs, "nccl"), "cuda_dev") &&
	    rule_has_capture(ruleset_find(rs, "nccl"), "pci"),
	    "a rule captures the names of each of its patterns");
	ok(!rule_has_capture(ruleset_find(rs, "nccl"), "bus") &&
	    !rule_has_capture(ruleset_find(rs, "nccl"), "busid2") &&
	    !rule_has_capture(ruleset_find(rs, "nccl"), ""),
	    "and no name that only starts or ends like one of them");
	ok(!rule_has_capture(ruleset_find(rs, "plain"), "busid") &&
	    !rule_has_capture(NULL, "busid"),
	    "a rule without groups, or none, captures nothing");
	errlist_clear(&e);
	ruleset_free(rs);
}

/*
 * A pattern's names are first asked through 64 bits standing for them:
 * with 40 names most bits are set, and the answer must still come from
 * the names themselves, for each name it has and for none it lacks.
 */
static void
test_capture_names_many(void)
{
	struct ruleset		*rs;
	const struct rl_rule	*r;
	struct errlist		 e = { 0 };
	struct buf		 b = { 0 };
	char			 name[16];
	int			 i, have = 0, lack = 0;

	buf_adds(&b, "[rule many]\nrole = evidence\npattern = ");
	for (i = 0; i < 40; i++)
		buf_printf(&b, "(?<g%d>x)", i);
	buf_adds(&b, "\n");
	rs = ruleset_create();
	load(rs, b.p, &e);
	r = ruleset_find(rs, "many");
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "g%d", i);
		have += rule_has_capture(r, name) &&
		    rule_has_named(r, name, capture_name_bits(name));
	}
	for (i = 40; i < 1040; i++) {
		snprintf(name, sizeof name, "g%d", i);
		lack += !rule_has_capture(r, name);
	}
	ok(r != NULL && have == 40, "each of 40 names is found (%d)", have);
	ok(lack == 1000, "and none of 1,000 others (%d)", lack);
	ok((capture_name_bits("g1") & ~r->pat[0].name_bits) == 0,
	    "a pattern's bits hold those of each of its names");
	buf_clear(&b);
	errlist_clear(&e);
	ruleset_free(rs);
}

/* The capture of an event, read back from its kept text. */
static char *
capture_of(const struct ruleset *rs, const char *rule, unsigned pat,
    const char *text, const char *name)
{
	struct rl_event	ev;

	memset(&ev, 0, sizeof ev);
	ev.rule = ruleset_find(rs, rule);
	ev.pat = (uint8_t)pat;
	ev.text = (char *)text;
	return event_capture(NULL, &ev, name);
}

/*
 * A capture is read again from the event's whole line, prefixes and all:
 * where it matched first, then each pattern from the line's start, then,
 * for a pattern whose match depends on where the subject starts, from
 * the places a prefix can end.
 */
static void
test_event_capture(void)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };
	char		*v;

	load(rs, "[rule comm]\nrole = evidence\n"
	    "pattern = ncclCommInitRank rank (?<rank>\\d+) busId "
	    "(?<busid>[0-9a-f]+)\n"
	    "pattern = comm rank (?<rank>\\d+) nRanks (?<nranks>\\d+)\n"
	    "[rule anchored]\nrole = evidence\n"
	    "pattern = ^busId (?<busid>[0-9a-f]+)\n"
	    "[rule behind]\nrole = evidence\n"
	    "pattern = (?<!:)busId (?<busid>[0-9a-f]+)\n"
	    "[rule nested]\nrole = evidence\n"
	    "pattern = (?:^|\\s)busId (?<busid>[0-9a-f]+)\n", &e);
	is_int((int)e.n, 0, "the capture pack loads");
	v = capture_of(rs, "comm", 1, "node1:9:9 [3] NCCL INFO comm rank 3 "
	    "nRanks 8", "busid");
	ok(v == NULL, "a line of the pattern without the group has no value");
	free(v);
	v = capture_of(rs, "comm", 1, "node1:9:9 [3] NCCL INFO comm rank 3 "
	    "nRanks 8 ncclCommInitRank rank 3 busId 1b000", "busid");
	is_str(v, "1b000", "another pattern of the rule that matches the line "
	    "gives it");
	free(v);
	v = capture_of(rs, "anchored", 0, "[rank3]: busId 6b000", "busid");
	is_str(v, "6b000", "a pattern anchored at ^ is found after a prefix");
	free(v);
	v = capture_of(rs, "behind", 0, "[rank3]:busId 9a000", "busid");
	is_str(v, "9a000", "as is one whose lookbehind the prefix would fail");
	free(v);
	v = capture_of(rs, "nested", 0, "[rank3]:busId 5e000", "busid");
	is_str(v, "5e000", "and one with ^ in a group");
	free(v);
	errlist_clear(&e);
	ruleset_free(rs);
}

/* Lines for the JIT test, and what each of four threads made of them. */
#define JIT_LINES	64
#define JIT_THREADS	4

struct jit_run {
	struct ruleset	*rs;		/* the thread's clone */
	char		 got[JIT_LINES][32];	/* rule id, or "-" */
};

static void
jit_lines(struct ruleset *rs, char got[JIT_LINES][32])
{
	struct rl_match	 m;
	char		 line[96];
	int		 i;

	for (i = 0; i < JIT_LINES; i++) {
		snprintf(line, sizeof line, i % 3 == 0 ? "step %d done" :
		    i % 3 == 1 ? "ValueError: bad %d" : "nothing %d here", i);
		snprintf(got[i], 32, "%s", ruleset_match(rs, line, strlen(line),
		    &m) ? m.rule->id : "-");
	}
}

static void *
jit_thread(void *arg)
{
	struct jit_run	*r = arg;

	jit_lines(r->rs, r->got);
	return NULL;
}

/*
 * A pattern is compiled for the JIT when it is first run, not when its
 * pack is loaded; threads that meet it first at once all match as one
 * thread does.
 */
static void
test_lazy_jit(void)
{
	const char	*text = "[rule t.step]\nrole = progress\n"
	    "pattern = ^step (?<step>\\d+)\n"
	    "[rule t.exc]\nrole = root\npattern = (?<exc>\\w+Error): \n"
	    "[rule t.never]\nrole = root\npattern = never (?<n>\\d+) seen\n";
	struct ruleset	*rs = ruleset_create(), *one = ruleset_create();
	struct errlist	 e = { 0 };
	struct jit_run	 run[JIT_THREADS];
	pthread_t	 th[JIT_THREADS];
	char		 want[JIT_LINES][32];
	int		 i, same = 0, jit = 0;

	pcre2_config(PCRE2_CONFIG_JIT, &jit);
	load(rs, text, &e);
	load(one, text, &e);
	ruleset_finish(rs);
	ok(ruleset_find(rs, "t.step")->pat[0].jit == JIT_NOT_YET &&
	    ruleset_find(rs, "t.never")->pat[0].jit == JIT_NOT_YET,
	    "loading a pack compiles no pattern for the JIT");
	for (i = 0; i < JIT_THREADS; i++) {
		run[i].rs = ruleset_clone(rs);
		pthread_create(&th[i], NULL, jit_thread, &run[i]);
	}
	for (i = 0; i < JIT_THREADS; i++)
		pthread_join(th[i], NULL);
	jit_lines(one, want);
	for (i = 0; i < JIT_THREADS * JIT_LINES; i++)
		same += strcmp(run[i / JIT_LINES].got[i % JIT_LINES],
		    want[i % JIT_LINES]) == 0;
	is_int(same, JIT_THREADS * JIT_LINES, "four threads meeting the patterns at once "
	    "name every line as one thread does");
	is_str(want[0], "t.step", "a step line is named");
	is_str(want[1], "t.exc", "an error line is named");
	ok(ruleset_find(rs, "t.step")->pat[0].jit ==
	    (jit ? JIT_READY : JIT_NONE) &&
	    ruleset_find(rs, "t.never")->pat[0].jit == JIT_NOT_YET,
	    "a pattern run is compiled once met; one never run is not");
	for (i = 0; i < JIT_THREADS; i++)
		ruleset_free(run[i].rs);
	errlist_clear(&e);
	ruleset_free(rs);
	ruleset_free(one);
}

/* The packs compiled into the binary load cleanly on their own. */
static void
test_embedded(void)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };
	unsigned	 checks = 0;
	size_t		 i;
	int		 bad;

	setenv("RANKLINE_DATADIR", "/nonexistent", 1);
	setenv("RANKLINE_NO_USER_RULES", "1", 1);
	is_int(ruleset_load_defaults(rs, &e), 0, "embedded packs load cleanly");
	for (i = 0; i < e.n; i++)
		printf("# %s\n", e.v[i]);
	ok(ruleset_nrules(rs) > 0, "embedded packs hold rules (%zu)",
	    ruleset_nrules(rs));
	ok(ruleset_nattribs(rs) > 0, "embedded packs hold attributions (%zu)",
	    ruleset_nattribs(rs));
	errlist_clear(&e);
	bad = ruleset_test(rs, &e, &checks);
	for (i = 0; i < e.n; i++)
		printf("# %s\n", e.v[i]);
	is_int(bad, 0, "every example and counter of the embedded packs "
	    "(%u checks)", checks);
	errlist_clear(&e);
	ruleset_free(rs);
	unsetenv("RANKLINE_DATADIR");
}

int
main(void)
{
	test_ini();
	test_errors();
	test_override();
	test_literals();
	test_prefilter();
	test_block_scan();
	test_shapes();
	test_priority();
	test_captures();
	test_capture_names_many();
	test_event_capture();
	test_lazy_jit();
	test_embedded();
	return tap_done();
}
