/*
 * diag-hang.c: what the collective timeouts of a hung job say.
 *
 * When ranks report collective timeouts the reporters are usually victims:
 * they entered a collective a peer never reached.  Three kinds of lines
 * help to name the peer:
 *  - PyTorch's desync lines ("last enqueued NCCL work: N, last completed
 *    NCCL work: M", and the same numbers in "Received a dump signal"):
 *    within one process group, the rank whose last enqueued number is below
 *    the others' never reached the collective they wait in.  If every rank
 *    shows -1, nothing was ever enqueued: the processes were frozen, not
 *    stuck in a collective;
 *  - "Received a dump signal ... from rank N": rank N detected a timeout
 *    first, which points at the neighbourhood of the culprit;
 *  - the timeouts themselves (NCCL's Timeout(ms), gloo's "Timed out waiting
 *    Nms"): the hang began at the timeout's time minus its timeout.  With
 *    no desync line, their SeqNum stands in for the last enqueued number:
 *    the one rank whose watchdog caught a lower collective than every
 *    other's, or the one whose number differs from all the others', is
 *    out of step with them.
 * The bracketed [Rank N] of a watchdog line is the rank inside its process
 * group, which is the global rank only in the default group (PG ID 0): the
 * rank comes from the line's writer, and [Rank N] only stands in for it
 * when the writer is unknown and the group is the default one.
 *
 * This file only gathers; diagnose.c decides the culprit, since it also
 * knows which ranks went silent.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"

/* One rank's progress in one process group. */
struct progress {
	int64_t		 pg;		/* process group id, or -1 unknown */
	int		 rank;
	int64_t		 enqueued;	/* last enqueued sequence number */
	int		 event;
};

/*
 * The ranks' progress, each (group, rank) once: the pairs seen are a set
 * of two 64-bit numbers, which is what fileset.c holds (the rank one up,
 * as an inode of 0 is not held).  Each line compared with every one
 * before was 10,000 ranks squared.
 */
struct progress_list {
	struct progress	*v;
	size_t		 n;
	size_t		 cap;
	struct fileset	 seen;		/* (group, rank + 1) */
};

/* The global rank a desync line speaks for, or RL_NONE. */
static int
hang_line_rank(const struct rl_incident *inc, const struct rl_event *e,
    int64_t pg)
{
	double	r;

	if (e->rank != RL_NONE)
		return e->rank;
	if (pg == 0 && event_capture_num(inc, e, "pg_rank", &r) && r >= 0)
		return (int)r;
	return RL_NONE;
}

/* Add a rank's progress, once per (group, rank): the first line says it. */
static void
progress_add(struct progress_list *l, int64_t pg, int rank, int64_t enq,
    int ev)
{
	if (!fileset_add(&l->seen, (uint64_t)pg, (uint64_t)(uint32_t)rank + 1))
		return;
	l->v = array_grow(l->v, l->n, &l->cap, sizeof *l->v);
	l->v[l->n].pg = pg;
	l->v[l->n].rank = rank;
	l->v[l->n].enqueued = enq;
	l->v[l->n].event = ev;
	l->n++;
}

static void
progress_clear(struct progress_list *l)
{
	free(l->v);
	fileset_clear(&l->seen);
}

static int
progress_pg_cmp(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The process group with the most ranks reporting (the default, usually),
 * the lowest of equals.  Counted over the groups sorted, not for each rank
 * over every rank: 10,000 ranks' watchdog lines were 100 million compares.
 */
static int64_t
progress_main_group(const struct progress *v, size_t n, size_t *count)
{
	int64_t	*pgs, pg = -1;
	size_t	 i, j, best = 0;

	pgs = xreallocarray(NULL, n + 1, sizeof *pgs);
	for (i = 0; i < n; i++)
		pgs[i] = v[i].pg;
	qsort(pgs, n, sizeof *pgs, progress_pg_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && pgs[j] == pgs[i]; j++)
			;
		if (j - i > best) {
			best = j - i;
			pg = pgs[i];
		}
	}
	free(pgs);
	*count = best;
	return pg;
}

