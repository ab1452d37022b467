/*
 * test-backtrack.c: patterns that would backtrack without end cost a line
 * its match, never the program; split from test-rules.c, whose packs are
 * written inline the same way.
 */
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

/* A catastrophic pattern costs a line its match, never the program. */
static void
test_pathological(void)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };
	struct rl_match	 m;
	char		 line[4096];
	struct timespec	 t0, t1;
	double		 ms;
	int		 i;

	load(rs, "[rule evil]\npattern = ^(a+)+$\nliteral = aaaa\nrole = root\n"
	    "[rule evil2]\npattern = (x+x+)+y\nliteral = xxxx\nrole = root\n",
	    &e);
	memset(line, 'a', sizeof line - 2);
	line[sizeof line - 2] = 'b';
	line[sizeof line - 1] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 20; i++)
		(void)ruleset_match(rs, line, strlen(line), &m);
	memset(line, 'x', sizeof line - 1);
	for (i = 0; i < 20; i++)
		(void)ruleset_match(rs, line, strlen(line), &m);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	ok(!ruleset_match(rs, line, strlen(line), &m),
	    "the pathological pattern gives up on the line");
	ok(ruleset_limit_hits(rs) > 0, "the pcre2 limit was hit and counted");
	/* evil2's line has no 'y', which pcre2 looks for before trying. */
	ok(ruleset_rule_limit_hits(rs, 0) > 0 &&
	    ruleset_rule_limit_hits(rs, 0) + ruleset_rule_limit_hits(rs, 1) ==
	    ruleset_limit_hits(rs), "and counted per rule (evil %llu, evil2 "
	    "%llu)", (unsigned long long)ruleset_rule_limit_hits(rs, 0),
	    (unsigned long long)ruleset_rule_limit_hits(rs, 1));
	/* Not a timing test: only proof that it returned at all, bounded. */
	ok(ms < 60000, "40 catastrophic matches returned (%.0f ms)", ms);
	errlist_clear(&e);
	ruleset_free(rs);
}

/*
 * The backtracking check (rules-backtrack.c): each risky pattern is flagged
 * and truly is, for pcre2 gives up at its match limit on a line of 40
 * pumps and an end that fails it (after the byte pcre2 looks for first);
 * each safe one passes and matches or fails that kind of line within the
 * limit.
 */
#define NITEMS(a)	(sizeof (a) / sizeof (a)[0])

static void
test_backtrack(void)
{
	static const struct {
		const char	*pat;
		const char	*pump;		/* repeated to make the line */
		const char	*end;		/* then this, which fails it */
	} risky[] = {
		{ "^(a+)+$", "a", "!" }, { "(a*)*b", "a", "!b" },
		{ "(a|a)+c", "a", "!c" }, { "^(x+x+)+$", "x", "!" },
		{ "(.*)*z", "a", "\nz" }, { "(\\w|\\d)+!", "1", "?!" },
		{ "(?:\\s*\\w+)+$", "ab", "!" }, { "((ab)+)+c", "ab", "!c" },
		{ "^(\\d+\\s?)+$", "12", "!" }, { "(?<n>[a-z]+)*@", "ab", "!@" },
		{ "(a+){2,}x", "a", "!x" }, { "(?:a|ab|a)+c", "a", "!c" },
		{ "(\\w+\\s*)+=", "ab", "!=" }, { "(a?a?)+b", "a", "!b" },
		{ "^(?:[a-z]*,?)+$", "a,", "!" }, { "(.+?,)+x", "a,", "!x" },
		{ "(a+a)+b", "a", "!b" },
	}, safe[] = {
		{ "(?:\\.[A-Za-z0-9]+)+$", ".a", "!" },
		{ "(?:[-_.][A-Za-z0-9]+)*/", "-a", "!/" },
		{ "(a++)+b", "a", "!b" }, { "(?>a+)+b", "a", "!b" },
		{ "(?:foo|bar)+!", "foo", "?!" }, { "(?:[^,]*,)+x", "a,", "!x" },
		{ "(?: \\w+)+$", " a", "!" }, { "\\d+\\.\\d+", "1", ".!" },
		{ "(ab|cd)*e", "ab", "!e" }, { "(a|b)+c", "a", "!c" },
		{ "(?:\\d{1,3}\\.){3}\\d{1,3}!", "1.", "?!" },
		{ "(a+)?b", "a", "!b" }, { "(?i:abc)+d", "abc", "!d" },
		{ "[(]+x", "(", "!x" }, { "\\Q(a+)+\\E", "(a+)", "+!" },
		{ "(?#(a+)z", "a", "!z" }, { "(\\S+\\s+)+x", "a ", "!x" },
	};
	struct ruleset		*rs = ruleset_create();
	struct rl_pattern	 p;
	char			 line[256], *cause = NULL;
	size_t			 i, k, o, at, len, flagged = 0, hit = 0;
	size_t			 fine = 0;
	uint64_t		 before;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < (k == 0 ? NITEMS(risky) : NITEMS(safe)); i++) {
			const char	*pat = k == 0 ? risky[i].pat : safe[i].pat;
			const char	*pump = k == 0 ? risky[i].pump :
			    safe[i].pump;
			const char	*end = k == 0 ? risky[i].end : safe[i].end;
			int		 j;

			for (j = 0, o = 0; j < 40; j++)
				o += (size_t)snprintf(line + o, sizeof line - o,
				    "%s", pump);
			snprintf(line + o, sizeof line - o, "%s", end);
			if (pattern_compile(&p, pat, &cause) != 0) {
				printf("# %s: %s\n", pat, cause);
				free(cause);
				continue;
			}
			before = ruleset_limit_hits(rs);
			(void)ruleset_match_pattern(rs, &p, line, strlen(line),
			    NULL);
			if (k == 0) {
				flagged += pattern_backtracks(pat, &at, &len);
				hit += ruleset_limit_hits(rs) > before;
			} else
				fine += !pattern_backtracks(pat, &at, &len) &&
				    ruleset_limit_hits(rs) == before;
			printf("# %s: %s, %s\n", pat,
			    pattern_backtracks(pat, &at, &len) ? "flagged" :
			    "passes", ruleset_limit_hits(rs) > before ?
			    "hits the limit" : "within the limit");
			pattern_clear(&p);
		}
	}
	ok(flagged == NITEMS(risky), "%zu of %zu risky patterns are flagged",
	    flagged, NITEMS(risky));
	ok(hit == NITEMS(risky), "and %zu of them hit the match limit on 40 "
	    "pumped bytes", hit);
	ok(fine == NITEMS(safe), "%zu of %zu safe patterns pass, within the "
	    "limit", fine, NITEMS(safe));
	ok(pattern_backtracks("x(?:y|(a+)+)z", &at, &len) && at == 6 &&
	    len == 5, "the group named is the risky one, (a+)+");
	/* Cut short anywhere, a pattern is still read within its bytes. */
	for (i = 0; i < NITEMS(risky); i++) {
		char	buf[64];

		for (k = 0; k <= strlen(risky[i].pat); k++) {
			memcpy(buf, risky[i].pat, k);
			buf[k] = '\0';
			(void)pattern_backtracks(buf, &at, &len);
		}
	}
	ok(1, "every prefix of every pattern is read without a fault");
	ruleset_free(rs);
}

int
main(void)
{
	test_pathological();
	test_backtrack();
	return tap_done();
}
