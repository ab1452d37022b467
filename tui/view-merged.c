/*
 * view-merged.c: the merged log (L): every rank's lines in one list, in
 * time order, around the selected line, at full width.
 *
 *  MERGED LOG  187 lines of 6 rows, time order                filter: ...
 *     RANK HOST   TIME         SOURCE               LINE
 *  '     4 node1 ✖ 13:49:41.895 2/stderr.log:15      RuntimeError: shape ...
 *
 * The lines are the ones the rows list (the model's events, a filter's
 * choice, each tee'd line once), so j/k here and on the timeline select
 * the same thing, and the search, marks, ] [ | y and : all work here as
 * there.  A search's hits on lines no rule named are listed too, in their
 * place in time: their text is read again from the source when drawn,
 * plain (they are no failure), with no mark; Enter on one shows it with
 * the lines around it.  The gutter (rank, host, mark, time, source) stays
 * put while < and > scroll the line itself sideways.  Enter opens the
 * detail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "find.h"

#define MERGED_HSTEP	16	/* columns < and > scroll */
#define MERGED_SRC_MAX	28	/* widest source:line in the gutter */
#define MERGED_AROUND	(2 * 1024)	/* bytes before a line hit its detail
					   shows */

/*
 * An entry: an event index, or -(k + 1) for the search's line hit k
 * (search_lines).
 */
struct merged {
	long		*v;		/* the listed lines, in time order */
	size_t		 n;
	struct buf	 text;		/* a line hit's text, read again */
	int		 top;		/* first line on screen */
	int		 hscroll;	/* columns of each line scrolled away */
};

/*
 * List the events the rows list and the search's line hits, in time
 * order: a line hit goes before the first event placed after it.
 */
static void
merged_build(struct merged *m, struct tui *t)
{
	struct search_line	 l;
	size_t			 i = 0, k = 0, nl = search_lines(t);

	free(m->v);
	m->v = xreallocarray(NULL, t->index.nevents + nl + 1, sizeof *m->v);
	m->n = 0;
	while (i < t->index.nevents || k < nl) {
		if (i < t->index.nevents && !lines_listed(t, (unsigned)i)) {
			i++;
			continue;
		}
		if (k < nl) {
			search_line(t, k, &l);
			if (i == t->index.nevents || l.key <
			    search_key(&t->inc->events[i]->time)) {
				m->v[m->n++] = -(long)k - 1;
				k++;
				continue;
			}
		}
		m->v[m->n++] = (long)i++;
	}
}

/* Where the selection is in the list (a line hit, else the event), or -1. */
static int
merged_pos(const struct merged *m, const struct tui *t)
{
	long	 want, k = search_line_selected(t);
	size_t	 i;

	if (k >= 0)
		want = -k - 1;
	else if (t->sel_event != RL_NONE)
		want = t->sel_event;
	else
		return -1;
	for (i = 0; i < m->n; i++) {
		if (m->v[i] == want)
			return (int)i;
	}
	return -1;
}

/* Line hits listed, to see when the search found more. */
static size_t
merged_nlines(const struct merged *m)
{
	size_t	 i, n = 0;

	for (i = 0; i < m->n; i++)
		n += m->v[i] < 0;
	return n;
}

/* Set up, the selected line a third down. */
static void
view_merged_init(struct view *v)
{
	struct merged	*m;

	m = v->data = xcalloc(1, sizeof *m);
	merged_build(m, v->tui);
	m->top = -1;
}

/* Free. */
static void
view_merged_free(struct view *v)
{
	struct merged	*m = v->data;

	free(m->v);
	buf_clear(&m->text);
	free(m);
}

/* The gutter's widths: rank, host, source. */
struct merged_cols {
	int		 rank_w;
	int		 host_w;
	int		 src_w;
};

/* The model or the filter changed: list again. */
static void
view_merged_update(struct view *v)
{
	merged_build(v->data, v->tui);
}

/* The gutter's rank and host of a row (NULL: none), at x; the new x. */
static int
merged_draw_who(const struct tui_row *row, const struct merged_cols *c,
    enum tui_role role, int y, int x)
{
	char	 buf[32];

