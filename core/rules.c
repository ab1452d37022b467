/*
 * rules.c: the ruleset and its patterns, compiled; rules-match.c matches.
 *
 * Patterns are PCRE2, compiled once, for bytes (no UTF, no UCP: a log line
 * is not promised to be valid UTF-8, and Unicode semantics cost two orders
 * of magnitude), with JIT where the platform has it.  Every match runs under
 * a match limit, a depth limit and a bounded JIT stack, so a user's
 * catastrophic pattern can cost a line its match but never hang the
 * console.  Lines reach the regexes only when the prefilter found one of the
 * rule's literals in them.
 */
#include <ctype.h>
#include <stdio.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

static void	ruleset_free_dlit(struct ruleset *);

#define MATCH_LIMIT	200000		/* backtracking steps per match */
#define DEPTH_LIMIT	2000		/* nested backtracking frames */
#define JIT_STACK_MAX	(512 * 1024)

static const char *role_names[ROLE_NROLES] = {
	"none", "root", "symptom", "collateral", "wrapper", "progress",
	"evidence", "hang"
};
static const char *domain_names[DOMAIN_NDOMAINS] = {
	"none", "code", "config", "infrastructure", "hardware", "framework",
	"unknown"
};
static const char *group_names[GROUP_NGROUPS] = {
	NULL, "capacity", "worker-death", "communication", "kernel", "other"
};
static const char *severity_names[] = { "info", "warning", "error", "fatal" };
static const char *mark_names[MARK_NMARKS] = {
	"none", "step", "ckpt-begin", "ckpt-end", "ready", "shutdown", "exit",
	"record", "alive"
};
static const char *cap_names[CAP_NCAPS] = {
	"rank", "local_rank", "host", "pid", "step", "seq", "exitcode",
	"signal", "timeout_ms", "xid", "pci", "count", "total", "dead_rank"
};

const char *role_name(enum rl_role r) { return r < ROLE_NROLES ? role_names[r] : "?"; }
const char *domain_name(enum rl_domain d) { return d < DOMAIN_NDOMAINS ? domain_names[d] : "?"; }
const char *group_name(enum rl_group g) { return g < GROUP_NGROUPS ? group_names[g] : NULL; }
const char *severity_name(enum rl_severity s) { return s <= SEV_FATAL ? severity_names[s] : "?"; }
const char *mark_name(enum rl_mark m) { return m < MARK_NMARKS ? mark_names[m] : "?"; }
const char *cap_name(enum rl_cap c) { return c < CAP_NCAPS ? cap_names[c] : "?"; }

/*
 * The checklist items as packs name them (checklist = gpu, driver): the
 * parser checks a pack against these, and the diagnosis keys its checklist
 * by them (diag-advice.c holds what each item is and how to get it).
 */
static const char *check_keys[CHECK_NITEMS] = {
	[CHECK_VERSIONS] = "versions", [CHECK_GPU] = "gpu",
	[CHECK_DRIVER] = "driver", [CHECK_ARGS] = "args",
	[CHECK_MODEL] = "model", [CHECK_MEMORY] = "memory",
	[CHECK_KERNEL] = "kernel", [CHECK_TRACEBACK] = "traceback",
};

const char *
check_key(enum rl_check c)
{
	return c < CHECK_NITEMS ? check_keys[c] : "?";
}

/* The item a checklist key names, or -1. */
int
check_lookup(const char *key)
{
	int	i;

	for (i = 0; i < CHECK_NITEMS; i++) {
		if (strcmp(check_keys[i], key) == 0)
			return i;
	}
	return -1;
}

/*
 * The bytes a match can start with, as pcre2 worked them out, so that a
 * prefix pattern is not even called on a line that cannot begin with it.
 * Unknown means any byte.
 */
