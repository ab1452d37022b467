/*
 * checkpoint.c: is the checkpoint safe to resume from?
 *
 * A step's checkpoint is safe when every rank that saves checkpoints in
 * this job (every rank that ever logged a save beginning) logged its
 * completion before the first failure; it is unsafe when it was begun and
 * not completed by all of them.  The answer is the last safe step, and the
 * unsafe steps, which are what was being written when things broke.  A
 * completion logged after the first failure (an emergency save on the way
 * down) does not count: its data may already be inconsistent.
 *
 * A hardware error (an uncorrectable ECC error, an Xid of the memory or
 * bus kind) logged before a checkpoint completed makes that checkpoint
 * suspect: the GPU that wrote it may have written garbage.  It stays the
 * answer, but the explanation says so and names the last step completed
 * before the first hardware error.
 *
 * ckptdir.c then checks the checkpoint folder when its files were given.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define CKPT_AFTER_MS	1000	/* a completion this close to the failure counts */
#define CKPT_MAX_UNSAFE_EV 4	/* unsafe steps given evidence lines */

/* One step's saves. */
struct ckpt_step {
	int		 step;
	unsigned	*began;		/* saver ids that began it */
	size_t		 nbegan;
	unsigned	*ended;		/* saver ids that completed it in time */
	size_t		 nended;
	int		 first_begin;	/* an event that began it */
	int		 last_end;	/* the latest completion counted */
	int		 late_end;	/* a completion after the failure */
	bool		 suspect;	/* a hardware error came before its end */
};

/*
 * Add an id to set `set`, in the order ids came.  The ids each set holds
 * are (set, id) keys in one idhash: with 10,000 ranks each saving every
 * step, a walk of the set for each id added would cost billions of
 * compares.  Set 0 is the savers; step i's began and ended are 2i + 1 and
 * 2i + 2.
 */
static void
set_add(struct idhash *h, uint64_t set, unsigned **v, size_t *n, unsigned id)
{
	if (!idhash_add(h, set << 32 | id))
		return;
	/* Grown by doubling: only set_add makes these arrays. */
	if ((*n & (*n - 1)) == 0)
		*v = xreallocarray(*v, *n == 0 ? 1 : 2 * *n, sizeof **v);
	(*v)[(*n)++] = id;
}

