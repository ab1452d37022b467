/*
 * diagnose.c: the three answers, from the events of every rank.
 *
 * 1. Which rank failed first.  Each rank is judged by its own events first:
 *    a rank with a root event (its own exception, an OOM, an Xid) is a root
 *    candidate at that event's time; a rank that died by a signal without
 *    raising anything and without a peer's error before it was killed from
 *    outside, at the time of its last words; a rank whose errors are all
 *    consequences of a peer (connection closed, watchdog timeouts) is
 *    collateral.  The first failure is the earliest root candidate.  When
 *    every failing rank is collateral, the job hung, and the culprit is the
 *    rank that went quiet first.
 * 2. Whether the checkpoint is safe: the last step every saving rank
 *    completed, and the steps begun but not completed by all.
 * 3. The domain and group, from the root event's rule.
 *
 * The launcher's record of a failure (torchrun's ChildFailedError block) is
 * weak evidence: one-second times, ties to the lowest rank, signal deaths
 * stamped when noticed.  It is used for what it alone knows (exit codes and
 * signals), never for the order.
 */
#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define KILL_ID		"rankline.killed"

/* How a rank's own events judge it. */
enum verdict_class {
	CLASS_NONE = 0,		/* nothing failed here */
	CLASS_ROOT,		/* raised or logged a root cause itself */
	CLASS_KILLED,		/* died by a signal with nothing of its own */
	CLASS_SYMPTOM,		/* failed, cause unclear */
	CLASS_COLLATERAL,	/* failed because a peer did */
	CLASS_CONSEQUENCE	/* only a consequence names it: an exit
				   record, a wrapper (never first otherwise) */
};

/* The per-rank working state. */
struct judge {
	int		 rank;		/* global rank, or RL_NONE */
	int		 proc;		/* for unranked groups: the process */
	const char	*host;
	enum verdict_class cls;
	int		 root;		/* event index, or RL_NONE */
	struct rl_time	 root_time;	/* earliest of its root events' copies */
	int		 exit;		/* its exit event with a signal, or RL_NONE */
	int		 coll;
	int		 symp;
	int		 quit;		/* its exit record with an error code */
	int		 wrap;		/* its first wrapper of a failure */
	struct rl_time	 last;		/* its last time */
	int		 last_proc;	/* process holding its last timed line */
	bool		 tb;		/* began a traceback, harmless or cut */
};

#define JUDGE_MAX_RANK	(1 << 20)	/* ranks indexed directly up to this */

/* Where each rank's (or unranked process's) judge is: index + 1, 0 none. */
struct judge_index {
	size_t		*by_rank;
	size_t		 nrank;
	size_t		*by_proc;
	size_t		 nproc;
	size_t		 cap;		/* judges the array has room for */
};

/* Grow a lookup table to hold slot i. */
static void
judge_index_fit(size_t **v, size_t *n, size_t i)
{
	size_t	want;

	if (i < *n)
		return;
	for (want = *n ? *n : 64; want <= i; want *= 2)
		;
	*v = xreallocarray(*v, want, sizeof **v);
	memset(*v + *n, 0, (want - *n) * sizeof **v);
	*n = want;
}

/*
 * Find or add the judge for a rank (or, unranked, a process).  Looked up
 * by index, since every event asks and there may be 10,000 ranks.
 */
static struct judge *
judge_get(struct judge **v, size_t *n, struct judge_index *ix, int rank,
    int proc)
{
	size_t	*slot, i;

	if (rank > JUDGE_MAX_RANK) {
		/* A rank no job has (a misread number): search, do not index. */
		for (i = 0; i < *n; i++) {
			if ((*v)[i].rank == rank)
				return &(*v)[i];
		}
		slot = &i;
		i = 0;
	} else if (rank != RL_NONE) {
		judge_index_fit(&ix->by_rank, &ix->nrank, (size_t)rank);
		slot = &ix->by_rank[rank];
	} else {
		judge_index_fit(&ix->by_proc, &ix->nproc,
		    (size_t)(proc == RL_NONE ? 0 : proc + 1));
		slot = &ix->by_proc[proc == RL_NONE ? 0 : proc + 1];
	}
	if (*slot != 0)
		return &(*v)[*slot - 1];
	if (*n == ix->cap) {
		ix->cap = ix->cap == 0 ? 64 : 2 * ix->cap;
		*v = xreallocarray(*v, ix->cap, sizeof **v);
	}
	memset(&(*v)[*n], 0, sizeof **v);
	(*v)[*n].rank = rank;
	(*v)[*n].proc = proc;
	(*v)[*n].root = (*v)[*n].exit = (*v)[*n].coll = (*v)[*n].symp = RL_NONE;
	(*v)[*n].quit = (*v)[*n].wrap = RL_NONE;
	(*v)[*n].last_proc = RL_NONE;
	*slot = *n + 1;
	return &(*v)[(*n)++];
}

