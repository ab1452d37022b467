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

#include "diag.h"

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

/*
 * The hosts seen, each once, in the order first seen: a 16,384-rank job's
 * 2,048 hosts were sought one by one for each of its step lines.
 */
struct hosts {
	const char	**v;
	size_t		  n;
	size_t		  cap;		/* room in v */
	struct idhash	  of;		/* a name's hash -> its index + 1 */
};

/* The index of a host in the list, added if new. */
static size_t
host_index(struct hosts *hs, const char *h)
{
	uint64_t	*at;
	size_t		 i;

	at = idhash_put(&hs->of, hash_bytes(HASH_FNV_OFFSET, h, strlen(h)));
	if (*at != 0 && strcmp(hs->v[*at - 1], h) == 0)
		return *at - 1;
	/* Two names of one hash: the list decides. */
	for (i = 0; *at != 0 && i < hs->n; i++) {
		if (strcmp(hs->v[i], h) == 0)
			return i;
	}
	hs->v = array_grow(hs->v, hs->n, &hs->cap, sizeof *hs->v);
	hs->v[hs->n] = h;
	if (*at == 0)
		*at = hs->n + 1;
	return hs->n++;
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
 * Measure every host against the reference from the collapsed samples,
 * where each host has at most one time per step: each step's differences
 * go to their hosts in one pass (a pass over every step for each host was
 * quadratic in the hosts), in step order.  out[h].samples, offset_ms and
 * spread_ms are set for each host but the reference.
 */
static void
skew_measure(const struct sample *s, size_t n, size_t ref, size_t nhosts,
    struct rl_skew *out)
{
	int64_t	*d, rt = 0;
	size_t	*at, *fill, i, j, k, h, total = 0;
	bool	 hr;
	int	 pass;

	at = xcalloc(nhosts + 1, sizeof *at);
	fill = xcalloc(nhosts + 1, sizeof *fill);
	d = NULL;
	/* The first pass counts, the second places: d holds each host's run. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i = j) {
			hr = false;
			for (j = i; j < n && s[j].step == s[i].step; j++) {
				if (s[j].host == ref) {
					rt = s[j].ms;
					hr = true;
				}
			}
			for (k = i; hr && k < j; k++) {
				if ((h = s[k].host) == ref)
					continue;
				if (pass == 0)
					at[h + 1]++;
				else
					d[at[h] + fill[h]++] = s[k].ms - rt;
			}
		}
		if (pass == 0) {
			for (h = 0; h < nhosts; h++)
				at[h + 1] += at[h];
			total = at[nhosts];
			d = xreallocarray(NULL, total + 1, sizeof *d);
		}
	}
	for (h = 0; h < nhosts; h++) {
		if (h == ref)
			continue;
		out[h].samples = fill[h];
		if (fill[h] == 0)
			continue;
		out[h].offset_ms = median(d + at[h], fill[h]);
		for (k = 0; k < fill[h]; k++)
			d[at[h] + k] = llabs(d[at[h] + k] - out[h].offset_ms);
		out[h].spread_ms = median(d + at[h], fill[h]);
	}
	free(d);
	free(fill);
	free(at);
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
	struct hosts		 hs;
	struct rl_skew		*m;
	const struct rl_event	*e;
	size_t			 n = 0, cap = 0, i, ref;
	struct rl_skew		*k;

	memset(&hs, 0, sizeof hs);
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (!skew_usable(inc, e))
			continue;
		s = array_grow(s, n, &cap, sizeof *s);
		s[n].step = event_cap(e, CAP_STEP);
		s[n].host = host_index(&hs, event_host(inc, e));
		s[n].ms = clock_utc_ms(&e->time);
		n++;
	}
	if (hs.n >= 2) {
		qsort(s, n, sizeof *s, sample_cmp);
		n = skew_collapse(s, n);
		ref = skew_reference(s, n, hs.v, hs.n);
		m = xcalloc(hs.n, sizeof *m);
		skew_measure(s, n, ref, hs.n, m);
		a->skew = xreallocarray(a->skew, a->nskew + hs.n,
		    sizeof *a->skew);
		for (i = 0; i < hs.n; i++) {
			k = &a->skew[a->nskew++];
			memset(k, 0, sizeof *k);
			k->host = xstrdup(hs.v[i]);
			k->reference = i == ref;
			if (i != ref) {
				k->samples = m[i].samples;
				k->offset_ms = m[i].offset_ms;
				k->spread_ms = m[i].spread_ms;
			}
			if (!k->reference && k->samples == 0) {
				free(k->host);
				a->nskew--;
			}
		}
		free(m);
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
	free(hs.v);
	idhash_clear(&hs.of);
	/* skew_find's map, for the diagnosis's look-ups of every rank. */
	idhash_clear(&a->skew_of);
	for (i = 0; i < a->nskew; i++) {
		ref = a->nskew - 1 - i;	/* the first of a hash wins */
		*idhash_put(&a->skew_of, hash_bytes(HASH_FNV_OFFSET,
		    a->skew[ref].host, strlen(a->skew[ref].host))) = ref + 1;
	}
}

/* The estimate for a host, or NULL when it has none. */
static const struct rl_skew *
skew_find(const struct rl_incident *inc, const char *host)
{
	const struct rl_answer	*a = &inc->answer;
	const uint64_t		*at;
	size_t			 i;

	if (host == NULL || a->nskew == 0)
		return NULL;
	at = idhash_get(&a->skew_of, hash_bytes(HASH_FNV_OFFSET, host,
	    strlen(host)));
	if (at != NULL && *at != 0 && *at <= a->nskew &&
	    strcmp(a->skew[*at - 1].host, host) == 0)
		return &a->skew[*at - 1];
	/* A host of no estimate, or two of one hash: the list decides. */
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
