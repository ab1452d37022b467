/*
 * diag-block.c: one error block's lines judged together.  A rule may call
 * a line harmless by itself (a traceback before the first step) or only
 * evidence (a c10d store that could not bind, which torchrun's rendezvous
 * survives by connecting as a client); within one block the lines say
 * more.  When a process printed a warning or error a specific rule names
 * and at once a traceback, it died of that line: the line is the
 * failure's signature, not the generic traceback after it.  This is
 * decided only when nothing else failed, so that a job whose own error
 * lines name a culprit keeps it.  And who printed a line no rank wrote:
 * the launcher only when the line is a launcher's.
 */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK_GAP	3	/* lines between a warning and its traceback */

/* Could a line be the cause of the traceback that follows it? */
static bool
block_cause(const struct rl_event *e)
{
	const struct rl_rule	*r = e->rule;

	return r != NULL && e->role == ROLE_EVIDENCE && !e->harmless &&
	    r->mark == MARK_NONE && r->severity >= SEV_WARNING &&
	    r->domain != DOMAIN_NONE && r->domain != DOMAIN_UNKNOWN;
}

/* Is a line a traceback's first line (a harmless one too)? */
static bool
block_traceback(const struct rl_event *e)
{
	return e->rule != NULL && (e->rule->checklist & (1u << CHECK_TRACEBACK));
}

/* By source, then line. */
static int
block_cmp(const void *a, const void *b)
{
	const struct rl_event	*x = *(const struct rl_event *const *)a;
	const struct rl_event	*y = *(const struct rl_event *const *)b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return 0;
}

/*
 * With no failure of its own anywhere (consequences aside: an exit record,
 * a wrapper, a collective that timed out), a cause line followed within
 * BLOCK_GAP lines by a traceback of the same process becomes a root: the
 * process died of it.  Returns how many were.
 */
size_t
block_promote(struct rl_incident *inc)
{
	struct rl_event	**v, *e, *cause = NULL;
	size_t		  i, n = 0, promoted = 0;

	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->rule != NULL && event_failing(e) &&
		    e->rule->mark == MARK_NONE && (e->role == ROLE_ROOT ||
		    e->role == ROLE_SYMPTOM || e->role == ROLE_HANG))
			return 0;
	}
	v = xcalloc(inc->nevents + 1, sizeof *v);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (block_cause(e) || block_traceback(e))
			v[n++] = e;
	}
	qsort(v, n, sizeof *v, block_cmp);
	for (i = 0; i < n; i++) {
		e = v[i];
		if (block_cause(e)) {
			cause = e;
			continue;
		}
		/* The nearest cause before a traceback is the one. */
		if (cause != NULL && cause->source == e->source &&
		    cause->process == e->process &&
		    e->line - cause->line <= BLOCK_GAP) {
			cause->role = ROLE_ROOT;
			promoted++;
		}
		cause = NULL;
	}
	free(v);
	return promoted;
}

#define BLOCK_SPAN	4	/* lines from a generic line to a specific one */

/*
 * The generic line of an error block (a Python exception's last line,
 * which any error ends in) and a specific rule's line right after it in
 * the same process (NCCL's "Cuda failure 'invalid argument'", an errno's
 * line): the specific line is the block's signature.  The generic one is
 * then what carries it, a wrapper.  Returns how many were.
 */
size_t
block_specific(struct rl_incident *inc)
{
	struct rl_event	**v, *g, *e;
	size_t		  i, k, n = 0, done = 0;

	v = xcalloc(inc->nevents + 1, sizeof *v);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->rule != NULL && e->role == ROLE_ROOT && !e->harmless &&
		    !e->weak && e->process != RL_NONE)
			v[n++] = e;
	}
	qsort(v, n, sizeof *v, block_cmp);
	for (i = 0; i + 1 < n; i++) {
		g = v[i];
		for (k = i + 1; k < n && v[k]->source == g->source &&
		    v[k]->line <= g->line + BLOCK_SPAN; k++) {
			e = v[k];
			if (e->process == g->process &&
			    e->rule->priority > g->rule->priority) {
				g->role = ROLE_WRAPPER;
				done++;
				break;
			}
		}
	}
	free(v);
	return done;
}

/* Did a launcher record this event's rank's death (a code or a signal)? */
static bool
block_death(const struct rl_event *e)
{
	return e->rule != NULL && !e->harmless && e->rank != RL_NONE &&
	    (e->rule->mark == MARK_EXIT || e->rule->mark == MARK_RECORD) &&
	    (event_cap(e, CAP_SIGNAL) != RL_CAP_UNSET ||
	    (event_cap(e, CAP_EXITCODE) != RL_CAP_UNSET &&
	    event_cap(e, CAP_EXITCODE) != 0));
}

/*
 * Lines no prefix attributes ("pure virtual method called" from a rank's
 * teardown) when the launcher records one rank's death and no other, and
 * no rank printed an error of its own: they are that rank's.  Returns how
 * many lines were given a rank.
 */
size_t
block_adopt(struct rl_incident *inc)
{
	struct rl_event	*e;
	size_t		 i, done = 0;
	int		 dead = RL_NONE;

	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (block_death(e)) {
			if (dead != RL_NONE && dead != e->rank)
				return 0;
			dead = e->rank;
		} else if (e->rule != NULL && event_failing(e) &&
		    e->rank != RL_NONE && e->rule->mark == MARK_NONE &&
		    (e->role == ROLE_ROOT || e->role == ROLE_SYMPTOM))
			return 0;
	}
	if (dead == RL_NONE)
		return 0;
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->rule != NULL && event_failing(e) && e->rank == RL_NONE &&
		    e->role == ROLE_ROOT && e->process != RL_NONE &&
		    inc->procs[e->process]->rank == RL_NONE &&
		    inc->procs[e->process]->host == NULL && !block_launcher(e)) {
			e->rank = dead;
			done++;
		}
	}
	return done;
}

/*
 * Is an event a launcher's line: torchrun's elastic agent (its rendezvous
 * too), the DeepSpeed launcher, Slurm's srun and daemons, mpirun; or a record of a child's
 * exit, or a line inside one?  Other lines no rank wrote are unattributed,
 * not the launcher's.
 */
bool
block_launcher(const struct rl_event *e)
{
	static const char *const family[] = {
		"torch.elastic.", "torch.rdzv.", "deepspeed.launcher.",
		"slurm.", "mpi.", "mpirun."
	};
	size_t	i;

	if (e->rule == NULL)
		return false;
	if (e->weak || e->rule->mark == MARK_EXIT ||
	    e->rule->mark == MARK_RECORD)
		return true;
	for (i = 0; i < sizeof family / sizeof *family; i++) {
		if (strncmp(e->rule->id, family[i], strlen(family[i])) == 0)
			return true;
	}
	return false;
}
