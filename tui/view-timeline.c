/*
 * view-timeline.c: the main view, one row per rank on a shared time axis.
 *
 *  FIRST FAILURE rank 4 (node1) torch.runtime at 13:49:41 - RuntimeError..
 *  64 ranks · domain code · group other · scope one · checkpoint safe
 *         RANK HOST  STATE  │13:49:30     13:49:40
 *  1 col = 106 ms           │▂▂ ▁▂▂▂  ▂▂▂█
 *  ▸0-3,5-63 ×63     collat │────·····◆·····▲↑
 *  ▶         4 node1 FAILED │────·····◆····✖
 *  ─ rank 4 (node1) · FAILED · 14 events ─────────────────────────────
 *  ✖ 13:49:41.895 2/stderr.log:1   Traceback (most recent call last):
 *
 * At 160 columns and more, when the ranks need more than half the height,
 * the event list moves to the right-hand side; a few ranks on a wide
 * terminal read better with the list below them at full width.  The axis
 * is the window zoom.c keeps; the rows are groups.c's entries (a rank, or
 * ranks that behave alike, folded).  The events are bucketed once per
 * model change, window or width (an O(events) pass into an entries x
 * width byte array, with the activity row's counts), so a frame draws only
 * the entries on screen from that array: 10,000 ranks cost nothing extra.
 */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

#define TL_WIDE		160	/* from here the event list goes on the right */
#define TL_STATE_W	6	/* "FAILED" */
#define TL_ACT_MIN_SY	16	/* from here an activity row under the axis */
#define TL_GROUP_NARROW	16	/* a group's ranks, at most, below 100 columns */
#define TL_GROUP_WIDE	28	/* and from 100 */

/* Where everything goes at the current size. */
struct timeline_layout {
	int		 tl_w;		/* columns of the rows part */
	int		 rank_w;	/* rank number column */
	int		 host_w;	/* host column, 0 when no rank has a host */
	int		 left_w;	/* marker, rank, host and state */
	int		 axis_x;	/* first column of the time axis */
	int		 axis_w;	/* its width: one bucket per column */
	int		 rows_y;	/* first rank row */
	int		 axis_y;	/* the time axis */
	int		 act_y;		/* the activity row under it, or 0 */
	int		 hist_y;	/* the history line, or 0 for none */
	int		 rows_h;	/* rank rows on screen */
	int		 rows_max;	/* rows there would be room for */
	int		 pane_x;	/* the event list, title line included */
	int		 pane_y;
	int		 pane_w;
	int		 pane_h;	/* 0: no room for it */
	bool		 wide;		/* list on the right */
};

struct timeline {
	int		 top;		/* first row on screen */
	int		 list_top;	/* first line of the event list */
	unsigned char	*cells;		/* entries x width enum tui_glyph: a
					   folded group's hold its members' */
	unsigned	*hist;		/* events per column, all rows */
	int64_t		*span;		/* each row's first and last mark */
	unsigned	 hist_max;
	int		 width;		/* axis width the cells are for */
	size_t		 nrows;		/* rows the cells are for */
	unsigned	 zoom_gen;	/* the window they are for */
	bool		 stale;		/* the model changed since */
	struct tui_groups groups;	/* alike rows folded (groups.c) */
	bool		 groups_stale;	/* the rows or a fold changed since */
	int		 groups_h;	/* rows_max they were built for */
	int		 sx;		/* size laid out for */
	int		 sy;
	struct timeline_layout lay;
};

/* Digits of a non-negative number. */
static int
timeline_digits(int n)
{
	int	 d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return (d);
}

