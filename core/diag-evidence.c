/*
 * evidence.c: the reasons for each answer, as lines a person can check.
 *
 * diagnose.c picks the first failure, checkpoint.c the checkpoint; this
 * file says why, and how sure the verdict is.  Each answer gets a short
 * explanation and a list of evidence: the lines (source, line, rank,
 * time, text) that support it or argue against it, each with what it
 * shows.  The verdict is also corroborated here: the root event's domain
 * is the starting point, and other lines can confirm it (an OOM kill for
 * the pid of a rank killed by SIGKILL, the memory profile of a capacity
 * failure, the same signature on every rank) or overturn it (a hardware
 * error on the very GPU whose kernel faulted makes the fault hardware).
 *
 * Confidence is a number from 0 to 1: a base for the kind of first
 * failure (a specific rule, a generic exception, a signal death, a hang
 * and what named its culprit), plus 0.05 per corroborating line (at most
 * 0.15), minus 0.1 per line against (at most 0.3), kept within 0.05 and
 * 0.95.  0.75 and above reads "high", 0.5 and above "medium", else "low"
 * (rankline.1 says the same).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define EV_MAX		24	/* items one list keeps; the rest are counted */
#define EV_TEXT_MAX	1024	/* bytes of a line an item keeps */
#define EV_TIES_MAX	16	/* collateral ranks tied to the first, listed */
#define SKEW_NAMED	4	/* hosts whose clocks the explanation names */
#define EV_NEAR_MS	(10 * 60 * 1000) /* a hardware line this near counts */

#define CONF_BONUS	0.05	/* per corroborating line */
#define CONF_BONUS_MAX	0.15
#define CONF_MALUS	0.10	/* per line against */
#define CONF_MALUS_MAX	0.30

/* Rules whose meaning the evidence needs beyond their role and domain. */
#define ID_ELASTIC_ROOT	"torch.elastic.root_cause_header"

static const char *stance_names[] = { "supports", "against" };

const char *
stance_name(enum rl_stance s)
{
	return s <= STANCE_AGAINST ? stance_names[s] : "?";
}

/* The word for a confidence. */
const char *
confidence_level(double c)
{
	if (c >= 0.75)
		return "high";
	return c >= 0.5 ? "medium" : "low";
}

/* A copy of log text cut to the cap, on a UTF-8 boundary. */
static char *
ev_text(const char *s)
{
	size_t	n;

	if (s == NULL)
		return NULL;
	if ((n = strlen(s)) > EV_TEXT_MAX) {
		n = EV_TEXT_MAX;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	return xstrndup(s, n);
}

/* Append an item, or count it if the list is full; takes shows. */
static void
evlist_push(struct rl_evlist *l, int source, uint64_t line, int rank,
    const struct rl_time *t, const char *text, enum rl_stance st, char *shows)
{
	struct rl_evidence	*v;

	if (l->n >= EV_MAX) {
		l->dropped++;
		free(shows);
		return;
	}
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	v = &l->v[l->n++];
	memset(v, 0, sizeof *v);
	v->source = source;
	v->line = line;
	v->rank = rank;
	if (t != NULL)
		v->time = *t;
	v->text = ev_text(text);
	v->shows = shows;
	v->stance = st;
}

/* Is this event already in the list (at its source and line)? */
static bool
evlist_has(const struct rl_evlist *l, const struct rl_event *e)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].source == (int)e->source && l->v[i].line == e->line)
			return true;
	}
	return false;
}

/* Add an event's line, with what it shows. */
void
evlist_add(struct rl_evlist *l, const struct rl_incident *inc, int ev,
    enum rl_stance st, const char *fmt, ...)
{
	const struct rl_event	*e;
	va_list			 ap;
	char			*shows;

	if (ev < 0 || (size_t)ev >= inc->nevents)
		return;
	e = inc->events[ev];
	if (evlist_has(l, e))
		return;
	va_start(ap, fmt);
	xvasprintf(&shows, fmt, ap);
	va_end(ap);
	evlist_push(l, (int)e->source, e->line, e->rank, &e->time, event_text(inc, e), st,
	    shows);
}

/* Add a whole file (a checkpoint shard, a tracker), with what it shows. */
void
evlist_add_file(struct rl_evlist *l, int source, const char *text,
    enum rl_stance st, const char *fmt, ...)
{
	va_list	 ap;
	char	*shows;

