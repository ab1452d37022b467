/*
 * rules-match.c: the matcher.  A line is scanned for every rule's literals
 * (prefilter.c), its candidates are tried highest priority first, each
 * pattern under pcre2's match and depth limits, and a limit hit counts as
 * no match and is counted per rule, for `rules check` and the report.
 * rules.c compiles the set this runs on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

/* Slot of a target in the stamp array. */
static size_t
target_slot(const struct ruleset *rs, uint32_t t)
{
	return (t & TARGET_ATTRIB) ? rs->nrules + (t & ~TARGET_ATTRIB) : t;
}

/* Note a candidate once per scan. */
static void
ruleset_candidate(struct ruleset *rs, uint32_t t)
{
	size_t	slot;

	if (t == TARGET_ESC) {
		rs->cand_esc = true;
		return;
	}
	slot = target_slot(rs, t);
	if (rs->stamp[slot] == rs->gen)
		return;
	rs->stamp[slot] = rs->gen;
	rs->cand_buf[rs->ncand++] = t;
}

/* Start a line's candidate set: the targets with no literal are always in. */
void
ruleset_scan_begin(struct ruleset *rs)
{
	size_t	i;

	if (!rs->finished)
		ruleset_finish(rs);
	if (++rs->gen == 0) {
		memset(rs->stamp, 0, (rs->nrules + rs->nattribs + 1) *
		    sizeof *rs->stamp);
		rs->gen = 1;
	}
	rs->cand = rs->cand_buf;
	rs->ncand = 0;
	rs->cand_esc = false;
	for (i = 0; i < rs->nalways; i++)
		ruleset_candidate(rs, rs->always[i]);
}

/* Add the targets of a literal a scan found. */
void
ruleset_scan_lit(struct ruleset *rs, uint32_t li)
{
	const struct prefilter	*pf = &rs->pf;
	uint32_t		 o;

	for (o = pf->first[li]; o != 0; o = pf->outnext[o - 1])
		ruleset_candidate(rs, pf->outtarget[o - 1]);
}

/* Scan one line for the literals: fills rs->cand. */
void
ruleset_scan_line(struct ruleset *rs, const char *s, size_t n)
{
	size_t	i;

	ruleset_scan_begin(rs);		/* builds the prefilter if need be */
	prefilter_scan(&rs->pf, (const uint8_t *)s, n, &rs->line_hits);
	for (i = 0; i < rs->line_hits.all.n; i++)
		ruleset_scan_lit(rs, rs->line_hits.all.v[i].lit);
}

/* Learn from input which four bytes of each literal are rare (prefilter.c). */
void
ruleset_learn(struct ruleset *rs, const char *p, size_t n)
{
	if (!rs->finished)
		ruleset_finish(rs);
	prefilter_learn(&rs->pf, (const uint8_t *)p, n);
}

/* Does the prefilter still want input to learn from? */
bool
ruleset_learning(const struct ruleset *rs)
{
	return rs->pf.built && rs->pf.learnt < PF_LEARN_BYTES;
}

/* Anchor the literals by what was learnt, however little it was. */
void
ruleset_learnt(struct ruleset *rs)
{
	prefilter_learnt(&rs->pf);
}

/* Scan a block of whole lines for every literal (see prefilter_scan). */
void
ruleset_scan_block(struct ruleset *rs, const char *p, size_t n,
    struct pf_hits *h)
{
	if (!rs->finished)
		ruleset_finish(rs);
	prefilter_learn(&rs->pf, (const uint8_t *)p, n);
	prefilter_scan(&rs->pf, (const uint8_t *)p, n, h);
}

/* A match of p was cut short by a pcre2 limit: count it, and whose. */
static void
ruleset_limit_hit(struct ruleset *rs, const struct rl_pattern *p)
{
	size_t	 slot;

	rs->limit_hits++;
	if (p->owner == UINT32_MAX)
		return;
	slot = target_slot(rs, p->owner);
	if (slot < rs->nlimit_by)
		rs->limit_by[slot]++;
}