/* Lay the view out for sx x sy; the row count shrinks the rows part. */
static void
timeline_layout(struct timeline *tl, struct tui *t, int sx, int sy)
{
	struct timeline_layout	*l = &tl->lay;
	const struct tui_index	*ix = &t->index;
	int			 want, top, act, nrows;

	l->rank_w = timeline_digits(ix->max_rank < 0 ? 0 : ix->max_rank);
	if (l->rank_w < 4)
		l->rank_w = 4;
	l->host_w = (int)ix->host_width;
	if (sx < 100 && l->host_w > 8)
		l->host_w = 8;
	/* A group's ranks ("0-36,38-63 x63") over the rank and host columns. */
	want = (int)tl->groups.label_w;
	if (want > (sx < 100 ? TL_GROUP_NARROW : TL_GROUP_WIDE))
		want = sx < 100 ? TL_GROUP_NARROW : TL_GROUP_WIDE;
	if (want > l->rank_w + (l->host_w ? l->host_w + 1 : 0))
		l->rank_w = want - (l->host_w ? l->host_w + 1 : 0);
	l->left_w = 1 + l->rank_w + 1 + (l->host_w ? l->host_w + 1 : 0) +
	    TL_STATE_W + 1;
	/* On the right only when the ranks need the height; else below. */
	/* The history line, under the verdict, only when it has news. */
	top = header_history_news(t) && sy >= 12 ? 1 : 0;
	l->hist_y = top ? 2 : 0;
	l->axis_y = 2 + top;
	l->act_y = sy >= TL_ACT_MIN_SY ? l->axis_y + 1 : 0;
	act = l->act_y ? 1 : 0;
	nrows = tl->groups.disp != NULL ? (int)tl->groups.ndisp :
	    (int)ix->nrows;
	l->wide = sx >= TL_WIDE && nrows + 1 > (sy - 4 - top) / 2;
	l->rows_y = 3 + top + act;
	if (l->wide) {
		l->pane_w = sx * 2 / 5;
		l->tl_w = sx - l->pane_w - 1;
		l->pane_x = l->tl_w + 1;
		l->pane_y = 2 + top;
		l->pane_h = sy - 3 - top;
		l->rows_h = l->rows_max = sy - 4 - top - act;
	} else {
		l->tl_w = l->pane_w = sx;
		l->pane_x = 0;
		l->pane_h = sy >= 18 ? (sy - 4 - top) * 2 / 5 : 0;
		if (l->pane_h > 16)
			l->pane_h = 16;
		l->rows_h = l->rows_max = sy - 4 - top - act - l->pane_h;
		want = nrows + 1;
		if (l->pane_h > 0 && want < l->rows_h) {
			l->pane_h += l->rows_h - want;
			l->rows_h = want;
		}
		l->pane_y = l->rows_y + l->rows_h;
	}
	l->axis_x = l->left_w + 1;
	l->axis_w = l->tl_w - l->axis_x - 1;
	if (l->axis_w < 1)
		l->axis_w = 1;
	tl->sx = sx;
	tl->sy = sy;
}

/* The column of an event in the window, or -1 when it is outside. */
static int
timeline_bucket(const struct tui *t, size_t ev, int w)
{
	return (zoom_col(t, t->index.pos[ev], w));
}

/* Each row's first and last mark, wherever model_positions put them. */
static void
timeline_spans(struct timeline *tl, const struct tui_index *ix)
{
	size_t	 i, k;

	free(tl->span);
	tl->span = xreallocarray(NULL, ix->nrows + 1, 2 * sizeof *tl->span);
	for (i = 0; i < ix->nrows; i++) {
		tl->span[2 * i] = INT64_MAX;
		tl->span[2 * i + 1] = INT64_MIN;
	}
	for (i = 0; i < ix->nevents; i++) {
		if (ix->row_of_event[i] < 0)	/* hidden by the filter */
			continue;
		k = (size_t)ix->row_of_event[i] * 2;
		if (ix->pos[i] < tl->span[k])
			tl->span[k] = ix->pos[i];
		if (ix->pos[i] > tl->span[k + 1])
			tl->span[k + 1] = ix->pos[i];
	}
}

/*
 * Bucket every event in the window into its entry's cells (a row's, or
 * its folded group's), keeping the strongest glyph: the priority of enum
 * tui_glyph, so a checkpoint under a failure shows when zooming parts
 * them.  Count each column's events for the activity row.  One pass over
 * the events with no division by the window in it: this is what a zoom
 * costs at 10,000 ranks.
 */
static void
timeline_cells(struct timeline *tl, struct tui *t)
{
	const struct tui_index	*ix = &t->index;
	const int		*entry = tl->groups.disp_of_row;
	const int64_t		*pos = ix->pos;
	const unsigned char	*glyph = ix->glyph;
	int			 w = tl->lay.axis_w;
	int64_t			 a, z, scale;
	unsigned char		*c;
	size_t			 i, b;

	if (!tl->stale && tl->width == w && tl->nrows == ix->nrows &&
	    tl->zoom_gen == t->zoom.gen)
		return;
	if (tl->stale)
		timeline_spans(tl, ix);
	free(tl->cells);
	free(tl->hist);
	tl->cells = xcalloc(tl->groups.ndisp + 1, (size_t)w);
	tl->hist = xcalloc((size_t)w, sizeof *tl->hist);
	tl->hist_max = 0;
	zoom_window(t, &a, &z);
	scale = zoom_scale_factor(a, z, w);
	for (i = 0; i < ix->nevents; i++) {
		if (ix->row_of_event[i] < 0)	/* hidden by the filter */
			continue;
		if (pos[i] < a || pos[i] > z)
			continue;
		b = (size_t)ZOOM_COL(pos[i], a, scale, w);
		c = &tl->cells[(size_t)entry[ix->row_of_event[i]] * w + b];
		if (glyph[i] > *c)
			*c = glyph[i];
		if (++tl->hist[b] > tl->hist_max)
			tl->hist_max = tl->hist[b];
	}
	tl->width = w;
	tl->nrows = ix->nrows;
	tl->zoom_gen = t->zoom.gen;
	tl->stale = false;
}

