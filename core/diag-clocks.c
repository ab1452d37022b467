/*
 * diag-clocks.c: a host whose logs are all in local time, beside
 * another whose logs carry a zone (ISO times with Z, epochs).
 *
 * diag-zone.c finds a zone from the lines of one source, when it holds
 * both kinds.  Here the two kinds are in different files of one job: one
 * node writes UTC, another its own local wall clock without a zone.  Read
 * as they stand, that node's lines sit hours away from the others' and
 * the axis spreads over the hours between.
 *
 * As diag-skew.c measures host skew, the events every rank prints about
 * at once are matched across the two clocks: a training step by its
 * number, and for every other rule its first line (a rendezvous, a launch,
 * a collective's timeout).  For each such key seen on a host of local
 * times and among the zoned lines, the difference of the two (the median
 * of the host's step lines, against the median of the zoned ones; a rule's
 * first line against the zoned lines' first) is one sample.  A skew is
 * seconds; a zone is a whole number of quarter hours, and the samples of
 * a zone all fall within a minute of the same one.  Only then, and never
 * from fewer than ZONE_MIN_MATCH samples, are that host's local times
 * read in that zone.  A job whose lines all have one kind of clock has
 * nothing to match and gets no zone.
 *
 * A host is the unit, since all its files share one wall clock: its
 * launcher's log, which prints no steps, is read in the zone its ranks'
 * step lines showed.  A source with no host from its path stands alone.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define ZONE_QUARTER	(15 * 60 * 1000LL)
#define ZONE_MAX	(14 * 60 * 60 * 1000LL)	/* UTC+14 */
#define ZONE_NEAR_MS	60000	/* a sample within a minute of the zone */

/*
 * Why three: one or two matched lines can sit a quarter hour apart by
 * chance (a step printed after a stall, a launcher restarted an hour
 * later), three independent ones within the same minute of one quarter
 * hour do not; and each of a job's steps is one more sample, so a job
 * that ran at all has them.
 */
#define ZONE_MIN_MATCH	3

#define KEY_STEP	0	/* a step line, by its number */
#define KEY_RULE	1	/* a rule's first line */
#define UNIT_ZONED	SIZE_MAX /* the zoned lines, the reference */

/* One line that can be matched: which key, whose clock, when. */
struct zsample {
	int		 kind;		/* KEY_STEP or KEY_RULE */
	int64_t		 key;		/* the step, or the rule's identity */
	size_t		 unit;		/* the host's unit, or UNIT_ZONED */
	int64_t		 ms;		/* as read (local times in our zone) */
};

/* A unit's difference to the zoned lines at one key. */
struct zdiff {
	size_t		 unit;
	int64_t		 d;		/* local minus zoned, ms */
};

/* Order samples by key, unit (the zoned last), time. */
static int
clocks_sample_cmp(const void *a, const void *b)
{
	const struct zsample	*x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return (x->ms > y->ms) - (x->ms < y->ms);
}

/* Order differences by unit, then size. */
static int
clocks_diff_cmp(const void *a, const void *b)
{
	const struct zdiff	*x = a, *y = b;

	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d);
}