	va_start(ap, fmt);
	xvasprintf(&shows, fmt, ap);
	va_end(ap);
	evlist_push(l, source, 0, RL_NONE, NULL, text, st, shows);
}

/* Append every item of src to dst (up to the cap) and empty src. */
void
evlist_move(struct rl_evlist *dst, struct rl_evlist *src)
{
	size_t	i;

	for (i = 0; i < src->n; i++)
		evlist_push(dst, src->v[i].source, src->v[i].line,
		    src->v[i].rank, &src->v[i].time, src->v[i].text,
		    src->v[i].stance, xstrdup(src->v[i].shows));
	dst->dropped += src->dropped;
	evlist_clear(src);
}

void
evlist_clear(struct rl_evlist *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].text);
		free(l->v[i].shows);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* Milliseconds from a to b, both corrected for their hosts' clocks. */
static int64_t
ev_delta(const struct rl_incident *inc, const struct rl_event *a,
    const struct rl_event *b)
{
	if (!(a->time.flags & RL_TIME_VALID) || !(b->time.flags & RL_TIME_VALID) ||
	    ((a->time.flags ^ b->time.flags) & RL_TIME_BOOT))
		return INT64_MIN;
	return skew_utc_ms(inc, &b->time, event_host(inc, b)) -
	    skew_utc_ms(inc, &a->time, event_host(inc, a));
}

/*
 * How long after the first failure a line came, in words; a line with no
 * time of its own only says it came later in its writer's output.
 */
static void
ev_delta_words(char *buf, size_t sz, int64_t d, const struct rl_event *e)
{
	if (d == INT64_MIN)
		snprintf(buf, sz, "at an unknown time");
	else if (e->guess != TIME_OWN)
		snprintf(buf, sz, "%s (the line has no time of its own)",
		    d >= 0 ? "after it" : "around it");
	else if (llabs(d) < 50)
		snprintf(buf, sz, "at the same moment");
	else
		snprintf(buf, sz, "%.1f s %s", fabs((double)d) / 1000.0,
		    d >= 0 ? "after it" : "before it by the log's clock");
}

/* Was the first failure a death by signal with no error of its own? */
static bool
ev_first_killed(const struct rl_event *e)
{
	return e->rule != NULL && e->role != ROLE_ROOT &&
	    (e->rule->mark == MARK_EXIT || e->rule->mark == MARK_RECORD);
}

/* The signal of an exit event, or 0. */
static int
ev_signal(const struct rl_event *e)
{
	int64_t	sig = death_signal(e);

	return sig > 0 && sig <= INT32_MAX ? (int)sig : 0;
}

/* What the lagging rank's numbers show, from a desync line or the SeqNum. */
static void
ev_lag(struct rl_incident *inc, struct rl_evlist *l, int ev,
    enum rl_stance stance)
{
	const struct rl_hang	*h = &inc->answer.hang;

	if (h->lag_seq)
		evlist_add(l, inc, ev, stance, "rank %d's watchdog timed out in "
		    "collective SeqNum %lld while every other rank's timed out "
		    "in %lld: it is out of step with them", h->lag_rank,
		    (long long)h->lag_enqueued, (long long)h->peers_enqueued);
	else
		evlist_add(l, inc, ev, stance, "rank %d's last enqueued "
		    "collective is %lld while the others reached %lld: it never "
		    "entered the collective they wait in", h->lag_rank,
		    (long long)h->lag_enqueued, (long long)h->peers_enqueued);
}

