/*
 * view-timeline.c: the main view, one row per rank on a shared time axis.
 *
 *  FIRST FAILURE rank 4 (node1) torch.runtime at 13:49:41 - RuntimeError..
 *  domain code · group other · scope one · checkpoint safe, last safe step 10
 *      RANK HOST  STATE  │13:49:30     13:49:40
 *  >      4 node1 FAILED │────·····◆····✖
 *         5 node1 collat │────·····◆·····▲↑
 *  ─ rank 4 (node1) · FAILED · 14 events ─────────────────────────────
 *  ✖ 13:49:41.895 2/stderr.log:1   Traceback (most recent call last):
 *
 * At 160 columns and more, when the ranks need more than half the height,
 * the event list moves to the right-hand side; a few ranks on a wide
 * terminal read better with the list below them at full width.
 * Each rank's row is bucketed once per model change or width change (an
 * O(events) pass into a rows x width byte array), so a frame draws only the
 * rows on screen from that array: 10,000 ranks cost nothing extra.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "wording.h"

#define TL_WIDE		160	/* from here the event list goes on the right */
#define TL_STATE_W	6	/* "FAILED" */

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
	int		 hist_y;	/* the history line, or 0 for none */
	int		 rows_h;	/* rank rows on screen */
	int		 pane_x;	/* the event list, title line included */
	int		 pane_y;
	int		 pane_w;
	int		 pane_h;	/* 0: no room for it */
	bool		 wide;		/* list on the right */
};

struct timeline {
	int		 top;		/* first row on screen */
	int		 list_top;	/* first line of the event list */
	unsigned char	*cells;		/* nrows x width enum tui_glyph */
	int		 width;		/* axis width the cells are for */
	size_t		 nrows;		/* rows the cells are for */
	bool		 stale;		/* the model changed since */
	int		 sx;		/* size laid out for */
	int		 sy;
	struct timeline_layout lay;
};