/* How directly a source holds what a rank wrote: lower is better. */
static int
source_directness(const struct rl_source *s)
{
	if (s->copy)
		return 2;	/* torchrun's error.json and the like */
	return s->multiplexed ? 1 : 0;
}

/* How directly an event shows what a rank wrote: lower is better. */
static int
event_directness(const struct rl_incident *inc, const struct rl_event *e)
{
	return e->weak ? 3 : source_directness(inc->sources[e->source]);
}

/*
 * Of two root events of one rank, which one shows it best: the copy in the
 * rank's own file over a tee'd console or a launcher's copy, then a line
 * that carried its own time, then the earlier.
 */
static bool
event_better(const struct rl_incident *inc, int cur, int cand)
{
	const struct rl_event	*a, *b;
	int			 da, db, c;

	if (cur == RL_NONE)
		return true;
	a = inc->events[cur];
	b = inc->events[cand];
	da = event_directness(inc, a);
	db = event_directness(inc, b);
	if (da != db)
		return db < da;
	if (a->guess != b->guess)
		return b->guess < a->guess;
	c = clock_cmp(&b->time, &a->time);
	return c < 0 || (c == 0 && b->seq < a->seq);
}

/* Did this exit event report a death by signal? */
static bool
event_signalled(const struct rl_event *e)
{
	return event_cap(e, CAP_SIGNAL) != RL_CAP_UNSET ||
	    (event_cap(e, CAP_EXITCODE) != RL_CAP_UNSET && event_cap(e, CAP_EXITCODE) < 0);
}

/* Sort each event into its rank's judge. */
static void
diagnose_collect(struct rl_incident *inc, struct judge **v, size_t *n,
    struct judge_index *ix)
{
	struct rl_event	*e;
	struct judge	*j;
	size_t		 i;
	bool		*copy;

	copy = xcalloc(inc->nevents + 1, sizeof *copy);
	diagnose_copies(inc, copy);
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->harmless && e->rule != NULL && !copy[i] &&
		    e->rank != RL_NONE && e->process != RL_NONE &&
		    inc->procs[e->process]->rank == e->rank &&
		    (e->rule->checklist & (1u << CHECK_TRACEBACK)))
			judge_get(v, n, ix, e->rank, e->process)->tb = true;
		if (e->harmless || e->rule == NULL || copy[i])
			continue;
		j = judge_get(v, n, ix, e->rank, e->process);
		switch (e->role) {
		case ROLE_ROOT:
			/* A record's copy times a failure only if nothing else does. */
			if (j->root == RL_NONE || (inc->events[j->root]->weak &&
			    !e->weak) || ((e->weak || !inc->events[j->root]->weak) &&
			    clock_cmp(&e->time, &j->root_time) < 0))
				j->root_time = e->time;
			if (event_better(inc, j->root, (int)i))
				j->root = (int)i;
			break;
		case ROLE_COLLATERAL:
			if (j->coll == RL_NONE)
				j->coll = (int)i;
			break;
		case ROLE_WRAPPER:
			if (j->wrap == RL_NONE)
				j->wrap = (int)i;
			break;
		case ROLE_SYMPTOM:
			if (e->rule->mark == MARK_EXIT || e->rule->mark ==
			    MARK_RECORD) {
				if (event_signalled(e) && (j->exit == RL_NONE ||
				    event_cap(e, CAP_SIGNAL) != RL_CAP_UNSET))
					j->exit = (int)i;
				else if (!event_signalled(e) && j->quit ==
				    RL_NONE && event_cap(e, CAP_EXITCODE) > 0)
					j->quit = (int)i;
			} else if (j->symp == RL_NONE)
				j->symp = (int)i;
			break;
		default:
			break;
		}
	}
	free(copy);
}

/* A process's last time, for a judge it belongs to. */
static void
judge_last(struct judge *j, const struct rl_process *p, size_t k)
{
	if (j->last_proc == RL_NONE || clock_cmp(&p->last, &j->last) > 0) {
		j->last = p->last;
		j->last_proc = (int)k;
	}
}

/*
 * Each rank's last time, from its processes: a ranked process's is its
 * rank's judge's, an unranked one's its own judge's (found by the index,
 * as there may be 10,000 of each).
 */
