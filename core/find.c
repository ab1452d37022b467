/*
 * find.c: a pattern the engineer types, compiled once and matched against
 * log lines (the console's / and ?).
 *
 * Smart case, as less -i and ripgrep -S have it: a pattern with no
 * upper-case letter of its own matches without regard to case; one with an
 * upper-case letter matches exactly.  A letter after a backslash is an
 * escape (\S, \W, \D), and a \p{...} or \P{...} property names a class:
 * neither is the engineer asking for case.
 *
 * The text is hostile: it may be any bytes, so a pattern is compiled for
 * UTF-8 with PCRE2_MATCH_INVALID_UTF (an invalid sequence never matches
 * and never fails the search), and every match runs under the same match
 * and depth limits as the rule engine's, so that a pattern such as
 * (a+)+$ on a long line costs a bounded time and says so.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "base.h"
#include "find.h"

#define FIND_MATCH_LIMIT	200000	/* backtracking steps per line */
#define FIND_DEPTH_LIMIT	2000	/* nested backtracking frames */
#define FIND_PATTERN_MAX	1024	/* bytes of a pattern */

struct find {
	pcre2_code		*code;	/* owned */
	pcre2_match_data	*md;	/* owned, reused by every match */
	pcre2_match_context	*mctx;	/* owned: the limits */
	char			*pattern;	/* as typed, owned */
	bool			 caseless;	/* smart case chose it */
};

/* Does a pattern ask for no case: no upper-case letter outside escapes? */
bool
find_smart_caseless(const char *p)
{
	const unsigned char	*s = (const unsigned char *)p;

	while (*s != '\0') {
		if (*s == '\\' && s[1] != '\0') {
			/* \p{Lu} and \P{...}: the braces name a class. */
			if ((s[1] == 'p' || s[1] == 'P') && s[2] == '{' &&
			    strchr((const char *)s + 3, '}') != NULL) {
				s = (const unsigned char *)strchr(
				    (const char *)s + 3, '}') + 1;
				continue;
			}
			s += 2;
			continue;
		}
		if (*s >= 'A' && *s <= 'Z')
			return false;
		s++;
	}
	return true;
}

/* Compile a pattern; NULL with *cause (the caller's) when it is bad. */
struct find *
find_compile(const char *pattern, char **cause)
{
	struct find	*f;
	PCRE2_UCHAR	 msg[256];
	PCRE2_SIZE	 off;
	uint32_t	 opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	int		 err;

	if (pattern[0] == '\0') {
		xasprintf(cause, "empty pattern");
		return NULL;
	}
	if (strlen(pattern) > FIND_PATTERN_MAX) {
		xasprintf(cause, "pattern longer than %d bytes",
		    FIND_PATTERN_MAX);
		return NULL;
	}
	f = xcalloc(1, sizeof *f);
	f->caseless = find_smart_caseless(pattern);
	if (f->caseless)
		opts |= PCRE2_CASELESS;
	f->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	    opts, &err, &off, NULL);
	if (f->code == NULL) {
		pcre2_get_error_message(err, msg, sizeof msg);
		xasprintf(cause, "bad pattern at %zu: %s", (size_t)off + 1,
		    (char *)msg);
		free(f);
		return NULL;
	}
	f->md = pcre2_match_data_create_from_pattern(f->code, NULL);
	f->mctx = pcre2_match_context_create(NULL);
	if (f->md == NULL || f->mctx == NULL)
		fatal("out of memory");
	pcre2_set_match_limit(f->mctx, FIND_MATCH_LIMIT);
	pcre2_set_depth_limit(f->mctx, FIND_DEPTH_LIMIT);
	f->pattern = xstrdup(pattern);
	return f;
}

/*
 * Does s[0..n) match: 1 yes, 0 no, -1 the limits stopped it (counted by
 * the caller as no match, and said).
 */
int
find_match(struct find *f, const char *s, size_t n)
{
	int	 rc;

	rc = pcre2_match(f->code, (PCRE2_SPTR)s, n, 0, 0, f->md, f->mctx);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
	    rc == PCRE2_ERROR_HEAPLIMIT)
		return -1;
	return 0;
}

/* Whether smart case made the pattern caseless. */
bool
find_caseless(const struct find *f)
{
	return f->caseless;
}

/* The pattern as typed. */
const char *
find_pattern(const struct find *f)
{
	return f->pattern;
}

/* Free a compiled pattern. */
void
find_free(struct find *f)
{
	if (f == NULL)
		return;
	pcre2_code_free(f->code);
	pcre2_match_data_free(f->md);
	pcre2_match_context_free(f->mctx);
	free(f->pattern);
	free(f);
}
