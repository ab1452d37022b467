/*
 * fuzz-clock.c: the clock parser (core/base/clock.c) over lines of any bytes.
 *
 * The input: a byte that moves the reference instant (by weeks, either
 * way), a byte that says where clock_parse_msg's message starts, then
 * lines.  Each line is parsed from a copy of exactly its length, with no
 * NUL after it, so that a read past the end is AddressSanitizer's to see.
 *
 * Checked beyond the sanitizers, with TZ=UTC (so that an unzoned time's
 * instant is what it reads):
 *  - clock_format never writes past its buffer, and ends it with a NUL;
 *  - clock_cmp orders every pair of times by clock_utc_ms, the times of
 *    no line last;
 *  - a wall-clock time of the years 1971 to 2099, formatted, parses back
 *    to the same instant and zone.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MAX_TIMES	32	/* times compared pairwise per input */

/* A sign: -1, 0 or 1. */
static int
sgn(int64_t v)
{
	return (v > 0) - (v < 0);
}

/* clock_format into buffers of every small size, then a roomy one. */
static void
check_format(const struct rl_time *t)
{
	char	 full[128], *small;
	size_t	 sz, n, full_n;

	full_n = clock_format(t, full, sizeof full);
	if (full_n >= sizeof full || full[full_n] != '\0' ||
	    strlen(full) != full_n)
		fuzz_fail("clock_format: %zu bytes, not NUL-ended", full_n);
	for (sz = 1; sz <= full_n + 1; sz++) {
		small = xmalloc(sz);
		n = clock_format(t, small, sz);
		if (n >= sz || small[n] != '\0' || strncmp(small, full, n) != 0)
			fuzz_fail("clock_format in %zu bytes: %zu", sz, n);
		free(small);
	}
}

/* A formatted wall-clock time reads back as the same instant and zone. */
static void
check_round_trip(const struct rl_time *t)
{
	struct clock_ctx ctx;
	struct rl_time	 u = { 0 };
	char		 s[64], *copy;
	size_t		 n;

	if (!(t->flags & RL_TIME_VALID) || (t->flags & RL_TIME_BOOT) ||
	    t->ms < 31536000000LL || t->ms >= 4102444800000LL ||
	    t->tz_min < -14 * 60 || t->tz_min > 14 * 60)
		return;
	n = clock_format(t, s, sizeof s);
	copy = xmalloc(n);
	memcpy(copy, s, n);
	clock_init(&ctx, FUZZ_REF_EPOCH);
	if (!clock_parse(&ctx, copy, n, &u) || u.ms != t->ms ||
	    (u.flags & RL_TIME_ZONED) != (t->flags & RL_TIME_ZONED) ||
	    ((t->flags & RL_TIME_ZONED) && u.tz_min != t->tz_min))
		fuzz_fail("\"%s\" (ms %lld, tz %d, form %s) reads back as ms "
		    "%lld, tz %d, flags %u", s, (long long)t->ms, t->tz_min,
		    clock_form_name(t->form), (long long)u.ms, u.tz_min,
		    u.flags);
	free(copy);
}

/* Every pair is ordered as their instants are. */
static void
check_order(const struct rl_time *v, size_t n)
{
	size_t	i, j;
	int	c, want;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			c = clock_cmp(&v[i], &v[j]);
			want = sgn(clock_utc_ms(&v[i]) - clock_utc_ms(&v[j]));
			/* clock_utc_ms of no time is INT64_MAX: last. */
			if (clock_utc_ms(&v[i]) == INT64_MAX ||
			    clock_utc_ms(&v[j]) == INT64_MAX)
				want = (clock_utc_ms(&v[i]) == INT64_MAX) -
				    (clock_utc_ms(&v[j]) == INT64_MAX);
			if (sgn(c) != want || sgn(c) != -sgn(clock_cmp(&v[j],
			    &v[i])))
				fuzz_fail("clock_cmp(%lld/%u, %lld/%u) = %d",
				    (long long)v[i].ms, v[i].flags,
				    (long long)v[j].ms, v[j].flags, c);
		}
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("TZ", "UTC", 1);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct clock_ctx ctx;
	struct rl_time	 times[MAX_TIMES], t;
	const char	*p, *end, *nl;
	char		*copy;
	size_t		 n, off, nt = 0;

	if (size < 2)
		return 0;
	clock_init(&ctx, FUZZ_REF_EPOCH + (int8_t)data[0] * 7 * 86400LL);
	p = (const char *)data + 2;
	end = (const char *)data + size;
	for (; p <= end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		n = (size_t)(nl - p);
		copy = xmalloc(n != 0 ? n : 1);
		memcpy(copy, p, n);
		memset(&t, 0, sizeof t);
		if (clock_parse(&ctx, copy, n, &t)) {
			check_format(&t);
			check_round_trip(&t);
			if (nt < MAX_TIMES)
				times[nt++] = t;
		}
		/* The message after a prefix someone peeled. */
		off = n == 0 ? 0 : data[1] % (n + 1);
		memset(&t, 0, sizeof t);
		if (clock_parse_msg(&ctx, copy, n, off, &t)) {
			check_format(&t);
			if (nt < MAX_TIMES)
				times[nt++] = t;
		}
		free(copy);
	}
	memset(&t, 0, sizeof t);	/* a line without a time */
	if (nt < MAX_TIMES)
		times[nt++] = t;
	check_order(times, nt);
	(void)clock_form_name(clock_form_main(&ctx));
	return 0;
}