/*
 * In the main group: the one rank whose last enqueued number is below every
 * other's, and whether every rank showed -1.
 */
static void
progress_judge(struct rl_hang *h, const struct progress *v, size_t n)
{
	size_t	 i, count, nmin = 0, nneg = 0;
	int64_t	 pg = progress_main_group(v, n, &count);
	int64_t	 lo = INT64_MAX, hi = INT64_MIN;
	int	 at = -1;

	h->desync_ranks = count;
	for (i = 0; i < n; i++) {
		if (v[i].pg != pg)
			continue;
		nneg += v[i].enqueued < 0;
		if (v[i].enqueued > hi)
			hi = v[i].enqueued;
		if (v[i].enqueued < lo) {
			lo = v[i].enqueued;
			nmin = 0;
			at = (int)i;
		}
		nmin += v[i].enqueued == lo;
	}
	if (count >= 2 && nneg == count) {
		h->frozen = true;
		return;
	}
	if (count >= 2 && lo < hi && nmin == 1) {
		h->lag_rank = v[at].rank;
		h->lag_enqueued = lo;
		h->lag_event = v[at].event;
		h->peers_enqueued = hi;
	}
}

/*
 * The timeouts' SeqNum, when no rank printed its last enqueued number: the
 * one rank below every other (as progress_judge), else, among three or
 * more, the one rank whose number all the others share but it does not.
 */
static void
progress_judge_seq(struct rl_hang *h, const struct progress *v, size_t n)
{
	size_t	 i, count, odd = 0, nodd = 0;
	int64_t	 pg = progress_main_group(v, n, &count), common = 0;
	long	 votes = 0;

	progress_judge(h, v, n);
	h->desync_ranks = 0;
	h->frozen = false;
	if (h->lag_rank != RL_NONE) {
		h->lag_seq = true;
		return;
	}
	if (count < 3)
		return;
	/* The majority's number: Boyer-Moore again. */
	for (i = 0; i < n; i++) {
		if (v[i].pg != pg)
			continue;
		if (votes == 0)
			common = v[i].enqueued;
		votes += v[i].enqueued == common ? 1 : -1;
	}
	for (i = 0; i < n; i++) {
		if (v[i].pg == pg && v[i].enqueued != common) {
			odd = i;
			nodd++;
		}
	}
	if (nodd != 1)
		return;
	h->lag_rank = v[odd].rank;
	h->lag_enqueued = v[odd].enqueued;
	h->lag_event = v[odd].event;
	h->peers_enqueued = common;
	h->lag_seq = true;
}

/* Each rank's watchdog timeout SeqNum, the first it printed per group. */
static void
hang_seq(struct rl_incident *inc, struct rl_hang *h)
{
	struct progress_list	 l = { 0 };
	const struct rl_event	*e;
	const uint64_t		 bits = capture_name_bits("seq");
	size_t			 i;
	double			 seq, pg;
	int			 rank;

	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rule == NULL || e->harmless ||
		    (e->role != ROLE_COLLATERAL && e->role != ROLE_SYMPTOM) ||
		    event_cap(e, CAP_TIMEOUT_MS) == RL_CAP_UNSET ||
		    !rule_has_named(e->rule, "seq", bits) ||
		    !event_capture_num(inc, e, "seq", &seq))
			continue;
		if (!event_capture_num(inc, e, "pg_id", &pg))
			pg = -1;
		if ((rank = hang_line_rank(inc, e, (int64_t)pg)) == RL_NONE)
			continue;
		progress_add(&l, (int64_t)pg, rank, (int64_t)seq, (int)i);
	}
	if (l.n > 0)
		progress_judge_seq(h, l.v, l.n);
	progress_clear(&l);
}