static void
diagnose_last(struct rl_incident *inc, struct judge *v, size_t n,
    const struct judge_index *ix)
{
	struct rl_process	*p;
	size_t			 i, k;

	for (k = 0; k < inc->nprocs; k++) {
		p = inc->procs[k];
		if (!(p->last.flags & RL_TIME_VALID))
			continue;
		if (p->rank >= 0 && p->rank <= JUDGE_MAX_RANK) {
			if ((size_t)p->rank < ix->nrank &&
			    ix->by_rank[p->rank] != 0)
				judge_last(&v[ix->by_rank[p->rank] - 1], p, k);
		} else if (p->rank != RL_NONE) {
			for (i = 0; i < n; i++) {
				if (v[i].rank == p->rank)
					judge_last(&v[i], p, k);
			}
		}
		if (k + 1 < ix->nproc && ix->by_proc[k + 1] != 0 &&
		    v[ix->by_proc[k + 1] - 1].rank == RL_NONE)
			judge_last(&v[ix->by_proc[k + 1] - 1], p, k);
	}
}

/* Judge one rank from its own events. */
static void
judge_classify(struct judge *j)
{
	if (j->root != RL_NONE)
		j->cls = CLASS_ROOT;
	else if (j->exit != RL_NONE && j->coll == RL_NONE)
		j->cls = CLASS_KILLED;
	else if (j->coll != RL_NONE)
		j->cls = CLASS_COLLATERAL;
	else if (j->symp != RL_NONE || j->exit != RL_NONE)
		j->cls = CLASS_SYMPTOM;
	else
		j->cls = CLASS_NONE;
}

/* The time at which a judged rank failed. */
static const struct rl_time *
judge_time(const struct rl_incident *inc, const struct judge *j)
{
	switch (j->cls) {
	case CLASS_ROOT:
		return &j->root_time;
	case CLASS_KILLED:
		/* Killed from outside: right after its last words. */
		if (j->last.flags & RL_TIME_VALID)
			return &j->last;
		return &inc->events[j->exit]->time;
	case CLASS_SYMPTOM:
		return &inc->events[j->symp != RL_NONE ? j->symp : j->exit]->time;
	case CLASS_COLLATERAL:
		return &inc->events[j->coll]->time;
	case CLASS_CONSEQUENCE:
		return &inc->events[j->quit != RL_NONE ? j->quit : j->wrap]->time;
	default:
		return &j->last;
	}
}

/* The event that stands for a judged rank's failure. */
static int
judge_event(const struct judge *j)
{
	switch (j->cls) {
	case CLASS_ROOT:
		return j->root;
	case CLASS_KILLED:
		return j->exit;
	case CLASS_SYMPTOM:
		return j->symp != RL_NONE ? j->symp : j->exit;
	case CLASS_COLLATERAL:
		return j->coll;
	case CLASS_CONSEQUENCE:
		return j->quit != RL_NONE ? j->quit : j->wrap;
	default:
		return RL_NONE;
	}
}

/* The host a judged rank's failure time was logged on, or NULL. */
static const char *
judge_host(const struct rl_incident *inc, const struct judge *j)
{
	int	ev = judge_event(j);

	if (j->cls == CLASS_KILLED && j->last_proc != RL_NONE &&
	    (j->last.flags & RL_TIME_VALID))
		return inc->procs[j->last_proc]->host;
	if (ev != RL_NONE)
		return event_host(inc, inc->events[ev]);
	return j->last_proc != RL_NONE ? inc->procs[j->last_proc]->host : NULL;
}

/*
 * Which of two judged ranks failed first.  Within one source, where a
 * time was only inherited the order the lines were written in is the
 * better evidence; across sources, the times decide, corrected for the
 * hosts' clock offsets.  *within says the hosts' times are too close to
 * tell apart.
 */
static int
judge_order(const struct rl_incident *inc, const struct judge *a,
    const struct judge *b, bool *within)
{
	int			 ea = judge_event(a), eb = judge_event(b);
	const struct rl_event	*x, *y;

	*within = false;
	if (ea != RL_NONE && eb != RL_NONE && a->cls == b->cls) {
		x = inc->events[ea];
		y = inc->events[eb];
		if (x->source == y->source && (x->guess != TIME_OWN ||
		    y->guess != TIME_OWN))
			return x->line < y->line ? -1 : x->line > y->line;
	}
	return skew_cmp(inc, judge_time(inc, a), judge_host(inc, a),
	    judge_time(inc, b), judge_host(inc, b), within);
}

/*
 * The earliest judge of the given classes, or NULL.  Where two hosts'
 * clocks cannot tell two failures apart, causality orders them: a rank
 * that raised its own root cause before one that was merely killed.
 */
static struct judge *
judge_first(const struct rl_incident *inc, struct judge *v, size_t n,
    enum verdict_class a, enum verdict_class b)
{
	struct judge	*best = NULL;
	size_t		 i;
	int		 c;
	bool		 within;

	for (i = 0; i < n; i++) {
		if (v[i].cls != a && v[i].cls != b)
			continue;
		if (best == NULL) {
			best = &v[i];
			continue;
		}
		c = judge_order(inc, &v[i], best, &within);
		if (within && v[i].cls != best->cls) {
			if (v[i].cls == CLASS_ROOT)
				best = &v[i];
		} else if (c < 0 || (c == 0 && v[i].cls == CLASS_ROOT &&
		    best->cls != CLASS_ROOT))
			best = &v[i];
	}
	return best;
}