/* The first failure's own line, and for a killed rank its last words. */
static void
ev_first_line(struct rl_incident *inc, const struct rl_event *f)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_process	*p;
	char			*last, who[32];

	if (f->role == ROLE_HANG && a->hang.lag_rank == f->rank)
		ev_lag(inc, &a->first_evidence, a->first, STANCE_SUPPORTS);
	if (f->role == ROLE_HANG) {
		evlist_add(&a->first_evidence, inc, a->first, STANCE_SUPPORTS,
		    "rank %d's last line: it went quiet here while the others "
		    "waited for it in a collective", f->rank);
		return;
	}
	if (ev_first_killed(f)) {
		if (f->rank != RL_NONE)
			snprintf(who, sizeof who, "rank %d", f->rank);
		else
			snprintf(who, sizeof who, "a process");
		evlist_add(&a->first_evidence, inc, a->first, STANCE_SUPPORTS,
		    "the launcher's record: %s died by signal %d and raised "
		    "nothing itself", who, ev_signal(f));
		p = f->process != RL_NONE ? inc->procs[f->process] : NULL;
		if (p == NULL || p->rank != f->rank || p->last_source == RL_NONE)
			return;
		last = process_last_line(inc, p);
		evlist_push(&a->first_evidence, p->last_source, p->last_line,
		    f->rank, &p->last, last, STANCE_SUPPORTS,
		    xstrdup("its last words: it was killed right after this "
		    "line"));
		free(last);
		return;
	}
	evlist_add(&a->first_evidence, inc, a->first, STANCE_SUPPORTS,
	    "the earliest root-capable event across all ranks (%s)%s",
	    f->rule != NULL && f->rule->title != NULL ? f->rule->title :
	    "a failure", f->rank_resolved && (f->process == RL_NONE ||
	    inc->procs[f->process]->rank != f->rank) ?
	    ", tied to this rank by its GPU's PCI address or its pid" : "");
}

/* A kernel line about the killed rank: the OOM killer's, or another. */
static void
ev_first_kernel(struct rl_incident *inc, const struct rl_event *f)
{
	const struct rl_event	*e;
	size_t			 i;

	if (!ev_first_killed(f) || f->rank == RL_NONE)
		return;
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rank == f->rank && e->rank_resolved && e->rule != NULL &&
		    e->rule->mark == MARK_NONE && !e->harmless &&
		    (e->role == ROLE_ROOT || e->role == ROLE_SYMPTOM))
			evlist_add(&inc->answer.first_evidence, inc, (int)i,
			    STANCE_SUPPORTS, "the kernel's line about rank %d's "
			    "process (%s)", f->rank, e->rule->title != NULL ?
			    e->rule->title : e->rule->id);
	}
}

/*
 * The line that shows each listed rank's failure most directly: the same
 * kind of line as the one diagnose chose, from the rank's own file rather
 * than a launcher's copy or a tee'd console.  One pass for them all: at
 * 1,024 ranks a pass per rank was 16 passes over 76K events.
 */
struct ev_tie {
	const struct rl_rank	*r;
	const struct rl_rule	*rule;	/* of the rank's first event */
	int			 best;	/* the event, or r->first_event */
	int			 score;	/* how indirect it is: lower is better */
};

static void
ev_direct(const struct rl_incident *inc, struct ev_tie *t, size_t n)
{
	const struct rl_event	*e;
	const struct rl_source	*s;
	size_t			 i, k;
	int			 score;

	for (k = 0; k < n; k++) {
		t[k].rule = inc->events[t[k].r->first_event]->rule;
		t[k].best = t[k].r->first_event;
		t[k].score = 9;
	}
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->harmless)
			continue;
		for (k = 0; k < n; k++) {
			if (e->rank != t[k].r->rank || e->rule != t[k].rule)
				continue;
			s = inc->sources[e->source];
			score = e->weak ? 3 : s->copy ? 2 : s->multiplexed ? 1 :
			    0;
			if (score < t[k].score) {
				t[k].score = score;
				t[k].best = (int)i;
			}
		}
	}
}

/*
 * Every other failing rank, with what ties it to the first: a consequence
 * (collateral) or a failure of its own that came later.
 */
static void
ev_first_ties(struct rl_incident *inc, const struct rl_event *f,
    struct buf *x)
{
	const struct rl_rank	*r;
	const struct rl_event	*e;
	struct ev_tie		 tie[EV_TIES_MAX];
	char			 d[64];
	size_t			 i, listed = 0, coll = 0, flipped = 0, k;
	int64_t			 dt;