/* The column of a time, held inside the window's edges. */
static int
timeline_col_held(const struct tui *t, int64_t p, int w)
{
	int64_t	 a, b;

	zoom_window(t, &a, &b);
	return (zoom_col(t, p < a ? a : p > b ? b : p, w));
}

/*
 * The columns a row was alive: from its first line to its last, in the
 * window; hi < lo when the row's life is outside it.
 */
static void
timeline_life(const struct timeline *tl, const struct tui *t, int ri, int w,
    int *lo, int *hi)
{
	const struct rl_rank	*r = t->index.rows[ri].rank;
	int64_t			 a, b, p0, p1;

	*lo = 0;
	*hi = -1;
	/* Its marks, wherever model_positions put them, and its times. */
	p0 = tl->span[2 * ri];
	p1 = tl->span[2 * ri + 1];
	if (t->index.timed && r != NULL && (r->first.flags & RL_TIME_VALID) &&
	    (r->last.flags & RL_TIME_VALID)) {
		if (clock_utc_ms(&r->first) < p0)
			p0 = clock_utc_ms(&r->first);
		if (clock_utc_ms(&r->last) > p1)
			p1 = clock_utc_ms(&r->last);
	}
	if (p0 > p1)
		return;
	zoom_window(t, &a, &b);
	if (p1 < a || p0 > b)
		return;
	*lo = timeline_col_held(t, p0, w);
	*hi = timeline_col_held(t, p1, w);
}

/* The role and word for a rank's state. */
static const char *
timeline_state_word(enum rank_state s, enum tui_role *role)
{
	static const struct {
		const char	*word;
		enum tui_role	 role;
	} states[RANK_NSTATES] = {
		[RANK_OK] = { "ok", TR_STATE_OK },
		[RANK_FAILED] = { "FAILED", TR_STATE_FAILED },
		[RANK_COLLATERAL] = { "collat", TR_STATE_COLLATERAL },
		[RANK_HUNG] = { "HUNG", TR_STATE_HUNG },
		[RANK_EXITED] = { "exited", TR_STATE_EXITED },
	};

	if ((unsigned)s >= RANK_NSTATES)
		s = RANK_OK;
	*role = states[s].role;
	return (states[s].word);
}

/*
 * The word for a row's state, as the legend has it: FAILED on the first
 * failure's row alone (a rank that failed the same way later is "failed"),
 * and "errors" on a row that holds failing lines but has no state of its
 * own (the lines with no rank).
 */
static const char *
timeline_state(const struct tui *t, int r, enum tui_role *role)
{
	const struct tui_row	*row = &t->index.rows[r];
	enum rank_state		 s = model_row_state(row);

	if (s == RANK_FAILED && r != t->index.first_row) {
		*role = TR_STATE_FAILED;
		return ("failed");
	}
	if (s == RANK_OK && model_row_failing(t, row)) {
		*role = TR_STATE_EXITED;
		return ("errors");
	}
	return (timeline_state_word(s, role));
}

/* The left column of a row: marker, rank, host, state. */
static void
timeline_draw_label(struct tui *t, const struct timeline_layout *l, int r,
    int y)
{
	const struct tui_row	*row = &t->index.rows[r];
	bool			 sel = r == t->sel_row;
	bool			 first = r == t->index.first_row;
	enum tui_role		 role, srole;
	const char		*word;
	int			 x = 1;

	role = sel ? TR_SELECTED : (first ? TR_RANK_FIRST : TR_RANK);
	screen_fill(y, 0, l->left_w, role);
	if (first)
		screen_puts(y, 0, 1, role, screen_sym("\xe2\x96\xb6", ">"));
	if (row->rank == NULL)
		screen_printf(y, x, l->rank_w, role, "%*s", l->rank_w, "?");
	else if (row->rank->rank == RL_NONE)
		screen_printf(y, x, l->rank_w, role, "%*s", l->rank_w, "-");
	else
		screen_printf(y, x, l->rank_w, role, "%*d", l->rank_w,
		    row->rank->rank);
	x += l->rank_w + 1;
	if (l->host_w > 0) {
		if (row->rank != NULL && row->rank->host != NULL)
			screen_cut(y, x, l->host_w, role, row->rank->host);
		x += l->host_w + 1;
	}
	word = timeline_state(t, r, &srole);
	screen_puts(y, x, TL_STATE_W, sel ? TR_SELECTED : srole, word);
	screen_puts(y, l->left_w, 1, TR_AXIS, screen_sym("\xe2\x94\x82", "|"));
}

