/*
 * cmdline.c: the words of the console's command line, and the filter they
 * set.  ":ranks 3,5-7" keeps those ranks' rows, ":host node1" one host's,
 * ":sig nccl.watchdog_timeout" the rows with that signature (a prefix to
 * a dot works too: ":sig nccl"), ":failures" the failing lines only,
 * ":progress off" hides progress, ":clear" shows everything again;
 * ":rank 12", ":line 40" and ":goto stderr.log:15" jump.  Nothing here
 * draws or reads the model: filter.c applies the filter, prompt.c runs
 * the jumps.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"

/* A decimal number at *pp (no sign); advances past it, or -1. */
static int
cmdline_number(const char **pp, long long max, long long *out)
{
	const char	*p = *pp;
	long long	 v = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p - '0');
		if (v > max)
			return -1;
		p++;
	}
	*pp = p;
	*out = v;
	return 0;
}

/* Order ranges by their start. */
static int
rankset_cmp(const void *va, const void *vb)
{
	const struct rankset_range	*a = va, *b = vb;

	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Sort and merge overlapping or touching ranges. */
static void
rankset_merge(struct rankset *s)
{
	size_t	 i, k = 0;

	if (s->n == 0)
		return;
	qsort(s->v, s->n, sizeof *s->v, rankset_cmp);
	for (i = 1; i < s->n; i++) {
		if ((long long)s->v[i].lo <= (long long)s->v[k].hi + 1) {
			if (s->v[i].hi > s->v[k].hi)
				s->v[k].hi = s->v[i].hi;
		} else
			s->v[++k] = s->v[i];
	}
	s->n = k + 1;
}

/*
 * Parse "3,5-7" (blanks around the numbers allowed) into s, replacing
 * what it held; -1 with *cause naming the column of what is wrong.
 */
int
rankset_parse(struct rankset *s, const char *text, char **cause)
{
	const char	*p = text;
	long long	 lo, hi;
	size_t		 cap = 0;

	rankset_clear(s);
	for (;;) {
		while (*p == ' ')
			p++;
		if (cmdline_number(&p, INT_MAX, &lo) != 0)
			goto bad;
		hi = lo;
		while (*p == ' ')
			p++;
		if (*p == '-') {
			p++;
			while (*p == ' ')
				p++;
			if (cmdline_number(&p, INT_MAX, &hi) != 0)
				goto bad;
			if (hi < lo) {
				xasprintf(cause, "rank range %lld-%lld runs "
				    "backwards", lo, hi);
				rankset_clear(s);
				return -1;
			}
			while (*p == ' ')
				p++;
		}
		if (s->n == RANKSET_MAX) {
			xasprintf(cause, "more than %d rank ranges",
			    RANKSET_MAX);
			rankset_clear(s);
			return -1;
		}
		s->v = array_grow(s->v, s->n + 1, &cap, sizeof *s->v);
		s->v[s->n].lo = (int)lo;
		s->v[s->n++].hi = (int)hi;
		if (*p == '\0')
			break;
		if (*p != ',')
			goto bad;
		p++;
	}
	rankset_merge(s);
	return 0;
bad:
	xasprintf(cause, "ranks: expected a rank or a range such as 3,5-7 at "
	    "column %zu", (size_t)(p - text) + 1);
	rankset_clear(s);
	return -1;
}

/* Is rank r in the set? */
bool
rankset_has(const struct rankset *s, int r)
{
	size_t	 lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r < s->v[mid].lo)
			hi = mid;
		else if (r > s->v[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* The set as typed, sorted and merged: "3,5-7". */
void
rankset_format(const struct rankset *s, struct buf *b)
{
	size_t	 i;

	for (i = 0; i < s->n; i++) {
		if (i > 0)
			buf_addc(b, ',');
		if (s->v[i].lo == s->v[i].hi)
			buf_printf(b, "%d", s->v[i].lo);
		else
			buf_printf(b, "%d-%d", s->v[i].lo, s->v[i].hi);
	}
}

/* Free the ranges; the set stays, empty. */
void
rankset_clear(struct rankset *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* The commands, by name; the first word of a line picks one. */
static const struct {
	const char		*name;
	enum cmdline_kind	 kind;
	bool			 arg;	/* takes an argument */
} cmdline_words[] = {
	{ "ranks", CMD_RANKS, true },
	{ "host", CMD_HOST, false },
	{ "sig", CMD_SIG, false },
	{ "failures", CMD_FAILURES, false },
	{ "progress", CMD_PROGRESS, false },
	{ "clear", CMD_CLEAR, false },
	{ "rank", CMD_RANK, true },
	{ "line", CMD_LINE, true },
	{ "goto", CMD_GOTO, true },
	{ "nosearch", CMD_NOSEARCH, false },
};

/* The commands, for a line that names none. */
const char *
cmdline_usage(void)
{
	return "ranks SET, host [NAME], sig [RULE], failures [off], "
	    "progress on|off, clear, rank N, line N, goto FILE:LINE, nosearch";
}

/* "on" or "off" (nothing is on); -1 for anything else. */
static int
cmdline_onoff(const char *a, bool *on)
{
	if (*a == '\0' || strcmp(a, "on") == 0)
		*on = true;
	else if (strcmp(a, "off") == 0)
		*on = false;
	else
		return -1;
	return 0;
}

/* The argument of a command that takes one: what follows the blanks. */
static int
cmdline_arg(struct cmdline *c, const char *name, const char *a, char **cause)
{
	const char	*p = a, *colon;
	long long	 n;

	switch (c->kind) {
	case CMD_RANKS:
		return rankset_parse(&c->set, a, cause);
	case CMD_RANK:
	case CMD_LINE:
		if (cmdline_number(&p, c->kind == CMD_RANK ? INT_MAX :
		    LLONG_MAX / 10, &n) != 0 || *p != '\0') {
			xasprintf(cause, "%s: expected a number, not '%s'",
			    name, a);
			return -1;
		}
		c->n = n;
		return 0;
	case CMD_GOTO:
		colon = strrchr(a, ':');
		p = colon != NULL ? colon + 1 : a;
		if (colon == NULL || colon == a || cmdline_number(&p,
		    LLONG_MAX / 10, &n) != 0 || *p != '\0') {
			xasprintf(cause, "goto: expected FILE:LINE, not '%s'",
			    a);
			return -1;
		}
		c->arg = xstrndup(a, (size_t)(colon - a));
		c->n = n;
		return 0;
	case CMD_FAILURES:
	case CMD_PROGRESS:
		if (cmdline_onoff(a, &c->on) != 0) {
			xasprintf(cause, "%s: on or off, not '%s'", name, a);
			return -1;
		}
		return 0;
	case CMD_HOST:
	case CMD_SIG:
		c->arg = xstrdup(a);
		return 0;
	default:
		if (*a != '\0') {
			xasprintf(cause, "%s takes no argument", name);
			return -1;
		}
		return 0;
	}
}

/* Parse one command line (without its ':'); -1 with *cause. */
int
cmdline_parse(struct cmdline *c, const char *line, char **cause)
{
	const char	*p = line, *w, *end;
	char		*a;
	size_t		 i, len;
	int		 rc;

	memset(c, 0, sizeof *c);
	while (*p == ' ')
		p++;
	w = p;
	while (*p != '\0' && *p != ' ')
		p++;
	len = (size_t)(p - w);
	while (*p == ' ')
		p++;
	end = p + strlen(p);
	while (end > p && end[-1] == ' ')
		end--;
	for (i = 0; i < nitems(cmdline_words); i++) {
		if (strlen(cmdline_words[i].name) == len &&
		    strncmp(cmdline_words[i].name, w, len) == 0)
			break;
	}
	if (i == nitems(cmdline_words)) {
		if (len == 0)
			xasprintf(cause, "commands: %s", cmdline_usage());
		else
			xasprintf(cause, "unknown command '%.*s'; commands: "
			    "%s", (int)(len > 32 ? 32 : len), w,
			    cmdline_usage());
		return -1;
	}
	c->kind = cmdline_words[i].kind;
	if (cmdline_words[i].arg && p == end) {
		xasprintf(cause, "%s needs an argument (%s)",
		    cmdline_words[i].name, cmdline_usage());
		return -1;
	}
	a = xstrndup(p, (size_t)(end - p));
	rc = cmdline_arg(c, cmdline_words[i].name, a, cause);
	free(a);
	if (rc != 0)
		cmdline_clear(c);
	return rc;
}

/* Free what a parsed command holds. */
void
cmdline_clear(struct cmdline *c)
{
	rankset_clear(&c->set);
	free(c->arg);
	c->arg = NULL;
}

/* Is any part of the filter on? */
bool
filter_active(const struct tui_filter *f)
{
	return f->ranks.n > 0 || f->host != NULL || f->sig != NULL ||
	    f->failures || f->no_progress;
}

/*
 * Apply a filter command, taking what it holds: 1 the filter changed,
 * 0 it is not a filter command.
 */
int
filter_command(struct tui_filter *f, struct cmdline *c)
{
	switch (c->kind) {
	case CMD_RANKS:
		rankset_clear(&f->ranks);
		f->ranks = c->set;
		memset(&c->set, 0, sizeof c->set);
		return 1;
	case CMD_HOST:
	case CMD_SIG:
		free(c->kind == CMD_HOST ? f->host : f->sig);
		if (c->arg != NULL && c->arg[0] == '\0') {
			free(c->arg);
			c->arg = NULL;
		}
		*(c->kind == CMD_HOST ? &f->host : &f->sig) = c->arg;
		c->arg = NULL;
		return 1;
	case CMD_FAILURES:
		f->failures = c->on;
		return 1;
	case CMD_PROGRESS:
		f->no_progress = !c->on;
		return 1;
	case CMD_CLEAR:
		filter_clear(f);
		return 1;
	default:
		return 0;
	}
}

/* The filter in words, parts joined by sep: "ranks 3,5-7 · failures". */
void
filter_describe(const struct tui_filter *f, const char *sep, struct buf *b)
{
	const char	*s = "";

	if (f->ranks.n > 0) {
		buf_adds(b, f->ranks.n == 1 && f->ranks.v[0].lo ==
		    f->ranks.v[0].hi ? "rank " : "ranks ");
		rankset_format(&f->ranks, b);
		s = sep;
	}
	if (f->host != NULL) {
		buf_printf(b, "%shost %s", s, f->host);
		s = sep;
	}
	if (f->sig != NULL) {
		buf_printf(b, "%ssig %s", s, f->sig);
		s = sep;
	}
	if (f->failures) {
		buf_printf(b, "%sfailures", s);
		s = sep;
	}
	if (f->no_progress)
		buf_printf(b, "%sno progress", s);
}

/* Does a rule id match a :sig argument: the same, or its prefix to a dot? */
bool
filter_sig_match(const char *want, const char *id)
{
	size_t	 n = strlen(want);

	if (id == NULL || strncmp(want, id, n) != 0)
		return false;
	return id[n] == '\0' || id[n] == '.' || (n > 0 && want[n - 1] == '.');
}

/* Every part off; the struct stays. */
void
filter_clear(struct tui_filter *f)
{
	rankset_clear(&f->ranks);
	free(f->host);
	free(f->sig);
	memset(f, 0, sizeof *f);
}