/*
 * Every failing rank is collateral: the job hung.  The ranks that report
 * timeouts are the victims; the culprit is a rank that reported nothing
 * (it was stuck, or frozen) and, of those, the one that went quiet first,
 * by the clock of the reference host.
 */
static struct judge *
hang_culprit(const struct rl_incident *inc, struct judge *v, size_t n)
{
	struct judge	*quiet = NULL;
	size_t		 i;
	int64_t		 t, best = INT64_MAX;

	for (i = 0; i < n; i++) {
		if (v[i].rank == RL_NONE || v[i].last_proc == RL_NONE)
			continue;
		if (v[i].cls != CLASS_NONE)
			continue;
		t = skew_utc_ms(inc, &v[i].last, inc->procs[v[i].last_proc]->host);
		if (quiet == NULL || t < best) {
			quiet = &v[i];
			best = t;
		}
	}
	return quiet;
}

/*
 * The judge of a global rank that has a last line (or, with `line`, a
 * line of its own that stands for it), or NULL.
 */
static struct judge *
judge_of_rank(struct judge *v, size_t n, int rank, bool line)
{
	size_t	i;

	for (i = 0; i < n && rank != RL_NONE; i++) {
		if (v[i].rank == rank && (v[i].last_proc != RL_NONE || line))
			return &v[i];
	}
	return NULL;
}

/*
 * The hang's culprit, strongest evidence first: the rank whose last
 * enqueued collective lags the others'; a rank that reported nothing and
 * went quiet first; the rank the dump signals name.  Else none: when every
 * rank in the logs reported a timeout and none lags, the one they waited
 * for printed nothing here, and the earliest reporter's last line (which
 * named a rank that had itself waited) says nothing of it.
 */
static struct judge *
hang_pick(struct rl_incident *inc, struct judge *v, size_t n)
{
	struct rl_hang	*h = &inc->answer.hang;
	struct judge	*j;

	if ((j = judge_of_rank(v, n, h->lag_rank, h->lag_event != RL_NONE))
	    != NULL)
		h->basis = "lagging";
	else if ((j = hang_culprit(inc, v, n)) != NULL)
		h->basis = "silent";
	else if ((j = judge_of_rank(v, n, h->dump_origin, false)) != NULL)
		h->basis = "dump";
	return j;
}

/*
 * Make the culprit's last line the first failure's event.  A lagging rank
 * may have logged on after the hang began (its own dump): then its desync
 * line, which shows the lag, stands for it.
 */
static int
diagnose_hang(struct rl_incident *inc, struct judge *v, size_t n)
{
	struct rl_hang		*h = &inc->answer.hang;
	struct judge		*quiet;
	struct rl_process	*p;
	struct rl_event		*e, *lag;
	bool			 use_lag;

	hang_analyze(inc);
	if ((quiet = hang_pick(inc, v, n)) == NULL)
		return RL_NONE;
	p = quiet->last_proc != RL_NONE ? inc->procs[quiet->last_proc] : NULL;
	/* (hang_pick takes the lagging rank whenever it has a judge.) */
	use_lag = quiet->rank == h->lag_rank && (p == NULL ||
	    ((h->began.flags & RL_TIME_VALID) &&
	    clock_cmp(&p->last, &h->began) > 0));
	e = incident_add_event(inc);
	if (use_lag) {
		lag = inc->events[h->lag_event];
		e->source = lag->source;
		e->line = lag->line;
		e->offset = lag->offset;
		e->time = lag->time;
		e->process = lag->process;
		e->text = incident_own(inc, xstrdup(event_text(inc, lag)));
	} else {
		e->source = (unsigned)p->last_source;
		e->line = p->last_line;
		e->offset = p->last_offset;
		e->time = p->last;
		e->process = (int)p->index;
		e->text = incident_own(inc, process_last_line(inc, p));
	}
	e->timed = p != NULL || inc->events[h->lag_event]->timed;
	e->rank = quiet->rank;
	e->role = ROLE_HANG;
	h->culprit = quiet->rank;
	quiet->cls = CLASS_ROOT;
	quiet->root = (int)(inc->nevents - 1);
	quiet->root_time = e->time;
	return quiet->root;
}

/*
 * Nothing but consequences: no rank raised an error, died by a signal or
 * went quiet while the others waited.  A failed job still gets an answer,
 * the best culprit those consequences allow, the most telling first: a
 * launcher's exit record with an error code names the process that ended,
 * then a wrapper that carries a failure raised elsewhere, then the
 * earliest timeout.  The words say the culprit printed nothing of its own.
 */
