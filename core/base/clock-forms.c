/*
 * clock-forms.c: the parser of each time form, and the tables that name
 * them (clock-int.h).  clock.c picks which to try on a line; each parser
 * here reads at the start of [p, end) or, for the two mid-line searches,
 * within CLOCK_SCAN bytes, and never past end.
 */

#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock-int.h"


/* A month name in one of the languages syslog is seen in, lower case. */
struct clock_month {
	const char	*name;		/* UTF-8, without a trailing '.' */
	int		 month;		/* 1 to 12 */
};

/* A JSON key whose value is a time. */
struct clock_key {
	const char	*name;		/* without the quotes */
	size_t		 len;		/* strlen(name) */
};

static bool	clock_parse_ymd(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_parse_bracket(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_parse_c10(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_parse_dmesg(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_parse_dmesg_t(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_parse_vllm(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_parse_glog(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_parse_syslog(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_parse_us(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_parse_elastic(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_parse_epoch(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_scan_json(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);
static bool	clock_scan_ymd(const struct clock_ctx *, const char *,
		    const char *, struct rl_time *);

/*
 * Every parser, in the order they are tried.  Those that read at the start
 * of the line come first; the mid-line searches last, so that a time at the
 * start always wins over one quoted later in the message.  All but three
 * read a time of day, "HH:MM:SS", through clock_tod: a line without one
 * (a traceback, an NCCL INFO line, a progress bar) is spared them.
 */
const struct clock_parser clock_parsers[CLOCK_NPARSERS] = {
	{ clock_parse_ymd, true },
	{ clock_parse_bracket, true },
	{ clock_parse_c10, true },
	{ clock_parse_dmesg, false },
	{ clock_parse_dmesg_t, true },
	{ clock_parse_vllm, true },
	{ clock_parse_glog, true },
	{ clock_parse_syslog, true },
	{ clock_parse_us, true },
	{ clock_parse_elastic, true },
	{ clock_parse_epoch, false },
	{ clock_scan_json, false },
	{ clock_scan_ymd, true },
};

/*
 * Per form: its stable name and the line-start parser that yields it, tried
 * first when the previous line had that form.  A form last found by a
 * mid-line search maps to its line-start parser too: trying a search first
 * could pick a quoted time over the one that starts the line.
 */
const struct clock_form_info clock_forms[CLOCK_NFORMS] = {
	[CLOCK_NONE] =		{ "none", NULL },
	[CLOCK_ISO] =		{ "iso", clock_parse_ymd },
	[CLOCK_PYLOG] =		{ "pylog", clock_parse_ymd },
	[CLOCK_BRACKET] =	{ "bracket", clock_parse_bracket },
	[CLOCK_US] =		{ "us", clock_parse_us },
	[CLOCK_VLLM] =		{ "vllm", clock_parse_vllm },
	[CLOCK_GLOG] =		{ "glog", clock_parse_glog },
	[CLOCK_C10] =		{ "c10", clock_parse_c10 },
	[CLOCK_ELASTIC] =	{ "elastic", clock_parse_elastic },
	[CLOCK_SYSLOG] =	{ "syslog", clock_parse_syslog },
	[CLOCK_DMESG_T] =	{ "dmesg-T", clock_parse_dmesg_t },
	[CLOCK_DMESG] =		{ "dmesg", clock_parse_dmesg },
	[CLOCK_EPOCH] =		{ "epoch", clock_parse_epoch },
	[CLOCK_CLOCK12] =	{ "clock12", clock_parse_ymd },
};

/*
 * Month names and abbreviations: English, French, German, Spanish (glibc's
 * %b and %B in those locales, plus common variants without accents).
 */
static const struct clock_month clock_months[] = {
	{ "jan", 1 }, { "january", 1 }, { "janv", 1 }, { "janvier", 1 },
	{ "januar", 1 }, { "jän", 1 }, { "ene", 1 }, { "enero", 1 },
	{ "feb", 2 }, { "february", 2 }, { "févr", 2 }, { "fevr", 2 },
	{ "février", 2 }, { "fevrier", 2 }, { "februar", 2 },
	{ "febrero", 2 },
	{ "mar", 3 }, { "march", 3 }, { "mars", 3 }, { "mär", 3 },
	{ "märz", 3 }, { "mrz", 3 }, { "marzo", 3 },
	{ "apr", 4 }, { "april", 4 }, { "avr", 4 }, { "avril", 4 },
	{ "abr", 4 }, { "abril", 4 },
	{ "may", 5 }, { "mai", 5 }, { "mayo", 5 },
	{ "jun", 6 }, { "june", 6 }, { "juin", 6 }, { "juni", 6 },
	{ "junio", 6 },
	{ "jul", 7 }, { "july", 7 }, { "juil", 7 }, { "juillet", 7 },
	{ "juli", 7 }, { "julio", 7 },
	{ "aug", 8 }, { "august", 8 }, { "août", 8 }, { "aout", 8 },
	{ "ago", 8 }, { "agosto", 8 },
	{ "sep", 9 }, { "sept", 9 }, { "september", 9 }, { "septembre", 9 },
	{ "set", 9 }, { "septiembre", 9 },
	{ "oct", 10 }, { "october", 10 }, { "octobre", 10 }, { "okt", 10 },
	{ "oktober", 10 }, { "octubre", 10 },
	{ "nov", 11 }, { "november", 11 }, { "novembre", 11 },
	{ "noviembre", 11 },
	{ "dec", 12 }, { "december", 12 }, { "déc", 12 }, { "décembre", 12 },
	{ "decembre", 12 }, { "dez", 12 }, { "dezember", 12 }, { "dic", 12 },
	{ "diciembre", 12 },
};

/* The level words vLLM (Python logging) prints before MM-DD. */
static const char *const clock_levels[] = {
	"INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL", "WARN", "FATAL",
	"TRACE",
};

#define CLOCK_KEY(s)	{ s, sizeof s - 1 }

/*
 * JSON keys that hold a time: MLPerf's time_ms, torch elastic's error.json
 * "timestamp", journald's __REALTIME_TIMESTAMP, log4j2's epochSecond,
 * Python's LogRecord "created", and the generic ones.
 */
static const struct clock_key clock_keys[] = {
	CLOCK_KEY("time_ms"), CLOCK_KEY("timestamp"), CLOCK_KEY("time"),
	CLOCK_KEY("ts"), CLOCK_KEY("__REALTIME_TIMESTAMP"),
	CLOCK_KEY("epochSecond"), CLOCK_KEY("created"),
	CLOCK_KEY("@timestamp"),
};

static int
clock_mdays(int y, int m)
{
	static const int days[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return (29);
	return (days[m - 1]);
}

/* A month and day that exist in some year (Feb 29 included). */
static bool
clock_md_ok(int mo, int d)
{
	return (mo >= 1 && mo <= 12 && d >= 1 && d <= clock_mdays(2000, mo));
}

/*
 * Give a yearless date the year that puts it closest to the reference but no
 * more than a day after it: a December line read in January is last year's,
 * and the day of slack absorbs a reference taken a little early.  A dated
 * line of the source's own is a reference from either side, so the slack
 * is then half a year: the closest year.
 */
static bool
clock_infer(const struct clock_ctx *ctx, int mo, int d, int64_t tod,
    int64_t *ms)
{
	int64_t	rtod, v, lo, r = ctx->ref_ms +
		    (ctx->ref_dated ? 183 * CLOCK_DAY_MS : CLOCK_DAY_MS);
	int	ry, rm, rd, y;

	/*
	 * The reference's year, worked out once per source and thread; and
	 * the last month and day looked up, with the times of day for which
	 * that year is the answer (after the next year's last refusal, up
	 * to this one's last acceptance): a source's lines are of a few days.
	 */
	static _Thread_local struct {
		int64_t	ref_ms;
		int	y;
		bool	set, dated;
		int	mo, d;		/* 0, 0: none */
		int64_t	day_ms;		/* its year's day */
		int64_t	lo, hi;		/* lo < tod <= hi */
	} ref;

	if (!ref.set || ref.ref_ms != ctx->ref_ms ||
	    ref.dated != ctx->ref_dated) {
		clock_civil(clock_split(ctx->ref_ms, &rtod), &ry, &rm, &rd);
		ref.ref_ms = ctx->ref_ms;
		ref.dated = ctx->ref_dated;
		ref.y = ry;
		ref.set = true;
		ref.mo = ref.d = 0;
	}
	if (mo == ref.mo && d == ref.d && tod > ref.lo && tod <= ref.hi) {
		*ms = ref.day_ms + tod;
		return (true);
	}
	ry = ref.y;
	lo = INT64_MIN;
	for (y = ry + 1; y >= ry - 8; y--) {
		if (d > clock_mdays(y, mo))
			continue;
		v = clock_days(y, mo, d) * CLOCK_DAY_MS;
		if (v + tod <= r) {
			ref.mo = mo;
			ref.d = d;
			ref.day_ms = v;
			ref.lo = lo;
			ref.hi = r - v;
			*ms = v + tod;
			return (true);
		}
		lo = r - v;	/* refused here: a time of day past lo */
	}
	return (false);
}

/* Fill in a time as the log wrote it, without a zone. */
static void
clock_set(struct rl_time *t, enum clock_form form, int64_t ms)
{
	t->ms = ms;
	t->tz_min = 0;
	t->flags = RL_TIME_VALID;
	t->form = (uint8_t)form;
}

/* Fill in an epoch: UTC by definition. */
static void
clock_set_epoch(struct rl_time *t, int64_t ms)
{
	clock_set(t, CLOCK_EPOCH, ms);
	t->flags |= RL_TIME_ZONED;
}

/*
 * Read HH:MM:SS and a fraction of 1 to 9 digits after '.' or ','; the
 * fraction is cut to ms.  *fsep says which separator, as Python logging's
 * comma tells its form.
 */
static const char *
clock_tod(const char *p, const char *end, int64_t *tod, char *fsep)
{
	int	h, mi, s, ms = 0, i;

	/* Every timed line comes here: the eight bytes checked at once. */
	if (end - p < 8 || p[2] != ':' || p[5] != ':' ||
	    !clock_isdigit(p[0]) || !clock_isdigit(p[1]) ||
	    !clock_isdigit(p[3]) || !clock_isdigit(p[4]) ||
	    !clock_isdigit(p[6]) || !clock_isdigit(p[7]))
		return (NULL);
	h = (p[0] - '0') * 10 + (p[1] - '0');
	mi = (p[3] - '0') * 10 + (p[4] - '0');
	s = (p[6] - '0') * 10 + (p[7] - '0');
	if (h > 23 || mi > 59 || s > 60)
		return (NULL);
	p += 8;
	*fsep = '\0';
	if (end - p >= 2 && (*p == '.' || *p == ',') && clock_isdigit(p[1])) {
		*fsep = *p++;
		for (i = 0; p < end && clock_isdigit(*p); i++, p++) {
			if (i < 3)
				ms = ms * 10 + (*p - '0');
		}
		for (; i < 3; i++)
			ms *= 10;
	} else if (p < end && clock_isdigit(*p))
		return (NULL);
	*tod = ((h * 60 + mi) * 60 + s) * 1000LL + ms;
	return (p);
}

/* A 12-hour clock's " AM" or " PM": move the hour and step over it. */
static bool
clock_ampm(const char **pp, const char *end, int64_t *tod)
{
	const char	*p = *pp;
	int64_t		 h;
	char		 c;

	if (end - p < 3 || p[0] != ' ' || (p[2] | 0x20) != 'm')
		return (false);
	c = p[1] | 0x20;
	if ((c != 'a' && c != 'p') || (end - p > 3 && clock_isword(p[3])))
		return (false);
	h = *tod / 3600000;
	if (h < 1 || h > 12)
		return (false);
	*tod += ((h % 12 + (c == 'p' ? 12 : 0)) - h) * 3600000;
	*pp = p + 3;
	return (true);
}

/* Read a numeric offset +HH:MM, +HHMM or +HH into minutes east. */
static const char *
clock_offset(const char *p, const char *end, int *tz)
{
	const char	*q = p + 3;
	int		 h, m = 0;

	h = clock_num(p + 1, end, 2);
	if (h < 0 || h > 14)
		return (p);
	if (q < end && *q == ':') {
		if ((m = clock_num(q + 1, end, 2)) < 0 || m > 59)
			return (p);
		q += 3;
	} else if ((m = clock_num(q, end, 2)) >= 0 && m <= 59)
		q += 2;
	else
		m = 0;
	if (q < end && clock_isdigit(*q))
		return (p);
	*tz = (*p == '-' ? -1 : 1) * (h * 60 + m);
	return (q);
}

/*
 * Read the zone after a time: Z, an offset, " UTC", or the " +0200" of
 * ls --full-time and strftime's "%T %z" (four digits after a blank, so that
 * "13:22:07 - INFO" is no zone).  None means local.
 */
static const char *
clock_zone(const char *p, const char *end, struct rl_time *t)
{
	const char	*q;
	int		 tz = 0;

	if (p == end)
		return (p);
	if (*p == 'Z' && (end - p == 1 || !clock_isalnum(p[1])))
		q = p + 1;
	else if (*p == '+' || *p == '-') {
		if ((q = clock_offset(p, end, &tz)) == p)
			return (p);
	} else if (end - p >= 6 && p[0] == ' ' && (p[1] == '+' ||
	    p[1] == '-') && clock_num(p + 2, end, 4) >= 0 &&
	    (end - p == 6 || !clock_isalnum(p[6]))) {
		if ((q = clock_offset(p + 1, end, &tz)) == p + 1)
			return (p);
	} else if (end - p >= 4 && p[0] == ' ' &&
	    (memcmp(p + 1, "UTC", 3) == 0 || memcmp(p + 1, "GMT", 3) == 0) &&
	    (end - p == 4 || !clock_isalnum(p[4])))
		q = p + 4;
	else
		return (p);
	t->tz_min = (int16_t)tz;
	t->flags |= RL_TIME_ZONED;
	return (q);
}

/* Read the date of YYYY-MM-DD or the ordinal YYYY-DDD; *next is after it. */
static int64_t
clock_date(const char *p, const char *end, const char **next)
{
	/*
	 * The last YYYY-MM-DD read and its day: a log's lines share their
	 * date, and this is a pure function of the ten bytes.
	 */
	static _Thread_local struct {
		char	key[10];
		int64_t	days;
	} last;
	int	y, mo, d, yd;

	if (end - p >= 10 && p[4] == '-' && p[7] == '-' &&
	    memcmp(p, last.key, sizeof last.key) == 0) {
		*next = p + 10;
		return (last.days);
	}
	y = clock_num(p, end, 4);
	if (y < 1970 || y > 2199 || end - p < 9 || p[4] != '-')
		return (-1);
	if (p[7] == '-') {
		mo = clock_num(p + 5, end, 2);
		d = clock_num(p + 8, end, 2);
		if (mo < 1 || mo > 12 || d < 1 || d > clock_mdays(y, mo))
			return (-1);
		*next = p + 10;
		memcpy(last.key, p, sizeof last.key);
		last.days = clock_days(y, mo, d);
		return (last.days);
	}
	yd = clock_num(p + 5, end, 3);
	if (yd < 1 || yd > 365 + (clock_mdays(y, 2) == 29))
		return (-1);
	*next = p + 8;
	return (clock_days(y, 1, 1) + yd - 1);
}

/*
 * Read a date and a time of day: ISO 8601 (with 'T' or ' '), Python
 * logging's comma, a 12-hour clock, a zone; sep is one more byte allowed
 * between date and time (torch elastic's '_').  Returns the end of the time.
 */
static const char *
clock_ymd(const char *p, const char *end, char sep, struct rl_time *t)
{
	const char	*q = NULL;
	int64_t		 days, tod;
	char		 dsep, fsep;
	int		 form;

	if ((days = clock_date(p, end, &q)) < 0 || q >= end)
		return (NULL);
	dsep = *q;
	if (dsep != 'T' && dsep != ' ' && (sep == '\0' || dsep != sep))
		return (NULL);
	if ((q = clock_tod(q + 1, end, &tod, &fsep)) == NULL)
		return (NULL);
	form = (dsep == ' ' && fsep == ',') ? CLOCK_PYLOG : CLOCK_ISO;
	if (clock_ampm(&q, end, &tod))
		form = CLOCK_CLOCK12;
	clock_set(t, form, days * CLOCK_DAY_MS + tod);
	return (clock_zone(q, end, t));
}

/*
 * Compare a word of the line with a lower-case month name: ASCII folds, and
 * so does the second byte of a Latin-1 letter in UTF-8 ("DÉC", "déc").
 */
static bool
clock_name_eq(const char *s, const char *name, size_t len)
{
	size_t		i;
	unsigned char	c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c >= 'A' && c <= 'Z')
			c |= 0x20;
		else if (i > 0 && (unsigned char)s[i - 1] == 0xc3 &&
		    c >= 0x80 && c <= 0x9e && c != 0x97)
			c |= 0x20;
		if (c != (unsigned char)name[i])
			return (false);
	}
	return (true);
}

/* Look a month word up in clock_months; 0 if it is not one. */
static int
clock_month(const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < nitems(clock_months); i++) {
		if (strlen(clock_months[i].name) == len &&
		    clock_name_eq(s, clock_months[i].name, len))
			return (clock_months[i].month);
	}
	return (0);
}

/*
 * Read "Mon DD HH:MM:SS" in any language of clock_months.  The shape is
 * checked before the name is looked up, so that the common line that starts
 * with a word costs a few comparisons and no table walk.
 */
static const char *
clock_mdt(const char *p, const char *end, int *mo, int *d, int64_t *tod)
{
	const char	*q = p;
	size_t		 len, i;
	char		 fsep;

	while (q < end && q - p < 12 && clock_isword(*q))
		q++;
	if ((len = q - p) < 3 || q == end)
		return (NULL);
	if (*q == '.')
		q++;
	for (i = 0; q < end && *q == ' ' && i < 3; i++)
		q++;
	if (i == 0 || q == end || !clock_isdigit(*q))
		return (NULL);
	*d = *q++ - '0';
	if (q < end && clock_isdigit(*q))
		*d = *d * 10 + (*q++ - '0');
	if (q == end || *q != ' ')
		return (NULL);
	if ((q = clock_tod(q + 1, end, tod, &fsep)) == NULL)
		return (NULL);
	if ((*mo = clock_month(p, len)) == 0 || !clock_md_ok(*mo, *d))
		return (NULL);
	return (q);
}

/* 2026-12-02T13:06:43.123+00:00, 2026-12-02 13:06:43,123 at the start. */
static bool
clock_parse_ymd(const struct clock_ctx *ctx, const char *p, const char *end,
    struct rl_time *t)
{
	(void)ctx;
	return (clock_ymd(p, end, '\0', t) != NULL);
}

/*
 * [2026-12-02 13:06:43,123]: DeepSpeed, torch elastic 2.1-2.3, NCCL >= 2.26
 * WARN lines, and Ray, whose bracket goes on with " I pid tid]".
 */
static bool
clock_parse_bracket(const struct clock_ctx *ctx, const char *p,
    const char *end, struct rl_time *t)
{
	(void)ctx;
	if (end - p < 2 || p[0] != '[' || !clock_isdigit(p[1]))
		return (false);
	if (clock_ymd(p + 1, end, '\0', t) == NULL)
		return (false);
	t->form = CLOCK_BRACKET;
	return (true);
}

/*
 * [E1202 13:06:43.123456789 File.cpp:N]: c10's month*100+day is not padded
 * (E129 is Jan 29), and its fraction is CLOCK_MONOTONIC's tv_nsec, not the
 * wall clock's, so it is dropped rather than shown as if it were.
 */
static bool
clock_parse_c10(const struct clock_ctx *ctx, const char *p, const char *end,
    struct rl_time *t)
{
	const char	*q;
	int64_t		 md, tod, ms;
	size_t		 n;
	int		 mo, d;
	char		 fsep;

	if (end - p < 14 || p[0] != '[' || (p[1] != 'I' && p[1] != 'W' &&
	    p[1] != 'E' && p[1] != 'F'))
		return (false);
	n = clock_run(p + 2, end, 5, &md);
	mo = (int)(md / 100);
	d = (int)(md % 100);
	if ((n != 3 && n != 4) || !clock_md_ok(mo, d))
		return (false);
	q = p + 2 + n;
	if (q == end || *q != ' ')
		return (false);
	if (clock_tod(q + 1, end, &tod, &fsep) == NULL)
		return (false);
	tod -= tod % 1000;
	if (!clock_infer(ctx, mo, d, tod, &ms))
		return (false);
	clock_set(t, CLOCK_C10, ms);
	return (true);
}

/*
 * [12345.678901]: raw dmesg, seconds since boot, placed on the wall clock
 * only when the boot time is known.  A bracketed value of ten digits before
 * the point cannot be an uptime (31 years): it is an epoch, as UCX prints.
 */
static bool
clock_parse_dmesg(const struct clock_ctx *ctx, const char *p,
    const char *end, struct rl_time *t)
{
	const char	*q = p + 1;
	int64_t		 sec, frac, ms;
	size_t		 n, f;

	if (end - p < 4 || p[0] != '[')
		return (false);
	while (q < end && *q == ' ' && q - p < 16)
		q++;
	if ((n = clock_run(q, end, 12, &sec)) == 0 || q + n == end ||
	    q[n] != '.')
		return (false);
	q += n + 1;
	if ((f = clock_run(q, end, 9, &frac)) == 0 || q + f == end ||
	    q[f] != ']')
		return (false);
	for (; f > 3; f--)
		frac /= 10;
	for (; f < 3; f++)
		frac *= 10;
	ms = sec * 1000 + frac;
	if (n == 10 && ms >= CLOCK_EPOCH_LO && ms < CLOCK_EPOCH_HI)
		clock_set_epoch(t, ms);
	else if (ctx->boot_ms != 0)
		clock_set(t, CLOCK_DMESG, ctx->boot_ms + ms);
	else {
		clock_set(t, CLOCK_DMESG, ms);
		t->flags |= RL_TIME_BOOT;
	}
	return (true);
}

/* Step over the zone name date(1) prints before the year; UTC is a zone. */
static const char *
clock_zone_word(const char *p, const char *end, bool *utc)
{
	const char	*q = p + 1;

	*utc = false;
	if (end - p < 2 || p[0] != ' ')
		return (p);
	while (q < end && q - p <= 6 && *q >= 'A' && *q <= 'Z')
		q++;
	if (q - p < 3 || q == end || *q != ' ')
		return (p);
	*utc = q - p == 4 &&
	    (memcmp(p + 1, "UTC", 3) == 0 || memcmp(p + 1, "GMT", 3) == 0);
	return (q);
}

/*
 * [Wed Dec  2 13:06:43 2026] (dmesg -T), and the same without brackets as
 * ctime(3) and date(1) print it, where a zone may come before the year.
 */
static bool
clock_parse_dmesg_t(const struct clock_ctx *ctx, const char *p,
    const char *end, struct rl_time *t)
{
	const char	*q, *w;
	int64_t		 tod;
	int		 mo, d, y;
	bool		 utc;

	(void)ctx;
	w = (p < end && *p == '[') ? p + 1 : p;
	for (q = w; q < end && q - w < 10 && clock_isword(*q); q++)
		/* the day of the week, in any language */;
	if (q < end && *q == '.')
		q++;
	if (q == w || q == end || *q != ' ')
		return (false);
	if ((q = clock_mdt(q + 1, end, &mo, &d, &tod)) == NULL)
		return (false);
	q = clock_zone_word(q, end, &utc);
	if (end - q < 5 || q[0] != ' ' ||
	    (y = clock_num(q + 1, end, 4)) < 1970 || d > clock_mdays(y, mo))
		return (false);
	clock_set(t, CLOCK_DMESG_T, clock_days(y, mo, d) * CLOCK_DAY_MS + tod);
	if (utc)
		t->flags |= RL_TIME_ZONED;
	return (true);
}

/* Is [p, p + len) one of the level words of clock_levels? */
static bool
clock_level(const char *p, size_t len)
{
	size_t	i;

	for (i = 0; i < nitems(clock_levels); i++) {
		if (strlen(clock_levels[i]) == len &&
		    memcmp(p, clock_levels[i], len) == 0)
			return (true);
	}
	return (false);
}

/* INFO 12-02 13:06:43 [file.py:12]: vLLM's logger, which prints no year. */
static bool
clock_parse_vllm(const struct clock_ctx *ctx, const char *p,
    const char *end, struct rl_time *t)
{
	const char	*q = p;
	int64_t		 tod, ms;
	int		 mo, d;
	char		 fsep;

	while (q < end && q - p < 9 && *q >= 'A' && *q <= 'Z')
		q++;
	if (q - p < 4 || end - q < 15 || q[0] != ' ' || q[3] != '-' ||
	    q[6] != ' ')
		return (false);
	mo = clock_num(q + 1, end, 2);
	d = clock_num(q + 4, end, 2);
	if (!clock_md_ok(mo, d) || !clock_level(p, q - p))
		return (false);
	if (clock_tod(q + 7, end, &tod, &fsep) == NULL ||
	    !clock_infer(ctx, mo, d, tod, &ms))
		return (false);
	clock_set(t, CLOCK_VLLM, ms);
	return (true);
}

/*
 * I1202 13:06:43.123456 and W20261202 13:06:43.1: glog, which torch elastic
 * >= 2.4 imitates.  The four-digit MMDD has no year; the eight-digit has.
 */
static bool
clock_parse_glog(const struct clock_ctx *ctx, const char *p,
    const char *end, struct rl_time *t)
{
	int64_t	v, tod, ms;
	size_t	n;
	int	y, mo, d;
	char	fsep;

	if (end - p < 14 || (p[0] != 'I' && p[0] != 'W' && p[0] != 'E' &&
	    p[0] != 'F'))
		return (false);
	n = clock_run(p + 1, end, 9, &v);
	if ((n != 4 && n != 8) || p + 1 + n == end || p[1 + n] != ' ')
		return (false);
	y = (int)(v / 10000);
	mo = (int)(v / 100 % 100);
	d = (int)(v % 100);
	if (!clock_md_ok(mo, d) || (n == 8 && (y < 1970 ||
	    d > clock_mdays(y, mo))))
		return (false);
	if (clock_tod(p + 2 + n, end, &tod, &fsep) == NULL)
		return (false);
	if (n == 8)
		ms = clock_days(y, mo, d) * CLOCK_DAY_MS + tod;
	else if (!clock_infer(ctx, mo, d, tod, &ms))
		return (false);
	clock_set(t, CLOCK_GLOG, ms);
	return (true);
}

/* Dec  2 13:06:43 host prog: BSD syslog and journalctl, no year. */
static bool
clock_parse_syslog(const struct clock_ctx *ctx, const char *p,
    const char *end, struct rl_time *t)
{
	int64_t	tod, ms;
	int	mo, d;

	if (p == end || !clock_isword(*p))
		return (false);
	if (clock_mdt(p, end, &mo, &d, &tod) == NULL ||
	    !clock_infer(ctx, mo, d, tod, &ms))
		return (false);
	clock_set(t, CLOCK_SYSLOG, ms);
	return (true);
}

/* 12/02/2026 13:06:43: the US order of the Hugging Face example scripts. */
static bool
clock_parse_us(const struct clock_ctx *ctx, const char *p, const char *end,
    struct rl_time *t)
{
	const char	*q;
	int64_t		 tod;
	int		 mo, d, y, form = CLOCK_US;
	char		 fsep;

	(void)ctx;
	mo = clock_num(p, end, 2);
	if (mo < 1 || mo > 12 || end - p < 19 || p[2] != '/' ||
	    p[5] != '/' || p[10] != ' ')
		return (false);
	d = clock_num(p + 3, end, 2);
	y = clock_num(p + 6, end, 4);
	if (y < 1970 || d < 1 || d > clock_mdays(y, mo))
		return (false);
	if ((q = clock_tod(p + 11, end, &tod, &fsep)) == NULL)
		return (false);
	if (clock_ampm(&q, end, &tod))
		form = CLOCK_CLOCK12;
	clock_set(t, form, clock_days(y, mo, d) * CLOCK_DAY_MS + tod);
	return (true);
}

/* "  time      : 2026-12-02_13:06:43": torch elastic's failure record. */
static bool
clock_parse_elastic(const struct clock_ctx *ctx, const char *p,
    const char *end, struct rl_time *t)
{
	const char	*q = p;

	(void)ctx;
	while (q < end && *q == ' ' && q - p < 8)
		q++;
	if (end - q < 6 || memcmp(q, "time", 4) != 0)
		return (false);
	for (q += 4; q < end && *q == ' '; q++)
		/* the record pads its keys */;
	if (q == end || *q != ':')
		return (false);
	for (q++; q < end && *q == ' '; q++)
		/* and its values */;
	if (clock_ymd(q, end, '_', t) == NULL)
		return (false);
	t->form = CLOCK_ELASTIC;
	return (true);
}

/*
 * Read an epoch: the number of digits gives the unit (10 s, 13 ms, 16 us,
 * 19 ns), and seconds may carry a fraction.  Returns the end, or NULL when
 * it is not an epoch of this century.
 */
static const char *
clock_epoch(const char *p, const char *end, bool any_unit, int64_t *ms)
{
	int64_t	v, frac;
	size_t	n, f;

	n = clock_run(p, end, 20, &v);
	p += n;
	if (n == 10 && end - p >= 2 && *p == '.' && clock_isdigit(p[1])) {
		f = clock_run(p + 1, end, 20, &frac);
		p += 1 + f;
		for (; f > 3; f--)
			frac /= 10;
		for (; f < 3; f++)
			frac *= 10;
		v = v * 1000 + frac;
	} else if (n == 10)
		v *= 1000;
	else if (n == 16 && any_unit)
		v /= 1000;
	else if (n == 19 && any_unit)
		v /= 1000000;
	else if (n != 13)
		return (NULL);
	if (v < CLOCK_EPOCH_LO || v >= CLOCK_EPOCH_HI)
		return (NULL);
	*ms = v;
	return (p);
}

/*
 * 1428634687123 msg: an epoch that starts the line.  Only seconds and ms,
 * followed by a blank, so that an id or a counter at the start is not one.
 */
static bool
clock_parse_epoch(const struct clock_ctx *ctx, const char *p,
    const char *end, struct rl_time *t)
{
	const char	*q;
	int64_t		 ms;

	(void)ctx;
	if (p == end || !clock_isdigit(*p) ||
	    (q = clock_epoch(p, end, false, &ms)) == NULL)
		return (false);
	if (q != end && *q != ' ' && *q != '\t')
		return (false);
	clock_set_epoch(t, ms);
	return (true);
}

/* Read the value of a JSON key at p (just past its opening quote). */
static bool
clock_json_at(const char *p, const char *end, struct rl_time *t)
{
	const struct clock_key	*k;
	const char		*q;
	int64_t			 ms;
	size_t			 i;

	if (p == end)
		return (false);
	/* Every quote of a traceback comes here: the first byte first. */
	for (i = 0; i < nitems(clock_keys); i++) {
		k = &clock_keys[i];
		if (k->name[0] == *p && (size_t)(end - p) > k->len + 2 &&
		    memcmp(p, k->name, k->len) == 0 && p[k->len] == '"')
			break;
	}
	if (i == nitems(clock_keys))
		return (false);
	for (q = p + k->len + 1; q < end && *q == ' '; q++)
		/* journald writes "key" : value */;
	if (q == end || *q++ != ':')
		return (false);
	while (q < end && (*q == ' ' || *q == '"'))
		q++;
	if (clock_epoch(q, end, true, &ms) != NULL) {
		clock_set_epoch(t, ms);
		return (true);
	}
	return (clock_ymd(q, end, '\0', t) != NULL);
}

/* Look for a time key at every quote in [p, to). */
static bool
clock_json_in(const char *p, const char *to, const char *end,
    struct rl_time *t)
{
	while (p < to && (p = memchr(p, '"', to - p)) != NULL) {
		if (clock_json_at(++p, end, t))
			return (true);
	}
	return (false);
}

/*
 * :::MLLOG {"namespace": "", "time_ms": 1764680803000, ...}: a time in a
 * JSON object.  A line that is an object may put it last (torch elastic's
 * error.json does), so its tail is searched as well as its head.
 */
static bool
clock_scan_json(const struct clock_ctx *ctx, const char *p,
    const char *end, struct rl_time *t)
{
	const char	*to;

	(void)ctx;
	to = end - p > CLOCK_SCAN ? p + CLOCK_SCAN : end;
	if (clock_json_in(p, to, end, t))
		return (true);
	if (to == end || *p != '{')
		return (false);
	return (clock_json_in(end - to > CLOCK_SCAN ? end - CLOCK_SCAN : to,
	    end, end, t));
}

/*
 * A date and time after a phrase: "CANCELLED AT 2025-08-28T17:54:59",
 * "STARTING TIMING RUN AT ... PM", "[NeMo W 2024-05-01 22:04:11 ...]",
 * or after a prefix nobody peeled.  Each '-' is a candidate; a date that
 * touches a letter or a digit is part of something else.
 */
static bool
clock_scan_ymd(const struct clock_ctx *ctx, const char *p,
    const char *end, struct rl_time *t)
{
	const char	*q, *to;

	(void)ctx;
	if (end - p < 19)
		return (false);
	to = end - p > CLOCK_SCAN ? p + CLOCK_SCAN : end;
	for (q = p + 4; q < to && (q = memchr(q, '-', to - q)) != NULL; q++) {
		if (q - 4 > p && clock_isalnum(q[-5]))
			continue;
		if (clock_ymd(q - 4, end, '\0', t) != NULL)
			return (true);
	}
	return (false);
}

/* Is c the first colon of an "HH:MM:SS", with c[-2] to c[5] there? */
