/*
 * filter.c: the rows and lines a filter (:ranks, :host, :sig, :failures,
 * :progress) leaves in the console's index.
 *
 * The filter is applied where the index is built (model_build), so that
 * every view reads one index and none tests a filter of its own: a hidden
 * row is not in rows[], a hidden line is in no row's list, and its
 * row_of_event is -1 (a tee'd copy follows the line it copies).  The model
 * itself is untouched: the header still names the first failure when its
 * rank is filtered out, and :clear brings everything back.
 */
#include <stdlib.h>
#include <string.h>

#include "tui.h"

/* Does a row's rank and host pass the filter? */
static bool
filter_row_pass(const struct tui_filter *f, const struct tui_row *row)
{
	const struct rl_rank	*r = row->rank;

	if (f->ranks.n > 0 && (r == NULL || r->rank == RL_NONE ||
	    !rankset_has(&f->ranks, r->rank)))
		return false;
	if (f->host != NULL && (r == NULL || r->host == NULL ||
	    strcmp(r->host, f->host) != 0))
		return false;
	return true;
}

/* Does a line pass the filter? */
static bool
filter_event_pass(const struct tui_filter *f, const struct rl_event *e)
{
	if (f->failures && !event_failing(e))
		return false;
	if (f->no_progress && e->role == ROLE_PROGRESS)
		return false;
	if (f->sig != NULL && (e->rule == NULL ||
	    !filter_sig_match(f->sig, e->rule->id)))
		return false;
	return true;
}

/* Keep the lines of one row that pass, in place; how many are left. */
static size_t
filter_row_events(struct tui *t, const struct tui_row *row, size_t at)
{
	struct tui_index	*ix = &t->index;
	size_t			 i, n = 0;
	unsigned		 ev;

	for (i = 0; i < row->n; i++) {
		ev = ix->ev[row->first + i];
		if (filter_event_pass(&t->filter, t->inc->events[ev]))
			ix->ev[at + n++] = ev;
	}
	return n;
}

/*
 * Apply the filter to the index just built: drop the rows and lines it
 * hides, renumber the rows, and point hidden lines at no row.
 */
void
filter_apply(struct tui *t)
{
	struct tui_index	*ix = &t->index;
	const struct tui_filter	*f = &t->filter;
	struct tui_row		 row;
	size_t			 r, k = 0, at = 0, i, n;
	int			*newrow, c;
	bool			 lines = f->failures || f->sig != NULL;

	if (!filter_active(f))
		return;
	newrow = xreallocarray(NULL, ix->nrows + 1, sizeof *newrow);
	for (r = 0; r < ix->nrows; r++) {
		row = ix->rows[r];
		newrow[r] = -1;
		if (!filter_row_pass(f, &row))
			continue;
		n = filter_row_events(t, &row, at);
		/* A row only lines would show goes when it has none. */
		if (lines && n == 0 && !(f->failures &&
		    model_row_state(&row) != RANK_OK))
			continue;
		row.first = at;
		row.n = n;
		at += n;
		newrow[r] = (int)k;
		ix->rows[k++] = row;
	}
	ix->nrows = k;
	ix->nev = at;
	for (i = 0; i < ix->nevents; i++) {
		if (ix->row_of_event[i] >= 0)
			ix->row_of_event[i] = newrow[ix->row_of_event[i]];
	}
	/* Listed lines keep their row only if the list kept them. */
	for (i = 0; i < ix->nevents; i++) {
		if (ix->copy_of[i] < 0 && ix->row_of_event[i] >= 0 &&
		    model_event_pos(t, (unsigned)i) < 0)
			ix->row_of_event[i] = -1;
	}
	for (i = 0; i < ix->nevents; i++) {
		if ((c = ix->copy_of[i]) >= 0 && ix->row_of_event[c] < 0)
			ix->row_of_event[i] = -1;
	}
	free(newrow);
}
