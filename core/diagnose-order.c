/*
 * diagnose-order.c: the events in time order, and each rank's sources.
 *
 * Before the ranks are judged (diagnose.c), each event gets the rank its
 * process resolved to and its place in time: the host's clock offset
 * applied where the job spans hosts, untimed lines last, a tie kept in
 * arrival order; most jobs' events sort by one number each (a radix sort
 * of the keys diagnose_resolve writes).  After, each rank lists its
 * sources, and the ranks table is ordered by rank.  Also here, what an
 * event's rank and standing are before judging: a launcher's unranked
 * copy of a rank's line, and the lines of a source that names one rank.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"

/* Order events by time, then arrival; untimed events last. */
static int
event_cmp(const void *a, const void *b)
{
	const struct rl_event	*x = *(const struct rl_event *const *)a;
	const struct rl_event	*y = *(const struct rl_event *const *)b;
	int			 c;

	c = clock_cmp(&x->time, &y->time);
	if (c != 0)
		return c;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * Where every timed event's time is a wall-clock reading without a zone,
 * the usual job, event_cmp is an order by one number per event, then by
 * arrival.  The events lie all over the keeps (76K of them in 21K keeps at
 * 1,024 ranks): each one's time and arrival are read once, into an array
 * with its place, and the array is sorted by radix, not by compares.
 * Sorting the pointers themselves fetched two events from memory at each
 * of some 1.3 million compares; a merge of the keys still mispredicted
 * half of its branches.  The arrival is in the key because ties are the
 * rule, not the exception: ranks print the same millisecond (67,766 of
 * those 76K events share theirs with the next).  A key is 16 bytes, the
 * arrival and the place 32 bits each, since the sort's array is on the
 * analysis's peak.  Untimed events sort last.
 */
#define KEY_BYTES	16		/* 8 of time, 4 of arrival, 4 of place */
#define KEY_SMALL	32		/* fewer are sorted by insertion */

struct event_key {
	uint64_t	 t;		/* ms past the earliest; untimed last */
	uint32_t	 seq;
	uint32_t	 i;		/* its place in inc->events */
};

/* Byte d of a key, from the place's lowest (0) to the time's highest. */
static inline unsigned
event_key_byte(const struct event_key *k, unsigned d)
{
	return d >= 8 ? (unsigned)(k->t >> (8 * (d - 8)) & 0xff) :
	    d >= 4 ? k->seq >> (8 * (d - 4)) & 0xff : k->i >> (8 * d) & 0xff;
}

static inline bool
event_key_less(const struct event_key *a, const struct event_key *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->seq != b->seq)
		return a->seq < b->seq;
	return a->i < b->i;
}

/*
 * Sort n keys by time, arrival and place, from byte d down, in place: by
 * that byte into 256 buckets (each key moved straight to its bucket's
 * next slot), then each bucket by the bytes below.  No two keys are equal
 * (places differ), so equal times and arrivals come out in the order they
 * were gathered, as a stable sort (qsort's) leaves them.  A second array
 * of keys, which a sort from the lowest byte moves them between, was
 * 11.5 MB of the peak at 10,000 ranks.
 */
static void
events_flag(struct event_key *v, size_t n, unsigned d)
{
	uint32_t		 count[256], next[256], end[256], at;
	struct event_key	 t, u;
	size_t			 i, j;
	unsigned		 x, c;

	for (;;) {
		if (n <= KEY_SMALL) {
			for (i = 1; i < n; i++) {
				t = v[i];
				for (j = i; j > 0 && event_key_less(&t,
				    &v[j - 1]); j--)
					v[j] = v[j - 1];
				v[j] = t;
			}
			return;
		}
		memset(count, 0, sizeof count);
		for (i = 0; i < n; i++)
			count[event_key_byte(&v[i], d)]++;
		/* A byte every key shares: on to the next. */
		if (count[event_key_byte(&v[0], d)] != n)
			break;
		if (d-- == 0)
			return;
	}
	for (at = 0, x = 0; x < 256; x++) {
		next[x] = at;
		at += count[x];
		end[x] = at;
	}
	for (x = 0; x < 256; x++) {
		while (next[x] < end[x]) {
			t = v[next[x]];
			while ((c = event_key_byte(&t, d)) != x) {
				u = v[next[c]];
				v[next[c]++] = t;
				t = u;
			}
			v[next[x]++] = t;
		}
	}
	if (d == 0)
		return;
	for (at = 0, x = 0; x < 256; at += count[x], x++) {
		if (count[x] > 1)
			events_flag(v + at, count[x], d - 1);
	}
}

