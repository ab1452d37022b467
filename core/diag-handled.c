/*
 * diag-handled.c: an error its own process lived past.  A traceback or an
 * error line after which the same process goes on (a request served, a
 * retry, training steps beyond where it was) was caught and handled: it is
 * evidence of trouble, not the job's failure.  It stays an event, counted
 * and shown, made harmless so that the judging never ranks it first, and a
 * job whose only errors were handled did not fail of them.  Only a
 * process's own later lines count (a failure of a process is never excused
 * by another's steps), in the same source, where the order of lines is
 * the order they were written.  And the other way: an error called
 * harmless for coming before the first step is the failure when its
 * process's death is recorded, or when its process wrote nothing after.
 */
#include <assert.h>
#include <stdlib.h>

#include "diag.h"

/* A line that shows a process at work: a step, or MARK_ALIVE's. */
struct handled_mark {
	int		 process;
	unsigned	 source;
	uint64_t	 line;
	int64_t		 step;		/* or -1 for a MARK_ALIVE line */
};

/*
 * The processes and ranks a launcher recorded the death of (an exit with
 * an error code, or by a signal), as sorted keys: a process is its index,
 * a rank its number plus 2^32.  Made once per pass, since 1,024 ranks may
 * each have an error to weigh against them.
 */
struct handled_deaths {
	int64_t		*key;
	size_t		 n;
	bool		 made;
};

static int
key_cmp(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void
deaths_make(const struct rl_incident *inc, struct handled_deaths *d)
{
	const struct rl_event	*e;
	size_t			 i, cap = 0;

	d->made = true;
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->rule == NULL || e->harmless ||
		    (e->rule->mark != MARK_EXIT && e->rule->mark != MARK_RECORD))
			continue;
		if (event_cap(e, CAP_SIGNAL) == RL_CAP_UNSET &&
		    (event_cap(e, CAP_EXITCODE) == RL_CAP_UNSET ||
		    event_cap(e, CAP_EXITCODE) == 0))
			continue;
		d->key = array_grow(d->key, d->n + 1, &cap, sizeof *d->key);
		d->key[d->n++] = e->process;
		if (e->rank != RL_NONE)
			d->key[d->n++] = ((int64_t)1 << 32) + e->rank;
	}
	if (d->n > 1)
		qsort(d->key, d->n, sizeof *d->key, key_cmp);
}

/*
 * Did a launcher record the death of this event's process or rank?  Then
 * its steps after the error were only written late.
 */
static bool
handled_died(const struct rl_incident *inc, struct handled_deaths *d,
    const struct rl_event *f)
{
	int64_t	k;

	if (!d->made)
		deaths_make(inc, d);
	if (d->n == 0)
		return false;
	k = f->process;
	if (bsearch(&k, d->key, d->n, sizeof k, key_cmp) != NULL)
		return true;
	k = ((int64_t)1 << 32) + f->rank;
	return f->rank != RL_NONE &&
	    bsearch(&k, d->key, d->n, sizeof k, key_cmp) != NULL;
}

/* Is an event a sign that its process goes on? */
static bool
handled_progress(const struct rl_event *e)
{
	const struct rl_rule	*r = e->rule;

	if (r == NULL || e->role != ROLE_PROGRESS || e->harmless || e->weak ||
	    e->process == RL_NONE)
		return false;
	return r->mark == MARK_ALIVE || (r->mark == MARK_STEP &&
	    event_cap(e, CAP_STEP) != RL_CAP_UNSET && event_cap(e, CAP_STEP) >= 0);
}

/* Could an event be excused by later progress of its own process? */
static bool
handled_candidate(const struct rl_event *e)
{
	return e->rule != NULL && event_failing(e) && !e->weak &&
	    e->process != RL_NONE && e->rule->mark == MARK_NONE &&
	    (e->role == ROLE_ROOT || e->role == ROLE_SYMPTOM ||
	    e->role == ROLE_COLLATERAL || e->role == ROLE_WRAPPER);
}