static struct judge *
diagnose_consequence(const struct rl_incident *inc, struct judge *v,
    size_t n)
{
	struct judge	*first;
	size_t		 i;
	int		 pass, ev;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			ev = pass == 0 ? v[i].quit : v[i].wrap;
			if (v[i].cls == CLASS_NONE && ev != RL_NONE)
				v[i].cls = CLASS_CONSEQUENCE;
		}
		first = judge_first(inc, v, n, CLASS_CONSEQUENCE,
		    CLASS_CONSEQUENCE);
		if (first != NULL)
			return first;
	}
	return judge_first(inc, v, n, CLASS_COLLATERAL, CLASS_COLLATERAL);
}

/*
 * Is this judge a writer of its own: a rank, or a process known by pid or
 * by its host (pdsh's prefixes)?
 */
static bool
judge_writer(const struct rl_incident *inc, const struct judge *j)
{
	const struct rl_process	*p;

	if (j->rank != RL_NONE)
		return true;
	if (j->proc == RL_NONE)
		return false;
	p = inc->procs[j->proc];
	return p->pid != RL_NONE || p->local_rank != RL_NONE ||
	    p->host != NULL;
}

/*
 * The signal a death records: its own, or a negative exit code's; a
 * positive code, negated, so that two deaths compare by either (below
 * zero, no signal); RL_CAP_UNSET for neither.
 */
int64_t
death_signal(const struct rl_event *e)
{
	int64_t	sig = event_cap(e, CAP_SIGNAL);

	if (sig == RL_CAP_UNSET && event_cap(e, CAP_EXITCODE) != RL_CAP_UNSET)
		sig = -event_cap(e, CAP_EXITCODE);
	return sig;
}

/*
 * A signal a process raises on itself by crashing (a fault, an abort), not
 * one sent to it from outside.
 */
static bool
signal_crash(int64_t sig)
{
	return sig == 4 || sig == 6 || sig == 7 || sig == 8 || sig == 11;
}

/*
 * Do two failures read alike?  The same rule, and where it records a death,
 * the same signal or code: srun's one rule says "Segmentation fault" of the
 * task that crashed and "Killed" of each it ended after.
 */
static bool
events_alike(const struct rl_event *a, const struct rl_event *b)
{
	return a->rule != NULL && b->rule != NULL &&
	    strcmp(a->rule->id, b->rule->id) == 0 &&
	    death_signal(a) == death_signal(b);
}

/*
 * Common to all, to one, or to some: how many writers failed like the
 * first.  The population is the ranks when they are known, else the
 * processes known by pid; a failure whose rule says it concerns the job
 * (a rendezvous that never formed) is common to all by nature.
 */
static enum rl_scope
diagnose_scope(const struct rl_incident *inc, const struct judge *v, size_t n,
    const struct judge *first)
{
	const struct rl_event	*fe = inc->events[judge_event(first)];
	size_t			 i, ranks = 0, writers = 0, same = 0, pop, tb = 0;

	if (fe->rule != NULL && fe->rule->job_scope)
		return SCOPE_ALL;
	for (i = 0; i < n; i++) {
		if (!judge_writer(inc, &v[i]))
			continue;
		writers++;
		if (v[i].rank != RL_NONE)
			ranks++;
		/*
		 * A rank that failed of nothing else but began a traceback
		 * (one cut from the paste, interleaved with the first's)
		 * raised, as far as these lines tell, what the first raised.
		 */
		if (v[i].cls == CLASS_NONE && v[i].tb && first->cls ==
		    CLASS_ROOT && v[i].rank != RL_NONE)
			tb++;
		if (v[i].cls != first->cls || judge_event(&v[i]) == RL_NONE)
			continue;
		if (events_alike(inc->events[judge_event(&v[i])], fe))
			same++;
	}
	pop = ranks > 0 ? ranks : writers;
	if (same + tb >= 2 && same + tb >= pop)
		return SCOPE_ALL;
	if (same <= 1)
		return SCOPE_ONE;
	return SCOPE_SOME;
}

/*
 * Every rank failed alike: no rank is to blame, and the one shown stands
 * for all.  It is the lowest rank among those that failed in the first
 * second, since finer order between copies of one failure means nothing.
 */
static struct judge *
judge_common(const struct rl_incident *inc, struct judge *v, size_t n,
    struct judge *first)
{
	const struct rl_event	*fe = inc->events[judge_event(first)];
	struct judge		*best = first;
	int64_t			 t0;
	size_t			 i;

