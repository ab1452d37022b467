/*
 * diag-skew.c: how far each host's clock is off, and ordering across hosts.
 *
 * Every rank of a data-parallel job ends a training step at the same
 * collective (the gradient all-reduce), so the step lines the ranks print
 * for one step number are written within a few milliseconds of each other,
 * whatever their clocks say.  For each step number seen on two hosts, the
 * difference of the hosts' times (the median over each host's ranks) is
 * one sample of their clocks' offset; the median of the samples is the
 * offset, and their median absolute deviation says how much to trust it.
 * The reference is the host with the most steps.
 *
 * Only step events as they are in the model are used: with sampled step
 * lines a few per rank may be all there is, and steps are matched by
 * number, never by position.  Lines whose time was inherited, copies in a
 * launcher's record and boot-relative times are left out.
 *
 * Times compared across hosts are corrected by the offsets; within the
 * tolerance (the spreads, and a floor for the print's own jitter) the order
 * is unsure, and the caller orders by causality instead.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define SKEW_FLOOR_MS	100	/* order within this is never trusted */

/* One step line: which step, which host, when. */
struct sample {
	int64_t		 step;
	size_t		 host;		/* index into the host list */
	int64_t		 ms;		/* UTC ms as logged */
};

/* Order samples by step, host, time. */
static int
sample_cmp(const void *a, const void *b)
{
	const struct sample	*x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return (x->ms > y->ms) - (x->ms < y->ms);
}

static int
int64_cmp(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The median of v (sorted in place). */
static int64_t
median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, int64_cmp);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* The index of a host in the list, added if new. */
static size_t
host_index(const char ***hosts, size_t *n, const char *h)
{
	size_t	i;

	for (i = 0; i < *n; i++) {
		if (strcmp((*hosts)[i], h) == 0)
			return i;
	}
	*hosts = xreallocarray(*hosts, *n + 1, sizeof **hosts);
	(*hosts)[*n] = h;
	return (*n)++;
}

/* Is this a step line whose own time can be compared across hosts? */
static bool
skew_usable(const struct rl_incident *inc, const struct rl_event *e)
{
	return e->rule != NULL && e->rule->mark == MARK_STEP &&
	    event_cap(e, CAP_STEP) != RL_CAP_UNSET && e->guess == TIME_OWN &&
	    !e->weak && (e->time.flags & RL_TIME_VALID) &&
	    !(e->time.flags & RL_TIME_BOOT) && event_host(inc, e) != NULL;
}

/*
 * Collapse the samples of each (step, host) to their median: one time per
 * host per step.  Returns how many remain, in place, still sorted.
 */
static size_t
skew_collapse(struct sample *s, size_t n)
{
	int64_t	*tmp;
	size_t	 i, j, k, out = 0;

	tmp = xreallocarray(NULL, n + 1, sizeof *tmp);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && s[j].step == s[i].step &&
		    s[j].host == s[i].host; j++)
			tmp[j - i] = s[j].ms;
		k = j - i;
		s[out] = s[i];
		s[out].ms = median(tmp, k);
		out++;
	}
	free(tmp);
	return out;
}

/* The host with samples at the most steps: the reference. */
static size_t
skew_reference(const struct sample *s, size_t n, const char **hosts,
    size_t nhosts)
{
	size_t	*count, i, best = 0;

	count = xcalloc(nhosts, sizeof *count);
	for (i = 0; i < n; i++)
		count[s[i].host]++;
	for (i = 1; i < nhosts; i++) {
		if (count[i] > count[best] || (count[i] == count[best] &&
		    strcmp(hosts[i], hosts[best]) < 0))
			best = i;
	}
	free(count);
	return best;
}

/*
 * Measure host h against the reference from the collapsed samples, where
 * each host has at most one time per step.
 */
static void
skew_measure(const struct sample *s, size_t n, size_t ref, size_t h,
    struct rl_skew *out)
{
	int64_t	*d, rt = 0, ht = 0;
	size_t	 i, j, k, nd = 0;
	bool	 hr, hh;

	d = xreallocarray(NULL, n + 1, sizeof *d);
	for (i = 0; i < n; i = j) {
		hr = hh = false;
		for (j = i; j < n && s[j].step == s[i].step; j++) {
			if (s[j].host == ref) {
				rt = s[j].ms;
				hr = true;
			} else if (s[j].host == h) {
				ht = s[j].ms;
				hh = true;
			}
		}
		if (hr && hh)
			d[nd++] = ht - rt;
	}
	out->samples = nd;
	if (nd > 0) {
		out->offset_ms = median(d, nd);
		for (k = 0; k < nd; k++)
			d[k] = llabs(d[k] - out->offset_ms);
		out->spread_ms = median(d, nd);
	}
	free(d);
}