/* By process, then source, then line. */
static int
handled_cmp(const void *a, const void *b)
{
	const struct handled_mark *x = a, *y = b;

	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return 0;
}

/*
 * One process's marks by source and line, by insertion: they arrive in
 * time order, so nearly in line order.  Far from it, they are qsorted.
 */
static void
handled_bucket(struct handled_mark *v, size_t m)
{
	struct handled_mark	x;
	size_t			i, j, moves = 0;

	for (i = 1; i < m; i++) {
		x = v[i];
		for (j = i; j > 0 && handled_cmp(&v[j - 1], &x) > 0; j--) {
			v[j] = v[j - 1];
			moves++;
		}
		v[j] = x;
		if (moves > 8 * m) {
			qsort(v, m, sizeof *v, handled_cmp);
			return;
		}
	}
}

/*
 * Sort the marks by process, then source, then line, as handled_cmp: a
 * counting sort by process, then each process's few marks by insertion
 * (a qsort of all of them was 24 M instructions at 1,024 ranks).  Stable,
 * as glibc's qsort was.
 */
static void
handled_sort(struct handled_mark *v, size_t n, size_t nprocs)
{
	struct handled_mark	*t;
	size_t			*at, i, b;

	at = xcalloc(nprocs + 1, sizeof *at);
	for (i = 0; i < n; i++)
		at[(size_t)v[i].process + 1]++;
	for (i = 0; i < nprocs; i++)
		at[i + 1] += at[i];
	t = xreallocarray(NULL, n, sizeof *t);
	for (i = 0; i < n; i++)
		t[at[v[i].process]++] = v[i];
	/* at[p] is now where process p's marks end. */
	for (b = 0, i = 0; i < nprocs; b = at[i++])
		handled_bucket(t + b, at[i] - b);
	memcpy(v, t, n * sizeof *v);
	free(t);
	free(at);
}

/*
 * Did the process go on after the event's line in its source: a MARK_ALIVE
 * line after it, or two steps after it beyond every step before it, and no
 * record of its death?  What a process wrote to stdout before it failed
 * may come out after the traceback it wrote to stderr (a buffer flushed at
 * exit): steps alone are not enough, and a checkpoint line never is.
 */
static bool
handled_after(const struct rl_incident *inc, struct handled_deaths *d,
    const struct handled_mark *v, size_t n, const struct rl_event *e)
{
	struct handled_mark	 key = { e->process, e->source, 0, 0 };
	size_t			 lo = 0, hi = n, i;
	int64_t			 before = -1, a1 = -1, a2 = -1;

	/* The first mark of the event's (process, source). */
	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (handled_cmp(&v[i], &key) < 0)
			lo = i + 1;
		else
			hi = i;
	}
	for (i = lo; i < n && v[i].process == e->process &&
	    v[i].source == e->source; i++) {
		if (v[i].line < e->line) {
			if (v[i].step > before)
				before = v[i].step;
			continue;
		}
		if (v[i].step < 0)
			return true;
		if (v[i].step <= before || v[i].step == a1 || v[i].step == a2)
			continue;
		if (a1 < 0)
			a1 = v[i].step;
		else
			a2 = v[i].step;
		if (a1 >= 0 && a2 >= 0)
			return !handled_died(inc, d, e);
	}
	return false;
}

/*
 * Make harmless every failure its own process went on after, in the same
 * source.  Returns how many were.
 */
size_t
handled_mark(struct rl_incident *inc)
{
	struct handled_mark	*v = NULL;
	struct handled_deaths	 d = { 0 };
	struct rl_event		*e;
	size_t			 i, n = 0, cap = 0, done = 0;

	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (!handled_progress(e))
			continue;
		assert((size_t)e->process < inc->nprocs);
		v = array_grow(v, n, &cap, sizeof *v);
		v[n].process = e->process;
		v[n].source = e->source;
		v[n].line = e->line;
		v[n++].step = e->rule->mark == MARK_ALIVE ? -1 :
		    event_cap(e, CAP_STEP);
	}
	if (n == 0)
		return 0;
	handled_sort(v, n, inc->nprocs);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (handled_candidate(e) && handled_after(inc, &d, v, n, e)) {
			e->harmless = true;
			done++;
		}
	}
	free(v);
	free(d.key);
	return done;
}

