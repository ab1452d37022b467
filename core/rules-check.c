/*
 * rules-check.c: `rankline rules check` and `rankline rules test`.
 *
 * check: every pack parses (errors are gathered while loading) and every
 * rule can use the prefilter; a rule without a literal is tried on every
 * line, and Unicode constructs make every match slow, so both are warned.
 * test: every example matches its rule through the same path a log line
 * takes (prefilter, then pattern) and no counter matches it.
 */
#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

/* Is rule r among the prefilter's candidates for line s? */
static bool
rule_candidate(struct ruleset *rs, const struct rl_rule *r, const char *s)
{
	struct rl_match	m;
	size_t		i;

	(void)ruleset_match(rs, s, strlen(s), &m);
	for (i = 0; i < rs->ncand; i++) {
		if (rs->cand[i] == r->index)
			return true;
	}
	return false;
}

/* Is attribution a matched by line s (anchored for prefixes)? */
static bool
attrib_matches(struct ruleset *rs, const struct rl_attrib *a, const char *s)
{
	struct rl_match	m;
	size_t		i;

	for (i = 0; i < a->npat; i++) {
		if (ruleset_match_pattern(rs, &a->pat[i], s, strlen(s), &m) &&
		    (a->kind != ATTRIB_PREFIX || m.ovec[0] == 0))
			return true;
	}
	return false;
}

/*
 * Run every example and counter.  Returns the number of failures, each
 * described in errs with the pack's file:line; *checks counts what ran.
 */
int
ruleset_test(struct ruleset *rs, struct errlist *errs, unsigned *checks)
{
	const struct rl_rule	*r;
	const struct rl_attrib	*a;
	size_t			 i, k;
	int			 bad = 0;

	if (!rs->finished)
		ruleset_finish(rs);
	for (i = 0; i < rs->nrules; i++) {
		r = rs->rules[i];
		for (k = 0; k < r->nexample; k++, (*checks)++) {
			if (!ruleset_match_rule(rs, r, r->example[k],
			    strlen(r->example[k]), NULL)) {
				errlist_add(errs, "%s:%u: rule %s: example does "
				    "not match: %s", r->file, r->line, r->id,
				    r->example[k]);
				bad++;
			} else if (!rule_candidate(rs, r, r->example[k])) {
				errlist_add(errs, "%s:%u: rule %s: example "
				    "holds none of the rule's literals: %s",
				    r->file, r->line, r->id, r->example[k]);
				bad++;
			}
		}
		for (k = 0; k < r->ncounter; k++, (*checks)++) {
			if (ruleset_match_rule(rs, r, r->counter[k],
			    strlen(r->counter[k]), NULL)) {
				errlist_add(errs, "%s:%u: rule %s: counter "
				    "matches: %s", r->file, r->line, r->id,
				    r->counter[k]);
				bad++;
			}
		}
	}
	for (i = 0; i < rs->nattribs; i++) {
		a = rs->attribs[i];
		for (k = 0; k < a->nexample; k++, (*checks)++) {
			if (!attrib_matches(rs, a, a->example[k])) {
				errlist_add(errs, "%s:%u: attrib %s: example "
				    "does not match: %s", a->file, a->line,
				    a->id, a->example[k]);
				bad++;
			}
		}
		for (k = 0; k < a->ncounter; k++, (*checks)++) {
			if (attrib_matches(rs, a, a->counter[k])) {
				errlist_add(errs, "%s:%u: attrib %s: counter "
				    "matches: %s", a->file, a->line, a->id,
				    a->counter[k]);
				bad++;
			}
		}
	}
	return bad;
}

/* Does a pattern ask for Unicode semantics? */
static bool
pattern_unicode(const char *p)
{
	return strstr(p, "(*UTF") != NULL || strstr(p, "(*UCP") != NULL ||
	    strstr(p, "\\p{") != NULL || strstr(p, "\\P{") != NULL ||
	    strstr(p, "\\X") != NULL;
}

/*
 * Warn of a pattern prone to catastrophic backtracking, naming the group;
 * returns 1 if it is, else 0.
 */
static int
check_backtrack(struct errlist *warns, const char *file, unsigned line,
    const char *kind, const char *id, const char *src)
{
	size_t	 at, len;

	if (!pattern_backtracks(src, &at, &len))
		return 0;
	errlist_add(warns, "%s:%u: %s %s repeats a group that can match the "
	    "same text in more than one way, %.*s, which backtracks without "
	    "end on a line that almost matches (pcre2's match limit then "
	    "gives the line up): make the inner repeat possessive (a++) or "
	    "the group atomic ((?>...)): %s", file, line, kind, id, (int)len,
	    src + at, src);
	return 1;
}

/*
 * Warnings: loading's (an id twice in one pack), patterns prone to
 * catastrophic backtracking (rules-backtrack.c), then about speed: rules
 * the prefilter cannot skip, patterns that want Unicode, and prefixes that
 * turn the peel memo off.  Returns the number of warnings.
 */
int
ruleset_check(const struct ruleset *rs, struct errlist *warns)
{
	const struct rl_rule	*r;
	size_t			 i, k;
	int			 n = 0;

	for (i = 0; i < rs->warns.n; i++, n++)
		errlist_add(warns, "%s", rs->warns.v[i]);
	for (i = 0; i < rs->nrules; i++) {
		r = rs->rules[i];
		if (r->nliteral == 0) {
			errlist_add(warns, "%s:%u: rule %s has no literal: it "
			    "runs on every line (declare 'literal =')", r->file,
			    r->line, r->id);
			n++;
		}
		for (k = 0; k < r->npat; k++) {
			n += check_backtrack(warns, r->file, r->line, "rule",
			    r->id, r->pat[k].source);
			if (pattern_unicode(r->pat[k].source)) {
				errlist_add(warns, "%s:%u: rule %s forces "
				    "Unicode matching, which is slow: %s",
				    r->file, r->line, r->id, r->pat[k].source);
				n++;
			}
		}
		if (r->knobs != NULL) {
			char	*dup = xstrdup(r->knobs), *tok, *save;

			for (tok = strtok_r(dup, ", ", &save); tok != NULL;
			    tok = strtok_r(NULL, ", ", &save)) {
				if (ruleset_knob(rs, tok) == NULL) {
					errlist_add(warns, "%s:%u: rule %s names "
					    "unknown knob %s", r->file, r->line,
					    r->id, tok);
					n++;
				}
			}
			free(dup);
		}
	}
	/*
	 * Prefixes are peeled from every line; lines that differ only in
	 * their digits peel alike, and a memo skips the patterns for them,
	 * unless some prefix names a digit (a [0-3], a literal 7).
	 */
	for (i = 0; i < rs->nattribs; i++) {
		const struct rl_attrib	*a = rs->attribs[i];

		for (k = 0; k < a->npat; k++)
			n += check_backtrack(warns, a->file, a->line, "attrib",
			    a->id, a->pat[k].source);
		if (a->end.source != NULL)
			n += check_backtrack(warns, a->file, a->line, "attrib",
			    a->id, a->end.source);
		if (a->kind != ATTRIB_PREFIX)
			continue;
		for (k = 0; k < a->npat; k++) {
			if (!pattern_digit_blind(a->pat[k].source)) {
				errlist_add(warns, "%s:%u: prefix %s names a "
				    "digit, so every line's prefixes are "
				    "matched anew (use \\d or [0-9]): %s",
				    a->file, a->line, a->id,
				    a->pat[k].source);
				n++;
			}
		}
	}
	return n;
}