	/* By the reference host's clock: a skewed host's copies count too. */
	t0 = skew_utc_ms(inc, judge_time(inc, first), judge_host(inc, first)) /
	    1000;
	for (i = 0; i < n; i++) {
		if (v[i].rank == RL_NONE || v[i].cls != first->cls ||
		    judge_event(&v[i]) == RL_NONE)
			continue;
		if (!events_alike(inc->events[judge_event(&v[i])], fe) ||
		    skew_utc_ms(inc, judge_time(inc, &v[i]),
		    judge_host(inc, &v[i])) / 1000 > t0)
			continue;
		if (v[i].rank < best->rank)
			best = &v[i];
	}
	return best;
}

/* The domain of a signal death when the rule does not say. */
static enum rl_domain
signal_domain(const struct rl_event *e)
{
	switch (death_signal(e)) {
	case 9:
	case 15:
		return DOMAIN_INFRA;	/* the OOM killer, the scheduler */
	case 6:
	case 11:
		return DOMAIN_CODE;
	default:
		return DOMAIN_UNKNOWN;
	}
}

/*
 * Where a rank is in inc->ranks, by a table of positions + 1 (0 empty) of
 * cap slots: the ranks are not sorted yet, and there may be 10,000.
 */
static size_t *
rank_slot(const struct rl_incident *inc, size_t *tab, size_t cap, int rank)
{
	size_t	k;

	for (k = (size_t)(((uint64_t)(uint32_t)rank * 0x9e3779b97f4a7c15ULL) >>
	    32) & (cap - 1); tab[k] != 0 && inc->ranks[tab[k] - 1].rank != rank;
	    k = (k + 1) & (cap - 1))
		;
	return &tab[k];
}

/* Build the ranks table from the processes and the judges. */
static void
diagnose_ranks(struct rl_incident *inc, struct judge *v, size_t n,
    const struct judge *first)
{
	struct rl_rank		*r;
	struct rl_process	*p;
	size_t			 i, k, cap, *tab, *slot, room = inc->nranks;

	for (cap = 64; cap < 2 * (inc->nranks + inc->nprocs + 1); cap *= 2)
		;
	tab = xcalloc(cap, sizeof *tab);
	for (i = 0; i < inc->nranks; i++) {
		slot = rank_slot(inc, tab, cap, inc->ranks[i].rank);
		if (*slot == 0)
			*slot = i + 1;
	}
	for (k = 0; k < inc->nprocs; k++) {
		p = inc->procs[k];
		if (p->rank == RL_NONE)
			continue;
		slot = rank_slot(inc, tab, cap, p->rank);
		if (*slot == 0) {
			if (inc->nranks == room) {
				room = room == 0 ? 64 : 2 * room;
				inc->ranks = xreallocarray(inc->ranks, room,
				    sizeof *inc->ranks);
			}
			r = &inc->ranks[inc->nranks++];
			memset(r, 0, sizeof *r);
			r->rank = p->rank;
			r->first_event = RL_NONE;
			r->last_step = RL_NONE;
			*slot = inc->nranks;
		}
		r = &inc->ranks[*slot - 1];
		if (r->host == NULL && p->host != NULL)
			r->host = xstrdup(p->host);
		r->lines += p->lines;
		if (!(r->last.flags & RL_TIME_VALID) ||
		    clock_cmp(&p->last, &r->last) > 0)
			r->last = p->last;
	}
	for (i = 0; i < n; i++) {
		if (v[i].rank == RL_NONE ||
		    *(slot = rank_slot(inc, tab, cap, v[i].rank)) == 0)
			continue;
		r = &inc->ranks[*slot - 1];
		r->first_event = judge_event(&v[i]);
		if (&v[i] == first)
			r->state = first->root != RL_NONE &&
			    inc->events[first->root]->role == ROLE_HANG ?
			    RANK_HUNG : RANK_FAILED;
		else if (v[i].cls == CLASS_COLLATERAL)
			r->state = RANK_COLLATERAL;
		else if (v[i].cls != CLASS_NONE)
			r->state = first != NULL &&
			    first->cls == v[i].cls ? RANK_FAILED :
			    RANK_EXITED;
	}
	free(tab);
}

/*
 * The summary when only consequences name the culprit: who they point at,
 * that it printed nothing of its own here, and what to collect.
 */
static void
diagnose_words_consequence(const struct rl_incident *inc,
    const struct judge *first, const struct rl_event *e, const char *host,
    struct buf *s)
{
	const char	*id = e->rule != NULL ? e->rule->id : "?";
	int64_t		 code = event_cap(e, CAP_EXITCODE);

	(void)inc;
	if (first->rank != RL_NONE)
		buf_printf(s, "Rank %d%s%s failed", first->rank,
		    host ? " on " : "", host ? host : "");
	else
		buf_adds(s, "A process failed");
	if (first->cls == CLASS_CONSEQUENCE && first->quit != RL_NONE &&
	    code != RL_CAP_UNSET)
		buf_printf(s, " (%s: exit code %lld)", id, (long long)code);
	else
		buf_printf(s, " (%s)", id);
	buf_adds(s, ", but printed nothing of its own in these logs: only ");
	buf_adds(s, first->cls == CLASS_COLLATERAL ? "timeouts and lost "
	    "peers show it" : first->quit != RL_NONE ? "its launcher's exit "
	    "record shows it" : "a wrapper of its failure shows it");
	buf_adds(s, ". Collect its own output (stderr, the worker's log) and "
	    "dmesg on its host to find the cause.");
}