/*
 * The highest byte in which some key differs from the first: the high
 * bytes of a span of hours and of the arrivals are passed over at once.
 */
static unsigned
events_top(const struct event_key *v, size_t n)
{
	uint64_t	dt = 0;
	uint32_t	ds = 0, di = 0;
	size_t		i;
	unsigned	d;

	for (i = 1; i < n; i++) {
		dt |= v[i].t ^ v[0].t;
		ds |= v[i].seq ^ v[0].seq;
		di |= v[i].i ^ v[0].i;
	}
	for (d = KEY_BYTES - 1; d > 0; d--) {
		if ((d >= 8 ? dt >> (8 * (d - 8)) : d >= 4 ?
		    (uint64_t)ds >> (8 * (d - 4)) : (uint64_t)di >> (8 * d)) &
		    0xff)
			break;
	}
	return d;
}

/*
 * Order the events by event_cmp, from the keys diagnose_resolve wrote in
 * its pass over them (keys[i] of inc->events[i], lo the earliest time),
 * or with qsort where a time is zoned or since boot (wall is false), or
 * the keys' 32 bits would not hold arrivals or places.  Frees keys.
 */
static void
events_sort(struct rl_incident *inc, struct event_key *keys, bool wall,
    int64_t lo)
{
	struct rl_event		**out;
	size_t			 n = inc->nevents, i;

	if (keys == NULL || !wall) {
		if (n > 1)
			qsort(inc->events, n, sizeof *inc->events, event_cmp);
		free(keys);
		return;
	}
	/* Past the earliest, times are unsigned and their high bytes zero. */
	for (i = 0; i < n; i++)
		keys[i].t -= (uint64_t)lo;
	events_flag(keys, n, events_top(keys, n));
	/*
	 * The events in order go over the keys first: the i-th pointer is
	 * written where keys before the i-th were, already read.
	 */
	_Static_assert(sizeof *keys >= sizeof *out, "a key holds a pointer");
	out = (struct rl_event **)(void *)keys;
	for (i = 0; i < n; i++)
		out[i] = inc->events[keys[i].i];
	memcpy(inc->events, out, n * sizeof *out);
	free(keys);
}

/* Is there more than one host among the processes? */
static bool
diagnose_multihost(const struct rl_incident *inc)
{
	const char	*h = NULL;
	size_t		 i;

	for (i = 0; i < inc->nprocs; i++) {
		if (inc->procs[i]->host == NULL)
			continue;
		if (h != NULL && strcmp(h, inc->procs[i]->host) != 0)
			return true;
		h = inc->procs[i]->host;
	}
	return false;
}

/*
 * Give every process a global rank where one can be known: on one host a
 * local rank is the global rank.  Then give every event its rank and, for
 * events still without a time, the last time of their process.
 */