/* Order milliseconds. */
static int
clocks_int64_cmp(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The zone the differences d (sorted in place) agree on, in ms, or 0; *agree
 * is how many lie within a minute of it.  Their median is rounded to the
 * nearest quarter hour; a zone needs ZONE_MIN_MATCH samples there and three
 * quarters of all (a few rules' first lines may be far apart for reasons of
 * their own, a step number reused by another attempt).
 */
int64_t
clocks_cluster(int64_t *d, size_t n, size_t *agree)
{
	int64_t	m, q;
	size_t	i, k = 0;

	*agree = 0;
	if (n < ZONE_MIN_MATCH)
		return 0;
	qsort(d, n, sizeof *d, clocks_int64_cmp);
	m = d[(n - 1) / 2];
	q = m >= 0 ? (m + ZONE_QUARTER / 2) / ZONE_QUARTER :
	    -((-m + ZONE_QUARTER / 2) / ZONE_QUARTER);
	q *= ZONE_QUARTER;
	if (q == 0 || q > ZONE_MAX || q < -ZONE_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		if (llabs(d[i] - q) <= ZONE_NEAR_MS)
			k++;
	}
	if (k < ZONE_MIN_MATCH || 4 * k < 3 * n)
		return 0;
	*agree = k;
	return q;
}

/* A line whose own time can be matched across clocks. */
static bool
clocks_usable(const struct rl_event *e)
{
	return e->rule != NULL && e->guess == TIME_OWN && !e->weak &&
	    (e->time.flags & (RL_TIME_VALID | RL_TIME_BOOT)) == RL_TIME_VALID;
}

/*
 * Each source's unit: the first source of its host, or itself.  Marks in
 * pure[] the sources whose times all lack a zone and diag-zone.c left.
 */
static void
clocks_units(const struct rl_incident *inc, size_t *unit, bool *pure)
{
	const struct rl_source	*s;
	const struct rl_event	*e;
	struct keymap		 first = { 0 };	/* host -> its first source + 1 */
	uintptr_t		 was;
	size_t			 i;

	for (i = 0; i < inc->nsources; i++) {
		s = inc->sources[i];
		unit[i] = i;
		/*
		 * Looked up: compared with every source before, 10,000
		 * hosts were 50 million strcmp.
		 */
		if (s->host != NULL && (was = (uintptr_t)keymap_put(&first,
		    NULL, s->host, (void *)(uintptr_t)(i + 1))) != 0) {
			unit[i] = unit[was - 1];
			keymap_put(&first, NULL, s->host, (void *)was);
		}
		pure[i] = s->zone_fix_ms == 0 &&
		    (s->local_lo.flags & RL_TIME_VALID);
	}
	keymap_clear(&first);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if ((e->time.flags & RL_TIME_ZONED) && e->source < inc->nsources)
			pure[e->source] = false;
	}
}

/* The sample of an event that can be matched, as the caller filters. */
static void
clocks_sample_of(const struct rl_event *e, const size_t *unit,
    struct zsample *z)
{
	if (e->rule->mark == MARK_STEP &&
	    event_cap(e, CAP_STEP) != RL_CAP_UNSET) {
		z->kind = KEY_STEP;
		z->key = event_cap(e, CAP_STEP);
	} else {
		z->kind = KEY_RULE;
		z->key = (int64_t)(intptr_t)e->rule;
	}
	z->unit = (e->time.flags & RL_TIME_ZONED) ? UNIT_ZONED :
	    unit[e->source];
	z->ms = clock_utc_ms(&e->time);
}

