/*
 * clock.c: find and read the timestamp of a log line.
 *
 * The stacks of a distributed GPU job print a dozen time forms, several with
 * no year (vLLM, glog, c10, syslog), one with a monotonic fraction that looks
 * like wall clock (c10) and one that is not wall clock at all (raw dmesg).
 * Each form has a hand-written parser in clock_parsers[]: a parser that
 * reads at the start of the line fails on its first byte or two, so a line
 * without a time costs little; the two that search mid-line (JSON epoch
 * keys, and a date after a phrase such as "CANCELLED AT") run last, bounded
 * to CLOCK_SCAN bytes.  The form that matched the previous line is tried
 * first, and the one before it next (the two writers of a console
 * alternate).  Nothing here allocates, and nothing reads past the given
 * length: lines come straight from a read buffer and are not
 * NUL-terminated.
 *
 * A time is kept as its wall clock read as UTC (see clock.h); a missing year
 * is taken from the reference instant of clock_init (file mtime or now).
 */

#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L	/* localtime_r */
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "clock.h"

#define CLOCK_DAY_MS	86400000LL
#define CLOCK_SCAN	200	/* bytes searched for a mid-line time */
#define CLOCK_PEELS	4	/* line prefixes skipped at most */
#define CLOCK_EPOCH_LO	1000000000000LL	/* 2001-09-09 in ms; older: no epoch */
#define CLOCK_EPOCH_HI	4102444800000LL	/* 2100-01-01 in ms */

#define nitems(a)	(sizeof (a) / sizeof (a)[0])