void
diagnose_resolve(struct rl_incident *inc)
{
	const unsigned		 other = RL_TIME_ZONED | RL_TIME_BOOT;
	struct event_key	*keys = NULL;
	struct rl_process	*p;
	struct rl_event		*e;
	bool			 multi = diagnose_multihost(inc), wall = true;
	size_t			 i, n = inc->nevents;
	int64_t			 ms, lo = INT64_MAX;

	for (i = 0; i < inc->nprocs; i++) {
		p = inc->procs[i];
		if (p->rank == RL_NONE && p->local_rank != RL_NONE && !multi) {
			p->rank = p->local_rank;
			p->rank_guessed = true;
		}
	}
	/*
	 * The sort's keys are written in this one pass over the events, as
	 * each one's time is settled: one fetch of each, not three.  Four
	 * billion matched lines would not fit the keys' 32 bits.
	 */
	if (n > 1 && inc->next_seq <= UINT32_MAX && n <= UINT32_MAX)
		keys = xreallocarray(NULL, n, sizeof *keys);
	for (i = 0; i < n; i++) {
		e = event_ahead(inc->events, n, i);
		p = e->process != RL_NONE ? inc->procs[e->process] : NULL;
		if (e->rank == RL_NONE && p != NULL && p->rank != RL_NONE) {
			e->rank = p->rank;
			e->rank_resolved = true;
		}
		/* A process's last time moves on while a source is followed. */
		if (!(e->time.flags & RL_TIME_VALID) || e->guess == TIME_PROCESS) {
			if (p != NULL && (p->last.flags & RL_TIME_VALID))
				e->time = p->last;
			else
				e->time = inc->sources[e->source]->last;
			e->guess = TIME_PROCESS;
		}
		if (keys == NULL)
			continue;
		/* INT64_MAX is the untimed events' place: no timed one's. */
		if (e->time.flags & RL_TIME_VALID) {
			ms = e->time.ms;
			wall &= !(e->time.flags & other) && ms != INT64_MAX;
		} else
			ms = INT64_MAX;
		keys[i].t = (uint64_t)ms;
		keys[i].seq = (uint32_t)e->seq;
		keys[i].i = (uint32_t)i;
		if (ms < lo)
			lo = ms;
	}
	events_sort(inc, keys, wall, lo);
}

/* A source a row's lines are in, once. */
static void
row_add_source(struct rl_rank *r, unsigned src)
{
	size_t	k;

	for (k = 0; k < r->nsources; k++) {
		if (r->sources[k] == src)
			return;
	}
	r->sources = xreallocarray(r->sources, r->nsources + 1,
	    sizeof *r->sources);
	r->sources[r->nsources++] = src;
}

/* Note that a rank has a source (a rank has only a few). */
static void
rank_add_source(struct rl_incident *inc, int rank, unsigned src)
{
	ssize_t	i;

	if (rank != RL_NONE && (i = incident_rank_pos(inc, rank)) >= 0)
		row_add_source(&inc->ranks[i], src);
}

static int
unsigned_cmp(const void *a, const void *b)
{
	unsigned	x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/*
 * Which sources each rank has, for the report: one pass over the sources,
 * the processes and the events (ranks are sorted, so each is a lookup).
 */
void
diagnose_rank_sources(struct rl_incident *inc)
{
	const struct rl_event	*e;
	size_t			 i;

	for (i = 0; i < inc->nsources; i++)
		rank_add_source(inc, inc->sources[i]->rank, (unsigned)i);
	for (i = 0; i < inc->nprocs; i++) {
		if (inc->procs[i]->last_source != RL_NONE)
			rank_add_source(inc, inc->procs[i]->rank,
			    (unsigned)inc->procs[i]->last_source);
	}
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		rank_add_source(inc, e->rank, e->source);
	}
	for (i = 0; i < inc->nranks; i++) {
		if (inc->ranks[i].nsources > 1)
			qsort(inc->ranks[i].sources, inc->ranks[i].nsources,
			    sizeof *inc->ranks[i].sources, unsigned_cmp);
	}
}

/* Ranks in order. */
int
diagnose_rank_cmp(const void *a, const void *b)
{
	const struct rl_rank	*x = a, *y = b;

	if (x->rank != y->rank)
		return (x->rank > y->rank) - (x->rank < y->rank);
	/* Rows of hosts (no rank known): by name. */
	if (x->host == NULL || y->host == NULL)
		return (x->host == NULL) - (y->host == NULL);
	return strcmp(x->host, y->host);
}


