/*
 * groups.c: ranks that behave alike, shown as one timeline row.
 *
 * With thousands of ranks most rows say the same thing: 9,999 ranks were
 * collateral to one that failed.  Rows of one state whose first failure is
 * of one rule form a group, drawn as one row ("0-36,38-63 x63 collat",
 * its cells the strongest mark of its members per column), so that the
 * odd rank stands out.  The first failure's row, the unranked rows and
 * the row of lines with no rank are never grouped.  Groups fold when the
 * rows do not fit on the screen; z opens or folds the selected one, Z
 * folds them all or opens them all (the engineer's choice then holds).
 * What z toggled is kept by the group's identity (state and rule), not by
 * its position, so that it outlives a diagnosis.  Built in O(n log n) per
 * model change or fold, never per frame.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

/* The rule of a row's first failure, or NULL. */
static const void *
groups_rule(const struct tui *t, int r)
{
	const struct rl_rank	*k = t->index.rows[r].rank;

	if (k == NULL || k->first_event < 0 ||
	    (size_t)k->first_event >= t->inc->nevents)
		return (NULL);
	return (t->inc->events[k->first_event]->rule);
}

/*
 * What a row's behaviour is, for grouping: its state, and whether it
 * holds failing lines; -1 for a row never grouped.
 */
int
groups_kind(const struct tui *t, int r)
{
	const struct tui_row	*row = &t->index.rows[r];

	if (row->rank == NULL || row->rank->rank == RL_NONE ||
	    r == t->index.first_row)
		return (-1);
	return ((int)model_row_state(row) * 2 +
	    (model_row_failing(t, row) ? 1 : 0));
}

/* The tui groups_cmp sorts the rows of, with each row's kind. */
static const struct tui *groups_sort_tui;
static const int *groups_sort_kind;

/* Order rows by kind, then rule, then row: alike rows are next. */
static int
groups_cmp(const void *va, const void *vb)
{
	int		 a = *(const int *)va, b = *(const int *)vb;
	const void	*ra, *rb;

	if (groups_sort_kind[a] != groups_sort_kind[b])
		return (groups_sort_kind[a] < groups_sort_kind[b] ? -1 : 1);
	ra = groups_rule(groups_sort_tui, a);
	rb = groups_rule(groups_sort_tui, b);
	if (ra != rb)
		return ((uintptr_t)ra < (uintptr_t)rb ? -1 : 1);
	return ((a > b) - (a < b));
}

/* Did z toggle this group? Its slot in opened, or -1. */
static int
groups_toggled(const struct tui_groups *g, int kind, const void *rule)
{
	size_t	 i;

	for (i = 0; i < g->nopened; i++) {
		if (g->opened[i].kind == kind && g->opened[i].rule == rule)
			return ((int)i);
	}
	return (-1);
}

/* "0-36,38-63": the rank numbers of a group, runs as ranges. */
static char *
groups_ranks(const struct tui *t, const int *rows, size_t n)
{
	struct buf	 b = { 0 };
	size_t		 i, j;
	int		 lo, hi;

	for (i = 0; i < n; i = j) {
		lo = hi = t->index.rows[rows[i]].rank->rank;
		for (j = i + 1; j < n &&
		    t->index.rows[rows[j]].rank->rank == hi + 1; j++)
			hi++;
		if (b.len > 0)
			buf_addc(&b, ',');
		if (hi > lo)
			buf_printf(&b, "%d-%d", lo, hi);
		else
			buf_printf(&b, "%d", lo);
	}
	if (b.p == NULL)
		return (xstrdup(""));
	return (buf_steal(&b));
}

/* Free the entries and groups; keep what z and Z chose. */
static void
groups_reset(struct tui_groups *g)
{
	size_t	 i;

	for (i = 0; i < g->n; i++)
		free(g->v[i].ranks);
	free(g->v);
	free(g->members);
	free(g->disp);
	free(g->disp_of_row);
	group_list_free(g->list);
	g->list = NULL;
	g->v = NULL;
	g->members = g->disp = g->disp_of_row = NULL;
	g->n = g->ndisp = 0;
	g->label_w = 0;
}

/* Free everything the groups hold; the struct stays, empty. */
void
groups_clear(struct tui_groups *g)
{
	groups_reset(g);
	free(g->opened);
	memset(g, 0, sizeof *g);
}

/* Make the groups of one sorted run of alike rows, when it has two or more. */
static void
groups_add(struct tui *t, struct tui_groups *g, const int *run, size_t n,
    int kind, size_t at)
{
	struct tui_group	*gr = &g->v[g->n++];
	char			 count[32];
	size_t			 w;

	gr->first = at;
	gr->n = n;
	gr->kind = kind;
	gr->rule = groups_rule(t, run[0]);
	gr->ranks = groups_ranks(t, run, n);
	gr->open = g->folded == (groups_toggled(g, kind, gr->rule) >= 0);
	w = strlen(gr->ranks) + (size_t)snprintf(count, sizeof count,
	    " x%zu", n);
	if (w > g->label_w)
		g->label_w = w;
}