/* A parser reads the time of [p, end) into *t or says there is none. */
typedef bool (*clock_fn)(const struct clock_ctx *, const char *,
    const char *, struct rl_time *);

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
static const struct {
	clock_fn	 fn;
	bool		 tod;		/* it needs an HH:MM:SS */
} clock_parsers[] = {
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
static const struct {
	const char	*name;		/* stable: shown and stored */
	clock_fn	 parser;	/* tried first, NULL for none */
} clock_forms[CLOCK_NFORMS] = {
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

/* ctype's isdigit takes an int that a plain char may not fit; ours cannot. */
static bool
clock_isdigit(char c)
{
	return (c >= '0' && c <= '9');
}

/* ASCII letters; bytes of UTF-8 sequences count too, for "août". */
static bool
clock_isword(char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (unsigned char)c >= 0x80);
}

/* Letters or digits: what may not touch a date found mid-line. */
static bool
clock_isalnum(char c)
{
	return (clock_isdigit(c) || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'));
}

/* Read exactly n (at most 9) digits; -1 if they are not all there. */
static int
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
static size_t
clock_run(const char *p, const char *end, size_t max, int64_t *v)
{
	uint64_t	u = 0;
	size_t		n;

	for (n = 0; n < max && p + n < end && clock_isdigit(p[n]); n++)
		u = u * 10 + (uint64_t)(p[n] - '0');
	*v = u > INT64_MAX ? INT64_MAX : (int64_t)u;
	return (n);
}

/* Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant). */
static int64_t
clock_days(int y, int m, int d)
{
	int64_t	era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (era * 146097 + doe - 719468);
}

/* The date of a day count: the inverse of clock_days. */
static void
clock_civil(int64_t z, int *y, int *m, int *d)
{
	int64_t	era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* Split ms into days and ms of day, rounding down before 1970 too. */
static int64_t
clock_split(int64_t ms, int64_t *tod)
{
	int64_t	days = ms / CLOCK_DAY_MS;

	if (ms % CLOCK_DAY_MS < 0)
		days--;
	*tod = ms - days * CLOCK_DAY_MS;
	return (days);
}

/* Days in month m of year y, so that Feb 30 and Jun 31 are refused. */
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
 * and the day of slack absorbs a reference taken a little early.
 */
static bool
clock_infer(const struct clock_ctx *ctx, int mo, int d, int64_t tod,
    int64_t *ms)
{
	int64_t	rtod, v, lo, r = ctx->ref_ms + CLOCK_DAY_MS;
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
		bool	set;
		int	mo, d;		/* 0, 0: none */
		int64_t	day_ms;		/* its year's day */
		int64_t	lo, hi;		/* lo < tod <= hi */
	} ref;

	if (!ref.set || ref.ref_ms != ctx->ref_ms) {
		clock_civil(clock_split(ctx->ref_ms, &rtod), &ry, &rm, &rd);
		ref.ref_ms = ctx->ref_ms;
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
static bool
clock_tod_at(const char *c)
{
	return (clock_isdigit(c[-2]) && clock_isdigit(c[-1]) &&
	    clock_isdigit(c[1]) && clock_isdigit(c[2]) && c[3] == ':' &&
	    clock_isdigit(c[4]) && clock_isdigit(c[5]));
}

/*
 * Is there an "HH:MM:SS" in [p, end), as clock_tod would read one: two
 * digits, a colon, two digits, a colon, two digits?  Sixteen places at a
 * time are tried for a colon with another three bytes on: a line with no
 * time (an NCCL line's "host:pid:tid") has colons, but seldom so.
 */
static bool
clock_has_tod(const char *p, const char *end)
{
	const char	*c;
#if defined(__SSE2__)
	const __m128i	 colon = _mm_set1_epi8(':');
	__m128i		 a, b;
	unsigned	 m;
#endif

	if (end - p < 8)
		return (false);
	c = p + 2;
#if defined(__SSE2__)
	/* The last place tried, c + 15, must have its c[5] before end. */
	for (; end - c >= 21; c += 16) {
		a = _mm_loadu_si128((const __m128i *)(const void *)c);
		b = _mm_loadu_si128((const __m128i *)(const void *)(c + 3));
		m = (unsigned)_mm_movemask_epi8(_mm_and_si128(
		    _mm_cmpeq_epi8(a, colon), _mm_cmpeq_epi8(b, colon)));
		for (; m != 0; m &= m - 1) {
			if (clock_tod_at(c + __builtin_ctz(m)))
				return (true);
		}
	}
#endif
	for (; end - c >= 6; c++) {
		if (*c == ':' && clock_tod_at(c))
			return (true);
	}
	return (false);
}

/* Step over an ANSI SGR sequence such as ESC[1;36m. */
static const char *
clock_peel_sgr(const char *p, const char *end)
{
	const char	*q = p + 2;

	if (end - p < 3 || p[0] != '\033' || p[1] != '[')
		return (p);
	while (q < end && q - p < 16 && (clock_isdigit(*q) || *q == ';'))
		q++;
	if (q == end || *q < '@' || *q > '~')
		return (p);
	return (q + 1);
}

/* Step over [rank3]: or [default3]: (torch, torchrun --tee). */
static const char *
clock_peel_rank(const char *p, const char *end)
{
	const char	*q;
	int64_t		 v;
	size_t		 n;

	if (p == end || *p != '[')
		return (p);
	if (end - p > 6 && memcmp(p, "[rank", 5) == 0)
		q = p + 5;
	else if (end - p > 9 && memcmp(p, "[default", 8) == 0)
		q = p + 8;
	else
		return (p);
	n = clock_run(q, end, 7, &v);
	if (n == 0 || end - q < (ptrdiff_t)n + 2 || q[n] != ']' ||
	    q[n + 1] != ':')
		return (p);
	return (q + n + 2);
}

/* Step over "(Name pid=N) " of vLLM and Ray workers, maybe in colour. */
static const char *
clock_peel_proc(const char *p, const char *end)
{
	const char	*q, *close, *s;

	if (p == end || *p != '(')
		return (p);
	/* The name within 96 bytes, and a pid in it. */
	if ((q = memchr(p + 1, ')', (size_t)(end - p - 1 < 95 ? end - p - 1 :
	    95))) == NULL)
		return (p);
	/* A "pid=" in it: at an '=', of which a name has few. */
	for (s = p + 1; s < q && (s = memchr(s, '=', (size_t)(q - s))) !=
	    NULL; s++) {
		if (s - p >= 4 && s[-3] == 'p' && s[-2] == 'i' && s[-1] == 'd')
			break;
	}
	if (s == NULL || s >= q)
		return (p);
	close = clock_peel_sgr(q + 1, end);
	if (close == end || *close != ' ')
		return (p);
	return (close + 1);
}

/*
 * The bytes of a label clock_peel_label steps over: 1 for each, 3 for a
 * digit (letters, digits, '-', '.', '_').
 */
static const uint8_t clock_label_bytes[256] = {
	['-'] = 1, ['.'] = 1, ['_'] = 1,
	['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3,
	['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
	['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
	['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
	['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
	['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
};

/*
 * Step over "  3: " (srun -l) or "node07: " (pdsh, clush): a label of
 * digits, or a host name with a digit in it, then ": ".  A word without a
 * digit ("slurmstepd: ", "RuntimeError: ") is a message and stays.
 */
static const char *
clock_peel_label(const char *p, const char *end)
{
	const char	*q = p, *lim = end - p > 64 ? p + 64 : end;
	unsigned	 k, seen = 0;

	while (q < end && *q == ' ' && q - p < 6)
		q++;
	/* Every line is tried: a table, not a chain of ranges, per byte. */
	for (; q < lim && ((k = clock_label_bytes[(unsigned char)*q]) & 1);
	    q++)
		seen |= k;
	if (!(seen & 2) || end - q < 2 || q[0] != ':' || q[1] != ' ')
		return (p);
	return (q + 2);
}

/*
 * Skip the line prefixes attrib.c peels, in case a caller has not: they
 * would hide a time that starts the payload.
 */
static const char *
clock_peel(const char *p, const char *end)
{
	const char	*q;
	int		 i;

	for (i = 0; i < CLOCK_PEELS; i++) {
		q = clock_peel_sgr(p, end);
		q = clock_peel_rank(q, end);
		q = clock_peel_proc(q, end);
		q = clock_peel_label(q, end);
		if (q == p)
			break;
		p = q;
	}
	return (p);
}

/* Start a source: no form seen yet, and the reference for missing years. */
void
clock_init(struct clock_ctx *ctx, int64_t ref_epoch_s)
{
	struct tm	tm;
	time_t		t = (time_t)ref_epoch_s;

	memset(ctx, 0, sizeof *ctx);
	if (localtime_r(&t, &tm) == NULL) {
		ctx->ref_ms = ref_epoch_s * 1000;
		return;
	}
	ctx->ref_ms = (clock_days(tm.tm_year + 1900, tm.tm_mon + 1,
	    tm.tm_mday) * 86400 + tm.tm_hour * 3600 + tm.tm_min * 60 +
	    tm.tm_sec) * 1000;
}

/*
 * Find the time of a line from p, past its prefixes.  The last form is
 * tried first: a source keeps to one form, so most lines cost one parser.
 */
static inline __attribute__((always_inline)) bool
clock_parse_at(struct clock_ctx *ctx, const char *p, const char *end,
    struct rl_time *out)
{
	const char	*q;
	clock_fn	 first = NULL, second = NULL;
	struct rl_time	 t;
	size_t		 i;
	bool		 tod;

	if (ctx->form < CLOCK_NFORMS)
		first = clock_forms[ctx->form].parser;
	if (ctx->form2 < CLOCK_NFORMS)
		second = clock_forms[ctx->form2].parser;
	if (second == first)
		second = NULL;
	if ((first == NULL || !first(ctx, p, end, &t)) &&
	    (second == NULL || !second(ctx, p, end, &t))) {
		/* Every form has a digit: a line without one has no time. */
		for (q = p; q < end && !clock_isdigit(*q); q++)
			;
		if (q == end)
			return (false);
		tod = clock_has_tod(q, end);
		for (i = 0; i < nitems(clock_parsers); i++) {
			if ((tod || !clock_parsers[i].tod) &&
			    clock_parsers[i].fn != first &&
			    clock_parsers[i].fn != second &&
			    clock_parsers[i].fn(ctx, p, end, &t))
				break;
		}
		if (i == nitems(clock_parsers))
			return (false);
	}
	if (t.form != ctx->form) {
		ctx->form2 = ctx->form;
		ctx->form = t.form;
	}
	ctx->seen[t.form]++;
	*out = t;
	return (true);
}

bool
clock_parse(struct clock_ctx *ctx, const char *s, size_t len,
    struct rl_time *out)
{
	if (s == NULL || len == 0)
		return (false);
	return (clock_parse_at(ctx, clock_peel(s, s + len), s + len, out));
}

/*
 * The time of a line whose message starts at off, past prefixes a caller
 * peeled: the message's, else the whole line's (syslog's and journald's
 * prefixes carry the time).  Where both come to the same place once this
 * file's peels are done, the line is not read twice: a parse that failed
 * changed nothing, so it would fail again.
 */
bool
clock_parse_msg(struct clock_ctx *ctx, const char *line, size_t len,
    size_t off, struct rl_time *out)
{
	const char	*end = line + len, *p = NULL, *q;

	if (line == NULL || len == 0)
		return (false);
	if (off < len &&
	    clock_parse_at(ctx, p = clock_peel(line + off, end), end, out))
		return (true);
	if (off == 0 || (q = clock_peel(line, end)) == p)
		return (false);
	return (clock_parse_at(ctx, q, end, out));
}

/*
 * The instant of a time, for ordering: a zoned time by its offset, an
 * unzoned one in this process's zone (the zone the log was most likely
 * written in), a boot time as it is.
 */
int64_t
clock_utc_ms(const struct rl_time *t)
{
	/*
	 * mktime is slow (glibc stats /etc/localtime on every call when TZ is
	 * unset) and a sort compares millions of pairs, so the local offset is
	 * cached per wall-clock hour: zones change on hour boundaries.
	 */
	/* Per thread: batch reading runs a worker on each core. */
	static _Thread_local struct {
		bool	used;
		int64_t	hour;	/* wall-clock hour */
		int64_t	off;	/* utc - wall, in ms */
	} cache[64];
	struct tm	tm;
	time_t		s;
	int64_t		days, tod, hour;
	int		y, m, d, slot;

	if (!(t->flags & RL_TIME_VALID))
		return (INT64_MAX);
	if (t->flags & RL_TIME_BOOT)
		return (t->ms);
	if (t->flags & RL_TIME_ZONED)
		return (t->ms - t->tz_min * 60000LL);
	hour = t->ms >= 0 ? t->ms / 3600000 : (t->ms - 3599999) / 3600000;
	slot = (int)(((uint64_t)hour) % 64);
	if (cache[slot].used && cache[slot].hour == hour)
		return (t->ms + cache[slot].off);
	days = clock_split(hour * 3600000, &tod);
	clock_civil(days, &y, &m, &d);
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	tm.tm_hour = (int)(tod / 3600000);
	tm.tm_isdst = -1;
	if ((s = mktime(&tm)) == (time_t)-1)
		return (t->ms);
	cache[slot].used = true;
	cache[slot].hour = hour;
	cache[slot].off = (int64_t)s * 1000 - hour * 3600000;
	return (t->ms + cache[slot].off);
}

/* Write a zone as ISO 8601 does: Z for UTC, else +HH:MM. */
static int
clock_format_zone(int tz_min, char *buf, size_t sz)
{
	int	tz = tz_min < 0 ? -tz_min : tz_min;

	if (tz == 0)
		return (snprintf(buf, sz, "Z"));
	return (snprintf(buf, sz, "%c%02d:%02d", tz_min < 0 ? '-' : '+',
	    tz / 60, tz % 60));
}

/* Write v, 0 <= v < 10^n, as n digits. */
static void
clock_digits(char *p, int v, int n)
{
	while (n-- > 0) {
		p[n] = (char)('0' + v % 10);
		v /= 10;
	}
}

/* Write a time as the log meant it: ISO 8601 with ms, the zone if given. */
size_t
clock_format(const struct rl_time *t, char *buf, size_t sz)
{
	int64_t	days, tod;
	int	y, m, d, n;

	if (sz == 0)
		return (0);
	if (!(t->flags & RL_TIME_VALID))
		n = snprintf(buf, sz, "%s", "");
	else if (t->flags & RL_TIME_BOOT)
		n = snprintf(buf, sz, "+%lld.%03d", (long long)(t->ms / 1000),
		    (int)(t->ms % 1000));
	else {
		days = clock_split(t->ms, &tod);
		clock_civil(days, &y, &m, &d);
		if (y >= 0 && y <= 9999 && sz > 23) {
			/* By hand: a report formats every event's time. */
			clock_digits(buf, y, 4);
			buf[4] = '-';
			clock_digits(buf + 5, m, 2);
			buf[7] = '-';
			clock_digits(buf + 8, d, 2);
			buf[10] = 'T';
			clock_digits(buf + 11, (int)(tod / 3600000), 2);
			buf[13] = ':';
			clock_digits(buf + 14, (int)(tod / 60000 % 60), 2);
			buf[16] = ':';
			clock_digits(buf + 17, (int)(tod / 1000 % 60), 2);
			buf[19] = '.';
			clock_digits(buf + 20, (int)(tod % 1000), 3);
			buf[23] = '\0';
			n = 23;
		} else
			n = snprintf(buf, sz,
			    "%04d-%02d-%02dT%02d:%02d:%02d.%03d", y, m, d,
			    (int)(tod / 3600000), (int)(tod / 60000 % 60),
			    (int)(tod / 1000 % 60), (int)(tod % 1000));
		if (n > 0 && (size_t)n < sz && (t->flags & RL_TIME_ZONED))
			n += clock_format_zone(t->tz_min, buf + n, sz - n);
	}
	if (n < 0)
		return (0);
	return ((size_t)n < sz ? (size_t)n : sz - 1);
}

/*
 * The form most of a source's timed lines had: what the source is said to
 * be written in (the last form met may be a stray line's).
 */
unsigned
clock_form_main(const struct clock_ctx *ctx)
{
	unsigned	i, best = CLOCK_NONE;

	for (i = 1; i < CLOCK_NFORMS; i++) {
		if (ctx->seen[i] > ctx->seen[best])
			best = i;
	}
	return (best);
}

/* The stable name of a form, as stored and shown. */
const char *
clock_form_name(unsigned form)
{
	if (form >= CLOCK_NFORMS)
		return ("none");
	return (clock_forms[form].name);
}

/* Order two times by their instant; a line without a time sorts last. */
int
clock_cmp_any(const struct rl_time *a, const struct rl_time *b)
{
	int64_t	x, y;
	bool	va = a->flags & RL_TIME_VALID, vb = b->flags & RL_TIME_VALID;

	if (!va || !vb)
		return (va == vb ? 0 : (va ? -1 : 1));
	/*
	 * Two wall-clock readings of one zone compare as written; only a
	 * mixed pair needs the local zone (mktime is far too slow to run
	 * on every line).
	 */
	if (((a->flags ^ b->flags) & (RL_TIME_ZONED | RL_TIME_BOOT)) == 0 &&
	    !(a->flags & RL_TIME_ZONED))
		return (a->ms < b->ms ? -1 : a->ms > b->ms);
	x = clock_utc_ms(a);
	y = clock_utc_ms(b);
	return (x < y ? -1 : x > y);
}