/*
 * No rank known anywhere, but hosts (pdsh's "host: " prefixes, syslog's
 * hosts): each host is a row, with what its processes wrote and how it
 * failed, so that no writer is left out of the table.
 */
void
diagnose_host_rows(struct rl_incident *inc)
{
	const struct rl_process	*p;
	const struct rl_event	*e;
	struct rl_rank		*r, key;
	struct keymap		 rows = { 0 };	/* host -> its row + 1 */
	uintptr_t		 was;
	size_t			 i, k, room = 0;
	int			 f = inc->answer.first;

	/*
	 * Rows looked up by host: 10,000 hosts searched row by row were 50
	 * million strcmp.
	 */
	for (k = inc->nranks; k > 0; k--) {
		if (inc->ranks[k - 1].host != NULL)
			keymap_put(&rows, NULL, inc->ranks[k - 1].host,
			    (void *)(uintptr_t)k);
	}
	for (i = 0; i < inc->nprocs; i++) {
		p = inc->procs[i];
		if (p->host == NULL || p->rank != RL_NONE)
			continue;
		was = (uintptr_t)keymap_get(&rows, NULL, p->host);
		k = was != 0 ? was - 1 : inc->nranks;
		if (k == inc->nranks) {
			inc->ranks = array_grow(inc->ranks, inc->nranks, &room,
			    sizeof *inc->ranks);
			r = &inc->ranks[inc->nranks++];
			memset(r, 0, sizeof *r);
			r->rank = RL_NONE;
			r->host = xstrdup(p->host);
			r->first_event = RL_NONE;
			r->last_step = RL_NONE;
			keymap_put(&rows, NULL, r->host, (void *)(uintptr_t)(k + 1));
		}
		r = &inc->ranks[k];
		r->lines += p->lines;
		if (!(r->last.flags & RL_TIME_VALID) ||
		    clock_cmp(&p->last, &r->last) > 0)
			r->last = p->last;
	}
	keymap_clear(&rows);
	/* By host, so that each event finds its row by a binary search. */
	if (inc->nranks > 1)
		qsort(inc->ranks, inc->nranks, sizeof *inc->ranks,
		    diagnose_rank_cmp);
	memset(&key, 0, sizeof key);
	key.rank = RL_NONE;
	for (i = 0; i < inc->nevents && inc->nranks > 0; i++) {
		e = inc->events[i];
		if (e->process == RL_NONE ||
		    (p = inc->procs[e->process])->host == NULL)
			continue;
		key.host = p->host;
		if ((r = bsearch(&key, inc->ranks, inc->nranks,
		    sizeof *inc->ranks, diagnose_rank_cmp)) == NULL)
			continue;
		row_add_source(r, e->source);
		if (!event_failing(e))
			continue;
		if ((int)i == f) {
			r->state = RANK_FAILED;
			r->first_event = f;
		} else if (r->state == RANK_OK) {
			r->state = e->role == ROLE_COLLATERAL ?
			    RANK_COLLATERAL : RANK_EXITED;
			r->first_event = (int)i;
		}
	}
}

/*
 * Is this an event the judging looks at: a failure a rule named (harmless
 * or not: a harmless one still says the rank was there), not a wrapper's
 * copy of one.
 */
static bool
event_failure(const struct rl_event *e)
{
	return e->rule != NULL && e->role != ROLE_WRAPPER &&
	    event_failing_role(e->role);
}

/*
 * The length of an event's text, without reading a text let go again
 * (EVENT_TEXT_AWAY) from its file.
 */
static size_t
event_text_len(const struct rl_event *e)
{
	if (e->text == NULL && (e->tform & EVENT_TEXT_AWAY))
		return e->tlen + (e->tform & EVENT_TEXT_CUT ?
		    sizeof TEXT_MARK - 1 : 0);
	return e->text != NULL ? strlen(e->text) : 0;
}