/* Write the one-sentence summary and the explanation. */
static void
diagnose_words(struct rl_incident *inc, const struct judge *first)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_event	*e;
	struct buf		 s = { 0 }, x = { 0 };
	const char		*host;
	const char		*crash;	/* the signal's name, if one a
					   crash raises */
	int64_t			 sig;
	size_t			 i;

	if (a->first == RL_NONE) {
		a->summary = xstrdup("No failure found.");
		a->explanation = xstrdup("No rank logged a root cause, a "
		    "collateral error or a death by signal.");
		return;
	}
	e = inc->events[a->first];
	sig = death_signal(e);
	crash = first->cls == CLASS_KILLED && signal_crash(sig) ?
	    signal_name(sig) : NULL;
	a->first_launcher = e->rank == RL_NONE && block_launcher(e);
	for (i = 0; i < inc->nprocs && e->rank == RL_NONE && !a->first_launcher
	    && e->process != RL_NONE && inc->procs[e->process]->host == NULL;
	    i++)
		a->first_unattributed |= inc->procs[i]->rank != RL_NONE;
	host = e->process != RL_NONE ? inc->procs[e->process]->host : NULL;
	if (a->scope == SCOPE_ALL && first->rank != RL_NONE)
		buf_printf(&s, "Every rank failed alike (%s): the failure is "
		    "common to all ranks, which points away from one bad node.",
		    e->rule != NULL ? e->rule->id : "?");
	else if (e->role == ROLE_HANG && a->hang.basis != NULL &&
	    strcmp(a->hang.basis, "lagging") == 0)
		buf_printf(&s, "Rank %d%s%s never reached the collective the "
		    "others waited in: a hang.", e->rank, host ? " on " : "",
		    host ? host : "");
	else if (e->role == ROLE_HANG)
		buf_printf(&s, "Rank %d%s%s went quiet first while the others "
		    "waited in a collective: a hang.", e->rank,
		    host ? " on " : "", host ? host : "");
	else if (first->cls == CLASS_CONSEQUENCE ||
	    first->cls == CLASS_COLLATERAL)
		diagnose_words_consequence(inc, first, e, host, &s);
	else if (first->rank == RL_NONE && a->first_launcher)
		buf_printf(&s, "The launcher failed (%s) before any rank "
		    "could.", e->rule->id);
	else if (first->rank == RL_NONE && host != NULL)
		buf_printf(&s, "A process on %s failed (%s); no line names "
		    "its rank.", host, e->rule->id);
	else if (first->rank == RL_NONE && a->first_unattributed)
		buf_printf(&s, "An unattributed line failed (%s): no prefix "
		    "names the rank or host that wrote it.", e->rule->id);
	else if (first->rank == RL_NONE)
		buf_printf(&s, "A process failed (%s); no line names a rank.",
		    e->rule->id);
	else
		buf_printf(&s, "Rank %d%s%s failed first (%s)%s.", e->rank,
		    host ? " on " : "", host ? host : "",
		    e->rule != NULL ? e->rule->id : "?",
		    first->cls != CLASS_KILLED ? "" : crash != NULL ?
		    ": it crashed, with no error of its own" : ": killed by "
		    "a signal, with no error of its own");
	switch (first->cls) {
	case CLASS_ROOT:
		buf_adds(&x, e->role == ROLE_HANG ? "Every failing rank "
		    "reported a peer's failure or a timeout: the job hung, and "
		    "the culprit is the rank the others waited for." :
		    "Earliest root-cause event across all ranks; the other "
		    "failing ranks report consequences.");
		break;
	case CLASS_KILLED:
		if (crash != NULL)
			buf_printf(&x, "The launcher recorded a death by %s "
			    "and the rank logged no error of its own: a crash "
			    "inside the process raises it (a fault or an abort "
			    "in native code), right after its last line.",
			    crash);
		else
			buf_adds(&x, "The launcher recorded a death by signal "
			    "and the rank logged no error of its own: it was "
			    "killed from outside (look for the OOM killer or "
			    "the scheduler) right after its last line.");
		break;
	case CLASS_CONSEQUENCE:
		buf_adds(&x, "No rank logged a root cause, died by a signal or "
		    "went quiet while the others waited: only consequences "
		    "were logged, and this is the best culprit they allow.");
		break;
	case CLASS_COLLATERAL:
		buf_adds(&x, "Every failing rank reported a peer's failure or "
		    "a timeout, and none can be told to have hung first: the "
		    "earliest of them stands for the culprit.");
		break;
	default:
		buf_adds(&x, "No rank logged a root cause; this is the "
		    "earliest failure seen.");
	}
	a->summary = buf_steal(&s);
	a->explanation = buf_steal(&x);
}