/* Order samples by key alone. */
static int
clocks_key_cmp(const void *a, const void *b)
{
	const struct zsample	*x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/*
 * The samples of both kinds of clock, sorted; their count in *n.  A key
 * no zoned line has gives no difference (clocks_diffs), so only the keys
 * of zoned lines are sampled on the other clocks: a job with no zoned line
 * sorts nothing, where it sorted each rank's step lines.
 */
static struct zsample *
clocks_samples(const struct rl_incident *inc, const size_t *unit,
    const bool *pure, size_t *n)
{
	struct zsample		*v = NULL, *keys, z;
	const struct rl_event	*e;
	size_t			 i, nz, cap = 0;
	int			 zoned;

	*n = 0;
	/* The zoned lines first, then the others at their keys. */
	for (zoned = 1, nz = 0; zoned >= 0; zoned--) {
		keys = NULL;
		if (!zoned) {
			if ((nz = *n) == 0)
				return v;
			keys = xreallocarray(NULL, nz, sizeof *keys);
			memcpy(keys, v, nz * sizeof *keys);
			qsort(keys, nz, sizeof *keys, clocks_key_cmp);
		}
		for (i = 0; i < inc->nevents; i++) {
			e = inc->events[i];
			if (!clocks_usable(e) || e->source >= inc->nsources ||
			    inc->sources[e->source]->zone_fix_ms != 0)
				continue;
			if (!(e->time.flags & RL_TIME_ZONED) != !zoned ||
			    (!zoned && !pure[e->source]))
				continue;
			clocks_sample_of(e, unit, &z);
			if (keys != NULL && bsearch(&z, keys, nz, sizeof *keys,
			    clocks_key_cmp) == NULL)
				continue;
			v = array_grow(v, *n + 1, &cap, sizeof *v);
			v[(*n)++] = z;
		}
		free(keys);
	}
	if (*n > 1)
		qsort(v, *n, sizeof *v, clocks_sample_cmp);
	return v;
}

/* One time for a key on a clock: a step's median, a rule's first. */
static int64_t
clocks_collapse(const struct zsample *v, size_t n)
{
	return v[0].kind == KEY_STEP ? v[(n - 1) / 2].ms : v[0].ms;
}

/* The differences of every unit to the zoned lines, key by key, by unit. */
static struct zdiff *
clocks_diffs(const struct zsample *v, size_t n, size_t *nd)
{
	struct zdiff	*d = NULL;
	size_t		 i, j, k, u, m, cap = 0;
	int64_t		 ref;

	*nd = 0;
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && v[j].kind == v[i].kind &&
		    v[j].key == v[i].key; j++)
			;
		/* The zoned lines sort last: the key's run ends with them. */
		for (k = j; k > i && v[k - 1].unit == UNIT_ZONED; k--)
			;
		if (k == j || k == i)
			continue;
		ref = clocks_collapse(&v[k], j - k);
		for (u = i; u < k; u = m) {
			for (m = u; m < k && v[m].unit == v[u].unit; m++)
				;
			d = array_grow(d, *nd + 1, &cap, sizeof *d);
			d[*nd].unit = v[u].unit;
			d[*nd].d = clocks_collapse(&v[u], m - u) - ref;
			(*nd)++;
		}
	}
	if (*nd > 1)
		qsort(d, *nd, sizeof *d, clocks_diff_cmp);
	return d;
}

/*
 * Find the hosts whose local times match the zoned lines at one zone, and
 * set zone_fix_ms and zone_matched of their sources (diag-zone.c reads
 * them so).  Only sources diag-zone.c found nothing for are looked at.
 */
void
clocks_match(struct rl_incident *inc)
{
	struct zsample	*v;
	struct zdiff	*d;
	int64_t		*t, *zone, q;
	size_t		*unit, *matched, nv, nd, i, j, k, agree;
	bool		*pure;

	if (inc->nsources < 2)
		return;
	unit = xcalloc(inc->nsources, sizeof *unit);
	pure = xcalloc(inc->nsources, sizeof *pure);
	zone = xcalloc(inc->nsources, sizeof *zone);
	matched = xcalloc(inc->nsources, sizeof *matched);
	clocks_units(inc, unit, pure);
	v = clocks_samples(inc, unit, pure, &nv);
	d = clocks_diffs(v, nv, &nd);
	t = xreallocarray(NULL, nd + 1, sizeof *t);
	for (i = 0; i < nd; i = j) {
		for (j = i; j < nd && d[j].unit == d[i].unit; j++)
			t[j - i] = d[j].d;
		if ((q = clocks_cluster(t, j - i, &agree)) == 0)
			continue;
		zone[d[i].unit] = q;
		matched[d[i].unit] = agree;
	}
	/* Each source once, not every source for each unit with a zone. */
	for (k = 0; k < inc->nsources; k++) {
		if (pure[k] && zone[unit[k]] != 0) {
			inc->sources[k]->zone_fix_ms = zone[unit[k]];
			inc->sources[k]->zone_matched = matched[unit[k]];
		}
	}
	free(matched);
	free(zone);
	free(t);
	free(d);
	free(v);
	free(pure);
	free(unit);
}