/* Run one pattern; a pcre2 limit counts as no match, and is counted. */
bool
ruleset_match_pattern(struct ruleset *rs, const struct rl_pattern *p,
    const char *s, size_t n, struct rl_match *m)
{
	PCRE2_SIZE	*ov;
	int		 rc, i;

	/*
	 * pcre2_jit_match skips pcre2_match's checks of its arguments, which
	 * cost more than a prefix pattern failing on a line's first bytes;
	 * the match limit and the JIT stack still apply.
	 */
	if (pattern_ready(p))
		rc = pcre2_jit_match(p->code, (PCRE2_SPTR)s, n, 0, 0, rs->md,
		    rs->mctx);
	else
		rc = pcre2_match(p->code, (PCRE2_SPTR)s, n, 0, 0, rs->md,
		    rs->mctx);
	if (rc < 0) {
		if (rc != PCRE2_ERROR_NOMATCH)
			ruleset_limit_hit(rs, p);
		return false;
	}
	if (m == NULL)
		return true;
	ov = pcre2_get_ovector_pointer(rs->md);
	m->pat = p;
	m->subject = s;
	/* rc is one more than the highest group set: the rest are unset. */
	m->ngroups = rc == 0 || rc > RL_MAXGROUPS ? RL_MAXGROUPS : rc;
	for (i = 0; i < 2 * m->ngroups; i++)
		m->ovec[i] = ov[i];
	return true;
}

/*
 * Would a pattern's answer on s[0, n) hold whatever followed it?  With
 * PCRE2_PARTIAL_HARD, a subject that could still become a match is
 * "partial": 1 is a match that more bytes could not change (its length in
 * *len), 0 no match whatever follows, -1 it depends on what follows.
 */
int
ruleset_match_partial(struct ruleset *rs, const struct rl_pattern *p,
    const char *s, size_t n, size_t *len)
{
	PCRE2_SIZE	*ov;
	int		 rc;

	/* Matched without JIT, but never while a thread compiles it. */
	(void)pattern_ready(p);
	rc = pcre2_match(p->code, (PCRE2_SPTR)s, n, 0, PCRE2_PARTIAL_HARD,
	    rs->md, rs->mctx);
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc < 0)
		return -1;
	ov = pcre2_get_ovector_pointer(rs->md);
	if (ov[0] != 0)
		return 0;	/* prefixes are anchored at the start */
	*len = ov[1];
	return 1;
}

/* Does this rule match the line (any of its patterns)? */
bool
ruleset_match_rule(struct ruleset *rs, const struct rl_rule *r, const char *s,
    size_t n, struct rl_match *m)
{
	size_t	i;

	for (i = 0; i < r->npat; i++) {
		if (ruleset_match_pattern(rs, &r->pat[i], s, n, m)) {
			if (m != NULL)
				m->rule = r;
			return true;
		}
	}
	return false;
}

/* Does rule a come before rule b: higher priority, then load order? */
static bool
cand_before(const struct ruleset *rs, uint32_t a, uint32_t b)
{
	const struct rl_rule	*x = rs->rules[a], *y = rs->rules[b];

	if (x->priority != y->priority)
		return x->priority > y->priority;
	return x->index < y->index;
}