	for (i = 0; i < inc->nranks; i++) {
		r = &inc->ranks[i];
		if (r->rank == f->rank || r->first_event == RL_NONE ||
		    (r->state != RANK_COLLATERAL && r->state != RANK_EXITED &&
		    r->state != RANK_FAILED))
			continue;
		e = inc->events[r->first_event];
		dt = ev_delta(inc, f, e);
		coll += r->state == RANK_COLLATERAL;
		if (dt != INT64_MIN && dt >= 0 && clock_cmp(&e->time, &f->time) < 0)
			flipped++;
		if (listed >= EV_TIES_MAX) {
			inc->answer.first_evidence.dropped++;
			continue;
		}
		tie[listed++].r = r;
	}
	/* Only the listed few look for their most direct line. */
	ev_direct(inc, tie, listed);
	for (k = 0; k < listed; k++) {
		r = tie[k].r;
		e = inc->events[tie[k].best];
		ev_delta_words(d, sizeof d, ev_delta(inc, f, e), e);
		if (r->state == RANK_COLLATERAL)
			evlist_add(&inc->answer.first_evidence, inc,
			    tie[k].best, STANCE_SUPPORTS, "rank %d is "
			    "collateral: %s, %s, is a consequence of a peer's "
			    "failure", r->rank, e->rule != NULL &&
			    e->rule->title != NULL ? e->rule->title : "its error",
			    d);
		else
			evlist_add(&inc->answer.first_evidence, inc,
			    tie[k].best, STANCE_SUPPORTS, "rank %d failed "
			    "too (%s), %s", r->rank, e->rule != NULL ?
			    e->rule->id : "?", d);
	}
	if (coll > 0)
		buf_printf(x, " %zu other rank%s failed only as a consequence.",
		    coll, coll == 1 ? "" : "s");
	if (flipped > 0)
		buf_printf(x, " Corrected for the hosts' clock offsets, %zu "
		    "failure%s stamped earlier on another host came after it.",
		    flipped, flipped == 1 ? "" : "s");
}

/* The rank a launcher record following a line of the same source names. */
static int
ev_record_after(const struct rl_incident *inc, const struct rl_event *h,
    int *at)
{
	const struct rl_event	*e;
	size_t			 i;
	uint64_t		 best = UINT64_MAX;
	int			 rank = RL_NONE;

	*at = RL_NONE;
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->source != h->source || e->line <= h->line ||
		    e->line >= best || e->rule == NULL ||
		    e->rule->mark != MARK_RECORD ||
		    event_cap(e, CAP_RANK) == RL_CAP_UNSET)
			continue;
		best = e->line;
		rank = (int)event_cap(e, CAP_RANK);
		*at = (int)i;
	}
	return rank;
}

/*
 * torchrun's "Root Cause (first observed failure)": weak evidence (per
 * node, whole seconds, ties to the lowest rank, signal deaths stamped when
 * noticed).  Where it names another rank, say so and why it loses.
 */
static void
ev_first_elastic(struct rl_incident *inc, const struct rl_event *f,
    struct buf *x)
{
	const struct rl_event	*e;
	size_t			 i;
	int			 rank, at, disagree = RL_NONE;

	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rule == NULL || strcmp(e->rule->id, ID_ELASTIC_ROOT) != 0)
			continue;
		if ((rank = ev_record_after(inc, e, &at)) == RL_NONE)
			continue;
		if (rank == f->rank)
			evlist_add(&inc->answer.first_evidence, inc, at,
			    STANCE_SUPPORTS, "torchrun's \"first observed "
			    "failure\" names rank %d too", rank);
		else {
			evlist_add(&inc->answer.first_evidence, inc, at,
			    STANCE_AGAINST, "torchrun's \"first observed "
			    "failure\" names rank %d: weak evidence (per node, "
			    "whole seconds, ties to the lowest rank, signal "
			    "deaths stamped when noticed)", rank);
			disagree = rank;
		}
	}
	if (disagree != RL_NONE && f->rank != RL_NONE)
		buf_printf(x, " torchrun's \"first observed failure\" names rank "
		    "%d, but its record is per node with whole-second times and "
		    "ties to the lowest rank; the ranks' own lines put rank %d "
		    "first.", disagree, f->rank);
}