/* The hash of an event's rule and its text's length. */
static uint64_t
event_hash(const struct rl_event *e, size_t len)
{
	return ((uint64_t)(uintptr_t)e->rule ^ len) * 0x9e3779b97f4a7c15ULL;
}

/*
 * A launcher that was not started with --tee copies its children's stderr
 * into its own log, unattributed.  An unranked event whose rule and text
 * equal a ranked one's is such a copy, and is left out of the judging.
 * The unranked failures are few and the ranked ones many: the unranked
 * are tabled by rule and length, and a ranked text is read (and compared)
 * only where both are one of theirs, since a lean incident reads each
 * text again from its file.
 */
void
diagnose_copies(struct rl_incident *inc, bool *copy)
{
	struct rl_event	*e, *f;
	size_t		 i, k, cap, n = 0, len, *slot;
	bool		 any = false;

	for (i = 0; i < inc->nevents && !any; i++)
		any = event_ahead(inc->events, inc->nevents, i)->rank ==
		    RL_NONE;
	if (!any)
		return;
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		n += e->rank == RL_NONE && event_failure(e);
	}
	if (n == 0)
		return;
	/* Open addressing over the unranked failure events. */
	for (cap = 64; cap < 2 * n; cap *= 2)
		;
	slot = xcalloc(cap, sizeof *slot);	/* event index + 1, 0 empty */
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->rank != RL_NONE || !event_failure(e))
			continue;
		for (k = event_hash(e, event_text_len(e)) & (cap - 1);
		    slot[k] != 0; k = (k + 1) & (cap - 1))
			;
		slot[k] = i + 1;
	}
	for (i = 0; i < inc->nevents; i++) {
		f = event_ahead(inc->events, inc->nevents, i);
		if (f->rank == RL_NONE || !event_failure(f))
			continue;
		len = event_text_len(f);
		for (k = event_hash(f, len) & (cap - 1); slot[k] != 0;
		    k = (k + 1) & (cap - 1)) {
			e = inc->events[slot[k] - 1];
			if (!copy[slot[k] - 1] && e->rule == f->rule &&
			    event_text_len(e) == len &&
			    strcmp(event_text(inc, e), event_text(inc, f)) == 0)
				copy[slot[k] - 1] = true;
		}
	}
	free(slot);
}

/*
 * A paste of one process's output often names its rank once, after the
 * error itself ("[Rank 1] NCCL watchdog thread terminated with exception:
 * CUDA error: uncorrectable ECC error" below the RuntimeError).  Where the
 * events of a source that is not a launcher's name one rank and no other,
 * its unranked lines are that rank's.  A console of several ranks names
 * several, and a launcher's record names the children it reports on: both
 * are left as they are.
 */
void
diagnose_lone_rank(struct rl_incident *inc)
{
	struct rl_event	*e;
	int		*lone;
	size_t		 i;

	lone = xcalloc(inc->nsources + 1, sizeof *lone);
	for (i = 0; i < inc->nsources; i++)
		lone[i] = RL_NONE;
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->source >= inc->nsources)
			continue;
		if (e->rule != NULL && (e->rule->mark == MARK_EXIT ||
		    e->rule->mark == MARK_RECORD || e->weak))
			lone[e->source] = -2;
		else if (e->rank == RL_NONE || lone[e->source] == -2)
			continue;
		else if (lone[e->source] == RL_NONE)
			lone[e->source] = e->rank;
		else if (lone[e->source] != e->rank)
			lone[e->source] = -2;
	}
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->rank != RL_NONE || e->source >= inc->nsources ||
		    lone[e->source] < 0 || (e->process != RL_NONE &&
		    inc->procs[e->process]->rank != RL_NONE))
			continue;
		e->rank = lone[e->source];
		e->rank_resolved = true;
	}
	free(lone);
}