static int
unsigned_cmp(const void *a, const void *b)
{
	unsigned	x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* Who saved: the global rank, or for an unranked writer its process. */
static unsigned
saver_id(const struct rl_event *e)
{
	if (e->rank != RL_NONE)
		return (unsigned)e->rank;
	return 0x40000000u + (unsigned)(e->process == RL_NONE ? 0 : e->process);
}

/*
 * Find or add a step; *last is where the one before was found, as the
 * marks of one save come together.
 */
static struct ckpt_step *
step_get(struct ckpt_step **v, size_t *n, int step, size_t *last)
{
	size_t	i;

	if (*last < *n && (*v)[*last].step == step)
		return &(*v)[*last];
	for (i = 0; i < *n; i++) {
		if ((*v)[i].step == step) {
			*last = i;
			return &(*v)[i];
		}
	}
	*last = *n;
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	memset(&(*v)[*n], 0, sizeof **v);
	(*v)[*n].step = step;
	(*v)[*n].first_begin = (*v)[*n].last_end = (*v)[*n].late_end = RL_NONE;
	return &(*v)[(*n)++];
}

static int
int_cmp(const void *a, const void *b)
{
	int	x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Is this a checkpoint mark with its step? */
static bool
ckpt_event(const struct rl_event *e)
{
	return e->rule != NULL && event_cap(e, CAP_STEP) != RL_CAP_UNSET &&
	    (e->rule->mark == MARK_CKPT_BEGIN || e->rule->mark == MARK_CKPT_END);
}

/* Did this event happen after the first failure (beyond the tolerance)? */
static bool
ckpt_after_failure(const struct rl_incident *inc, const struct rl_event *e)
{
	const struct rl_event	*f;

	if (inc->answer.first == RL_NONE)
		return false;
	f = inc->events[inc->answer.first];
	if (!(e->time.flags & RL_TIME_VALID) || !(f->time.flags & RL_TIME_VALID) ||
	    ((e->time.flags ^ f->time.flags) & RL_TIME_BOOT))
		return false;
	/* Within one source, untimed lines are ordered by position. */
	if (e->source == f->source && (e->guess != TIME_OWN ||
	    f->guess != TIME_OWN))
		return e->line > f->line;
	return skew_utc_ms(inc, &e->time, event_host(inc, e)) >
	    skew_utc_ms(inc, &f->time, event_host(inc, f)) + CKPT_AFTER_MS;
}

/* Is this a hardware error that makes later checkpoints suspect? */
static bool
ckpt_hw_error(const struct rl_event *e)
{
	return e->rule != NULL && !e->harmless &&
	    e->rule->domain == DOMAIN_HARDWARE && e->role != ROLE_PROGRESS &&
	    e->role != ROLE_WRAPPER;
}

/* Sort the checkpoint marks into steps. */
static void
ckpt_collect(struct rl_incident *inc, struct ckpt_step **steps, size_t *nsteps,
    unsigned **savers, size_t *nsavers, int *hw)
{
	const struct rl_event	*e;
	struct ckpt_step	*st;
	struct idhash		 h = { 0 };
	size_t			 i, last = 0, k;

	*hw = RL_NONE;
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (*hw == RL_NONE && ckpt_hw_error(e))
			*hw = (int)i;
		if (!ckpt_event(e))
			continue;
		st = step_get(steps, nsteps, (int)event_cap(e, CAP_STEP), &last);
		k = (size_t)(st - *steps);
		if (e->rule->mark == MARK_CKPT_BEGIN) {
			set_add(&h, 2 * k + 1, &st->began, &st->nbegan,
			    saver_id(e));
			set_add(&h, 0, savers, nsavers, saver_id(e));
			if (st->first_begin == RL_NONE)
				st->first_begin = (int)i;
		} else if (ckpt_after_failure(inc, e)) {
			if (st->late_end == RL_NONE)
				st->late_end = (int)i;
		} else {
			set_add(&h, 2 * k + 2, &st->ended, &st->nended,
			    saver_id(e));
			st->last_end = (int)i;
			st->suspect = *hw != RL_NONE;
		}
	}
	idhash_clear(&h);
}

/* Is a step complete: ended by every saver and by every rank that began it? */
static bool
step_safe(const struct ckpt_step *st, const unsigned *savers, size_t nsavers,
    unsigned *missing)
{
	unsigned	*ended;
	size_t		 k;
	bool		 safe = true;

	if (st->nended == 0)
		return false;
	/* Looked up in order, so that the first missing is the one named. */
	ended = xreallocarray(NULL, st->nended, sizeof *ended);
	memcpy(ended, st->ended, st->nended * sizeof *ended);
	qsort(ended, st->nended, sizeof *ended, unsigned_cmp);
	for (k = 0; k < nsavers && safe; k++) {
		if (bsearch(&savers[k], ended, st->nended, sizeof *ended,
		    unsigned_cmp) == NULL) {
			*missing = savers[k];
			safe = false;
		}
	}
	for (k = 0; k < st->nbegan && safe; k++) {
		if (bsearch(&st->began[k], ended, st->nended, sizeof *ended,
		    unsigned_cmp) == NULL) {
			*missing = st->began[k];
			safe = false;
		}
	}
	free(ended);
	return safe;
}

/* Append a step to a sorted-later list. */
static void
steps_add(int **v, size_t *n, int step)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = step;
}