/* The hang's evidence: lagging progress, the dump origin, its start. */
static void
ev_first_hang(struct rl_incident *inc, const struct rl_event *f,
    struct buf *x)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_hang	*h = &a->hang;
	char			 t[64];

	if (f->role != ROLE_HANG)
		return;
	if (h->lag_rank != RL_NONE)
		ev_lag(inc, &a->first_evidence, h->lag_event,
		    h->lag_rank == f->rank ? STANCE_SUPPORTS : STANCE_AGAINST);
	if (h->dump_origin != RL_NONE)
		evlist_add(&a->first_evidence, inc, h->dump_event,
		    STANCE_SUPPORTS, "rank %d detected a collective timeout "
		    "first and asked every rank to dump its state",
		    h->dump_origin);
	if (h->timeout_event != RL_NONE) {
		clock_format(&h->began, t, sizeof t);
		evlist_add(&a->first_evidence, inc, h->timeout_event,
		    STANCE_SUPPORTS, "a timeout of %lld ms reported here: the "
		    "hang began at about %s", (long long)h->timeout_ms, t);
	}
	if (strcmp(h->basis != NULL ? h->basis : "", "lagging") == 0 &&
	    h->lag_seq)
		buf_printf(x, " Its watchdog timed out in collective SeqNum "
		    "%lld, the others' in %lld: it is out of step with them.",
		    (long long)h->lag_enqueued, (long long)h->peers_enqueued);
	else if (strcmp(h->basis != NULL ? h->basis : "", "lagging") == 0)
		buf_printf(x, " Its last enqueued collective (%lld) is behind "
		    "every other rank's (%lld): it never reached the collective "
		    "the others wait in.", (long long)h->lag_enqueued,
		    (long long)h->peers_enqueued);
	else if (strcmp(h->basis != NULL ? h->basis : "", "silent") == 0)
		buf_printf(x, " %zu rank%s reported the timeout; rank %d "
		    "reported nothing and went quiet first.", h->reporters,
		    h->reporters == 1 ? "" : "s", f->rank);
	else if (strcmp(h->basis != NULL ? h->basis : "", "dump") == 0)
		buf_printf(x, " Every rank reported something; rank %d is the "
		    "one the dump signals name as the first to detect the "
		    "timeout.", f->rank);
	if (h->frozen)
		buf_adds(x, " Every rank's last enqueued collective is -1: the "
		    "processes were frozen before any collective (a deadlock, "
		    "a stopped process, a stuck data loader or file system), "
		    "not stuck inside one.");
	if (h->timeout_event != RL_NONE) {
		clock_format(&h->began, t, sizeof t);
		buf_printf(x, " The hang began at about %s (the first timeout "
		    "minus its %lld ms).", t, (long long)h->timeout_ms);
	}
}

/* Is a host's clock off from the reference's by more than the tolerance? */
static bool
ev_skewed(const struct rl_answer *a, const struct rl_skew *k)
{
	return !k->reference && llabs(k->offset_ms) >= a->skew_tolerance_ms;
}

/*
 * The clocks: when hosts disagree, say by how much and how it was used.
 * Past SKEW_NAMED hosts only the furthest off are named, and the rest
 * counted: a stream of 100,000 hosts whose clocks drift made an
 * explanation of 10 MB, one sentence a host, which the clocks' list in
 * the report and the JSON holds anyway.
 */
static void
ev_first_skew(struct rl_incident *inc, struct buf *x)
{
	const struct rl_answer	*a = &inc->answer;
	const struct rl_skew	*ref = NULL, *k;
	size_t			 i, j, n = 0, named[SKEW_NAMED], nnamed = 0;

	for (i = 0; i < a->nskew; i++) {
		if (a->skew[i].reference)
			ref = &a->skew[i];
		n += ev_skewed(a, &a->skew[i]);
	}
	if (ref == NULL)
		return;
	for (i = 0; i < a->nskew; i++) {
		if (!ev_skewed(a, &a->skew[i]))
			continue;
		if (n <= SKEW_NAMED) {
			named[nnamed++] = i;
			continue;
		}
		/* The furthest off, furthest first. */
		for (j = 0; j < nnamed && llabs(a->skew[named[j]].offset_ms) >=
		    llabs(a->skew[i].offset_ms); j++)
			;
		if (j == SKEW_NAMED)
			continue;
		if (nnamed < SKEW_NAMED)
			nnamed++;
		memmove(&named[j + 1], &named[j], (nnamed - 1 - j) *
		    sizeof *named);
		named[j] = i;
	}
	for (j = 0; j < nnamed; j++) {
		k = &a->skew[named[j]];
		buf_printf(x, " %s's clock is %.1f s %s %s's (from %zu step "
		    "lines): its times were corrected before ordering.",
		    k->host, fabs((double)k->offset_ms) / 1000,
		    k->offset_ms > 0 ? "ahead of" : "behind", ref->host,
		    k->samples);
	}
	if (n > nnamed)
		buf_printf(x, " So were %zu more hosts' clocks, none further "
		    "off (the clocks' list has each).", n - nnamed);
}