/*
 * A revived error is the failure's and counts among its rule's lines (the
 * tally counted only lines not harmless as they were read), at every
 * diagnosis: a settled incident's events are the keeps' own and stay
 * revived, and the tally is made afresh each time.
 */
static void
handled_count(struct rl_incident *inc, struct rl_event *e)
{
	struct rl_tally	*t = incident_tally(inc, e->rule);

	e->harmless = false;
	e->revived = true;
	t->lines++;
	tally_times(t, &e->time, &e->time);
}

/*
 * A root its rule calls harmless only for coming before the first step:
 * an ImportError at start-up, which optional imports print and survive.
 */
static bool
handled_early(const struct rl_event *e)
{
	const struct rl_rule	*r = e->rule;

	return r != NULL && e->harmless && e->role == ROLE_ROOT &&
	    e->process != RL_NONE && r->only_after != NULL &&
	    r->not_within == NULL && r->not_after == NULL;
}

/*
 * Did an early root's process write nothing after it?  No timed line of
 * it later (in its source, or later by the clock in another), and, in
 * handled_revive_last's pass, no event of it after it in its source nor
 * any in another: a process that falls back goes on, one that died of
 * the import says no more.
 */
static bool
handled_quiet_after(const struct rl_incident *inc, const struct rl_event *e)
{
	const struct rl_process	*p = inc->procs[e->process];

	if (p->last_source == (int)e->source)
		return p->last_line <= e->line;
	return p->last_source == RL_NONE || !(p->last.flags & RL_TIME_VALID) ||
	    !(e->time.flags & RL_TIME_VALID) || clock_cmp(&p->last,
	    &e->time) <= 0;
}

/*
 * Revive the early roots that were their process's last words.  Each
 * process's latest such root is found first, then one pass over every
 * event rules out those whose process wrote more: a process at a time
 * would be a pass for each of 10,000 ranks' fallback imports.
 */
static size_t
handled_revive_last(struct rl_incident *inc)
{
	struct rl_event		*e, **last;
	size_t			 i, done = 0, n = 0;
	bool			*more;

	last = xcalloc(inc->nprocs, sizeof *last);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (!handled_early(e) || !handled_quiet_after(inc, e))
			continue;
		if (last[e->process] == NULL)
			n++;
		else if (last[e->process]->source != e->source)
			continue;	/* the first source's stands */
		if (last[e->process] == NULL || last[e->process]->line < e->line)
			last[e->process] = e;
	}
	if (n == 0) {
		free(last);
		return 0;
	}
	more = xcalloc(inc->nprocs, sizeof *more);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->process == RL_NONE || last[e->process] == NULL)
			continue;
		if (e->source != last[e->process]->source ||
		    e->line > last[e->process]->line)
			more[e->process] = true;
	}
	for (i = 0; i < inc->nprocs; i++) {
		if (last[i] != NULL && !more[i]) {
			handled_count(inc, last[i]);
			done++;
		}
	}
	free(more);
	free(last);
	return done;
}

/*
 * The other way round: an early root (handled_early) is the failure when
 * a launcher then records its process's death, or when it is the last its
 * process wrote.  Returns how many were.
 */
size_t
handled_revive(struct rl_incident *inc)
{
	struct handled_deaths	 d = { 0 };
	struct rl_event		*e;
	size_t			 i, done = 0;

	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->revived || (handled_early(e) &&
		    handled_died(inc, &d, e))) {
			handled_count(inc, e);
			done++;
		}
	}
	free(d.key);
	return done + handled_revive_last(inc);
}
