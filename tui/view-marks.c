/*
 * view-marks.c: the marked lines (' lists them, m marks), in time order
 * across ranks.  Enter goes to the line on the view below (the timeline
 * or the merged log); m here takes a mark away.  Marks are kept by the
 * event's seq, so they survive a live diagnosis that sorts events anew;
 * a mark whose line a filter hides is listed, dimmed, and says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

struct marks {
	unsigned	*v;		/* marked events, in time order */
	size_t		 n;
	int		 sel;		/* the selected one */
	int		 top;		/* first on screen */
};

/* List the marked events that the model still holds. */
static void
marks_build(struct marks *mk, const struct tui *t)
{
	size_t	 i;

	free(mk->v);
	mk->v = xreallocarray(NULL, t->nmarks + 1, sizeof *mk->v);
	mk->n = 0;
	for (i = 0; i < t->index.nevents && mk->n < t->nmarks; i++) {
		if (lines_marked(t, t->inc->events[i]->seq))
			mk->v[mk->n++] = (unsigned)i;
	}
	if (mk->sel >= (int)mk->n)
		mk->sel = (int)mk->n - 1;
	if (mk->sel < 0)
		mk->sel = 0;
}

/* Set up, on the mark of the selected line if it has one. */
static void
view_marks_init(struct view *v)
{
	struct marks	*mk;
	size_t		 i;

	mk = v->data = xcalloc(1, sizeof *mk);
	marks_build(mk, v->tui);
	for (i = 0; i < mk->n; i++) {
		if ((int)mk->v[i] == v->tui->sel_event)
			mk->sel = (int)i;
	}
}

/* Free. */
static void
view_marks_free(struct view *v)
{
	struct marks	*mk = v->data;

	free(mk->v);
	free(mk);
}

/* The model changed: list again. */
static void
view_marks_update(struct view *v)
{
	marks_build(v->data, v->tui);
}

/* Draw the list. */
static void
view_marks_draw(struct view *v, int sx, int sy)
{
	struct marks		*mk = v->data;
	struct tui		*t = v->tui;
	const struct rl_event	*e;
	char			 when[32], label[128], *line;
	int			 h = sy - 2, y;
	bool			 hidden, sel;

	if (mk->sel < mk->top)
		mk->top = mk->sel;
	if (mk->sel >= mk->top + h)
		mk->top = mk->sel - h + 1;
	screen_fill(0, 0, sx, TR_TITLE);
	screen_printf(0, 1, sx - 2, TR_TITLE, "MARKS  %zu marked line%s, in "
	    "time order", mk->n, mk->n == 1 ? "" : "s");
	if (mk->n == 0)
		screen_puts(2, 2, sx - 3, TR_DIM,
		    "no marks yet: m marks the selected line");
	for (y = 0; y < h && (size_t)(mk->top + y) < mk->n; y++) {
		e = t->inc->events[mk->v[mk->top + y]];
		hidden = t->index.row_of_event[mk->v[mk->top + y]] < 0;
		sel = mk->top + y == mk->sel;
		if (sel)
			screen_fill(1 + y, 0, sx, TR_SELECTED);
		model_time_short(&e->time, when, sizeof when, true);
		model_event_label(t, mk->v[mk->top + y], label, sizeof label);
		xasprintf(&line, "%s  %s  %s:%llu  %s%s", when, label,
		    model_source_name(t, e->source),
		    (unsigned long long)e->line, hidden ?
		    "(hidden by the filter) " : "", model_message(e));
		screen_puts(1 + y, 1, 1, sel ? TR_SELECTED : TR_KEY, "'");
		screen_cut(1 + y, 3, sx - 4, sel ? TR_SELECTED : hidden ?
		    TR_DIM : TR_NORMAL, line);
		free(line);
	}
	screen_status(t, sy - 1, "j/k mark|Enter go there|m unmark|Esc back",
	    NULL);
}

/* Keys: choose, go, unmark, back. */
static int
view_marks_key(struct view *v, int key, enum tui_action act)
{
	struct marks	*mk = v->data;
	struct tui	*t = v->tui;
	int		 ev;

	(void)key;
	switch (act) {
	case ACT_HOME:
	case ACT_END:
		mk->sel = act == ACT_HOME ? 0 : (int)mk->n - 1;
		if (mk->sel < 0)
			mk->sel = 0;
		return REACT_REDRAW;
	case ACT_DOWN:
	case ACT_UP:
		mk->sel += act == ACT_DOWN ? 1 : -1;
		if (mk->sel >= (int)mk->n)
			mk->sel = (int)mk->n - 1;
		if (mk->sel < 0)
			mk->sel = 0;
		return REACT_REDRAW;
	case ACT_ENTER:
		if (mk->n == 0)
			return REACT_CLOSE;
		ev = (int)mk->v[mk->sel];
		if (t->index.row_of_event[ev] < 0) {
			tui_set_message(t, true, "that line is hidden by the "
			    "filter (:clear shows all)");
			return REACT_REDRAW;
		}
		tui_select_event(t, ev);
		return REACT_CLOSE;
	case ACT_MARK:
		if (mk->n == 0)
			return REACT_NONE;
		tui_select_event(t, (int)mk->v[mk->sel]);
		lines_key(t, VIEW_MARKS, ACT_MARK);
		marks_build(mk, t);
		return REACT_REDRAW;
	case ACT_BACK:
	case ACT_MARKS:
		return REACT_CLOSE;
	default:
		return REACT_NONE;
	}
}

const struct view_type view_marks_type = {
	.name = "marks",
	.init = view_marks_init,
	.free = view_marks_free,
	.resize = NULL,
	.draw = view_marks_draw,
	.key = view_marks_key,
	.update = view_marks_update,
};