	if (row == NULL || row->rank == NULL)
		snprintf(buf, sizeof buf, "%*s", c->rank_w, "?");
	else if (row->rank->rank == RL_NONE)
		snprintf(buf, sizeof buf, "%*s", c->rank_w, "-");
	else
		snprintf(buf, sizeof buf, "%*d", c->rank_w, row->rank->rank);
	x += screen_puts(y, x, c->rank_w, role, buf) + 1;
	if (c->host_w > 0) {
		if (row != NULL && row->rank != NULL && row->rank->host != NULL)
			screen_cut(y, x, c->host_w, role, row->rank->host);
		x += c->host_w + 1;
	}
	return x;
}

/*
 * A search's hit on a line no rule named, at y: its text read again from
 * the source (drawn through screen_cut, which makes it safe), plain.
 */
static void
merged_draw_hit(struct merged *m, struct tui *t, const struct merged_cols *c,
    size_t k, int y, int sx)
{
	struct search_line	 l;
	char			 buf[96];
	const char		*text;
	size_t			 skip;
	int			 x;
	enum tui_role		 role;

	search_line(t, k, &l);
	role = l.selected ? TR_SELECTED : TR_DIM;
	if (l.selected)
		screen_fill(y, 0, sx, TR_SELECTED);
	x = merged_draw_who(&t->index.rows[l.row], c, l.selected ?
	    TR_SELECTED : TR_RANK, y, 1);
	x += 2;		/* no glyph: no rule named it */
	model_time_short(&l.time, buf, sizeof buf, true);
	x += screen_puts(y, x, sx - x, l.selected ? TR_SELECTED : TR_TIME,
	    buf) + 1;
	snprintf(buf, sizeof buf, "%s:%llu", model_source_name(t, l.source),
	    (unsigned long long)l.line);
	screen_cut_left(y, x, c->src_w, l.selected ? TR_SELECTED : TR_SOURCE,
	    buf);
	x += c->src_w + 1;
	if (search_line_text(t, k, &m->text) == -1) {
		screen_puts(y, x, sx - x, role, "(cannot be read again)");
		return;
	}
	text = m->text.p;
	skip = screen_fit(text, m->text.len, m->hscroll);
	screen_cut(y, x, sx - x, l.selected ? TR_SELECTED : TR_NORMAL,
	    text + skip);
}

/* One line at y. */
static void
merged_draw_line(const struct merged *m, struct tui *t,
    const struct merged_cols *c, unsigned ev, int y, int sx)
{
	const struct rl_event	*e = t->inc->events[ev];
	const struct tui_row	*row;
	enum tui_glyph		 g = model_glyph(t->inc, ev);
	bool			 sel = (int)ev == t->sel_event &&
				    search_line_selected(t) < 0;
	enum tui_role		 text_role;
	char			 buf[96];
	const char		*text = e->text != NULL ? e->text : "";
	size_t			 skip, len = strlen(text);
	int			 x, r = t->index.row_of_event[ev];

	row = r >= 0 ? &t->index.rows[r] : NULL;
	if (sel)
		screen_fill(y, 0, sx, TR_SELECTED);
	if (lines_marked(t, e->seq))
		screen_puts(y, 0, 1, sel ? TR_SELECTED : TR_KEY, "'");
	x = merged_draw_who(row, c, sel ? TR_SELECTED : TR_RANK, y, 1);
	screen_glyph(y, x, g, sel ? TR_SELECTED : theme_glyph_role(g));
	x += 2;
	model_time_short(&e->time, buf, sizeof buf, true);
	x += screen_puts(y, x, sx - x, sel ? TR_SELECTED : TR_TIME, buf) + 1;
	snprintf(buf, sizeof buf, "%s:%llu", model_source_name(t, e->source),
	    (unsigned long long)e->line);
	screen_cut_left(y, x, c->src_w, sel ? TR_SELECTED : TR_SOURCE, buf);
	x += c->src_w + 1;
	skip = screen_fit(text, len, m->hscroll);
	text_role = sel ? TR_SELECTED : search_is_hit(t, ev) ? TR_HIGHLIGHT :
	    (int)ev == t->inc->answer.first ? TR_HIGHLIGHT : TR_NORMAL;
	screen_cut(y, x, sx - x, text_role, text + skip);
}