static void
pattern_first(struct rl_pattern *p)
{
	uint32_t	 type = 0, unit = 0;
	const uint8_t	*bm = NULL;

	memset(p->first, 0xff, sizeof p->first);
	if (pcre2_pattern_info(p->code, PCRE2_INFO_FIRSTCODETYPE, &type) != 0)
		return;
	if (type == 1 &&
	    pcre2_pattern_info(p->code, PCRE2_INFO_FIRSTCODEUNIT, &unit) == 0 &&
	    unit < 256) {
		memset(p->first, 0, sizeof p->first);
		p->first[unit >> 3] |= (uint8_t)(1u << (unit & 7));
		/* A caseless pattern may start with the other case too. */
		unit = (uint32_t)(isupper((int)unit) ? tolower((int)unit) :
		    toupper((int)unit));
		p->first[unit >> 3] |= (uint8_t)(1u << (unit & 7));
		return;
	}
	if (pcre2_pattern_info(p->code, PCRE2_INFO_FIRSTBITMAP, &bm) == 0 &&
	    bm != NULL)
		memcpy(p->first, bm, sizeof p->first);
}

/* Compile one pattern; on error *cause names pcre2's message and offset. */
/*
 * Keep the pattern's group names as a list: the diagnosis asks a rule
 * whether it captures a name once per event (rule_has_capture), and pcre2
 * would search its name table each time.
 */
static void
pattern_names(struct rl_pattern *p)
{
	PCRE2_SPTR	 table;
	uint32_t	 count = 0, size = 0, i;
	struct buf	 b = { 0 };

	pcre2_pattern_info(p->code, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(p->code, PCRE2_INFO_NAMEENTRYSIZE, &size);
	pcre2_pattern_info(p->code, PCRE2_INFO_NAMETABLE, &table);
	/* Each entry: the group number in two bytes, then the name. */
	for (i = 0; i < count; i++) {
		buf_adds(&b, (const char *)table + (size_t)i * size + 2);
		buf_addc(&b, '\0');
		p->name_bits |= capture_name_bits((const char *)table +
		    (size_t)i * size + 2);
	}
	buf_addc(&b, '\0');
	p->names = buf_steal(&b);
}

/*
 * Could the pattern match a tail of a subject where it matches nowhere in
 * the whole?  Only through what looks at the subject's start or before a
 * position: ^ (looked for in the source, where [^ counts too), \G, and
 * what pcre2 counts as a lookbehind (\A, \b, \B and the assertions).
 */
static bool
pattern_anywhere(const struct rl_pattern *p)
{
	uint32_t	behind = 1, opts = PCRE2_ANCHORED, first = 2;

	pcre2_pattern_info(p->code, PCRE2_INFO_MAXLOOKBEHIND, &behind);
	pcre2_pattern_info(p->code, PCRE2_INFO_ALLOPTIONS, &opts);
	pcre2_pattern_info(p->code, PCRE2_INFO_FIRSTCODETYPE, &first);
	return behind == 0 && !(opts & PCRE2_ANCHORED) && first != 2 &&
	    strchr(p->source, '^') == NULL && strstr(p->source, "\\G") == NULL;
}

/*
 * JIT-compile a pattern the first time it is run, not when its pack is
 * loaded: a run meets a few dozen of the packs' hundreds of patterns, and
 * compiling them all was most of the start-up, before any file is read.
 * Workers may meet a pattern at once.  pcre2 must not compile a pattern
 * while another thread matches it, so every match asks here first: one
 * thread compiles under the lock, and the state it publishes (release,
 * read with acquire) says to the rest that the code is final.  Returns
 * whether pcre2_jit_match may run the pattern.
 */
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;

bool
pattern_ready(const struct rl_pattern *p)
{
	/* Patterns are made on the heap, never const: the state may change. */
	struct rl_pattern	*w = (struct rl_pattern *)(uintptr_t)p;
	uint8_t			 st;

	if ((st = __atomic_load_n(&p->jit, __ATOMIC_ACQUIRE)) != JIT_NOT_YET)
		return st == JIT_READY;
	pthread_mutex_lock(&jit_lock);
	if ((st = __atomic_load_n(&p->jit, __ATOMIC_RELAXED)) == JIT_NOT_YET) {
		st = pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE) == 0 ?
		    JIT_READY : JIT_NONE;
		__atomic_store_n(&w->jit, st, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&jit_lock);
	return st == JIT_READY;
}

int
pattern_compile(struct rl_pattern *p, const char *src, char **cause)
{
	pcre2_code	*code;
	PCRE2_UCHAR	 msg[256];
	PCRE2_SIZE	 off;
	int		 err, i, n;

	memset(p, 0, sizeof *p);
	p->owner = UINT32_MAX;
	code = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED,
	    PCRE2_NEVER_UTF | PCRE2_NEVER_UCP, &err, &off, NULL);
	if (code == NULL) {
		pcre2_get_error_message(err, msg, sizeof msg);
		xasprintf(cause, "pattern error at offset %zu: %s", (size_t)off,
		    (char *)msg);
		return -1;
	}
	p->jit = getenv("RANKLINE_NO_JIT") == NULL ? JIT_NOT_YET : JIT_NONE;
	p->code = code;
	p->source = xstrdup(src);
	pattern_first(p);
	pattern_names(p);
	p->anywhere = pattern_anywhere(p);
	for (i = 0; i < CAP_NCAPS; i++) {
		n = pcre2_substring_number_from_name(code,
		    (PCRE2_SPTR)cap_names[i]);
		p->cap[i] = n > 0 && n < RL_MAXGROUPS ? n : 0;
		if (p->cap[i] != 0 && i != CAP_HOST && i != CAP_PCI)
			p->capv[p->ncapv++] = (uint8_t)i;
	}
	return 0;
}

