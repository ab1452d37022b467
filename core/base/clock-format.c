/*
 * clock-format.c: a parsed time as an instant, for ordering times of
 * different zones, and as ISO 8601 text, as the log meant it.
 */

#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L	/* mktime */
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock-int.h"

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