/* The gutter's widths for the lines on screen. */
static void
merged_cols(const struct merged *m, struct tui *t, int h, int sx,
    struct merged_cols *c)
{
	const struct rl_event	*e;
	struct search_line	 l;
	char			 buf[96];
	int			 i, len, d = 1, mr = t->index.max_rank;

	while (mr >= 10) {
		mr /= 10;
		d++;
	}
	c->rank_w = d < 4 ? 4 : d;
	c->host_w = (int)t->index.host_width;
	if (sx < 100 && c->host_w > 8)
		c->host_w = 8;
	c->src_w = 6;
	for (i = m->top; i < m->top + h && (size_t)i < m->n; i++) {
		if (m->v[i] < 0) {
			search_line(t, (size_t)(-m->v[i] - 1), &l);
			len = snprintf(buf, sizeof buf, "%s:%llu",
			    model_source_name(t, l.source),
			    (unsigned long long)l.line);
		} else {
			e = t->inc->events[m->v[i]];
			len = snprintf(buf, sizeof buf, "%s:%llu",
			    model_source_name(t, e->source),
			    (unsigned long long)e->line);
		}
		if (len > c->src_w)
			c->src_w = len;
	}
	if (c->src_w > MERGED_SRC_MAX)
		c->src_w = MERGED_SRC_MAX;
	if (c->src_w > sx / 4)
		c->src_w = sx / 4;
}

/* Keep the selected line on screen; a jump puts it a third down. */
static void
merged_scroll(struct merged *m, struct tui *t, int h)
{
	int	 pos = merged_pos(m, t);

	if (pos >= 0 && (m->top < 0 || pos < m->top || pos >= m->top + h))
		m->top = pos - h / 3;
	if (m->top > (int)m->n - h)
		m->top = (int)m->n - h;
	if (m->top < 0)
		m->top = 0;
}

/* Draw the title, the lines and the status line. */
static void
view_merged_draw(struct view *v, int sx, int sy)
{
	struct merged		*m = v->data;
	struct tui		*t = v->tui;
	struct merged_cols	 c;
	struct search_line	 l;
	char			 right[128];
	int			 h = sy - 3, y, pos;

	/* Hits found since the last frame, while a search reads. */
	if ((size_t)search_lines(t) != merged_nlines(m))
		merged_build(m, t);
	merged_scroll(m, t, h);
	merged_cols(m, t, h, sx, &c);
	screen_fill(0, 0, sx, TR_TITLE);
	screen_printf(0, 1, sx - 2, TR_TITLE, "MERGED LOG  %zu line%s of %zu "
	    "row%s, in time order%s", m->n, m->n == 1 ? "" : "s",
	    t->index.nrows, t->index.nrows == 1 ? "" : "s",
	    m->hscroll > 0 ? " (scrolled right)" : "");
	lines_banner(t, 0, sx);
	screen_printf(1, 1, sx - 1, TR_AXIS, "%*s %-*s  %-12s %-*s %s",
	    c.rank_w, "RANK", c.host_w, c.host_w > 0 ? "HOST" : "", "TIME",
	    c.src_w, "SOURCE", m->hscroll > 0 ? "< LINE" : "LINE");
	if (m->n == 0)
		screen_puts(2, 2, sx - 3, TR_DIM, filter_active(&t->filter) ?
		    "no line passes the filter (:clear shows all)" :
		    "no lines yet");
	for (y = 0; y < h && (size_t)(m->top + y) < m->n; y++) {
		if (m->v[m->top + y] < 0)
			merged_draw_hit(m, t, &c,
			    (size_t)(-m->v[m->top + y] - 1), 2 + y, sx);
		else
			merged_draw_line(m, t, &c,
			    (unsigned)m->v[m->top + y], 2 + y, sx);
	}
	/* Where the selection is, by name: the highlight is not all. */
	pos = merged_pos(m, t);
	if (pos >= 0 && m->v[pos] < 0) {
		search_line(t, (size_t)(-m->v[pos] - 1), &l);
		snprintf(right, sizeof right, "%s:%llu %s line %d/%zu",
		    model_source_name(t, l.source), (unsigned long long)l.line,
		    screen_sym("\xc2\xb7", "-"), pos + 1, m->n);
	} else if (pos >= 0)
		snprintf(right, sizeof right, "%s:%llu %s line %d/%zu",
		    model_source_name(t, t->inc->events[t->sel_event]->source),
		    (unsigned long long)t->inc->events[t->sel_event]->line,
		    screen_sym("\xc2\xb7", "-"), pos + 1, m->n);
	else
		snprintf(right, sizeof right, "line -/%zu", m->n);
	screen_status(t, sy - 1, "j/k line|</> scroll|/ search|n next hit|"
	    "] failure|m mark|Enter detail|Esc back", right);
}

