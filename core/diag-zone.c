/*
 * diag-zone.c: a source whose local times are in another zone than ours.
 *
 * A time written without a zone is read in this process's zone, which is
 * the on-call engineer's, not the cluster's.  Mostly that is harmless: a
 * job's times are all shifted alike.  It is not when one log holds both
 * kinds: MLPerf's :::MLLOG lines carry time_ms, an epoch, beside the
 * framework's own local wall clock; a wrapper may print ISO times in UTC
 * beside Python's asctime.  Read as they stand, the two kinds sit hours
 * apart, the axis spreads over them and the rows between are empty.
 *
 * Lines of one source were written in the order they stand, so a local
 * line right after a zoned one was written no earlier than it, and one
 * right before, no later.  Those neighbours bound how far the local times
 * read ahead: at most the least "after" difference, at least the greatest
 * "before" one.  A time zone is a whole number of quarter hours; when
 * exactly one such offset, not zero, fits the bounds (and with bounds on
 * one side only, lies within a minute of the bound), the source's local
 * times are taken as written in that zone: they become zoned times, so
 * that every comparison, the axis and the output read them rightly, and
 * the answer says so.  As host skew is found from the step lines every
 * rank prints, this is found from the lines a source prints.
 *
 * A host whose files hold local times only is matched with the zoned
 * lines of the job's other hosts instead (diag-clocks.c); its sources
 * are then read here as these are.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define ZONE_QUARTER	(15 * 60 * 1000LL)
#define ZONE_MAX	(14 * 60 * 60 * 1000LL)	/* UTC+14 */
#define ZONE_SLACK	2000		/* a line's own second rounding */
#define ZONE_NEAR	60000		/* one-sided: the bound is this close */

static bool
zone_local(const struct rl_time *t)
{
	return (t->flags & (RL_TIME_VALID | RL_TIME_ZONED | RL_TIME_BOOT)) ==
	    RL_TIME_VALID;
}

/* The quarter hours q, lo <= q <= hi, q != 0: how many, and the last. */
static int
zone_quarters(int64_t lo, int64_t hi, int64_t *q)
{
	int64_t	k, first, n = 0;

	if (lo > hi)
		return (0);
	/* The first multiple at or above lo. */
	first = lo >= 0 ? (lo + ZONE_QUARTER - 1) / ZONE_QUARTER :
	    -((-lo) / ZONE_QUARTER);
	for (k = first; k * ZONE_QUARTER <= hi && n < 3; k++) {
		if (k == 0)
			return (0);	/* no offset fits as well as one */
		*q = k * ZONE_QUARTER;
		n++;
	}
	return ((int)n);
}

/* How far a source's local times read ahead, from its bounds; 0: unsaid. */
static int64_t
zone_of(const struct rl_source *s)
{
	int64_t	lo = s->zone_lo, hi = s->zone_hi, q = 0;
	int	n;

	if (s->zone_samples == 0)
		return (0);
	if (lo != INT64_MIN && hi != INT64_MAX)
		n = zone_quarters(lo - ZONE_SLACK, hi + ZONE_SLACK, &q);
	else if (hi != INT64_MAX)
		n = zone_quarters(hi - ZONE_NEAR, hi + ZONE_SLACK, &q);
	else
		n = zone_quarters(lo - ZONE_SLACK, lo + ZONE_NEAR, &q);
	return (n == 1 && q >= -ZONE_MAX && q <= ZONE_MAX ? q : 0);
}

/* A local time, read fix ms earlier, as the zoned time it is. */
static void
zone_apply(struct rl_time *t, int64_t fix)
{
	int64_t	utc;

	if (!zone_local(t))
		return;
	utc = clock_utc_ms(t) - fix;
	t->tz_min = (int16_t)((t->ms - utc) / 60000);
	t->flags |= RL_TIME_ZONED;
}

/* The earliest and latest times again, each local one read in its zone. */
static void
zone_window(struct rl_incident *inc)
{
	const struct rl_source	*s;
	struct rl_time		 lo, hi;
	size_t			 i;

	inc->start = inc->zoned_start;
	inc->end = inc->zoned_end;
	for (i = 0; i < inc->nsources; i++) {
		s = inc->sources[i];
		if (!(s->local_lo.flags & RL_TIME_VALID))
			continue;
		lo = s->local_lo;
		hi = s->local_hi;
		zone_apply(&lo, s->zone_fix_ms);
		zone_apply(&hi, s->zone_fix_ms);
		if (!(inc->start.flags & RL_TIME_VALID) ||
		    clock_cmp(&lo, &inc->start) < 0)
			inc->start = lo;
		if (!(inc->end.flags & RL_TIME_VALID) ||
		    clock_cmp(&hi, &inc->end) > 0)
			inc->end = hi;
	}
}

/*
 * Find the sources whose local times are in another zone, read them so,
 * and list them in the answer.  Before the events are ordered.
 */
void
zone_estimate(struct rl_incident *inc)
{
	struct rl_answer	*a = &inc->answer;
	struct rl_source	*s;
	struct rl_event		*e;
	struct rl_time		 t;
	size_t			 i;
	bool			 any = false;

	for (i = 0; i < inc->nsources; i++) {
		s = inc->sources[i];
		s->zone_fix_ms = zone_of(s);
		s->zone_matched = 0;
	}
	/* Then a host all in local time, against the others' zoned lines. */
	clocks_match(inc);
	for (i = 0; i < inc->nsources; i++)
		any |= inc->sources[i]->zone_fix_ms != 0;
	if (!any)
		return;
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if ((s = inc->sources[e->source])->zone_fix_ms != 0)
			zone_apply(&e->time, s->zone_fix_ms);
	}
	for (i = 0; i < inc->nprocs; i++) {
		if (inc->procs[i]->last_source >= 0 && (s = inc->sources[
		    inc->procs[i]->last_source])->zone_fix_ms != 0)
			zone_apply(&inc->procs[i]->last, s->zone_fix_ms);
	}
	for (i = 0; i < inc->nsources; i++) {
		s = inc->sources[i];
		if (s->zone_fix_ms == 0)
			continue;
		zone_apply(&s->first, s->zone_fix_ms);
		zone_apply(&s->last, s->zone_fix_ms);
		a->zones = xreallocarray(a->zones, a->nzones + 1,
		    sizeof *a->zones);
		a->zones[a->nzones].source = s->index;
		/* The zone is what reading a local time so makes of it. */
		t = s->local_lo;
		zone_apply(&t, s->zone_fix_ms);
		a->zones[a->nzones].tz_min = t.tz_min;
		a->zones[a->nzones].matched = s->zone_matched;
		a->nzones++;
	}
	zone_window(inc);
}