/* The first failure's evidence, and more of its explanation. */
void
evidence_first(struct rl_incident *inc)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_event	*f;
	struct buf		 x = { 0 };

	if (a->first == RL_NONE)
		return;
	f = inc->events[a->first];
	buf_adds(&x, a->explanation != NULL ? a->explanation : "");
	ev_first_line(inc, f);
	ev_first_kernel(inc, f);
	ev_first_hang(inc, f, &x);
	ev_first_ties(inc, f, &x);
	ev_first_elastic(inc, f, &x);
	ev_first_skew(inc, &x);
	free(a->explanation);
	a->explanation = buf_steal(&x);
}

/* Is an event near another in time (or either untimed)? */
static bool
ev_near(const struct rl_incident *inc, const struct rl_event *a,
    const struct rl_event *b)
{
	int64_t	d = ev_delta(inc, a, b);

	return d == INT64_MIN || llabs(d) <= EV_NEAR_MS;
}

/*
 * Hardware lines: on the failing rank's GPU (joined by PCI address or pid)
 * they make the failure hardware; elsewhere they argue against the
 * verdict.  Returns how many support it.
 */
static int
ev_verdict_hardware(struct rl_incident *inc, const struct rl_event *f,
    int *against)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_event	*e;
	const char		*fh = event_host(inc, f), *eh;
	size_t			 i;
	int			 support = 0;

	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rule == NULL || e->harmless || (int)i == a->first ||
		    e->rule->domain != DOMAIN_HARDWARE ||
		    (e->role != ROLE_ROOT && e->role != ROLE_SYMPTOM &&
		    e->role != ROLE_EVIDENCE))
			continue;
		eh = event_host(inc, e);
		if (f->rank != RL_NONE && e->rank == f->rank && ev_near(inc, f, e)) {
			if (a->domain != DOMAIN_HARDWARE) {
				a->domain = DOMAIN_HARDWARE;
				a->group = e->rule->group != GROUP_NONE ?
				    e->rule->group : GROUP_KERNEL;
			}
			evlist_add(&a->verdict_evidence, inc, (int)i,
			    STANCE_SUPPORTS, "a hardware error on rank %d's own "
			    "GPU (%s)", f->rank, e->rule->title != NULL ?
			    e->rule->title : e->rule->id);
			support++;
		} else if (a->domain == DOMAIN_HARDWARE) {
			if (e->rank == RL_NONE && fh != NULL && eh != NULL &&
			    strcmp(fh, eh) == 0) {
				evlist_add(&a->verdict_evidence, inc, (int)i,
				    STANCE_SUPPORTS, "another hardware line on "
				    "host %s", eh);
				support++;
			}
		} else {
			evlist_add(&a->verdict_evidence, inc, (int)i,
			    STANCE_AGAINST, "a hardware error %s%s: check "
			    "whether it is the failing rank's GPU",
			    e->rank != RL_NONE ? "on rank " : "on ",
			    e->rank != RL_NONE ? "another rank" : (eh != NULL ?
			    eh : "an unknown host"));
			(*against)++;
		}
	}
	return support;
}

/* A signal death: the kernel's line for it, and what the signal says. */
static int
ev_verdict_signal(struct rl_incident *inc, const struct rl_event *f,
    struct buf *x)
{
	const struct rl_event	*e;
	size_t			 i;
	int			 sig = ev_signal(f), support = 0;

	if (!ev_first_killed(f))
		return 0;
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rank != f->rank || !e->rank_resolved || e->rule == NULL ||
		    e->rule->mark != MARK_NONE || e->harmless ||
		    e->role != ROLE_ROOT)
			continue;
		evlist_add(&inc->answer.verdict_evidence, inc, (int)i,
		    STANCE_SUPPORTS, "the kernel says why rank %d died (%s)",
		    f->rank, e->rule->title != NULL ? e->rule->title :
		    e->rule->id);
		support++;
	}
	if (sig == 9 && support == 0)
		buf_adds(x, " SIGKILL comes from outside the process: the "
		    "kernel's OOM killer, a cgroup memory limit, or the "
		    "scheduler; no kernel line about it was given, so which one "
		    "is unconfirmed (collect dmesg from its host).");
	else if (sig == 11)
		buf_adds(x, " SIGSEGV is a native crash in the process: a "
		    "library or extension bug more often than hardware.");
	else if (sig == 6)
		buf_adds(x, " SIGABRT is the process aborting itself: a C++ "
		    "exception, a failed assertion, or ProcessGroupNCCL "
		    "taking it down after a collective failed.");
	return support;
}