/*
 * The search's hits on a row (search.c keeps them): a hit on a quiet
 * cell is drawn as the hit mark, one on a failure's keeps its glyph,
 * highlighted, so that a search never hides a failure.
 */
static void
timeline_draw_hits(struct tui *t, const struct tui_row *row,
    const struct timeline_layout *l, const unsigned char *c, int y)
{
	const int64_t	*p;
	unsigned	 ev;
	size_t		 i, np;
	int		 b;

	for (i = 0; i < row->n; i++) {
		ev = t->index.ev[row->first + i];
		if (!search_is_hit(t, ev))
			continue;
		/* -1: outside the zoomed window. */
		if ((b = timeline_bucket(t, ev, l->axis_w)) < 0)
			continue;
		screen_puts(y, l->axis_x + b, 1, TR_HIGHLIGHT,
		    c[b] >= GLYPH_WRAPPER ? screen_glyph_text(c[b]) :
		    screen_sym("\xe2\x97\x8f", "*"));
	}
	/* The lines no rule named, by their time. */
	p = search_row_lines(t, (int)(row - t->index.rows), &np);
	for (i = 0; i < np; i++) {
		if ((b = zoom_col(t, p[i], l->axis_w)) < 0)
			continue;
		screen_puts(y, l->axis_x + b, 1, TR_HIGHLIGHT,
		    c[b] >= GLYPH_WRAPPER ? screen_glyph_text(c[b]) :
		    screen_sym("\xe2\x97\x8f", "*"));
	}
}

/* A folded group's left column: "+ 0-36,38-63 x63  collat". */
static void
timeline_draw_group_label(struct tui *t, const struct timeline_layout *l,
    const struct tui_group *gr, bool sel, int r, int y)
{
	enum tui_role	 role = sel ? TR_SELECTED : TR_RANK, srole;
	const char	*word;
	char		 count[32];
	int		 w = l->rank_w + (l->host_w ? l->host_w + 1 : 0), cw;

	screen_fill(y, 0, l->left_w, role);
	screen_puts(y, 0, 1, role, screen_sym("\xe2\x96\xb8", "+"));
	/* The count is kept whole; the ranks are cut before it. */
	snprintf(count, sizeof count, "%s%zu", screen_sym("\xc3\x97", "x"),
	    gr->n);
	cw = screen_width(count, strlen(count));
	screen_cut(y, 1, w - cw - 1, role, gr->ranks);
	screen_puts(y, 1 + w - cw, cw, role, count);
	word = timeline_state(t, r, &srole);
	screen_puts(y, 1 + w + 1, TL_STATE_W, sel ? TR_SELECTED : srole, word);
	screen_puts(y, l->left_w, 1, TR_AXIS, screen_sym("\xe2\x94\x82", "|"));
}

/* One entry: a rank row or a folded group, its life line and its glyphs. */
static void
timeline_draw_row(struct timeline *tl, struct tui *t, int d, int y)
{
	const struct timeline_layout *l = &tl->lay;
	const struct tui_group	*gr = groups_of(&tl->groups, d);
	int			 r = groups_row(&tl->groups, (size_t)d);
	const unsigned char	*c;
	const char		*life = screen_sym("\xe2\x94\x80", "-");
	int			 b, lo, hi;

	c = &tl->cells[(size_t)d * tl->width];
	if (gr != NULL)
		timeline_draw_group_label(t, l, gr,
		    tl->groups.disp_of_row[t->sel_row] == d, r, y);
	else
		timeline_draw_label(t, l, r, y);
	if (gr != NULL) {
		/* A group lived from its first mark to its last. */
		for (lo = 0; lo < l->axis_w && c[lo] == GLYPH_EMPTY; lo++)
			;
		for (hi = l->axis_w - 1; hi >= 0 && c[hi] == GLYPH_EMPTY; hi--)
			;
	} else
		timeline_life(tl, t, r, l->axis_w, &lo, &hi);
	for (b = 0; b < l->axis_w; b++) {
		if (c[b] != GLYPH_EMPTY)
			screen_glyph(y, l->axis_x + b, c[b],
			    theme_glyph_role(c[b]));
		else if (b >= lo && b <= hi)
			screen_puts(y, l->axis_x + b, 1, TR_LIFE, life);
	}
	if (search_row_hit(t, r))
		timeline_draw_hits(t, &t->index.rows[r], l, c, y);
	if (t->sel_event != RL_NONE &&
	    t->index.row_of_event[t->sel_event] >= 0 &&
	    tl->groups.disp_of_row[t->index.row_of_event[t->sel_event]] == d &&
	    (b = timeline_bucket(t, t->sel_event, l->axis_w)) >= 0)
		screen_glyph(y, l->axis_x + b, c[b], TR_SELECTED);
}