void
pattern_clear(struct rl_pattern *p)
{
	pcre2_code_free(p->code);
	free(p->source);
	free(p->names);
	memset(p, 0, sizeof *p);
}

void
rule_free(struct rl_rule *r)
{
	size_t	i;

	for (i = 0; i < r->npat; i++)
		pattern_clear(&r->pat[i]);
	free(r->pat);
	strv_free(r->literal, r->nliteral);
	strv_free(r->example, r->nexample);
	strv_free(r->counter, r->ncounter);
	free(r->id);
	free(r->file);
	free(r->only_after);
	free(r->not_after);
	free(r->not_within);
	free(r->title);
	free(r->explain);
	free(r->action);
	free(r->probe);
	free(r->knobs);
	free(r);
}

void
attrib_free(struct rl_attrib *a)
{
	size_t	i;

	for (i = 0; i < a->npat; i++)
		pattern_clear(&a->pat[i]);
	free(a->pat);
	pattern_clear(&a->end);
	strv_free(a->literal, a->nliteral);
	strv_free(a->example, a->nexample);
	strv_free(a->counter, a->ncounter);
	free(a->id);
	free(a->file);
	free(a);
}

struct ruleset *
ruleset_create(void)
{
	struct ruleset	*rs;

	rs = xcalloc(1, sizeof *rs);
	rs->md = pcre2_match_data_create(RL_MAXGROUPS, NULL);
	rs->mctx = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(rs->mctx, MATCH_LIMIT);
	pcre2_set_depth_limit(rs->mctx, DEPTH_LIMIT);
	rs->jit = pcre2_jit_stack_create(32 * 1024, JIT_STACK_MAX, NULL);
	if (rs->md == NULL || rs->mctx == NULL)
		fatal("out of memory for pcre2");
	if (rs->jit != NULL)
		pcre2_jit_stack_assign(rs->mctx, NULL, rs->jit);
	return rs;
}

/*
 * A ruleset for another thread: the rules, attributions, knobs and the
 * prefilter are shared (matching only reads them), and the scratch of a
 * match (match data, JIT stack, candidates, the peel memo) is its own.
 * The parent is finished first and outlives its clones.
 */