/* The evidence for one unsafe step: the save a rank began and never ended. */
static void
ckpt_unsafe_evidence(struct rl_incident *inc, const struct ckpt_step *st,
    unsigned missing)
{
	const struct rl_event	*e;
	size_t			 i;
	int			 at = st->first_begin;

	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (ckpt_event(e) && e->rule->mark == MARK_CKPT_BEGIN &&
		    event_cap(e, CAP_STEP) == st->step && saver_id(e) == missing) {
			at = (int)i;
			break;
		}
	}
	if (at == RL_NONE)
		return;
	if (missing < 0x40000000u)
		evlist_add(&inc->answer.ckpt_evidence, inc, at, STANCE_SUPPORTS,
		    "step %d: rank %u did not log that its save completed%s",
		    st->step, missing, st->late_end != RL_NONE ?
		    " before the first failure" : "");
	else
		evlist_add(&inc->answer.ckpt_evidence, inc, at, STANCE_SUPPORTS,
		    "step %d was begun and its completion was not logged by "
		    "every saver", st->step);
}

static bool
int_has(const int *v, size_t n, int x)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (v[i] == x)
			return true;
	}
	return false;
}

/* Was a step logged at all (begun or completed)? */
static bool
ckpt_logged(const struct ckpt_step *steps, size_t nsteps, int step)
{
	size_t	i;

	for (i = 0; i < nsteps; i++) {
		if (steps[i].step == step)
			return true;
	}
	return false;
}

/*
 * What the checkpoint folder adds: a step broken on disk is unsafe even if
 * no log line said so; with no checkpoint lines at all, the whole steps on
 * disk are what can be resumed from; a tracker file names the step the
 * framework will load.
 */
static void
ckpt_judge_disk(struct rl_incident *inc, const struct ckpt_step *steps,
    size_t nsteps, struct ckpt_disk *d)
{
	struct rl_answer	*a = &inc->answer;
	size_t			 i;

	for (i = 0; i < d->nbroken; i++) {
		if (!ckpt_logged(steps, nsteps, d->broken[i]))
			steps_add(&a->unsafe_steps, &a->nunsafe, d->broken[i]);
	}
	if (nsteps == 0) {
		for (i = 0; i < d->ncomplete; i++) {
			if (d->complete[i] > a->last_safe_step &&
			    (d->tracker == RL_NONE ||
			    d->complete[i] <= d->tracker))
				a->last_safe_step = d->complete[i];
		}
		a->clean_step = a->last_safe_step;
	}
	if (d->tracker == RL_NONE)
		return;
	if (d->tracker == a->last_safe_step)
		evlist_add_file(&d->evidence, d->tracker_source, NULL,
		    STANCE_SUPPORTS, "the tracker file names step %d too",
		    d->tracker);
	else if (a->last_safe_step != RL_NONE && d->tracker < a->last_safe_step) {
		evlist_add_file(&d->evidence, d->tracker_source, NULL,
		    STANCE_SUPPORTS, "the tracker file names step %d, not %d: "
		    "the framework will resume from step %d", d->tracker,
		    a->last_safe_step, d->tracker);
		a->last_safe_step = d->tracker;
		if (a->clean_step > d->tracker)
			a->clean_step = d->tracker;
	} else
		evlist_add_file(&d->evidence, d->tracker_source, NULL,
		    STANCE_AGAINST, "the tracker file names step %d, which the "
		    "logs do not show completed by every saving rank",
		    d->tracker);
}

/* Judge every step: the last safe one, the unsafe ones, the suspect ones. */
static void
ckpt_judge(struct rl_incident *inc, struct ckpt_step *steps, size_t nsteps,
    const unsigned *savers, size_t nsavers, struct ckpt_disk *d)
{
	struct rl_answer	*a = &inc->answer;
	struct ckpt_step	*st;
	size_t			 i, nev = 0;
	unsigned		 missing = 0;

	a->last_safe_step = a->clean_step = RL_NONE;
	for (i = 0; i < nsteps; i++) {
		st = &steps[i];
		if (step_safe(st, savers, nsavers, &missing) &&
		    !int_has(d->broken, d->nbroken, st->step)) {
			if (st->step > a->last_safe_step)
				a->last_safe_step = st->step;
			if (st->suspect)
				steps_add(&a->suspect_steps, &a->nsuspect,
				    st->step);
			else if (st->step > a->clean_step)
				a->clean_step = st->step;
		} else if (st->nbegan > 0 || st->nended > 0) {
			steps_add(&a->unsafe_steps, &a->nunsafe, st->step);
			if (a->first != RL_NONE && nev++ < CKPT_MAX_UNSAFE_EV)
				ckpt_unsafe_evidence(inc, st, missing);
		}
	}
	ckpt_judge_disk(inc, steps, nsteps, d);
	if (a->nunsafe > 1)
		qsort(a->unsafe_steps, a->nunsafe, sizeof *a->unsafe_steps,
		    int_cmp);
	if (a->nsuspect > 1)
		qsort(a->suspect_steps, a->nsuspect, sizeof *a->suspect_steps,
		    int_cmp);
}