/*
 * No rank to draw, and paths that could not be read: say which, where the
 * ranks would be, so that a mistyped path is seen on the first screen.
 */
static void
timeline_draw_errors(struct timeline *tl, struct tui *t, int sx)
{
	const struct errlist	*e = &t->inc->errors;
	int			 y;

	for (y = 0; y < tl->lay.rows_h && (size_t)y < e->n; y++)
		screen_cut(tl->lay.rows_y + y, 2, sx - 3, TR_ERROR, e->v[y]);
}

/* The axis line: column names on the left, time labels over the buckets. */
static void
timeline_draw_axis(struct timeline *tl, struct tui *t)
{
	const struct timeline_layout *l = &tl->lay;

	screen_printf(l->axis_y, 1, l->left_w, TR_AXIS, "%*s%s%-*s %s", l->rank_w,
	    "RANK", l->host_w ? " " : "", l->host_w, l->host_w ? "HOST" : "",
	    "STATE");
	screen_puts(l->axis_y, l->left_w, 1, TR_AXIS, screen_sym("\xe2\x94\x82", "|"));
	zoom_draw_axis(t, l->axis_y, l->axis_x, l->axis_w);
}

/* One line of the event list. */
static void
timeline_draw_event(struct tui *t, const struct timeline_layout *l, unsigned ev,
    int y, int srcw)
{
	const struct rl_event	*e = t->inc->events[ev];
	enum tui_glyph		 g = model_glyph(t->inc, ev);
	bool			 sel = (int)ev == t->sel_event;
	char			 when[32], src[64];
	int			 x = l->pane_x;
	int			 right = l->pane_x + l->pane_w;

	if (sel)
		screen_fill(y, x, l->pane_w, TR_SELECTED);
	screen_glyph(y, x, g, sel ? TR_SELECTED : theme_glyph_role(g));
	x += 2;
	model_time_short(&e->time, when, sizeof when, true);
	x += 1 + screen_puts(y, x, right - x, sel ? TR_SELECTED : TR_TIME,
	    when);
	snprintf(src, sizeof src, "%s:%llu", model_source_name(t,
	    e->source), (unsigned long long)e->line);
	screen_cut_left(y, x, srcw, sel ? TR_SELECTED : TR_SOURCE, src);
	x += srcw + 1;
	/* The message: the time and rank are on this line already (the
	   whole line is in the detail, Enter). */
	screen_cut(y, x, right - x, sel ? TR_SELECTED : ((int)ev ==
	    t->inc->answer.first ? TR_HIGHLIGHT : TR_NORMAL),
	    model_message(e));
}

/* The widest source:line among the visible events, capped. */
static int
timeline_srcw(struct tui *t, const struct tui_row *row, int top, int n, int cap)
{
	const struct rl_event	*e;
	char			 src[64];
	int			 i, w = 0, len;

	for (i = top; i < top + n && (size_t)i < row->n; i++) {
		e = t->inc->events[t->index.ev[row->first + i]];
		len = snprintf(src, sizeof src, "%s:%llu",
		    model_source_name(t, e->source),
		    (unsigned long long)e->line);
		if (len > w)
			w = len;
	}
	return (w > cap ? cap : w);
}