/*
 * Estimate every host's offset from the step lines.  Nothing is reported
 * for a job on one host, or when no step number was seen on two hosts.
 */
void
skew_estimate(struct rl_incident *inc)
{
	struct rl_answer	*a = &inc->answer;
	struct sample		*s = NULL;
	const char		**hosts = NULL;
	const struct rl_event	*e;
	size_t			 n = 0, nhosts = 0, i, ref;
	struct rl_skew		*k;

	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (!skew_usable(inc, e))
			continue;
		s = xreallocarray(s, n + 1, sizeof *s);
		s[n].step = event_cap(e, CAP_STEP);
		s[n].host = host_index(&hosts, &nhosts, event_host(inc, e));
		s[n].ms = clock_utc_ms(&e->time);
		n++;
	}
	if (nhosts >= 2) {
		qsort(s, n, sizeof *s, sample_cmp);
		n = skew_collapse(s, n);
		ref = skew_reference(s, n, hosts, nhosts);
		for (i = 0; i < nhosts; i++) {
			a->skew = xreallocarray(a->skew, a->nskew + 1,
			    sizeof *a->skew);
			k = &a->skew[a->nskew++];
			memset(k, 0, sizeof *k);
			k->host = xstrdup(hosts[i]);
			k->reference = i == ref;
			if (i != ref)
				skew_measure(s, n, ref, i, k);
			if (!k->reference && k->samples == 0) {
				free(k->host);
				a->nskew--;
			}
		}
		if (a->nskew < 2) {
			for (i = 0; i < a->nskew; i++)
				free(a->skew[i].host);
			a->nskew = 0;
		}
	}
	a->skew_tolerance_ms = SKEW_FLOOR_MS;
	for (i = 0; i < a->nskew; i++) {
		if (2 * a->skew[i].spread_ms + SKEW_FLOOR_MS >
		    a->skew_tolerance_ms)
			a->skew_tolerance_ms = 2 * a->skew[i].spread_ms +
			    SKEW_FLOOR_MS;
	}
	free(s);
	free(hosts);
}

/* The estimate for a host, or NULL when it has none. */
static const struct rl_skew *
skew_find(const struct rl_incident *inc, const char *host)
{
	size_t	i;

	if (host == NULL)
		return NULL;
	for (i = 0; i < inc->answer.nskew; i++) {
		if (strcmp(inc->answer.skew[i].host, host) == 0)
			return &inc->answer.skew[i];
	}
	return NULL;
}

/* A time on a host, as the reference host's clock would have said it. */
int64_t
skew_utc_ms(const struct rl_incident *inc, const struct rl_time *t,
    const char *host)
{
	const struct rl_skew	*k;
	int64_t			 ms = clock_utc_ms(t);

	if (!(t->flags & RL_TIME_VALID) || (t->flags & RL_TIME_BOOT) ||
	    (k = skew_find(inc, host)) == NULL)
		return ms;
	return ms - k->offset_ms;
}

/*
 * Compare two times logged on two hosts, corrected for the hosts' offsets.
 * *within is set when the hosts differ, both have an estimate, and the
 * corrected times lie within the tolerance: then the order says little.
 */
int
skew_cmp(const struct rl_incident *inc, const struct rl_time *ta,
    const char *ha, const struct rl_time *tb, const char *hb, bool *within)
{
	const struct rl_skew	*ka, *kb;
	int64_t			 a, b, tol;

	*within = false;
	ka = skew_find(inc, ha);
	kb = skew_find(inc, hb);
	if (ka == NULL || kb == NULL || ka == kb ||
	    !(ta->flags & RL_TIME_VALID) || !(tb->flags & RL_TIME_VALID) ||
	    ((ta->flags ^ tb->flags) & RL_TIME_BOOT))
		return clock_cmp(ta, tb);
	a = skew_utc_ms(inc, ta, ha);
	b = skew_utc_ms(inc, tb, hb);
	tol = 2 * (ka->spread_ms + kb->spread_ms) + SKEW_FLOOR_MS;
	*within = llabs(a - b) <= tol;
	return (a > b) - (a < b);
}
