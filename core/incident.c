/*
 * incident.c: the model every reader shares.  An incident owns its sources,
 * the processes found in them, the ranks they gather into, and the matched
 * events.  It is built by ingest.c and answered by diagnose.c; the console,
 * the reports and the store only read it.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

static const char *rank_state_names[RANK_NSTATES] = {
	"ok", "failed", "collateral", "hung", "exited"
};
static const char *ckpt_status_names[] = { "none", "safe", "unsafe", "unknown" };
static const char *scope_names[] = { NULL, "one", "some", "all" };

struct rl_incident *
incident_create(const struct ruleset *rules)
{
	struct rl_incident	*inc;

	inc = xcalloc(1, sizeof *inc);
	inc->rules = rules;
	inc->answer.first = RL_NONE;
	inc->answer.last_safe_step = RL_NONE;
	return inc;
}

/* Free one source and what it owns. */
static void
source_free(struct rl_source *s)
{
	free(s->path);
	free(s->host);
	free(s->proc_key);
	free(s->error);
	ingest_free(s->ingest);
	free(s);
}

void
incident_free(struct rl_incident *inc)
{
	size_t	i;

	if (inc == NULL)
		return;
	for (i = 0; i < inc->nsources; i++)
		source_free(inc->sources[i]);
	free(inc->sources);
	for (i = 0; i < inc->nprocs; i++) {
		free(inc->procs[i]->key);
		free(inc->procs[i]->host);
		free(inc->procs[i]->last_text);
		free(inc->procs[i]);
	}
	free(inc->procs);
	for (i = 0; i < inc->nranks; i++) {
		free(inc->ranks[i].host);
		free(inc->ranks[i].sources);
	}
	free(inc->ranks);
	for (i = 0; i < inc->nevents; i++)
		free(inc->events[i].text);
	free(inc->events);
	answer_clear(&inc->answer);
	free(inc->fingerprint);
	errlist_free(&inc->errors);
	free(inc);
}

/* Add a source by the path the user gave; the incident owns it. */
struct rl_source *
incident_add_source(struct rl_incident *inc, const char *path,
    enum source_kind kind)
{
	struct rl_source	*s;

	s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->kind = kind;
	s->rank = s->local_rank = RL_NONE;
	s->index = (unsigned)inc->nsources;
	inc->sources = xreallocarray(inc->sources, inc->nsources + 1,
	    sizeof *inc->sources);
	inc->sources[inc->nsources++] = s;
	return s;
}

/*
 * Find or make the process with this key.  The key is what makes two
 * streams one process (the same host and local rank, or the same folder of
 * torchrun's --log-dir); host and ranks fill in what the caller knows.
 */
struct rl_process *
incident_process(struct rl_incident *inc, const char *key, const char *host,
    int rank, int local_rank)
{
	struct rl_process	*p;
	size_t			 i;

	for (i = 0; i < inc->nprocs; i++) {
		p = inc->procs[i];
		if (strcmp(p->key, key) == 0)
			goto found;
	}
	p = xcalloc(1, sizeof *p);
	p->key = xstrdup(key);
	p->rank = p->local_rank = p->pid = p->exitcode = RL_NONE;
	p->last_source = RL_NONE;
	p->index = (unsigned)inc->nprocs;
	inc->procs = xreallocarray(inc->procs, inc->nprocs + 1,
	    sizeof *inc->procs);
	inc->procs[inc->nprocs++] = p;
found:
	if (p->host == NULL && host != NULL)
		p->host = xstrdup(host);
	if (rank != RL_NONE && (p->rank == RL_NONE || p->rank_guessed)) {
		p->rank = rank;
		p->rank_guessed = false;
	}
	if (p->local_rank == RL_NONE)
		p->local_rank = local_rank;
	return p;
}

/* Append an empty event; the pointer is valid until the next append. */
struct rl_event *
incident_add_event(struct rl_incident *inc)
{
	struct rl_event	*e;
	int		 i;

	if (inc->nevents == inc->cevents) {
		inc->cevents = inc->cevents == 0 ? 64 : inc->cevents * 2;
		inc->events = xreallocarray(inc->events, inc->cevents,
		    sizeof *inc->events);
	}
	e = &inc->events[inc->nevents++];
	memset(e, 0, sizeof *e);
	e->process = e->rank = RL_NONE;
	for (i = 0; i < CAP_NCAPS; i++)
		e->cap[i] = RL_CAP_UNSET;
	e->seq = inc->next_seq++;
	return e;
}

/* The rank entry for a global rank, or NULL. */
const struct rl_rank *
incident_rank(const struct rl_incident *inc, int rank)
{
	size_t	i;

	for (i = 0; i < inc->nranks; i++) {
		if (inc->ranks[i].rank == rank)
			return &inc->ranks[i];
	}
	return NULL;
}

const char *
rank_state_name(enum rank_state s)
{
	return s < RANK_NSTATES ? rank_state_names[s] : "?";
}

const char *
ckpt_status_name(enum ckpt_status s)
{
	return s <= CKPT_UNKNOWN ? ckpt_status_names[s] : "?";
}

/* NULL for no scope, as the JSON wants it. */
const char *
scope_name(enum rl_scope s)
{
	return s <= SCOPE_ALL ? scope_names[s] : NULL;
}