/* The event list of the selected row, kept scrolled to the selected event. */
static void
timeline_draw_pane(struct timeline *tl, struct tui *t)
{
	const struct timeline_layout *l = &tl->lay;
	const struct tui_row	*row;
	const struct tui_group	*gr;
	const struct group_list	*gl;
	const char		*dot = screen_sym("\xc2\xb7", "-");
	enum tui_role		 srole;
	char			 label[128];
	int			 n = l->pane_h - 1, pos, i;

	if (l->pane_h < 2 || t->index.nrows == 0)
		return;
	row = &t->index.rows[t->sel_row];
	gr = groups_of(&tl->groups, tl->groups.disp_of_row[t->sel_row]);
	screen_fill(l->pane_y, l->pane_x, l->pane_w, TR_PANE);
	/* A folded group's list is its members' lines, alike ones once. */
	if (gr != NULL && group_list_done(gl = group_list_get(t, &tl->groups,
	    gr), &pos)) {
		screen_printf(l->pane_y, l->pane_x + 1, l->pane_w - 2, TR_PANE,
		    "ranks %s %s %s%zu (z opens) %s %zu line%s of %zu events",
		    gr->ranks, timeline_state(t, t->sel_row, &srole),
		    screen_sym("\xc3\x97", "x"), gr->n, dot, gl->n,
		    gl->n == 1 ? "" : "s", gl->events);
		group_list_draw(t, gl, l->pane_y + 1, l->pane_x, l->pane_w, n,
		    &tl->list_top);
		return;
	}
	/* Until its list is built, a group shows its first member's lines. */
	if (gr != NULL) {
		screen_printf(l->pane_y, l->pane_x + 1, l->pane_w - 2, TR_PANE,
		    "ranks %s %s %s%zu %s listing %zu events%s %d%% %s %s's "
		    "lines meanwhile", gr->ranks, timeline_state(t, t->sel_row,
		    &srole), screen_sym("\xc3\x97", "x"), gr->n, dot,
		    gl->events, screen_sym("\xe2\x80\xa6", "..."), pos, dot,
		    model_row_label(row, label, sizeof label));
		goto events;
	}
	screen_printf(l->pane_y, l->pane_x + 1, l->pane_w - 2, TR_PANE,
	    "%s %s %s %s %zu event%s", model_row_label(row, label,
	    sizeof label), dot, timeline_state(t, t->sel_row, &srole),
	    dot, row->n, row->n == 1 ? "" : "s");
events:
	if (row->n == 0) {
		screen_puts(l->pane_y + 1, l->pane_x + 1, l->pane_w - 1, TR_DIM,
		    "no matched lines on this row");
		return;
	}
	pos = t->sel_event != RL_NONE ? model_event_pos(t, t->sel_event) : 0;
	/* A jump puts the event a third down: what follows it matters too. */
	if (pos < tl->list_top || pos >= tl->list_top + n)
		tl->list_top = pos - n / 3;
	if (tl->list_top > (int)row->n - n)
		tl->list_top = (int)row->n - n;
	if (tl->list_top < 0)
		tl->list_top = 0;
	i = timeline_srcw(t, row, tl->list_top, n, l->pane_w / 4);
	for (pos = 0; pos < n && (size_t)(tl->list_top + pos) < row->n; pos++)
		timeline_draw_event(t, l, t->index.ev[row->first +
		    tl->list_top + pos], l->pane_y + 1 + pos, i);
}

/*
 * Group alike rows again when the model, the room or a fold changed; the
 * layout follows (a group's ranks widen the rank column), and the cells.
 */
static void
timeline_groups(struct timeline *tl, struct tui *t)
{
	if (!tl->groups_stale && tl->groups.disp != NULL &&
	    tl->groups_h == tl->lay.rows_max)
		return;
	groups_build(t, &tl->groups, tl->lay.rows_max);
	tl->groups_h = tl->lay.rows_max;
	tl->groups_stale = false;
	tl->stale = true;
	timeline_layout(tl, t, tl->sx, tl->sy);
}

/* The selected row's entry. */
static int
timeline_entry(const struct timeline *tl, const struct tui *t)
{
	if (tl->groups.disp_of_row == NULL || t->index.nrows == 0)
		return (0);
	return (tl->groups.disp_of_row[t->sel_row]);
}

/* Keep the selected entry on screen. */
static void
timeline_scroll(struct timeline *tl, struct tui *t)
{
	int	 h = tl->lay.rows_h, max = (int)tl->groups.ndisp - h;
	int	 sel = timeline_entry(tl, t);

	/* A step scrolls by one; a jump puts the row a third down. */
	if (sel == tl->top - 1)
		tl->top--;
	else if (sel == tl->top + h)
		tl->top++;
	else if (sel < tl->top || sel >= tl->top + h)
		tl->top = sel - h / 3;
	if (tl->top > max)
		tl->top = max;
	if (tl->top < 0)
		tl->top = 0;
}

/* Set up. */
static void
view_timeline_init(struct view *v)
{
	struct timeline	*tl;

	tl = v->data = xcalloc(1, sizeof *tl);
	tl->stale = tl->groups_stale = true;
	v->tui->groups = &tl->groups;
}

/* Free. */
static void
view_timeline_free(struct view *v)
{
	struct timeline	*tl = v->data;

	free(tl->cells);
	free(tl->hist);
	free(tl->span);
	if (v->tui->groups == &tl->groups)
		v->tui->groups = NULL;
	groups_clear(&tl->groups);
	free(tl);
}

/* The screen changed size. */
static void
view_timeline_resize(struct view *v, int sx, int sy)
{
	timeline_layout(v->data, v->tui, sx, sy);
}

/* The model changed: bucket again before the next frame. */
static void
view_timeline_update(struct view *v)
{
	struct timeline	*tl = v->data;

	tl->stale = tl->groups_stale = true;
	/* A list being built is of the old index: not one slice more. */
	group_list_free(tl->groups.list);
	tl->groups.list = NULL;
	timeline_layout(tl, v->tui, tl->sx, tl->sy);
}