/* Group the rows and lay out the entries, for a screen of rows_h rows. */
void
groups_build(struct tui *t, struct tui_groups *g, int rows_h)
{
	const struct tui_index	*ix = &t->index;
	int			*kind, *group_of, k, r;
	size_t			 n = ix->nrows, i, j, nm = 0;

	groups_reset(g);
	g->folded = g->forced ? g->collapse : (int)n > rows_h;
	g->disp = xreallocarray(NULL, n + 1, sizeof *g->disp);
	g->disp_of_row = xreallocarray(NULL, n + 1, sizeof *g->disp_of_row);
	g->members = xreallocarray(NULL, n + 1, sizeof *g->members);
	g->v = xcalloc(n / 2 + 1, sizeof *g->v);
	kind = xreallocarray(NULL, n + 1, sizeof *kind);
	group_of = xreallocarray(NULL, n + 1, sizeof *group_of);
	for (i = 0; i < n; i++) {
		kind[i] = groups_kind(t, (int)i);
		group_of[i] = -1;
		if (kind[i] >= 0)
			g->members[nm++] = (int)i;
	}
	groups_sort_tui = t;
	groups_sort_kind = kind;
	qsort(g->members, nm, sizeof *g->members, groups_cmp);
	for (i = 0; i < nm; i = j) {
		for (j = i + 1; j < nm && kind[g->members[j]] ==
		    kind[g->members[i]] && groups_rule(t, g->members[j]) ==
		    groups_rule(t, g->members[i]); j++)
			;
		if (j - i < 2)
			continue;
		for (k = (int)i; k < (int)j; k++)
			group_of[g->members[k]] = (int)g->n;
		groups_add(t, g, &g->members[i], j - i, kind[g->members[i]],
		    i);
	}
	for (i = 0; i < n; i++) {
		if ((k = group_of[i]) < 0 || g->v[k].open) {
			g->disp_of_row[i] = (int)g->ndisp;
			g->disp[g->ndisp++] = (int)i;
		} else if ((r = g->members[g->v[k].first]) == (int)i) {
			g->disp_of_row[i] = (int)g->ndisp;
			g->disp[g->ndisp++] = -(k + 1);
		} else
			g->disp_of_row[i] = g->disp_of_row[r];
	}
	free(kind);
	free(group_of);
}

/* The row an entry stands for: its own, or its group's first. */
int
groups_row(const struct tui_groups *g, size_t d)
{
	int	 e = g->disp[d];

	return (e >= 0 ? e : g->members[g->v[-e - 1].first]);
}

/* The folded group an entry is, or NULL for a row. */
const struct tui_group *
groups_of(const struct tui_groups *g, int d)
{
	if (d < 0 || (size_t)d >= g->ndisp || g->disp[d] >= 0)
		return (NULL);
	return (&g->v[-g->disp[d] - 1]);
}

/* The group a row belongs to, folded or open, or NULL. */
static struct tui_group *
groups_find(struct tui_groups *g, int row)
{
	size_t	 i, k;

	for (i = 0; i < g->n; i++) {
		for (k = 0; k < g->v[i].n; k++) {
			if (g->members[g->v[i].first + k] == row)
				return (&g->v[i]);
		}
	}
	return (NULL);
}

/* z and Z; the caller builds the entries again. */
int
groups_key(struct tui *t, struct tui_groups *g, enum tui_action act)
{
	struct tui_group	*gr;
	int			 i;

	if (act == ACT_GROUP_ALL) {
		g->forced = true;
		g->collapse = !g->folded;
		g->nopened = 0;
		tui_set_message(t, false, g->collapse ? "alike ranks folded "
		    "into groups (z opens one)" : "every rank on its own row");
		return (REACT_REDRAW);
	}
	if ((gr = groups_find(g, t->sel_row)) == NULL) {
		tui_set_message(t, false, "this row is in no group of alike "
		    "ranks");
		return (REACT_REDRAW);
	}
	if ((i = groups_toggled(g, gr->kind, gr->rule)) >= 0)
		g->opened[i] = g->opened[--g->nopened];
	else {
		if (g->nopened == g->copened)
			g->opened = array_grow(g->opened, g->nopened + 1,
			    &g->copened, sizeof *g->opened);
		g->opened[g->nopened].kind = gr->kind;
		g->opened[g->nopened++].rule = gr->rule;
	}
	tui_set_message(t, false, "ranks %s %s", gr->ranks, gr->open ?
	    "folded" : "opened");
	return (REACT_REDRAW);
}
