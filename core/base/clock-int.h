/*
 * clock-int.h: what the clock parser's files share and nothing else sees:
 * the tables of parsers and forms (clock-forms.c), and the digit and
 * calendar helpers every one of them runs on each line, inline here so
 * that splitting the parser into files costs no call.
 */
#ifndef RANKLINE_CLOCK_INT_H
#define RANKLINE_CLOCK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"

#define CLOCK_DAY_MS	86400000LL
#define CLOCK_SCAN	200	/* bytes searched for a mid-line time */
#define CLOCK_PEELS	4	/* line prefixes skipped at most */
#define CLOCK_EPOCH_LO	1000000000000LL	/* 2001-09-09 in ms; older: no epoch */
#define CLOCK_EPOCH_HI	4102444800000LL	/* 2100-01-01 in ms */

#ifndef nitems
#define nitems(a)	(sizeof (a) / sizeof (a)[0])
#endif

/* A parser reads the time of [p, end) into *t or says there is none. */
typedef bool (*clock_fn)(const struct clock_ctx *, const char *,
    const char *, struct rl_time *);

/* One parser of clock_parsers[], in the order they are tried. */
struct clock_parser {
	clock_fn	 fn;
	bool		 tod;		/* it needs an HH:MM:SS */
};
#define CLOCK_NPARSERS	13
extern const struct clock_parser clock_parsers[CLOCK_NPARSERS];

/* Per form: its stable name and the line-start parser that yields it. */
struct clock_form_info {
	const char	*name;		/* stable: shown and stored */
	clock_fn	 parser;	/* tried first, NULL for none */
};
extern const struct clock_form_info clock_forms[CLOCK_NFORMS];

/* ctype's isdigit takes an int that a plain char may not fit; ours cannot. */
static inline bool
clock_isdigit(char c)
{
	return (c >= '0' && c <= '9');
}

/* ASCII letters; bytes of UTF-8 sequences count too, for "août". */
static inline bool
clock_isword(char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (unsigned char)c >= 0x80);
}

/* Letters or digits: what may not touch a date found mid-line. */
static inline bool
clock_isalnum(char c)
{
	return (clock_isdigit(c) || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'));
}

/* Read exactly n (at most 9) digits; -1 if they are not all there. */
static inline int
clock_num(const char *p, const char *end, size_t n)
{
	size_t	i;
	int	v = 0;

	if ((size_t)(end - p) < n)
		return (-1);
	for (i = 0; i < n; i++) {
		if (!clock_isdigit(p[i]))
			return (-1);
		v = v * 10 + (p[i] - '0');
	}
	return (v);
}

/*
 * Read a run of digits up to max; returns how many, so 10 tells from 13.
 * Unsigned, so that a run of 20 nines wraps instead of overflowing; the
 * callers refuse such runs by their length anyway.
 */
static inline size_t
clock_run(const char *p, const char *end, size_t max, int64_t *v)
{
	uint64_t	u = 0;
	size_t		n;

	for (n = 0; n < max && p + n < end && clock_isdigit(p[n]); n++)
		u = u * 10 + (uint64_t)(p[n] - '0');
	*v = u > INT64_MAX ? INT64_MAX : (int64_t)u;
	return (n);
}


/* Split ms into days and ms of day, rounding down before 1970 too. */
static inline int64_t
clock_split(int64_t ms, int64_t *tod)
{
	int64_t	days = ms / CLOCK_DAY_MS;

	if (ms % CLOCK_DAY_MS < 0)
		days--;
	*tod = ms - days * CLOCK_DAY_MS;
	return (days);
}

/* Days in month m of year y, so that Feb 30 and Jun 31 are refused. */

#endif