/* Draw the whole screen. */
static void
view_timeline_draw(struct view *v, int sx, int sy)
{
	struct timeline	*tl = v->data;
	struct tui	*t = v->tui;
	char		 right[96];
	int		 y;

	if (tl->sx != sx || tl->sy != sy)
		timeline_layout(tl, t, sx, sy);
	timeline_groups(tl, t);
	timeline_cells(tl, t);
	timeline_scroll(tl, t);
	header_draw_failure(t, sx);
	header_draw_verdict(t, sx);
	lines_banner(t, 1, sx);
	if (tl->lay.hist_y > 0)
		header_draw_history(t, tl->lay.hist_y, sx);
	timeline_draw_axis(tl, t);
	if (tl->lay.act_y > 0)
		zoom_draw_activity(t, tl->lay.act_y, tl->lay.left_w,
		    tl->lay.axis_x, tl->width < tl->lay.axis_w ? tl->width :
		    tl->lay.axis_w, tl->hist, tl->hist_max);
	for (y = 0; y < tl->lay.rows_h; y++) {
		if ((size_t)(tl->top + y) >= tl->groups.ndisp)
			break;
		timeline_draw_row(tl, t, tl->top + y, tl->lay.rows_y + y);
	}
	if (t->index.nrows == 0 && t->inc->errors.n > 0)
		timeline_draw_errors(tl, t, sx);
	else if (t->index.nrows == 0)
		screen_puts(tl->lay.rows_y, 2, sx - 2, TR_DIM,
		    filter_active(&t->filter) ? "no row passes the filter "
		    "(:clear shows all)" : "no ranks yet: waiting for log lines");
	if (tl->lay.wide) {
		for (y = tl->lay.axis_y; y < sy - 1; y++)
			screen_puts(y, tl->lay.tl_w, 1, TR_AXIS,
			    screen_sym("\xe2\x94\x82", "|"));
	}
	timeline_draw_pane(tl, t);
	snprintf(right, sizeof right, "row %d/%zu %s %zu events",
	    t->index.nrows ? timeline_entry(tl, t) + 1 : 0, tl->groups.ndisp,
	    screen_sym("\xc2\xb7", "-"), t->index.nevents);
	screen_status(t, sy - 1, "j/k rank|h/l event|Enter detail|d diagnosis|"
	    "/ search|: filter|F1 help|q quit|f first|+/- zoom|n next|"
	    "L merged|t theme", right);
}

/* Move the event cursor along the selected row. */
static int
timeline_step(struct tui *t, int d)
{
	const struct tui_row	*row;
	int			 pos;

	if (t->index.nrows == 0)
		return (REACT_NONE);
	row = &t->index.rows[t->sel_row];
	if (row->n == 0)
		return (REACT_NONE);
	pos = t->sel_event != RL_NONE ? model_event_pos(t, t->sel_event) : -1;
	if (pos < 0)
		pos = d > 0 ? -1 : (int)row->n;
	pos += d;
	if (pos < 0)
		pos = 0;
	if ((size_t)pos >= row->n)
		pos = (int)row->n - 1;
	tui_select_event(t, (int)t->index.ev[row->first + pos]);
	return (REACT_REDRAW);
}

/* Select the entry d, clamped: its row, or its group's first. */
static void
timeline_select_entry(struct timeline *tl, struct tui *t, int d)
{
	if (tl->groups.ndisp == 0)
		return;
	if (d < 0)
		d = 0;
	if ((size_t)d >= tl->groups.ndisp)
		d = (int)tl->groups.ndisp - 1;
	tui_select_row(t, groups_row(&tl->groups, (size_t)d));
}

/* Go to the next (d 1) or previous (d -1) entry that did not end well. */
static int
timeline_next_failed(struct timeline *tl, struct tui *t, int d)
{
	int	 e, r;

	for (e = timeline_entry(tl, t) + d; e >= 0 &&
	    (size_t)e < tl->groups.ndisp; e += d) {
		r = groups_row(&tl->groups, (size_t)e);
		if (model_row_state(&t->index.rows[r]) != RANK_OK ||
		    model_row_failing(t, &t->index.rows[r])) {
			tui_select_row(t, r);
			return (REACT_REDRAW);
		}
	}
	tui_set_message(t, false, "no %s rank that failed, hung or exited",
	    d > 0 ? "later" : "earlier");
	return (REACT_REDRAW);
}

/*
 * A click: on a rank's row selects it, and its event nearest the column
 * clicked on the axis; on the event list, that event.
 */
