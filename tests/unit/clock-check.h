/*
 * clock-check.h: what test-clock.c and test-clock-lnav.c share: checks
 * reported as skipped, paths, the process's zone, a touch -t reference,
 * and parsing from a buffer of exactly a line's length.
 */
#ifndef RL_CLOCK_CHECK_H
#define RL_CLOCK_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "tap.h"

/* Report a skipped check the way automake's TAP driver reads it. */
static inline void
tap_skip(const char *why)
{
	tap_n++;
	printf("ok %d # SKIP %s\n", tap_n, why);
	fflush(stdout);
}

/* Join a folder and a file name; false if the path does not fit. */
static inline bool
join(char *buf, size_t sz, const char *dir, const char *name)
{
	int	n = snprintf(buf, sz, "%s/%s", dir, name);

	return (n > 0 && (size_t)n < sz);
}

/* Set the zone of the process, as a user's TZ would. */
static inline void
set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

/* Epoch seconds of a touch -t stamp (YYYYMMDDhhmm) in the local zone. */
static inline int64_t
ref_of(const char *stamp)
{
	struct tm	tm;
	int		i, v[5] = { 0 }, w[5] = { 4, 2, 2, 2, 2 };
	const char	*p = stamp;

	for (i = 0; i < 5; i++) {
		for (; w[i] > 0; w[i]--)
			v[i] = v[i] * 10 + (*p++ - '0');
	}
	memset(&tm, 0, sizeof tm);
	tm.tm_year = v[0] - 1900;
	tm.tm_mon = v[1] - 1;
	tm.tm_mday = v[2];
	tm.tm_hour = v[3];
	tm.tm_min = v[4];
	tm.tm_isdst = -1;
	return ((int64_t)mktime(&tm));
}

/* Parse from a malloc'd copy of exactly len bytes: no NUL to lean on. */
static inline bool
parse_exact(struct clock_ctx *ctx, const char *s, size_t len,
    struct rl_time *t)
{
	char	*copy;
	bool	 found;

	if ((copy = malloc(len ? len : 1)) == NULL)
		abort();
	memcpy(copy, s, len);
	found = clock_parse(ctx, copy, len, t);
	free(copy);
	return (found);
}

/* The shared test data: $RL_SHARED, else ../shared. */
static inline const char *
shared_dir(void)
{
	const char	*dir = getenv("RL_SHARED");

	return (dir != NULL && *dir != '\0' ? dir : "../shared");
}

#endif
