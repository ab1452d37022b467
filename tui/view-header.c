/*
 * view-header.c: the console's top lines, above the ranks:
 *
 *  FIRST FAILURE rank 4 (node1) torch.runtime at 13:49:41 - RuntimeError..
 *  64 ranks · domain code · group other · scope one · checkpoint safe
 *  SEEN 3x BEFORE last 2026-11-02 #17 · diagnosis: ...
 *
 * The three answers in one glance: who failed first, what kind of failure
 * and whether the checkpoint is safe, then what the store remembers of it.
 * The timeline lays them out (view-timeline.c); they draw here.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "wording.h"

/* Whether the store found anything to say about this failure's past. */
bool
header_history_news(const struct tui *t)
{
	const struct rl_history	*h = t->inc->history;

	return h != NULL && t->inc->answer.first != RL_NONE &&
	    (h->nmatches > 0 || h->noffenders > 0);
}

/* The top line: the first failure, named, or that there is none. */
void
header_draw_failure(struct tui *t, int sx)
{
	const struct rl_answer	*a = &t->inc->answer;
	const struct rl_event	*e;
	char			 label[128], when[32], *line;
	const char		*rule, *dash;
	int			 x;

	dash = screen_sym("\xe2\x80\x94", "-");
	/* Nothing read because a path was wrong is not "no failure". */
	if (t->inc->lines == 0 && t->inc->errors.n > 0) {
		screen_fill(0, 0, sx, TR_FAILURE);
		x = 1 + screen_puts(0, 1, sx - 2, TR_FAILURE, "NOTHING READ ");
		screen_printf(0, x, sx - x - 1, TR_FAILURE, "%s %s", dash,
		    t->inc->errors.v[0]);
		return;
	}
	if (a->first < 0 || (size_t)a->first >= t->inc->nevents) {
		screen_fill(0, 0, sx, TR_TITLE);
		x = 1 + screen_puts(0, 1, sx - 2, TR_TITLE, "No failure found");
		if (a->summary != NULL)
			screen_printf(0, x, sx - x - 1, TR_TITLE, " %s %s",
			    dash, a->summary);
		return;
	}
	e = t->inc->events[a->first];
	model_event_label(t, (unsigned)a->first, label, sizeof label);
	model_time_short(&e->time, when, sizeof when, false);
	rule = e->rule != NULL ? e->rule->id : role_name(e->role);
	if (a->first_role == ROLE_HANG)
		xasprintf(&line, "%s went quiet (%s), last seen %s %s %s",
		    label, rule, when, dash, model_message(e));
	else
		xasprintf(&line, "%s  %s  at %s %s %s", label, rule, when, dash,
		    model_message(e));
	screen_fill(0, 0, sx, TR_FAILURE);
	x = 1 + screen_puts(0, 1, sx - 2, TR_FAILURE, "FIRST FAILURE ");
	screen_cut(0, x, sx - x - 1, TR_FAILURE, line);
	free(line);
}

/* Draw "label value" at x (the label only on wide screens); the new x. */
static int
header_pair(int y, int x, int sx, const char *label, enum tui_role role,
    const char *value)
{
	if (sx >= 100 || strcmp(label, "checkpoint") == 0) {
		x += screen_puts(y, x, sx - x, TR_LABEL, label);
		x += screen_puts(y, x, sx - x, TR_NORMAL, " ");
	}
	return (x + screen_puts(y, x, sx - x, role, value));
}

/*
 * The checkpoint part of the verdict line, in the words of the report's
 * checkpoint sentence (wording.c): the status, coloured, then the steps.
 * Returns the new x.
 */
static int
header_ckpt(const struct rl_answer *a, int y, int x, int sx)
{
	struct buf	 steps = { 0 };
	enum tui_role	 role;

	switch (a->ckpt) {
	case CKPT_SAFE:
		role = TR_SAFE;
		break;
	case CKPT_NONE:
		role = TR_DIM;
		break;
	default:
		role = TR_UNSAFE;
		break;
	}
	x = header_pair(y, x, sx, "checkpoint", role,
	    ckpt_status_name(a->ckpt));
	wording_checkpoint_steps(&steps, a->last_safe_step, a->unsafe_steps,
	    a->nunsafe, a->suspect_steps, a->nsuspect);
	if (steps.len > 0)
		x += screen_puts(y, x, sx - x, TR_VERDICT, steps.p);
	buf_clear(&steps);
	return (x);
}