static int
timeline_click(struct timeline *tl, struct tui *t, int y, int x)
{
	const struct timeline_layout *l = &tl->lay;
	const struct tui_row	*row;
	const struct tui_group	*gr;
	const struct group_list	*gl;
	size_t			 i;
	int			 r, pos, d, best = -1, bestd = INT_MAX, pct;

	if (t->index.nrows == 0)
		return (REACT_NONE);
	if (y >= l->rows_y && y < l->rows_y + l->rows_h && x < l->tl_w) {
		/* Rows on screen are entries: a rank, or a folded group. */
		r = tl->top + y - l->rows_y;
		if ((size_t)r >= tl->groups.ndisp)
			return (REACT_NONE);
		timeline_select_entry(tl, t, r);
		row = &t->index.rows[t->sel_row];
		for (i = 0; x >= l->axis_x && i < row->n; i++) {
			/* -1: outside the zoomed window. */
			if ((d = timeline_bucket(t, t->index.ev[row->first + i],
			    l->axis_w)) < 0)
				continue;
			d = abs(d - (x - l->axis_x));
			if (d < bestd) {
				bestd = d;
				best = (int)t->index.ev[row->first + i];
			}
		}
		if (best >= 0)
			tui_select_event(t, best);
		return (REACT_REDRAW);
	}
	if (l->pane_h < 2 || y <= l->pane_y || y >= l->pane_y + l->pane_h ||
	    x < l->pane_x)
		return (REACT_NONE);
	row = &t->index.rows[t->sel_row];
	pos = tl->list_top + y - l->pane_y - 1;
	if ((gr = groups_of(&tl->groups, timeline_entry(tl, t))) != NULL &&
	    group_list_done(gl = group_list_get(t, &tl->groups, gr), &pct))
		return (group_list_click(t, gl, pos));
	if (pos < 0 || (size_t)pos >= row->n)
		return (REACT_NONE);
	tui_select_event(t, (int)t->index.ev[row->first + pos]);
	return (REACT_REDRAW);
}

/* Keys: move the selection, open views; never draw. */
static int
view_timeline_key(struct view *v, int key, enum tui_action act)
{
	struct timeline	*tl = v->data;
	struct tui	*t = v->tui;
	const struct tui_group *gr;
	const struct group_list *gl;
	int		 page = tl->lay.rows_h > 1 ? tl->lay.rows_h - 1 : 1, pct;

	timeline_groups(tl, t);
	switch (act) {
	case ACT_DOWN:
	case ACT_UP:
	case ACT_PAGE_DOWN:
	case ACT_PAGE_UP:
		timeline_select_entry(tl, t, timeline_entry(tl, t) +
		    (act == ACT_DOWN ? 1 : act == ACT_UP ? -1 :
		    act == ACT_PAGE_DOWN ? page : -page));
		return (REACT_REDRAW);
	case ACT_HOME:
	case ACT_END:
		timeline_select_entry(tl, t, act == ACT_HOME ? 0 :
		    (int)tl->groups.ndisp - 1);
		return (REACT_REDRAW);
	case ACT_LEFT:
	case ACT_RIGHT:
		if ((gr = groups_of(&tl->groups, timeline_entry(tl, t))) !=
		    NULL && group_list_done(gl = group_list_get(t,
		    &tl->groups, gr), &pct))
			return (group_list_step(t, gl, act == ACT_LEFT ? -1 : 1));
		return (timeline_step(t, act == ACT_LEFT ? -1 : 1));
	case ACT_FIRST:
		if (t->inc->answer.first == RL_NONE)
			tui_set_message(t, false, "no failure found");
		tui_select_event(t, t->inc->answer.first);
		zoom_focus_first(t);
		return (REACT_REDRAW);
	case ACT_NEXT_FAILED:
	case ACT_PREV_FAILED:
		return (timeline_next_failed(tl, t,
		    act == ACT_NEXT_FAILED ? 1 : -1));
	case ACT_ZOOM_IN:
	case ACT_ZOOM_OUT:
	case ACT_PAN_LEFT:
	case ACT_PAN_RIGHT:
	case ACT_ZOOM_RESET:
	case ACT_GOTO_TIME:
		return (zoom_key(t, act, tl->lay.axis_w));
	case ACT_GROUP:
	case ACT_GROUP_ALL:
		tl->groups_stale = true;
		return (groups_key(t, &tl->groups, act));
	case ACT_ENTER:
		return (t->sel_event != RL_NONE ? REACT_VIEW(VIEW_DETAIL) :
		    REACT_NONE);
	case ACT_CLICK:
		return (timeline_click(tl, t, t->click_y, t->click_x));
	case ACT_BACK:
		return (tui_open_close(t));
	case ACT_QUIT:
		/* q leaves a stored incident first; Q quits from anywhere. */
		return (key == 'q' ? tui_open_close(t) : REACT_NONE);
	default:
		return (REACT_NONE);
	}
}

const struct view_type view_timeline_type = {
	.name = "timeline",
	.init = view_timeline_init,
	.free = view_timeline_free,
	.resize = view_timeline_resize,
	.draw = view_timeline_draw,
	.key = view_timeline_key,
	.update = view_timeline_update,
};
