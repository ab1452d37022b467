/*
 * checkpoint.c: is the checkpoint safe to resume from?
 *
 * A step's checkpoint is safe when every rank that saves checkpoints in
 * this job (every rank that ever logged a save beginning) logged its
 * completion; it is unsafe when it was begun and not completed by all of
 * them.  The answer is the last safe step before the first failure, and the
 * unsafe steps, which are what was being written when things broke.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

/* One step's saves. */
struct ckpt_step {
	int		 step;
	unsigned	*began;		/* saver ids that began it */
	size_t		 nbegan;
	unsigned	*ended;		/* saver ids that completed it */
	size_t		 nended;
};

/* Add an id to a set kept as a small array. */
static void
set_add(unsigned **v, size_t *n, unsigned id)
{
	size_t	i;

	for (i = 0; i < *n; i++) {
		if ((*v)[i] == id)
			return;
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = id;
}

static bool
set_has(const unsigned *v, size_t n, unsigned id)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (v[i] == id)
			return true;
	}
	return false;
}

/* Who saved: the global rank, or for an unranked writer its process. */
static unsigned
saver_id(const struct rl_event *e)
{
	if (e->rank != RL_NONE)
		return (unsigned)e->rank;
	return 0x40000000u + (unsigned)(e->process == RL_NONE ? 0 : e->process);
}

/* Find or add a step. */
static struct ckpt_step *
step_get(struct ckpt_step **v, size_t *n, int step)
{
	size_t	i;

	for (i = 0; i < *n; i++) {
		if ((*v)[i].step == step)
			return &(*v)[i];
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	memset(&(*v)[*n], 0, sizeof **v);
	(*v)[*n].step = step;
	return &(*v)[(*n)++];
}

static int
int_cmp(const void *a, const void *b)
{
	int	x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void
diagnose_checkpoint(struct rl_incident *inc)
{
	struct rl_answer	*a = &inc->answer;
	struct ckpt_step	*steps = NULL, *st;
	unsigned		*savers = NULL;
	size_t			 nsteps = 0, nsavers = 0, i, k;
	const struct rl_event	*e;
	bool			 safe;

	for (i = 0; i < inc->nevents; i++) {
		e = &inc->events[i];
		if (e->rule == NULL || e->cap[CAP_STEP] == RL_CAP_UNSET ||
		    (e->rule->mark != MARK_CKPT_BEGIN &&
		    e->rule->mark != MARK_CKPT_END))
			continue;
		st = step_get(&steps, &nsteps, (int)e->cap[CAP_STEP]);
		if (e->rule->mark == MARK_CKPT_BEGIN) {
			set_add(&st->began, &st->nbegan, saver_id(e));
			set_add(&savers, &nsavers, saver_id(e));
		} else
			set_add(&st->ended, &st->nended, saver_id(e));
	}
	a->last_safe_step = RL_NONE;
	for (i = 0; i < nsteps; i++) {
		st = &steps[i];
		safe = st->nended > 0;
		for (k = 0; k < nsavers && safe; k++)
			safe = set_has(st->ended, st->nended, savers[k]);
		for (k = 0; k < st->nbegan && safe; k++)
			safe = set_has(st->ended, st->nended, st->began[k]);
		if (safe) {
			if (st->step > a->last_safe_step)
				a->last_safe_step = st->step;
		} else if (st->nbegan > 0) {
			a->unsafe_steps = xreallocarray(a->unsafe_steps,
			    a->nunsafe + 1, sizeof *a->unsafe_steps);
			a->unsafe_steps[a->nunsafe++] = st->step;
		}
		free(st->began);
		free(st->ended);
	}
	free(steps);
	free(savers);
	if (a->nunsafe > 1)
		qsort(a->unsafe_steps, a->nunsafe, sizeof *a->unsafe_steps,
		    int_cmp);
	if (a->first == RL_NONE)
		a->ckpt = CKPT_NONE;
	else if (nsteps == 0)
		a->ckpt = CKPT_UNKNOWN;
	else if (a->nunsafe > 0 && (a->last_safe_step == RL_NONE ||
	    a->unsafe_steps[a->nunsafe - 1] > a->last_safe_step))
		a->ckpt = CKPT_UNSAFE;
	else
		a->ckpt = a->last_safe_step != RL_NONE ? CKPT_SAFE :
		    CKPT_UNSAFE;
}