/* The verdict line: domain, group, scope, checkpoint, and the summary. */
void
header_draw_verdict(struct tui *t, int sx)
{
	const struct rl_answer	*a = &t->inc->answer;
	const char		*sep = screen_sym(" \xc2\xb7 ", " - ");
	int			 x = 1;

	/* How many ranks: a folded group hides how many there are. */
	if (t->index.nranked > 0) {
		x += screen_printf(1, x, sx - x, TR_VERDICT, "%zu rank%s",
		    t->index.nranked, t->index.nranked == 1 ? "" : "s");
		x += screen_puts(1, x, sx - x, TR_DIM, sep);
	}
	if (a->first != RL_NONE) {
		x = header_pair(1, x, sx, "domain", TR_VERDICT,
		    domain_name(a->domain));
		x += screen_puts(1, x, sx - x, TR_DIM, sep);
		x = header_pair(1, x, sx, "group", TR_VERDICT,
		    group_name(a->group));
		x += screen_puts(1, x, sx - x, TR_DIM, sep);
		x = header_pair(1, x, sx, "scope", TR_VERDICT,
		    scope_name(a->scope));
		x += screen_puts(1, x, sx - x, TR_DIM, sep);
	}
	x = header_ckpt(a, 1, x, sx);
	if (a->first != RL_NONE && a->summary != NULL && x + 8 < sx) {
		x += screen_puts(1, x, sx - x, TR_DIM, sep);
		screen_cut(1, x, sx - x - 1, TR_NORMAL, a->summary);
	}
}

/*
 * The history line: "SEEN 3x before, last 2026-11-02 #17 - diagnosis:
 * ...", then near matches and repeat offenders, as the store found them
 * before the console started (tui never asks the database itself).
 */
void
header_draw_history(struct tui *t, int y, int sx)
{
	const struct rl_history		*h = t->inc->history;
	const struct rl_history_match	*m = h->nmatches ? &h->matches[0] :
					    NULL;
	const char			*sep = screen_sym(" \xc2\xb7 ", " - ");
	struct buf			 b = { 0 };
	size_t				 i;
	int				 x;

	screen_fill(y, 0, sx, TR_NORMAL);
	if (h->seen_before > 0 && m != NULL && m->exact) {
		x = 1 + screen_printf(y, 1, sx - 2, TR_UNSAFE, "SEEN %zux "
		    "BEFORE", h->seen_before);
		buf_printf(&b, " last %.10s #%lld", m->time != NULL ? m->time :
		    "?", (long long)m->incident);
		/* The latest diagnosis written, if not on the latest match. */
		for (i = 0; i < h->nmatches && h->matches[i].exact; i++) {
			m = &h->matches[i];
			if (m->diagnosis == NULL && m->resolution == NULL)
				continue;
			buf_printf(&b, "%s#%lld", sep, (long long)m->incident);
			if (m->diagnosis != NULL)
				buf_printf(&b, " diagnosis: %s", m->diagnosis);
			if (m->resolution != NULL)
				buf_printf(&b, "%sresolved: %s", sep,
				    m->resolution);
			break;
		}
	} else {
		x = 1 + screen_puts(y, 1, sx - 2, TR_LABEL, "history");
		for (i = 0; i < h->nmatches; i++) {
			if (h->matches[i].exact)
				continue;
			buf_printf(&b, " similar #%lld (%.2f) %.10s",
			    (long long)h->matches[i].incident,
			    h->matches[i].score, h->matches[i].time != NULL ?
			    h->matches[i].time : "?");
			break;
		}
	}
	for (i = 0; i < h->noffenders; i++)
		buf_printf(&b, "%s%s %s failed %zux before (last #%lld)", sep,
		    offender_kind_name(h->offenders[i].kind),
		    h->offenders[i].name, h->offenders[i].count,
		    (long long)h->offenders[i].last_incident);
	/* screen_cut makes the log's and the notes' text safe to draw. */
	if (b.p != NULL)
		screen_cut(y, x, sx - x - 1, TR_VERDICT, b.p);
	buf_clear(&b);
}

