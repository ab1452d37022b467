/*
 * diag-join.c: kernel and driver lines joined to the ranks they are about.
 *
 * dmesg and nvidia-smi know nothing of ranks.  An Xid names a GPU by its
 * PCI address, an OOM kill names a pid; the job's own lines tie both to
 * ranks: NCCL's "ncclCommInitRank ... busId B" is printed by a rank's
 * process (so it carries the rank) and names its GPU, and torchrun's
 * records name each rank's pid.  An unranked event whose PCI address or
 * pid matches exactly one rank (on its host, when the host is known) is
 * given that rank, as diagnose gives a process's rank to its events, and
 * diagnose_reset takes it away again.
 *
 * Only unambiguous joins are made: a GPU bus id seen for two ranks on one
 * host (two communicators, a restart on other GPUs) or a pid seen twice
 * joins nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

/* One known tie: on host, a GPU address or a pid belonged to rank. */
struct tie {
	const char	*host;		/* borrowed, or NULL */
	char		 key[24];	/* normalised PCI address, or the pid */
	int		 rank;		/* RL_NONE once two ranks claimed it */
	size_t		 next;		/* index + 1 of the next of its bucket */
	size_t		 knext;		/* the same, in its key's bucket */
};

/*
 * The ties, hashed twice: by key and host, and by key alone.  At 10,000
 * ranks, a walk of every tie for each one added would take a hundred
 * million compares; and by key alone it still did, where every node has
 * the same GPUs' bus ids and containers give ranks the same pids: a bus
 * id's ties are one per node.  A tie of no host agrees with every host,
 * so a look on a host reads its key and host's bucket and its key's ties
 * of no host (the same bucket's, hashed with no host); a look with no
 * host reads all its key's.
 */
struct ties {
	struct tie	*v;
	size_t		 n;
	size_t		 cap;
	size_t		*head;		/* per bucket: index + 1, 0 none */
	size_t		*khead;		/* the same, by key alone */
	size_t		 nhead;		/* a power of two */
};

/* The bucket of a key, and of a host too unless by_key. */
static size_t
ties_bucket(const struct ties *t, const char *host, const char *key,
    bool by_key)
{
	uint64_t	h = str_hash(STR_HASH_SEED, key);

	if (!by_key)
		h = str_hash(h, host != NULL ? host : "");
	return (size_t)(h ^ (h >> 32)) & (t->nhead - 1);
}

/* Index tie i by its key and host, and by its key. */
static void
ties_link(struct ties *t, size_t i)
{
	size_t	b = ties_bucket(t, t->v[i].host, t->v[i].key, false);

	t->v[i].next = t->head[b];
	t->head[b] = i + 1;
	b = ties_bucket(t, NULL, t->v[i].key, true);
	t->v[i].knext = t->khead[b];
	t->khead[b] = i + 1;
}

static void
ties_clear(struct ties *t)
{
	free(t->v);
	free(t->head);
	free(t->khead);
}

/*
 * Call cb on each tie of the key that agrees with host, newest first
 * within each bucket read; cb returns false to stop.
 */
static void
ties_each(const struct ties *t, const char *host, const char *key,
    bool (*cb)(void *, size_t), void *arg)
{
	const struct tie	*x;
	size_t			 i;

	if (t->nhead == 0)
		return;
	if (host == NULL) {
		for (i = t->khead[ties_bucket(t, NULL, key, true)]; i != 0;
		    i = x->knext) {
			x = &t->v[i - 1];
			if (strcmp(x->key, key) == 0 && !cb(arg, i - 1))
				return;
		}
		return;
	}
	for (i = t->head[ties_bucket(t, host, key, false)]; i != 0;
	    i = x->next) {
		x = &t->v[i - 1];
		if (x->host != NULL && strcmp(x->key, key) == 0 &&
		    strcmp(x->host, host) == 0 && !cb(arg, i - 1))
			return;
	}
	for (i = t->head[ties_bucket(t, NULL, key, false)]; i != 0;
	    i = x->next) {
		x = &t->v[i - 1];
		if (x->host == NULL && strcmp(x->key, key) == 0 &&
		    !cb(arg, i - 1))
			return;
	}
}

/* The oldest agreeing tie, as index + 1. */
static bool
ties_oldest_cb(void *arg, size_t i)
{
	size_t	*at = arg;

	if (*at == 0 || i + 1 < *at)
		*at = i + 1;
	return true;
}

/*
 * Record a tie; a second rank for the same key on the same host voids it.
 * The first tie that agrees is the one, as the ties are in the order they
 * were recorded.
 */
static void
ties_add(struct ties *t, const char *host, const char *key, int rank)
{
	size_t	i, at = 0;

	ties_each(t, host, key, ties_oldest_cb, &at);
	if (at != 0) {
		if (t->v[at - 1].rank != rank)
			t->v[at - 1].rank = RL_NONE;
		return;
	}
	if (t->n == t->cap) {
		t->cap = t->cap == 0 ? 64 : t->cap * 2;
		t->v = xreallocarray(t->v, t->cap, sizeof *t->v);
		free(t->head);
		free(t->khead);
		t->nhead = 2 * t->cap;
		t->head = xcalloc(t->nhead, sizeof *t->head);
		t->khead = xcalloc(t->nhead, sizeof *t->khead);
		for (i = 0; i < t->n; i++)
			ties_link(t, i);
	}
	t->v[t->n].host = host;
	snprintf(t->v[t->n].key, sizeof t->v[t->n].key, "%s", key);
	t->v[t->n].rank = rank;
	ties_link(t, t->n);
	t->n++;
}