/* The rank most dump-signal lines name, with one of those lines. */
static void
hang_dump_origin(struct rl_incident *inc, struct rl_hang *h)
{
	const struct rl_event	*e;
	const uint64_t		 bits = capture_name_bits("origin");
	size_t			 i;
	double			 o;
	int			 cand = RL_NONE, votes = 0;

	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rule == NULL || e->harmless ||
		    !rule_has_named(e->rule, "origin", bits) ||
		    !event_capture_num(inc, e, "origin", &o) || o < 0)
			continue;
		/* Boyer-Moore majority: the answer if any rank has one. */
		if (votes == 0) {
			cand = (int)o;
			h->dump_event = (int)i;
		}
		votes += (int)o == cand ? 1 : -1;
	}
	if (votes > 0)
		h->dump_origin = cand;
	else
		h->dump_event = RL_NONE;
}

static int
hang_rank_cmp(const void *a, const void *b)
{
	int	x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * The earliest start a timeout implies, and how many ranks reported one:
 * their ranks counted once sorted, not each looked for among the others.
 */
static void
hang_timeouts(struct rl_incident *inc, struct rl_hang *h)
{
	const struct rl_event	*e;
	struct rl_time		 t;
	int			*seen = NULL;
	size_t			 i, k, nseen = 0, cap = 0;
	int64_t			 best = INT64_MAX, at;

	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rule == NULL || e->harmless ||
		    event_cap(e, CAP_TIMEOUT_MS) == RL_CAP_UNSET ||
		    event_cap(e, CAP_TIMEOUT_MS) <= 0 ||
		    (e->role != ROLE_COLLATERAL && e->role != ROLE_SYMPTOM))
			continue;
		seen = array_grow(seen, nseen, &cap, sizeof *seen);
		seen[nseen++] = e->rank;
		/* Only a time of the line's own: an inherited one is earlier. */
		if (!(e->time.flags & RL_TIME_VALID) || e->guess != TIME_OWN)
			continue;
		at = skew_utc_ms(inc, &e->time, event_host(inc, e)) -
		    event_cap(e, CAP_TIMEOUT_MS);
		if (at < best) {
			best = at;
			t = e->time;
			t.ms -= event_cap(e, CAP_TIMEOUT_MS);
			h->began = t;
			h->timeout_event = (int)i;
			h->timeout_ms = event_cap(e, CAP_TIMEOUT_MS);
		}
	}
	if (nseen > 1)
		qsort(seen, nseen, sizeof *seen, hang_rank_cmp);
	for (i = k = 0; i < nseen; i++)
		k += i == 0 || seen[i] != seen[i - 1];
	h->reporters = k;
	free(seen);
}

/* Gather the hang's evidence into the answer; diagnose picks the culprit. */
void
hang_analyze(struct rl_incident *inc)
{
	struct rl_hang		*h = &inc->answer.hang;
	struct progress_list	 l = { 0 };
	const struct rl_event	*e;
	const uint64_t		 bits = capture_name_bits("last_enqueued");
	size_t			 i;
	double			 enq, pg;
	int			 rank;

	memset(h, 0, sizeof *h);
	h->culprit = h->lag_rank = h->dump_origin = RL_NONE;
	h->lag_event = h->dump_event = h->timeout_event = RL_NONE;
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rule == NULL || e->harmless ||
		    e->rule->mark == MARK_STEP ||
		    !rule_has_named(e->rule, "last_enqueued", bits) ||
		    !event_capture_num(inc, e, "last_enqueued", &enq))
			continue;
		if (!event_capture_num(inc, e, "pg_id", &pg))
			pg = -1;
		if ((rank = hang_line_rank(inc, e, (int64_t)pg)) == RL_NONE)
			continue;
		progress_add(&l, (int64_t)pg, rank, (int64_t)enq, (int)i);
	}
	if (l.n > 0)
		progress_judge(h, l.v, l.n);
	else
		hang_seq(inc, h);
	progress_clear(&l);
	hang_dump_origin(inc, h);
	hang_timeouts(inc, h);
}