struct ruleset *
ruleset_clone(struct ruleset *parent)
{
	struct ruleset	*rs;

	if (!parent->finished)
		ruleset_finish(parent);
	rs = ruleset_create();
	rs->rules = parent->rules;
	rs->nrules = parent->nrules;
	rs->attribs = parent->attribs;
	rs->nattribs = parent->nattribs;
	rs->knobs = parent->knobs;
	rs->nknobs = parent->nknobs;
	rs->packs = parent->packs;
	rs->npacks = parent->npacks;
	rs->always = parent->always;
	rs->nalways = parent->nalways;
	rs->pf = parent->pf;
	/* The anchors are the parent's: a clone learns nothing. */
	rs->pf.seen = NULL;
	rs->pf.learnt = SIZE_MAX;
	rs->stamp = xcalloc(rs->nrules + rs->nattribs + 1, sizeof *rs->stamp);
	rs->cand = rs->cand_buf = xcalloc(rs->nrules + rs->nattribs + 1,
	    sizeof *rs->cand_buf);
	rs->nlimit_by = parent->nlimit_by;
	rs->limit_by = xcalloc(rs->nlimit_by, sizeof *rs->limit_by);
	if (parent->memo != NULL)
		rs->memo = xcalloc(PEEL_MEMO_SLOTS, sizeof *rs->memo);
	rs->dlit = parent->dlit;
	rs->ndlit = parent->ndlit;
	if (parent->shapes != NULL)
		shape_init(rs);
	rs->borrowed = true;
	rs->finished = true;
	return rs;
}

/* A clone's counts of limit hits, added to its parent's. */
void
ruleset_absorb(struct ruleset *parent, const struct ruleset *clone)
{
	size_t	 i;

	parent->limit_hits += clone->limit_hits;
	for (i = 0; i < clone->nlimit_by && i < parent->nlimit_by; i++)
		parent->limit_by[i] += clone->limit_by[i];
}

void
ruleset_free(struct ruleset *rs)
{
	size_t	i;

	if (rs == NULL)
		return;
	errlist_clear(&rs->warns);
	if (rs->borrowed)
		goto scratch;
	for (i = 0; i < rs->nrules; i++)
		rule_free(rs->rules[i]);
	free(rs->rules);
	for (i = 0; i < rs->nattribs; i++)
		attrib_free(rs->attribs[i]);
	free(rs->attribs);
	for (i = 0; i < rs->nknobs; i++) {
		free(rs->knobs[i]->name);
		free(rs->knobs[i]->what);
		free(rs->knobs[i]->helps);
		free(rs->knobs[i]->cost);
		free(rs->knobs[i]);
	}
	free(rs->knobs);
	for (i = 0; i < rs->npacks; i++) {
		free(rs->packs[i].name);
		free(rs->packs[i].path);
	}
	free(rs->packs);
	free(rs->always);
	prefilter_clear(&rs->pf);
	ruleset_free_dlit(rs);
scratch:
	free(rs->limit_by);
	shape_free(rs);
	free(rs->stamp);
	free(rs->cand_buf);
	pf_hits_clear(&rs->line_hits);
	pf_hits_clear(&rs->block_hits);
	free(rs->memo);
	free(rs->peel_raw);
	pcre2_match_data_free(rs->md);
	pcre2_match_context_free(rs->mctx);
	pcre2_jit_stack_free(rs->jit);
	free(rs);
}