/*
 * Undo what a diagnosis added, so that diagnose() can run again when more
 * lines have come (analyze --follow): the answer, the ranks table, the
 * ranks it guessed for processes; and gather the events afresh from their
 * keeps, since the last run changed its copies (ranks, times, the hang).
 */
void
diagnose_reset(struct rl_incident *inc)
{
	size_t	i;

	for (i = 0; i < inc->nprocs; i++) {
		if (inc->procs[i]->rank_guessed) {
			inc->procs[i]->rank = RL_NONE;
			inc->procs[i]->rank_guessed = false;
		}
	}
	for (i = 0; i < inc->nranks; i++) {
		free(inc->ranks[i].host);
		free(inc->ranks[i].sources);
	}
	free(inc->ranks);
	inc->ranks = NULL;
	inc->nranks = 0;
	answer_clear(&inc->answer);
	incident_disown(inc);
	incident_gather(inc);
}

/* Compute the three answers; again after more lines, it starts afresh. */
void
diagnose(struct rl_incident *inc)
{
	struct rl_answer	*a = &inc->answer;
	struct judge		*v = NULL, *first;
	struct judge_index	 ix = { 0 };
	size_t			 n = 0, i;
	const struct rl_event	*e;

	diagnose_reset(inc);
	zone_estimate(inc);
	diagnose_resolve(inc);
	join_resolve(inc);
	diagnose_lone_rank(inc);
	skew_estimate(inc);
	handled_revive(inc);
	handled_mark(inc);
	block_specific(inc);
	block_promote(inc);
	block_adopt(inc);
	/* Every rank is judged, also one that printed no error at all. */
	for (i = 0; i < inc->nprocs; i++) {
		if (inc->procs[i]->rank != RL_NONE)
			judge_get(&v, &n, &ix, inc->procs[i]->rank, (int)i);
	}
	diagnose_collect(inc, &v, &n, &ix);
	diagnose_last(inc, v, n, &ix);
	free(ix.by_rank);
	free(ix.by_proc);
	for (i = 0; i < n; i++)
		judge_classify(&v[i]);
	first = judge_first(inc, v, n, CLASS_ROOT, CLASS_KILLED);
	if (first == NULL)
		first = judge_first(inc, v, n, CLASS_SYMPTOM, CLASS_SYMPTOM);
	if (first == NULL && judge_first(inc, v, n, CLASS_COLLATERAL,
	    CLASS_COLLATERAL) != NULL && diagnose_hang(inc, v, n) != RL_NONE)
		first = judge_first(inc, v, n, CLASS_ROOT, CLASS_ROOT);
	if (first == NULL)
		first = diagnose_consequence(inc, v, n);
	a->first = first != NULL ? judge_event(first) : RL_NONE;
	if (a->first != RL_NONE) {
		e = inc->events[a->first];
		a->first_role = e->role;
		a->scope = diagnose_scope(inc, v, n, first);
		if (a->scope == SCOPE_ALL && first->rank != RL_NONE) {
			first = judge_common(inc, v, n, first);
			a->first = judge_event(first);
			e = inc->events[a->first];
		}
		if (e->role == ROLE_HANG) {
			/* Frozen processes never reached a collective at all. */
			a->domain = a->hang.frozen ? DOMAIN_UNKNOWN :
			    DOMAIN_INFRA;
			a->group = a->hang.frozen ? GROUP_OTHER :
			    GROUP_COMMUNICATION;
		} else {
			a->domain = e->rule->domain;
			a->group = e->rule->group;
			if (first->cls == CLASS_KILLED &&
			    (a->domain == DOMAIN_UNKNOWN ||
			    a->domain == DOMAIN_NONE))
				a->domain = signal_domain(e);
			if (first->cls == CLASS_KILLED && a->group == GROUP_NONE)
				a->group = GROUP_WORKER_DEATH;
		}
		if (a->group == GROUP_NONE)
			a->group = GROUP_OTHER;
	}
	diagnose_ranks(inc, v, n, first);
	if (inc->nranks == 0)
		diagnose_host_rows(inc);
	if (inc->nranks > 1)
		qsort(inc->ranks, inc->nranks, sizeof *inc->ranks, diagnose_rank_cmp);
	diagnose_rank_sources(inc);
	diagnose_words(inc, first);
	checkpoint_analyze(inc);
	evidence_first(inc);
	evidence_verdict(inc);
	capacity_build(inc);
	advice_build(inc);
	free(v);
	inc->diagnoses++;
}