/* What ties_find is finding. */
struct ties_found {
	const struct ties	*t;
	int			 rank;		/* RL_NONE: none yet */
	bool			 none;		/* ambiguous */
};

static bool
ties_find_cb(void *arg, size_t i)
{
	struct ties_found	*f = arg;
	int			 r = f->t->v[i].rank;

	if (r == RL_NONE || (f->rank != RL_NONE && f->rank != r)) {
		f->none = true;
		return false;
	}
	f->rank = r;
	return true;
}

/* The one rank a key on a host names, or RL_NONE. */
static int
ties_find(const struct ties *t, const char *host, const char *key)
{
	struct ties_found	f = { t, RL_NONE, false };

	ties_each(t, host, key, ties_find_cb, &f);
	return f.none ? RL_NONE : f.rank;
}

/*
 * Does this unranked line speak of another process (a kernel or driver
 * line), rather than of its launcher's own doings?  Launcher lines with a
 * pid are exit records and signals, which ingestion attributes itself.
 */
static bool
join_candidate(const struct rl_event *e)
{
	return e->rank == RL_NONE && e->rule != NULL &&
	    e->rule->mark == MARK_NONE && (e->rule->role == ROLE_ROOT ||
	    e->rule->role == ROLE_SYMPTOM || e->rule->role == ROLE_EVIDENCE);
}

/*
 * The ties, from one pass over the events: every ranked line that names
 * its GPU's bus id (into pci, if asked for), and the launcher records and
 * prefixes that name a rank's pid (into pid, if asked for).  The same
 * pass notes where the join's candidates are (into *cand, if asked for,
 * *ncand of them), so that they alone are visited again.
 */
static void
join_collect(const struct rl_incident *inc, struct ties *pci,
    struct ties *pid, size_t **cand, size_t *ncand)
{
	const struct rl_event	*e;
	const uint64_t		 bits = capture_name_bits("busid");
	char			*busid, key[24];
	size_t			 i, room = 0;

	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (cand != NULL && join_candidate(e)) {
			if (*ncand == room) {
				room = room == 0 ? 64 : 2 * room;
				*cand = xreallocarray(*cand, room,
				    sizeof **cand);
			}
			(*cand)[(*ncand)++] = i;
		}
		if (e->rank == RL_NONE || e->rule == NULL)
			continue;
		if (pci != NULL && e->rule->role == ROLE_EVIDENCE &&
		    rule_has_named(e->rule, "busid", bits)) {
			busid = event_capture(inc, e, "busid");
			if (busid != NULL && pci_normalize(busid, key,
			    sizeof key))
				ties_add(pci, event_host(inc, e), key, e->rank);
			free(busid);
		}
		if (pid != NULL && event_cap(e, CAP_PID) != RL_CAP_UNSET &&
		    (e->rule->mark == MARK_EXIT ||
		    e->rule->mark == MARK_RECORD)) {
			snprintf(key, sizeof key, "%lld",
			    (long long)event_cap(e, CAP_PID));
			ties_add(pid, event_host(inc, e), key, e->rank);
		}
	}
	for (i = 0; pid != NULL && i < inc->nprocs; i++) {
		if (inc->procs[i]->pid == RL_NONE || inc->procs[i]->rank ==
		    RL_NONE)
			continue;
		snprintf(key, sizeof key, "%d", inc->procs[i]->pid);
		ties_add(pid, inc->procs[i]->host, key, inc->procs[i]->rank);
	}
}

/* The rank an unranked hardware line's GPU belongs to, or RL_NONE. */
int
join_pci_rank(const struct rl_incident *inc, const char *host,
    const char *pci)
{
	struct ties	 t = { 0 };
	char		 key[24];
	int		 rank = RL_NONE;

	if (pci_normalize(pci, key, sizeof key)) {
		join_collect(inc, &t, NULL, NULL, NULL);
		rank = ties_find(&t, host, key);
	}
	ties_clear(&t);
	return rank;
}

/* Give kernel and driver lines the rank their GPU or pid belongs to. */
void
join_resolve(struct rl_incident *inc)
{
	struct ties	 pci = { 0 }, pid = { 0 };
	struct rl_event	*e;
	const uint64_t	 bits = capture_name_bits("pci");
	char		*v, key[24];
	size_t		*cand = NULL, ncand = 0, i;
	int		 rank;

	/*
	 * The bus ids only where a candidate's rule names a GPU: each is a
	 * capture read again from a line, some 80,000 lines at 10,000 ranks
	 * (NCCL's init lines), each read from its file in a lean incident.
	 */
	join_collect(inc, NULL, &pid, &cand, &ncand);
	for (i = 0; i < ncand; i++) {
		if (rule_has_named(inc->events[cand[i]]->rule, "pci", bits)) {
			join_collect(inc, &pci, NULL, NULL, NULL);
			break;
		}
	}
	for (i = 0; i < ncand && (pci.n > 0 || pid.n > 0); i++) {
		e = inc->events[cand[i]];
		rank = RL_NONE;
		if (pci.n > 0 && rule_has_named(e->rule, "pci", bits) &&
		    (v = event_capture(inc, e, "pci")) != NULL) {
			if (pci_normalize(v, key, sizeof key))
				rank = ties_find(&pci, event_host(inc, e), key);
			free(v);
		}
		if (rank == RL_NONE && event_cap(e, CAP_PID) != RL_CAP_UNSET) {
			snprintf(key, sizeof key, "%lld",
			    (long long)event_cap(e, CAP_PID));
			rank = ties_find(&pid, event_host(inc, e), key);
		}
		if (rank != RL_NONE) {
			e->rank = rank;
			e->rank_resolved = true;
		}
	}
	free(cand);
	ties_clear(&pci);
	ties_clear(&pid);
}