/*
 * Did the first failure happen while a checkpoint was being written (its
 * rule says so: torch.save's own errors)?
 */
static bool
ckpt_failed_writing(const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;

	return a->first != RL_NONE && inc->events[a->first]->rule != NULL &&
	    inc->events[a->first]->rule->ckpt_write;
}

/*
 * The status from the steps.  With none logged, a failure in the writing
 * of a checkpoint still says that one is partial.
 */
static void
ckpt_status(const struct rl_incident *inc, struct rl_answer *a,
    size_t nsteps)
{
	if (a->first == RL_NONE)
		a->ckpt = CKPT_NONE;
	else if (nsteps == 0)
		a->ckpt = ckpt_failed_writing(inc) ? CKPT_UNSAFE :
		    CKPT_UNKNOWN;
	else if (a->nunsafe > 0 && (a->last_safe_step == RL_NONE ||
	    a->unsafe_steps[a->nunsafe - 1] > a->last_safe_step))
		a->ckpt = CKPT_UNSAFE;
	else
		a->ckpt = a->last_safe_step != RL_NONE ? CKPT_SAFE :
		    CKPT_UNSAFE;
}

/* The evidence for the last safe step, and for late and suspect saves. */
static void
ckpt_safe_evidence(struct rl_incident *inc, const struct ckpt_step *steps,
    size_t nsteps, size_t nsavers, int hw)
{
	struct rl_answer	*a = &inc->answer;
	size_t			 i;

	for (i = 0; i < nsteps; i++) {
		if (steps[i].step == a->last_safe_step &&
		    steps[i].last_end != RL_NONE)
			evlist_add(&a->ckpt_evidence, inc, steps[i].last_end,
			    STANCE_SUPPORTS, "step %d: %s logged its "
			    "completion%s", steps[i].step, nsavers > 1 ?
			    "the last of the saving ranks" : "the saving rank",
			    a->first != RL_NONE ? " before the first failure" :
			    "");
		if (steps[i].late_end != RL_NONE && steps[i].nended == 0)
			evlist_add(&a->ckpt_evidence, inc, steps[i].late_end,
			    STANCE_SUPPORTS, "step %d completed only after the "
			    "first failure: not counted as safe", steps[i].step);
	}
	if (hw != RL_NONE && a->nsuspect > 0)
		evlist_add(&a->ckpt_evidence, inc, hw, STANCE_AGAINST,
		    "a hardware error before step %d completed: that "
		    "checkpoint may hold corrupt data",
		    a->suspect_steps[a->nsuspect - 1]);
}