/* Move the selection by d lines, or to an end. */
static int
merged_move(struct merged *m, struct tui *t, int d, bool end)
{
	int	 pos = merged_pos(m, t);

	if (m->n == 0)
		return REACT_NONE;
	if (end)
		pos = d < 0 ? 0 : (int)m->n - 1;
	else if (pos < 0)
		pos = m->top;
	else
		pos += d;
	if (pos < 0)
		pos = 0;
	if ((size_t)pos >= m->n)
		pos = (int)m->n - 1;
	if (m->v[pos] < 0) {
		search_line_select(t, (size_t)(-m->v[pos] - 1));
		return REACT_REDRAW;
	}
	search_line_unselect(t);
	tui_select_event(t, (int)m->v[pos]);
	return REACT_REDRAW;
}

/*
 * Enter on a line hit: the line with the lines before it, read again, in
 * the text view (which draws each through screen_cut).
 */
static int
merged_hit_detail(struct tui *t, size_t k)
{
	struct search_line	 l;
	struct buf		 b = { 0 }, line = { 0 };
	char			 label[128], when[32];

	search_line(t, k, &l);
	model_time_short(&l.time, when, sizeof when, true);
	buf_printf(&b, "%s:%llu\n%s\n%s\n\n",
	    t->inc->sources[l.source]->path, (unsigned long long)l.line,
	    model_row_label(&t->index.rows[l.row], label, sizeof label),
	    when);
	if (search_line_text(t, k, &line) == -1)
		buf_adds(&b, "(the line cannot be read again)\n");
	else {
		buf_add(&b, line.p, line.len);
		buf_adds(&b, "\n\nNo rule named this line: it is a hit of the "
		    "search, not an event of the diagnosis.\n");
	}
	buf_clear(&line);
	free(t->text);
	free(t->text_title);
	t->text = buf_steal(&b);
	xasprintf(&t->text_title, "LINE  %s:%llu  a search hit",
	    model_source_name(t, l.source), (unsigned long long)l.line);
	return REACT_VIEW(VIEW_TEXT);
}

/* Keys: move, scroll sideways, open the detail, back. */
static int
view_merged_key(struct view *v, int key, enum tui_action act)
{
	struct merged	*m = v->data;
	struct tui	*t = v->tui;
	int		 page = t->sy > 5 ? t->sy - 4 : 1;

	(void)key;
	switch (act) {
	case ACT_DOWN:
	case ACT_UP:
		return merged_move(m, t, act == ACT_DOWN ? 1 : -1, false);
	case ACT_PAGE_DOWN:
	case ACT_PAGE_UP:
		return merged_move(m, t, act == ACT_PAGE_DOWN ? page : -page,
		    false);
	case ACT_HOME:
	case ACT_END:
		return merged_move(m, t, act == ACT_HOME ? -1 : 1, true);
	case ACT_SCROLL_RIGHT:
		m->hscroll += MERGED_HSTEP;
		return REACT_REDRAW;
	case ACT_SCROLL_LEFT:
		m->hscroll = m->hscroll > MERGED_HSTEP ? m->hscroll -
		    MERGED_HSTEP : 0;
		return REACT_REDRAW;
	case ACT_ENTER:
		if (search_line_selected(t) >= 0)
			return merged_hit_detail(t,
			    (size_t)search_line_selected(t));
		return t->sel_event != RL_NONE ? REACT_VIEW(VIEW_DETAIL) :
		    REACT_NONE;
	case ACT_BACK:
	case ACT_MERGED:
		return REACT_CLOSE;
	default:
		return REACT_NONE;
	}
}

const struct view_type view_merged_type = {
	.name = "merged log",
	.init = view_merged_init,
	.free = view_merged_free,
	.resize = NULL,
	.draw = view_merged_draw,
	.key = view_merged_key,
	.update = view_merged_update,
};