/* Whether the store found anything to say about this failure's past. */
static bool
timeline_history_news(const struct tui *t)
{
	const struct rl_history	*h = t->inc->history;

	return h != NULL && t->inc->answer.first != RL_NONE &&
	    (h->nmatches > 0 || h->noffenders > 0);
}

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
	int			 want, top;

	l->rank_w = timeline_digits(ix->max_rank < 0 ? 0 : ix->max_rank);
	if (l->rank_w < 4)
		l->rank_w = 4;
	l->host_w = (int)ix->host_width;
	if (sx < 100 && l->host_w > 8)
		l->host_w = 8;
	l->left_w = 1 + l->rank_w + 1 + (l->host_w ? l->host_w + 1 : 0) +
	    TL_STATE_W + 1;
	/* On the right only when the ranks need the height; else below. */
	/* The history line, under the verdict, only when it has news. */
	top = timeline_history_news(t) && sy >= 12 ? 1 : 0;
	l->hist_y = top ? 2 : 0;
	l->axis_y = 2 + top;
	l->wide = sx >= TL_WIDE && (int)ix->nrows + 1 > (sy - 4 - top) / 2;
	l->rows_y = 3 + top;
	if (l->wide) {
		l->pane_w = sx * 2 / 5;
		l->tl_w = sx - l->pane_w - 1;
		l->pane_x = l->tl_w + 1;
		l->pane_y = 2 + top;
		l->pane_h = sy - 3 - top;
		l->rows_h = sy - 4 - top;
	} else {
		l->tl_w = l->pane_w = sx;
		l->pane_x = 0;
		l->pane_h = sy >= 18 ? (sy - 4 - top) * 2 / 5 : 0;
		if (l->pane_h > 16)
			l->pane_h = 16;
		l->rows_h = sy - 4 - top - l->pane_h;
		want = (int)ix->nrows + 1;
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

/* The bucket of a UTC time on an axis of w columns. */
static int
timeline_col(const struct tui_index *ix, int64_t ms, int w)
{
	if (ms <= ix->t0)
		return (0);
	if (ms >= ix->t1)
		return (w - 1);
	return ((int)((ms - ix->t0) * w / (ix->t1 - ix->t0 + 1)));
}

/* The bucket of an event: by time, or by position when nothing is timed. */
static int
timeline_bucket(const struct tui *t, size_t ev, int w)
{
	const struct tui_index	*ix = &t->index;

	if (!ix->timed)
		return (ix->nevents > 1 ? (int)(ev * (size_t)(w - 1) /
		    (ix->nevents - 1)) : 0);
	return (timeline_col(ix, clock_utc_ms(&t->inc->events[ev]->time), w));
}

/* Bucket every event into its row's cells, keeping the strongest glyph. */
static void
timeline_cells(struct timeline *tl, struct tui *t)
{
	const struct tui_index	*ix = &t->index;
	int			 w = tl->lay.axis_w;
	unsigned char		*c;
	enum tui_glyph		 g;
	size_t			 i;

	if (!tl->stale && tl->width == w && tl->nrows == ix->nrows)
		return;
	free(tl->cells);
	tl->cells = xcalloc(ix->nrows + 1, (size_t)w);
	for (i = 0; i < ix->nevents; i++) {
		if (ix->row_of_event[i] < 0)	/* hidden by the filter */
			continue;
		c = &tl->cells[(size_t)ix->row_of_event[i] * w +
		    timeline_bucket(t, i, w)];
		if ((g = model_glyph(t->inc, i)) > *c)
			*c = (unsigned char)g;
	}
	tl->width = w;
	tl->nrows = ix->nrows;
	tl->stale = false;
}

/* The columns a row was alive: from its first line to its last. */
static void
timeline_life(const struct tui *t, const struct tui_row *row, int w, int *lo,
    int *hi)
{
	const struct rl_rank	*r = row->rank;
	const struct tui_index	*ix = &t->index;

	*lo = 0;
	*hi = -1;
	if (ix->timed && r != NULL && (r->first.flags & RL_TIME_VALID) &&
	    (r->last.flags & RL_TIME_VALID)) {
		*lo = timeline_col(ix, clock_utc_ms(&r->first), w);
		*hi = timeline_col(ix, clock_utc_ms(&r->last), w);
	} else if (row->n > 0) {
		*lo = timeline_bucket(t, ix->ev[row->first], w);
		*hi = timeline_bucket(t, ix->ev[row->first + row->n - 1], w);
	}
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
	unsigned	 ev;
	size_t		 i;
	int		 b;

	for (i = 0; i < row->n; i++) {
		ev = t->index.ev[row->first + i];
		if (!search_is_hit(t, ev))
			continue;
		b = timeline_bucket(t, ev, l->axis_w);
		screen_puts(y, l->axis_x + b, 1, TR_HIGHLIGHT,
		    c[b] >= GLYPH_WRAPPER ? screen_glyph_text(c[b]) :
		    screen_sym("\xe2\x97\x8f", "*"));
	}
}

/* One rank row: its label, its life line and its glyphs. */
static void
timeline_draw_row(struct timeline *tl, struct tui *t, int r, int y)
{
	const struct timeline_layout *l = &tl->lay;
	const struct tui_row	*row = &t->index.rows[r];
	const unsigned char	*c = &tl->cells[(size_t)r * tl->width];
	const char		*life = screen_sym("\xe2\x94\x80", "-");
	int			 b, lo, hi;

	timeline_draw_label(t, l, r, y);
	timeline_life(t, row, l->axis_w, &lo, &hi);
	for (b = 0; b < l->axis_w; b++) {
		if (c[b] != GLYPH_EMPTY)
			screen_glyph(y, l->axis_x + b, c[b],
			    theme_glyph_role(c[b]));
		else if (b >= lo && b <= hi)
			screen_puts(y, l->axis_x + b, 1, TR_LIFE, life);
	}
	if (search_row_hit(t, r))
		timeline_draw_hits(t, row, l, c, y);
	if (t->sel_event != RL_NONE &&
	    t->index.row_of_event[t->sel_event] == r) {
		b = timeline_bucket(t, t->sel_event, l->axis_w);
		screen_glyph(y, l->axis_x + b, c[b], TR_SELECTED);
	}
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

/* The top line: the first failure, named, or that there is none. */
static void
timeline_draw_header(struct tui *t, int sx)
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
timeline_pair(int y, int x, int sx, const char *label, enum tui_role role,
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
timeline_ckpt(const struct rl_answer *a, int y, int x, int sx)
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
	x = timeline_pair(y, x, sx, "checkpoint", role,
	    ckpt_status_name(a->ckpt));
	wording_checkpoint_steps(&steps, a->last_safe_step, a->unsafe_steps,
	    a->nunsafe, a->suspect_steps, a->nsuspect);
	if (steps.len > 0)
		x += screen_puts(y, x, sx - x, TR_VERDICT, steps.p);
	buf_clear(&steps);
	return (x);
}

/* The verdict line: domain, group, scope, checkpoint, and the summary. */
static void
timeline_draw_verdict(struct tui *t, int sx)
{
	const struct rl_answer	*a = &t->inc->answer;
	const char		*sep = screen_sym(" \xc2\xb7 ", " - ");
	int			 x = 1;

	if (a->first != RL_NONE) {
		x = timeline_pair(1, x, sx, "domain", TR_VERDICT,
		    domain_name(a->domain));
		x += screen_puts(1, x, sx - x, TR_DIM, sep);
		x = timeline_pair(1, x, sx, "group", TR_VERDICT,
		    group_name(a->group));
		x += screen_puts(1, x, sx - x, TR_DIM, sep);
		x = timeline_pair(1, x, sx, "scope", TR_VERDICT,
		    scope_name(a->scope));
		x += screen_puts(1, x, sx - x, TR_DIM, sep);
	}
	x = timeline_ckpt(a, 1, x, sx);
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
static void
timeline_draw_history(struct tui *t, int y, int sx)
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

/* Pick a tick interval that leaves room for labels of width lw. */
static int64_t
timeline_tick(int64_t span, int w, int lw)
{
	static const int64_t steps[] = {
		10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000,
		30000, 60000, 120000, 300000, 600000, 900000, 1800000,
		3600000, 7200000, 10800000, 21600000, 43200000, 86400000,
	};
	size_t	 i;

	for (i = 0; i < nitems(steps); i++) {
		if (steps[i] * w / (span + 1) >= lw + 3)
			return (steps[i]);
	}
	return (steps[nitems(steps) - 1]);
}

/* The axis line: column names on the left, time labels over the buckets. */
static void
timeline_draw_axis(struct timeline *tl, struct tui *t)
{
	const struct timeline_layout *l = &tl->lay;
	const struct tui_index	*ix = &t->index;
	struct rl_time		 tm;
	int64_t			 step, off, k;
	char			 buf[32];
	int			 col, end = -1, lw;

	screen_printf(l->axis_y, 1, l->left_w, TR_AXIS, "%*s%s%-*s %s", l->rank_w,
	    "RANK", l->host_w ? " " : "", l->host_w, l->host_w ? "HOST" : "",
	    "STATE");
	screen_puts(l->axis_y, l->left_w, 1, TR_AXIS, screen_sym("\xe2\x94\x82", "|"));
	if (!ix->timed) {
		screen_cut(l->axis_y, l->axis_x, l->axis_w, TR_AXIS,
		    "event order (no timestamps)");
		return;
	}
	lw = ix->t1 - ix->t0 < 10000 ? 12 : 8;
	step = timeline_tick(ix->t1 - ix->t0, l->axis_w, lw);
	lw = step < 1000 ? 12 : 8;
	off = ix->shown0 - ix->t0;
	memset(&tm, 0, sizeof tm);
	tm.flags = RL_TIME_VALID;
	for (k = ((ix->t0 + off) / step + 1) * step; k - off <= ix->t1;
	    k += step) {
		col = timeline_col(ix, k - off, l->axis_w);
		if (col + lw > l->axis_w)
			break;
		if (col <= end)
			continue;
		tm.ms = k;
		model_time_short(&tm, buf, sizeof buf, step < 1000);
		screen_puts(l->axis_y, l->axis_x + col, lw, TR_AXIS, buf);
		end = col + lw;
	}
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
	enum tui_role		 srole;
	char			 label[128];
	int			 n = l->pane_h - 1, pos, i;

	if (l->pane_h < 2 || t->index.nrows == 0)
		return;
	row = &t->index.rows[t->sel_row];
	screen_fill(l->pane_y, l->pane_x, l->pane_w, TR_PANE);
	screen_printf(l->pane_y, l->pane_x + 1, l->pane_w - 2, TR_PANE,
	    "%s %s %s %s %zu event%s", model_row_label(row, label,
	    sizeof label), screen_sym("\xc2\xb7", "-"),
	    timeline_state(t, t->sel_row, &srole),
	    screen_sym("\xc2\xb7", "-"), row->n, row->n == 1 ? "" : "s");
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

/* Keep the selected row on screen. */
static void
timeline_scroll(struct timeline *tl, struct tui *t)
{
	int	 h = tl->lay.rows_h, max = (int)t->index.nrows - h;

	/* A step scrolls by one; a jump puts the row a third down. */
	if (t->sel_row == tl->top - 1)
		tl->top--;
	else if (t->sel_row == tl->top + h)
		tl->top++;
	else if (t->sel_row < tl->top || t->sel_row >= tl->top + h)
		tl->top = t->sel_row - h / 3;
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
	tl->stale = true;
}

/* Free. */
static void
view_timeline_free(struct view *v)
{
	struct timeline	*tl = v->data;

	free(tl->cells);
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

	tl->stale = true;
	timeline_layout(tl, v->tui, tl->sx, tl->sy);
}

/* Draw the whole screen. */
static void
view_timeline_draw(struct view *v, int sx, int sy)
{
	struct timeline	*tl = v->data;
	struct tui	*t = v->tui;
	char		 right[64];
	int		 r, y;

	if (tl->sx != sx || tl->sy != sy)
		timeline_layout(tl, t, sx, sy);
	timeline_cells(tl, t);
	timeline_scroll(tl, t);
	timeline_draw_header(t, sx);
	timeline_draw_verdict(t, sx);
	lines_banner(t, 1, sx);
	if (tl->lay.hist_y > 0)
		timeline_draw_history(t, tl->lay.hist_y, sx);
	timeline_draw_axis(tl, t);
	for (y = 0; y < tl->lay.rows_h; y++) {
		r = tl->top + y;
		if ((size_t)r >= t->index.nrows)
			break;
		timeline_draw_row(tl, t, r, tl->lay.rows_y + y);
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
	    t->index.nrows ? t->sel_row + 1 : 0, t->index.nrows,
	    screen_sym("\xc2\xb7", "-"), t->index.nevents);
	screen_status(t, sy - 1, "j/k rank|h/l event|Enter detail|d diagnosis|"
	    "/ search|: filter|F1 help|q quit|f first|n next|L merged|t theme", right);
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

/* Go to the next (d 1) or previous (d -1) row that did not end well. */
static int
timeline_next_failed(struct tui *t, int d)
{
	int	 r;

	for (r = t->sel_row + d; r >= 0 && (size_t)r < t->index.nrows; r += d) {
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

/* Keys: move the selection, open views; never draw. */
static int
view_timeline_key(struct view *v, int key, enum tui_action act)
{
	struct timeline	*tl = v->data;
	struct tui	*t = v->tui;
	int		 page = tl->lay.rows_h > 1 ? tl->lay.rows_h - 1 : 1;

	(void)key;
	switch (act) {
	case ACT_DOWN:
	case ACT_UP:
	case ACT_PAGE_DOWN:
	case ACT_PAGE_UP:
		tui_select_row(t, t->sel_row + (act == ACT_DOWN ? 1 :
		    act == ACT_UP ? -1 : act == ACT_PAGE_DOWN ? page : -page));
		return (REACT_REDRAW);
	case ACT_HOME:
	case ACT_END:
		tui_select_row(t, act == ACT_HOME ? 0 :
		    (int)t->index.nrows - 1);
		return (REACT_REDRAW);
	case ACT_LEFT:
	case ACT_RIGHT:
		return (timeline_step(t, act == ACT_LEFT ? -1 : 1));
	case ACT_FIRST:
		if (t->inc->answer.first == RL_NONE)
			tui_set_message(t, false, "no failure found");
		tui_select_event(t, t->inc->answer.first);
		return (REACT_REDRAW);
	case ACT_NEXT_FAILED:
	case ACT_PREV_FAILED:
		return (timeline_next_failed(t,
		    act == ACT_NEXT_FAILED ? 1 : -1));
	case ACT_ENTER:
		return (t->sel_event != RL_NONE ? REACT_VIEW(VIEW_DETAIL) :
		    REACT_NONE);
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