/* Load a pack from memory; returns the number of errors. */
int
ruleset_load(struct ruleset *rs, const char *name, const char *data,
    size_t len, struct errlist *errs)
{
	struct rl_pack	*p;
	const char	*base = strrchr(name, '/');
	char		 full[24];
	size_t		 n;

	rs->packs = array_grow(rs->packs, rs->npacks + 1, &rs->packs_cap,
	    sizeof *rs->packs);
	p = &rs->packs[rs->npacks++];
	base = base != NULL ? base + 1 : name;
	n = strlen(base);
	if (n > 6 && strcmp(base + n - 6, ".rules") == 0)
		n -= 6;
	p->name = xstrndup(base, n);
	p->path = xstrdup(name);
	snprintf(full, sizeof full, "%016llx", (unsigned long long)
	    hash_bytes(HASH_FNV_OFFSET, data, len));
	memcpy(p->hash, full, sizeof p->hash - 1);
	p->hash[sizeof p->hash - 1] = '\0';
	rs->finished = false;
	return rules_parse(rs, name, data, len, errs);
}

/* The packs loaded, in load order (a clone's are its parent's). */
size_t
ruleset_packs(const struct ruleset *rs, const struct rl_pack **v)
{
	*v = rs->packs;
	return rs->npacks;
}

/*
 * Tell each pattern whose it is, and size the per-target limit counts;
 * counts already made are kept (a pack loaded later adds targets at the
 * end or replaces one in place).
 */
static void
ruleset_owners(struct ruleset *rs)
{
	size_t			 i, j, n = rs->nrules + rs->nattribs;
	struct rl_attrib	*a;

	for (i = 0; i < rs->nrules; i++) {
		for (j = 0; j < rs->rules[i]->npat; j++)
			rs->rules[i]->pat[j].owner = (uint32_t)i;
	}
	for (i = 0; i < rs->nattribs; i++) {
		a = rs->attribs[i];
		for (j = 0; j < a->npat; j++)
			a->pat[j].owner = (uint32_t)i | TARGET_ATTRIB;
		a->end.owner = (uint32_t)i | TARGET_ATTRIB;
	}
	if (n != rs->nlimit_by) {
		rs->limit_by = xreallocarray(rs->limit_by, n + 1,
		    sizeof *rs->limit_by);
		for (i = rs->nlimit_by; i < n; i++)
			rs->limit_by[i] = 0;
		rs->nlimit_by = n;
	}
}

/*
 * Collect the plain-text runs of a pattern outside any group, class or
 * alternation, longest first; the longest is the literal a line must hold.
 * A top-level '|' or a leading (?i) means no literal can be promised.
 */
size_t
pattern_literals(const char *p, char ***out)
{
	struct buf	 run = { 0 };
	char		*best = NULL;
	int		 depth = 0;
	size_t		 i;

	*out = NULL;
	if (strncmp(p, "(?i", 3) == 0)
		return 0;
	for (i = 0; p[i] != '\0'; i++) {
		char	c = p[i];

		if (depth == 0 && c == '|') {
			free(best);
			buf_clear(&run);
			return 0;
		}
		if (c == '\\' && p[i + 1] != '\0') {
			char	d = p[++i];

			if (depth == 0 && strchr(".^$|()[]{}*+?\\/-:#=<>'\" ", d) != NULL &&
			    d != '\0') {
				buf_addc(&run, d);
				continue;
			}
			if (d == 'x' || d == 'p' || d == 'P' || d == 'N')
				goto cut;	/* multi-byte escapes: stop the run */
			goto cut;
		}
		if (c == '(') {
			depth++;
			goto cut;
		}
		if (c == ')') {
			if (depth > 0)
				depth--;
			goto cut;
		}
		if (c == '[') {
			for (i++; p[i] != '\0' && p[i] != ']'; i++) {
				if (p[i] == '\\' && p[i + 1] != '\0')
					i++;
			}
			if (p[i] == '\0')
				break;
			goto cut;
		}
		if (depth > 0)
			continue;
		if (c == '?' || c == '*' || c == '{') {
			/* The byte before is optional: it leaves the run. */
			if (run.len > 0)
				run.len--;
			if (c == '{') {
				while (p[i] != '\0' && p[i] != '}')
					i++;
				if (p[i] == '\0')
					break;
			}
			goto cut;
		}
		if (c == '+' || c == '.' || c == '^' || c == '$')
			goto cut;
		buf_addc(&run, c);
		continue;
cut:
		if (run.len > 0 && (best == NULL || run.len > strlen(best))) {
			free(best);
			best = xstrndup(run.p, run.len);
		}
		buf_reset(&run);
	}
	if (run.len > 0 && (best == NULL || run.len > strlen(best))) {
		free(best);
		best = xstrndup(run.p, run.len);
	}
	buf_clear(&run);
	if (best == NULL)
		return 0;
	if (strlen(best) < 3) {
		free(best);
		return 0;
	}
	*out = xmalloc(sizeof **out);
	(*out)[0] = best;
	return 1;
}