/* Candidates are few (a handful per line): insertion sort is enough. */
static void
cand_sort(const struct ruleset *rs, uint32_t *v, size_t n)
{
	size_t		i, j;
	uint32_t	t;

	for (i = 1; i < n; i++) {
		t = v[i];
		for (j = i; j > 0 && cand_before(rs, t, v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

/*
 * The best rule for a line, of the candidates the last scan found: the
 * highest-priority one whose pattern matches.
 */
bool
ruleset_match_cands(struct ruleset *rs, const char *s, size_t n,
    struct rl_match *m)
{
	uint32_t	rules[64];
	size_t		nr = 0, i;

	for (i = 0; i < rs->ncand && nr < 64; i++) {
		if ((rs->cand[i] & TARGET_ATTRIB) == 0)
			rules[nr++] = rs->cand[i];
	}
	if (nr == 0)
		return false;
	cand_sort(rs, rules, nr);
	for (i = 0; i < nr; i++) {
		if (ruleset_match_rule(rs, rs->rules[rules[i]], s, n, m))
			return true;
	}
	return false;
}

/*
 * The best rule for a line: of the rules whose literal the line holds, the
 * highest-priority one whose pattern matches.
 */
bool
ruleset_match(struct ruleset *rs, const char *s, size_t n, struct rl_match *m)
{
	ruleset_scan_line(rs, s, n);
	return ruleset_match_cands(rs, s, n, m);
}

/*
 * Run the link and record attributions whose literal the last scanned line
 * held (ruleset_match must have scanned it) and report each match.
 */
void
ruleset_links(struct ruleset *rs, const char *s, size_t n,
    ruleset_attrib_cb cb, void *arg)
{
	struct rl_match		 m;
	const struct rl_attrib	*a;
	size_t			 i, j;

	for (i = 0; i < rs->ncand; i++) {
		if ((rs->cand[i] & TARGET_ATTRIB) == 0)
			continue;
		a = rs->attribs[rs->cand[i] & ~TARGET_ATTRIB];
		for (j = 0; j < a->npat; j++) {
			if (ruleset_match_pattern(rs, &a->pat[j], s, n, &m)) {
				m.rule = NULL;
				cb(arg, a, &m);
				break;
			}
		}
	}
}

/* match_int (model.h) knows pcre2's unset offset as SIZE_MAX. */
_Static_assert(PCRE2_UNSET == SIZE_MAX, "an unset group's offset");

/* Linux's signals, where the jobs ran: name, strsignal's words, number. */
static const struct {
	const char	*name;
	const char	*text;
	int		 number;
} signals[] = {
	{ "SIGHUP", "Hangup", 1 },
	{ "SIGINT", "Interrupt", 2 },
	{ "SIGQUIT", "Quit", 3 },
	{ "SIGILL", "Illegal instruction", 4 },
	{ "SIGTRAP", "Trace/breakpoint trap", 5 },
	{ "SIGABRT", "Aborted", 6 },
	{ "SIGBUS", "Bus error", 7 },
	{ "SIGFPE", "Floating point exception", 8 },
	{ "SIGKILL", "Killed", 9 },
	{ "SIGUSR1", "User defined signal 1", 10 },
	{ "SIGSEGV", "Segmentation fault", 11 },
	{ "SIGUSR2", "User defined signal 2", 12 },
	{ "SIGPIPE", "Broken pipe", 13 },
	{ "SIGALRM", "Alarm clock", 14 },
	{ "SIGTERM", "Terminated", 15 },
	{ "SIGXCPU", "CPU time limit exceeded", 24 },
	{ "SIGXFSZ", "File size limit exceeded", 25 },
};

/*
 * A signal as logs name it, by its number on Linux (not on the machine
 * reading the logs): SIGKILL or KILL (torchelastic, Python's
 * Signals.SIGKILL, vLLM), or strsignal's text (srun's "task 3: Killed",
 * Slurm's "DUE to SIGNAL Terminated").  A capture named `signal` is read
 * as a number, which the diagnosis weighs a death by; RL_CAP_UNSET for a
 * name it does not know.
 */
int64_t
signal_number(const char *s, size_t n)
{
	const char	*name;
	size_t		 i;

	for (i = 0; i < sizeof signals / sizeof signals[0]; i++) {
		name = signals[i].name;
		if (n < 3 || memcmp(s, "SIG", 3) != 0)
			name += 3;
		if ((n == strlen(name) && memcmp(s, name, n) == 0) ||
		    (n == strlen(signals[i].text) &&
		    memcmp(s, signals[i].text, n) == 0))
			return signals[i].number;
	}
	return RL_CAP_UNSET;
}

/* A signal's name by its number (SIGSEGV), or NULL. */
const char *
signal_name(int64_t number)
{
	size_t	i;

	for (i = 0; i < sizeof signals / sizeof signals[0]; i++) {
		if (signals[i].number == number)
			return signals[i].name;
	}
	return NULL;
}

/* A known capture as text (the caller frees it), or NULL. */
char *
match_str(const struct rl_match *m, enum rl_cap c)
{
	int	g = m->pat->cap[c];

	if (g == 0 || g >= m->ngroups || m->ovec[2 * g] == PCRE2_UNSET)
		return NULL;
	return xstrndup(m->subject + m->ovec[2 * g],
	    m->ovec[2 * g + 1] - m->ovec[2 * g]);
}

/* What loading warned of (an id twice in one pack): the ruleset's. */
const struct errlist *
ruleset_warnings(const struct ruleset *rs)
{
	return &rs->warns;
}

uint64_t
ruleset_limit_hits(const struct ruleset *rs)
{
	return rs->limit_hits;
}

/* Matches of rule i cut short by a pcre2 limit. */
uint64_t
ruleset_rule_limit_hits(const struct ruleset *rs, size_t i)
{
	return i < rs->nrules && i < rs->nlimit_by ? rs->limit_by[i] : 0;
}

/* Matches of attribution i cut short by a pcre2 limit. */
uint64_t
ruleset_attrib_limit_hits(const struct ruleset *rs, size_t i)
{
	size_t	 slot = rs->nrules + i;

	return i < rs->nattribs && slot < rs->nlimit_by ? rs->limit_by[slot] :
	    0;
}

/*
 * One sentence per rule or attribution whose matches hit a pcre2 limit,
 * for every report to say the same words: "12 lines hit rule x.y's match
 * limit (pack.rules:4): what it would match there is not seen".  The
 * strings and the vector are the caller's; returns how many.
 */
size_t
ruleset_limit_notes(const struct ruleset *rs, char ***out)
{
	const char	*kind, *id, *file;
	unsigned	 line;
	uint64_t	 h;
	size_t		 i, k, n = 0;

	*out = NULL;
	for (i = 0; rs != NULL && i < rs->nrules + rs->nattribs; i++) {
		if (i < rs->nrules) {
			h = ruleset_rule_limit_hits(rs, i);
			kind = "rule";
			id = rs->rules[i]->id;
			file = rs->rules[i]->file;
			line = rs->rules[i]->line;
		} else {
			k = i - rs->nrules;
			h = ruleset_attrib_limit_hits(rs, k);
			kind = "attribution";
			id = rs->attribs[k]->id;
			file = rs->attribs[k]->file;
			line = rs->attribs[k]->line;
		}
		if (h == 0)
			continue;
		*out = xreallocarray(*out, n + 1, sizeof **out);
		xasprintf(&(*out)[n++], "%llu line%s hit %s %s's match limit "
		    "(%s:%u): what it would match there is not seen",
		    (unsigned long long)h, h == 1 ? "" : "s", kind, id, file,
		    line);
	}
	return n;
}

size_t ruleset_nrules(const struct ruleset *rs) { return rs->nrules; }
const struct rl_rule *ruleset_rule(const struct ruleset *rs, size_t i) { return rs->rules[i]; }
size_t ruleset_nattribs(const struct ruleset *rs) { return rs->nattribs; }
const struct rl_attrib *ruleset_attrib(const struct ruleset *rs, size_t i) { return rs->attribs[i]; }
size_t ruleset_nknobs(const struct ruleset *rs) { return rs->nknobs; }
const struct rl_knob *ruleset_knob_at(const struct ruleset *rs, size_t i) { return rs->knobs[i]; }

const struct rl_rule *
ruleset_find(const struct ruleset *rs, const char *id)
{
	size_t	i;

	for (i = 0; i < rs->nrules; i++) {
		if (strcmp(rs->rules[i]->id, id) == 0)
			return rs->rules[i];
	}
	return NULL;
}

const struct rl_knob *
ruleset_knob(const struct ruleset *rs, const char *name)
{
	size_t	i;

	for (i = 0; i < rs->nknobs; i++) {
		if (strcmp(rs->knobs[i]->name, name) == 0)
			return rs->knobs[i];
	}
	return NULL;
}