/* Say in words what the checkpoint answer rests on. */
static void
ckpt_words(struct rl_incident *inc, size_t nsteps, size_t nsavers, int hw,
    const struct ckpt_disk *d)
{
	struct rl_answer	*a = &inc->answer;
	const struct rl_event	*e;
	struct buf		 b = { 0 };

	switch (a->ckpt) {
	case CKPT_NONE:
		buf_adds(&b, "No failure: there is nothing to resume from.");
		if (a->last_safe_step != RL_NONE)
			buf_printf(&b, " The last checkpoint every saving rank "
			    "completed is step %d.", a->last_safe_step);
		break;
	case CKPT_UNKNOWN:
		buf_adds(&b, "No checkpoint save was logged, so the logs cannot "
		    "say which checkpoint is complete. Give the checkpoint "
		    "folder as a path, or check the save messages of the "
		    "training script, before resuming.");
		break;
	case CKPT_SAFE:
		if (nsteps == 0)
			buf_printf(&b, "No checkpoint save was logged; the "
			    "checkpoint folder holds whole files for step %d: "
			    "resume from step %d.", a->last_safe_step,
			    a->last_safe_step);
		else
			buf_printf(&b, "Every rank that saves checkpoints (%zu) "
			    "logged the completion of step %d before the first "
			    "failure, and no later save was under way: resume "
			    "from step %d.", nsavers, a->last_safe_step,
			    a->last_safe_step);
		break;
	case CKPT_UNSAFE:
		/*
		 * Unsafe with no unsafe step: every save logged was
		 * completed only after the first failure, which is not
		 * counted, so no step is known to be whole; or none was
		 * logged, and the failure was in writing one.
		 */
		e = inc->events[a->first];
		if (nsteps == 0 && d->ncomplete + d->nbroken == 0 &&
		    ckpt_failed_writing(inc)) {
			buf_printf(&b, "The first failure is in the writing of "
			    "a checkpoint (%s): its files are partial and must "
			    "not be resumed from. No save was logged, so the "
			    "logs cannot say which earlier checkpoint is "
			    "complete: check the checkpoint folder before "
			    "resuming.", e->rule->title != NULL ?
			    e->rule->title : e->rule->id);
			break;
		}
		if (a->nunsafe == 0)
			buf_adds(&b, "Every checkpoint save logged completed "
			    "only after the first failure, so none is counted "
			    "as safe. ");
		else
			buf_printf(&b, "The save of step %d was not completed "
			    "by every saving rank before the failure: its files "
			    "may be partial and must not be resumed from. ",
			    a->unsafe_steps[a->nunsafe - 1]);
		if (a->last_safe_step != RL_NONE)
			buf_printf(&b, "The last checkpoint every saving rank "
			    "completed is step %d.", a->last_safe_step);
		else
			buf_adds(&b, "No earlier checkpoint was completed by "
			    "every saving rank.");
		break;
	}
	if (d->nbroken > 0)
		buf_printf(&b, " The checkpoint folder confirms it: %zu step%s "
		    "there %s incomplete files.", d->nbroken, d->nbroken == 1 ?
		    "" : "s", d->nbroken == 1 ? "has" : "have");
	if (d->tracker != RL_NONE)
		buf_printf(&b, " The tracker file names step %d.", d->tracker);
	if (hw != RL_NONE && a->nsuspect > 0) {
		e = inc->events[hw];
		buf_printf(&b, " Suspect: a hardware error (%s%s%d) was logged "
		    "before step %d completed, so that checkpoint may hold "
		    "corrupt data; ", e->rule->id, e->rank != RL_NONE ?
		    ", rank " : "", e->rank != RL_NONE ? e->rank : 0,
		    a->suspect_steps[a->nsuspect - 1]);
		if (a->clean_step != RL_NONE)
			buf_printf(&b, "the last checkpoint completed before "
			    "it is step %d.", a->clean_step);
		else
			buf_adds(&b, "no checkpoint was completed before it.");
	}
	a->ckpt_explanation = buf_steal(&b);
}

void
checkpoint_analyze(struct rl_incident *inc)
{
	struct rl_answer	*a = &inc->answer;
	struct ckpt_step	*steps = NULL;
	unsigned		*savers = NULL;
	struct ckpt_disk	 disk;
	size_t			 nsteps = 0, nsavers = 0, i;
	int			 hw;

	ckpt_collect(inc, &steps, &nsteps, &savers, &nsavers, &hw);
	ckptdir_check(inc, &disk);
	ckpt_judge(inc, steps, nsteps, savers, nsavers, &disk);
	ckpt_status(inc, a, nsteps > 0 ? nsteps : disk.ncomplete +
	    disk.nbroken);
	ckpt_safe_evidence(inc, steps, nsteps, nsavers, hw);
	evlist_move(&a->ckpt_evidence, &disk.evidence);
	ckpt_words(inc, nsteps, nsavers, hw, &disk);
	for (i = 0; i < nsteps; i++) {
		free(steps[i].began);
		free(steps[i].ended);
	}
	free(steps);
	free(savers);
	free(disk.broken);
	free(disk.complete);
}