/* Add a target's literals to the prefilter's input, or mark it always-on. */
static void
ruleset_collect(struct ruleset *rs, uint32_t target, char **lit, size_t nlit,
    char ***all, uint32_t **tg, size_t *n)
{
	size_t	i;

	if (nlit == 0) {
		rs->always = xreallocarray(rs->always, rs->nalways + 1,
		    sizeof *rs->always);
		rs->always[rs->nalways++] = target;
		return;
	}
	for (i = 0; i < nlit; i++) {
		*all = xreallocarray(*all, *n + 1, sizeof **all);
		*tg = xreallocarray(*tg, *n + 1, sizeof **tg);
		(*all)[*n] = lit[i];
		(*tg)[*n] = target;
		(*n)++;
	}
}

/*
 * Does a pattern treat every digit alike?  Then lines that differ only in
 * their digits peel alike, and the peel memo may key on lines with their
 * digits masked.  A digit written out (outside a quantifier's braces and
 * the class 0-9), a back reference or a hex escape says no.
 */
bool
pattern_digit_blind(const char *p)
{
	size_t	i;
	bool	cls = false;

	for (i = 0; p[i] != '\0'; i++) {
		if (p[i] == '\\') {
			if (p[i + 1] == '\0')
				return true;
			if ((p[i + 1] >= '0' && p[i + 1] <= '9') ||
			    p[i + 1] == 'x' || p[i + 1] == 'o' || p[i + 1] == 'g')
				return false;
			i++;
			continue;
		}
		if (cls) {
			if (p[i] == ']')
				cls = false;
			else if (strncmp(p + i, "0-9", 3) == 0)
				i += 2;
			else if (p[i] >= '0' && p[i] <= '9')
				return false;
			continue;
		}
		if (p[i] == '[')
			cls = true;
		else if (p[i] == '{') {
			while (p[i] != '\0' && p[i] != '}')
				i++;
			if (p[i] == '\0')
				return true;
		} else if (p[i] >= '0' && p[i] <= '9')
			return false;
	}
	return true;
}

/* Free the literals that hold a digit. */
static void
ruleset_free_dlit(struct ruleset *rs)
{
	strv_free(rs->dlit, rs->ndlit);
	rs->dlit = NULL;
	rs->ndlit = 0;
}

/* The peel memo, when every prefix pattern treats digits alike. */
static void
ruleset_memo(struct ruleset *rs)
{
	const struct rl_attrib	*a;
	size_t			 i, j;

	free(rs->memo);
	rs->memo = NULL;
	free(rs->peel_raw);
	rs->peel_raw = NULL;
	if (rs->nattribs > UINT16_MAX)
		return;
	for (i = 0; i < rs->nattribs; i++) {
		a = rs->attribs[i];
		if (a->kind != ATTRIB_PREFIX)
			continue;
		if (a->npat > UINT8_MAX)
			return;
		for (j = 0; j < a->npat; j++) {
			if (!pattern_digit_blind(a->pat[j].source))
				return;
		}
	}
	rs->memo = xcalloc(PEEL_MEMO_SLOTS, sizeof *rs->memo);
}