/*
 * A capacity verdict needs its numbers: the memory profile, the limits.
 * A lean reading's texts let go say whether they named limits as they went
 * (EVENT_TEXT_LIMITS): read back, they were each of 10,000 files again.
 */
static int
ev_verdict_capacity(struct rl_incident *inc, struct buf *x)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_event	*e;
	size_t			 i;
	int			 support = 0;
	bool			 limits;

	if (a->group != GROUP_CAPACITY)
		return 0;
	for (i = 0; i < inc->nevents && support < 3; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rule == NULL || (int)i == a->first)
			continue;
		if (e->rule->checklist & (1u << CHECK_MEMORY))
			limits = true;
		else if (e->text != NULL || !(e->tform & EVENT_TEXT_AWAY))
			limits = e->text != NULL &&
			    text_names_limits(e->text, strlen(e->text));
		else
			limits = (e->tform & EVENT_TEXT_LIMITS) != 0;
		if (!limits)
			continue;
		evlist_add(&a->verdict_evidence, inc, (int)i, STANCE_SUPPORTS,
		    "the memory budget or the limits that decide it (%s)",
		    e->rule->title != NULL ? e->rule->title : e->rule->id);
		support++;
	}
	if (support == 0)
		buf_adds(x, " No memory profile or limit was found in the logs: "
		    "that it is capacity rests on the error alone.");
	return support;
}

/* The same root on every rank points away from one bad node. */
static int
ev_verdict_scope(struct rl_incident *inc, const struct rl_event *f,
    int *against)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_rank	*r;
	size_t			 i, listed = 0;

	if (a->scope != SCOPE_ALL)
		return 0;
	for (i = 0; i < inc->nranks && listed < 3; i++) {
		r = &inc->ranks[i];
		if (r->rank == f->rank || r->first_event == RL_NONE ||
		    inc->events[r->first_event]->rule != f->rule)
			continue;
		evlist_add(&a->verdict_evidence, inc, r->first_event,
		    a->domain == DOMAIN_HARDWARE ? STANCE_AGAINST :
		    STANCE_SUPPORTS, "rank %d failed the same way: the failure "
		    "is common to all ranks, not one node's", r->rank);
		listed++;
	}
	if (a->domain == DOMAIN_HARDWARE) {
		*against += (int)listed;
		return 0;
	}
	return (int)listed;
}

/* Other ranks that failed on their own, in another domain. */
static void
ev_verdict_others(struct rl_incident *inc, const struct rl_event *f,
    int *against)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_rank	*r;
	const struct rl_event	*e;
	size_t			 i;

	for (i = 0; i < inc->nranks; i++) {
		r = &inc->ranks[i];
		if (r->rank == f->rank || r->state != RANK_EXITED ||
		    r->first_event == RL_NONE)
			continue;
		e = inc->events[r->first_event];
		if (e->rule == NULL || e->role != ROLE_ROOT ||
		    e->rule->domain == a->domain)
			continue;
		evlist_add(&a->verdict_evidence, inc, r->first_event,
		    STANCE_AGAINST, "rank %d failed on its own too, in domain "
		    "%s (%s)", r->rank, domain_name(e->rule->domain),
		    e->rule->id);
		(*against)++;
	}
}

/* A hang's verdict rests on the ranks that reported the timeout. */
static int
ev_verdict_hang(struct rl_incident *inc, const struct rl_event *f)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_rank	*r;
	size_t			 i;
	int			 support = 0;

	if (f->role != ROLE_HANG)
		return 0;
	if (a->hang.lag_event != RL_NONE && a->hang.lag_rank == f->rank) {
		evlist_add(&a->verdict_evidence, inc, a->hang.lag_event,
		    STANCE_SUPPORTS, a->hang.lag_seq ? "rank %d timed out in "
		    "another collective than the others" : "rank %d never "
		    "enqueued the collective the others wait in", f->rank);
		support++;
	}
	for (i = 0; i < inc->nranks && support < 3; i++) {
		r = &inc->ranks[i];
		if (r->state != RANK_COLLATERAL || r->first_event == RL_NONE)
			continue;
		evlist_add(&a->verdict_evidence, inc, r->first_event,
		    STANCE_SUPPORTS, "rank %d waited for a peer and gave up",
		    r->rank);
		support++;
	}
	return support;
}