/*
 * A context key's mark or rule id, as ingestion looks it up on every
 * matched line: -1 - mark for a mark, the rule's index, or RL_REF_NONE.
 */
static int
ruleset_ref(const struct ruleset *rs, const char *what)
{
	const struct rl_rule	*r;
	int			 i;

	if (what == NULL)
		return RL_REF_NONE;
	for (i = 1; i < MARK_NMARKS; i++) {
		if (strcmp(mark_name(i), what) == 0)
			return -1 - i;
	}
	r = ruleset_find(rs, what);
	return r != NULL ? (int)r->index : RL_REF_NONE;
}

/*
 * Build the prefilter over every rule and every link or record attribution
 * (prefix and path attributions run on their own, anchored).  Called once
 * all packs are loaded.
 */
void
ruleset_finish(struct ruleset *rs)
{
	char		**all = NULL;
	uint32_t	 *tg = NULL;
	size_t		  n = 0, i, j;
	int		  c;
	struct rl_attrib *a;

	free(rs->always);
	rs->always = NULL;
	rs->nalways = 0;
	for (i = 0; i < rs->nrules; i++) {
		rs->rules[i]->index = (unsigned)i;
		ruleset_collect(rs, (uint32_t)i, rs->rules[i]->literal,
		    rs->rules[i]->nliteral, &all, &tg, &n);
	}
	for (i = 0; i < rs->nrules; i++) {
		struct rl_rule	*r = rs->rules[i];

		r->only_after_ref = ruleset_ref(rs, r->only_after);
		r->not_after_ref = ruleset_ref(rs, r->not_after);
		r->not_within_ref = ruleset_ref(rs, r->not_within);
	}
	for (i = 0; i < rs->nattribs; i++) {
		a = rs->attribs[i];
		a->caps = 0;
		for (j = 0; j < a->npat; j++) {
			for (c = 0; c < CAP_NCAPS; c++) {
				if (a->pat[j].cap[c] != 0)
					a->caps |= 1u << c;
			}
		}
		if (a->kind != ATTRIB_LINK && a->kind != ATTRIB_RECORD)
			continue;
		ruleset_collect(rs, (uint32_t)i | TARGET_ATTRIB, a->literal,
		    a->nliteral, &all, &tg, &n);
	}
	ruleset_free_dlit(rs);
	for (i = 0; i < n; i++) {
		if (strpbrk(all[i], "0123456789") == NULL)
			continue;
		rs->dlit = xreallocarray(rs->dlit, rs->ndlit + 1,
		    sizeof *rs->dlit);
		rs->dlit[rs->ndlit] = xstrdup(all[i]);
		digits_mask(all[i], strlen(all[i]),
		    (uint8_t *)rs->dlit[rs->ndlit++]);
	}
	for (i = 0; i < rs->nrules; i++) {
		rs->rules[i]->blind = true;
		for (j = 0; j < rs->rules[i]->npat; j++) {
			if (!pattern_digit_blind(rs->rules[i]->pat[j].source))
				rs->rules[i]->blind = false;
		}
	}
	/* A colour code may split a literal: such lines are read one by one. */
	all = xreallocarray(all, n + 1, sizeof *all);
	tg = xreallocarray(tg, n + 1, sizeof *tg);
	all[n] = (char *)"\033";
	tg[n++] = TARGET_ESC;
	prefilter_build(&rs->pf, all, tg, n);
	free(all);
	free(tg);
	free(rs->stamp);
	rs->stamp = xcalloc(rs->nrules + rs->nattribs + 1, sizeof *rs->stamp);
	free(rs->cand_buf);
	rs->cand = rs->cand_buf = xcalloc(rs->nrules + rs->nattribs + 1,
	    sizeof *rs->cand_buf);
	rs->gen = 0;
	ruleset_owners(rs);
	ruleset_memo(rs);
	shape_init(rs);
	rs->finished = true;
}