/* The confidence's base, from what kind of line the verdict rests on. */
static double
ev_base(const struct rl_incident *inc, const struct rl_event *f)
{
	const struct rl_answer	*a = &inc->answer;
	const char		*basis = a->hang.basis;

	if (a->domain == DOMAIN_UNKNOWN || a->domain == DOMAIN_NONE)
		return 0.35;
	if (f->role == ROLE_HANG) {
		if (basis != NULL && strcmp(basis, "lagging") == 0)
			return 0.75;
		return basis != NULL && strcmp(basis, "silent") == 0 ? 0.6 :
		    0.45;
	}
	if (ev_first_killed(f))
		return 0.5;
	if (f->role != ROLE_ROOT)
		return 0.4;
	return f->rule->priority >= 60 ? 0.8 : f->rule->priority >= 30 ?
	    0.7 : 0.6;
}

/* Why this domain and group, in words. */
static void
ev_verdict_words(struct rl_incident *inc, const struct rl_event *f,
    enum rl_domain from, struct buf *x)
{
	struct rl_answer	*a = &inc->answer;
	struct buf		 b = { 0 };

	if (f->role == ROLE_HANG)
		buf_printf(&b, "A hang: the ranks waited in a collective for a "
		    "rank that never joined; %s.", a->hang.frozen ?
		    "every process was frozen, so the cause is outside the "
		    "collective" : "communication or the culprit's host is the "
		    "first suspect");
	else if (from != a->domain)
		buf_printf(&b, "The first failure's rule says %s, but a "
		    "hardware error on the same GPU makes it %s.",
		    domain_name(from), domain_name(a->domain));
	else
		buf_printf(&b, "From the first failure's rule (%s): domain %s, "
		    "group %s.", f->rule != NULL ? f->rule->id : "?",
		    domain_name(a->domain), group_name(a->group));
	/*
	 * Alike on every rank: not one bad node.  What it points at instead
	 * is the domain's to say: a job-wide infrastructure failure (the
	 * master's port taken, a store that never formed) is still that.
	 */
	if (a->scope == SCOPE_ALL)
		buf_printf(&b, " Every rank failed alike, which points away "
		    "from one bad node and at %s.", a->domain == DOMAIN_INFRA ?
		    "what they all share: the network, the scheduler, the "
		    "launch's set-up" : a->domain == DOMAIN_HARDWARE ? "what "
		    "they all share: the GPU model, its driver or firmware" :
		    "the code, the config or the data");
	buf_adds(&b, x->p != NULL ? x->p : "");
	buf_printf(&b, " Confidence %s (%.2f).", confidence_level(a->confidence),
	    a->confidence);
	a->verdict_explanation = buf_steal(&b);
}

/*
 * Corroborate the verdict: evidence for and against it, a domain changed
 * by a hardware error on the failing GPU, the confidence and its words.
 */
void
evidence_verdict(struct rl_incident *inc)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_event	*f;
	struct buf		 x = { 0 };
	enum rl_domain		 from;
	int			 support = 0, against = 0;
	double			 c;

	if (a->first == RL_NONE) {
		a->verdict_explanation = xstrdup("No failure: nothing to "
		    "classify.");
		a->confidence = 0;
		return;
	}
	f = inc->events[a->first];
	from = a->domain;
	if (f->role != ROLE_HANG)
		evlist_add(&a->verdict_evidence, inc, a->first, STANCE_SUPPORTS,
		    "the first failure's own line: domain %s",
		    domain_name(from));
	support += ev_verdict_hang(inc, f);
	support += ev_verdict_hardware(inc, f, &against);
	support += ev_verdict_signal(inc, f, &x);
	support += ev_verdict_capacity(inc, &x);
	support += ev_verdict_scope(inc, f, &against);
	ev_verdict_others(inc, f, &against);
	c = ev_base(inc, f);
	if (from != a->domain)
		c = 0.75;
	c += fmin(CONF_BONUS * support, CONF_BONUS_MAX);
	c -= fmin(CONF_MALUS * against, CONF_MALUS_MAX);
	a->confidence = fmax(0.05, fmin(0.95, c));
	ev_verdict_words(inc, f, from, &x);
	buf_clear(&x);
}
