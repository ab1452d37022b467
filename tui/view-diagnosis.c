/*
 * view-diagnosis.c: the three answers with their reasons (d).
 *
 * The timeline says what failed first; this view says why, in the model's
 * own words: each answer's explanation and the lines that support it or
 * argue against it, the next steps with their reasons, the checkpoint, the
 * hosts' clocks, vLLM's memory budget, the job and the evidence
 * checklist.  It computes nothing and words nothing: it draws the sections
 * of wording.c, the same words as the text report.
 *
 * The lines are built when the width or the model changes and the draw
 * copies the visible ones, as view-detail.c does.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "wording.h"

/* One line of the view as drawn. */
struct diag_line {
	char		*text;		/* owned */
	enum tui_role	 role;
	int		 indent;	/* columns before the text */
	char		 mark[8];	/* a stance or checklist mark, or "" */
	enum tui_role	 mark_role;
	bool		 rule;		/* a section heading, drawn full width */
	int		 source;	/* the file:line it names, or RL_NONE */
	uint64_t	 line;
};

struct diag {
	struct diag_line *lines;
	size_t		 nlines;
	int		 top;		/* first line on screen */
	int		 width;		/* built for this many columns */
};

/* Free the built lines. */
static void
diag_clear(struct diag *d)
{
	size_t	 i;

	for (i = 0; i < d->nlines; i++)
		free(d->lines[i].text);
	free(d->lines);
	d->lines = NULL;
	d->nlines = 0;
}

/* Append one line of len bytes. */
static struct diag_line *
diag_add(struct diag *d, int indent, enum tui_role role, const char *s,
    size_t len)
{
	struct diag_line	*l;

	d->lines = xreallocarray(d->lines, d->nlines + 1, sizeof *d->lines);
	l = &d->lines[d->nlines++];
	memset(l, 0, sizeof *l);
	l->text = xstrndup(s, len);
	l->role = role;
	l->indent = indent;
	l->source = RL_NONE;
	return (l);
}

#define DIAG_NONE	((size_t)-1)	/* no line was added */

/*
 * Append text word-wrapped at the width; returns the index of its first
 * line (the array moves as it grows, so never a pointer), or DIAG_NONE.
 */
static size_t
diag_text(struct diag *d, int indent, enum tui_role role, const char *s)
{
	size_t	 first = DIAG_NONE, len, cut;
	int	 w = d->width - indent - 2;

	if (s == NULL || *s == '\0')
		return (DIAG_NONE);
	if (w < 10)
		w = 10;
	len = strlen(s);
	do {
		cut = screen_wrap(s, len, w);
		diag_add(d, indent, role, s, cut);
		if (first == DIAG_NONE)
			first = d->nlines - 1;
		s += cut;
		len -= cut;
		while (len > 0 && *s == ' ') {
			s++;
			len--;
		}
	} while (len > 0);
	return (first);
}

/* A section heading. */
static void
diag_section(struct diag *d, const char *title)
{
	if (d->nlines > 0)
		diag_add(d, 0, TR_NORMAL, "", 0);
	diag_add(d, 0, TR_PANE, title, strlen(title))->rule = true;
}

/* Put a mark in the margin of line at. */
static void
diag_mark(struct diag *d, size_t at, const char *mark, enum tui_role role)
{
	if (at >= d->nlines)
		return;
	snprintf(d->lines[at].mark, sizeof d->lines[at].mark, "%s", mark);
	d->lines[at].mark_role = role;
}

/* The sections the console shows, in this order. */
static const enum wd_part diag_parts[] = {
	WD_PART_FIRST, WD_PART_VERDICT, WD_PART_ADVICE, WD_PART_CHECKPOINT,
	WD_PART_CLOCKS, WD_PART_CAPACITY, WD_PART_JOB, WD_PART_WARNINGS,
	WD_PART_CHECKLIST
};

/* Whether an item is a heading the view draws as a full-width rule. */
static bool
diag_is_rule(const struct wd_item *it)
{
	return it->indent == 0 && (it->role == WD_HEADING ||
	    it->role == WD_TITLE || it->role == WD_FIRST);
}

/* The colour of an item's text. */
static enum tui_role
diag_role(enum wd_role r)
{
	switch (r) {
	case WD_FIRST:
	case WD_ACTION:
		return (TR_VERDICT);
	case WD_TITLE:
		return (TR_LABEL);
	case WD_LOG:
	case WD_DETAIL:
	case WD_DIM:
		return (TR_DIM);
	case WD_MISSING:
	case WD_WARNING:
		return (TR_UNSAFE);
	default:
		return (TR_NORMAL);
	}
}

/* One item: a rule, a wrapped paragraph, or a line with a mark. */
static void
diag_item(struct diag *d, const struct tui *t, const struct wd_item *it)
{
	struct buf	 b = { 0 };
	size_t		 at;

	if (diag_is_rule(it)) {
		diag_section(d, it->text);
		return;
	}
	/* The line behind an evidence item is shown as it is, cut. */
	if (it->role == WD_DETAIL) {
		diag_add(d, it->indent, TR_DIM, it->text, strlen(it->text));
		return;
	}
	/* Where it points, by the source's short name: paths are long. */
	if (it->source != RL_NONE) {
		buf_adds(&b, model_source_name(t, (unsigned)it->source));
		if (it->line > 0)
			buf_printf(&b, ":%llu", (unsigned long long)it->line);
		buf_adds(&b, ": ");
	}
	buf_adds(&b, it->text);
	at = diag_text(d, it->indent, diag_role(it->role), b.p);
	buf_clear(&b);
	if (at != DIAG_NONE && it->source != RL_NONE && it->line > 0) {
		d->lines[at].source = it->source;
		d->lines[at].line = it->line;
	}
	switch (it->role) {
	case WD_FOR:
		diag_mark(d, at, "+", TR_SAFE);
		break;
	case WD_AGAINST:
		diag_mark(d, at, "-", TR_UNSAFE);
		break;
	case WD_FOUND:
		diag_mark(d, at, screen_sym("\xe2\x9c\x93", "+"), TR_SAFE);
		break;
	case WD_MISSING:
		diag_mark(d, at, screen_sym("\xe2\x9c\x97", "-"), TR_UNSAFE);
		break;
	default:
		break;
	}
}

/* Build every line for the current model and width, from its words. */
static void
diag_build(struct diag *d, const struct tui *t)
{
	const struct rl_incident *inc = t->inc;
	struct wording		 w = { 0 };
	const struct wd_section	*s;
	size_t			 k, i;

	diag_clear(d);
	wording_build(&w, inc);
	for (k = 0; k < nitems(diag_parts); k++) {
		s = &w.part[diag_parts[k]];
		/* A section without a heading is still set apart. */
		if (s->n > 0 && !diag_is_rule(&s->items[0]) && d->nlines > 0)
			diag_add(d, 0, TR_NORMAL, "", 0);
		for (i = 0; i < s->n; i++)
			diag_item(d, t, &s->items[i]);
	}
	wording_clear(&w);
}

/* Set up. */
static void
view_diagnosis_init(struct view *v)
{
	struct diag	*d;

	d = v->data = xcalloc(1, sizeof *d);
	d->width = v->tui->sx;
	diag_build(d, v->tui);
}

/* Free. */
static void
view_diagnosis_free(struct view *v)
{
	struct diag	*d = v->data;

	diag_clear(d);
	free(d);
}

/* Wrap again for the new width. */
static void
view_diagnosis_resize(struct view *v, int sx, int sy)
{
	struct diag	*d = v->data;

	(void)sy;
	if (sx == d->width)
		return;
	d->width = sx;
	diag_build(d, v->tui);
}

/* The model was diagnosed again: rebuild, keeping the scroll. */
static void
view_diagnosis_update(struct view *v)
{
	diag_build(v->data, v->tui);
}

/*
 * The evidence line Enter goes to: the first on screen that names a
 * file:line, or -1.  It moves with the scroll, so j/k choose it.
 */
static int
diag_target(const struct diag *d, int h)
{
	int	 i;

	for (i = d->top; i < d->top + h && (size_t)i < d->nlines; i++) {
		if (d->lines[i].source != RL_NONE)
			return (i);
	}
	return (-1);
}

/* Draw one line at y; the target of Enter is pointed at. */
static void
diag_draw_line(const struct diag_line *l, int y, int sx, bool target)
{
	if (target) {
		screen_puts(y, 0, 1, TR_KEY, screen_sym("\xe2\x96\xb8", ">"));
		screen_cut(y, l->indent, sx - l->indent - 1, TR_SELECTED,
		    l->text);
		return;
	}
	if (l->rule) {
		screen_fill(y, 0, sx, TR_PANE);
		screen_cut(y, 1, sx - 2, TR_PANE, l->text);
		return;
	}
	if (l->mark[0] != '\0' && l->indent >= 2)
		screen_puts(y, l->indent - 2, 1, l->mark_role, l->mark);
	screen_cut(y, l->indent, sx - l->indent - 1, l->role, l->text);
}

/* Draw the title, the visible lines and the status line. */
static void
view_diagnosis_draw(struct view *v, int sx, int sy)
{
	struct diag	*d = v->data;
	struct tui	*t = v->tui;
	char		 right[48];
	int		 h = sy - 2, y, target;
	bool		 failed = t->inc->answer.first != RL_NONE;

	if (d->width != sx)
		view_diagnosis_resize(v, sx, sy);
	if (d->top > (int)d->nlines - h)
		d->top = (int)d->nlines - h;
	if (d->top < 0)
		d->top = 0;
	screen_fill(0, 0, sx, failed ? TR_FAILURE : TR_TITLE);
	screen_puts(0, 1, sx - 2, failed ? TR_FAILURE : TR_TITLE, failed ?
	    "DIAGNOSIS  why, evidence, next steps" : "DIAGNOSIS  no failure");
	target = diag_target(d, h);
	for (y = 0; y < h && (size_t)(d->top + y) < d->nlines; y++)
		diag_draw_line(&d->lines[d->top + y], 1 + y, sx,
		    d->top + y == target);
	snprintf(right, sizeof right, "%d-%d/%zu", d->top + 1, d->top + y,
	    d->nlines);
	screen_status(t, sy - 1, target >= 0 ? "j/k scroll|Enter go to "
	    "the line|d back|Esc back|? help" :
	    "j/k scroll|d back|Esc back|? help", right);
}

/* Enter: the evidence line on screen, in the merged log. */
static int
diag_enter(struct diag *d, struct tui *t)
{
	const struct diag_line	*l;
	int			 at = diag_target(d, t->sy - 2), ev;

	if (at < 0) {
		tui_set_message(t, false, "no file:line on screen to go to");
		return (REACT_REDRAW);
	}
	l = &d->lines[at];
	if ((ev = lines_event_at(t, (unsigned)l->source, l->line)) < 0) {
		tui_set_message(t, true, "%s:%llu: no line of that file is "
		    "listed%s", model_source_name(t, (unsigned)l->source),
		    (unsigned long long)l->line, filter_active(&t->filter) ?
		    " (a filter is on)" : "");
		return (REACT_REDRAW);
	}
	t->sel_auto = false;
	tui_select_event(t, ev);
	if (t->inc->events[ev]->line != l->line)
		tui_set_message(t, false, "%s:%llu is not a line a rule named; "
		    "the nearest is line %llu", model_source_name(t,
		    (unsigned)l->source), (unsigned long long)l->line,
		    (unsigned long long)t->inc->events[ev]->line);
	return (REACT_VIEW(VIEW_MERGED));
}

/* Keys: scroll, back; never draw. */
static int
view_diagnosis_key(struct view *v, int key, enum tui_action act)
{
	struct diag	*d = v->data;
	struct tui	*t = v->tui;
	int		 page = t->sy > 4 ? t->sy - 3 : 1;

	(void)key;
	if (input_scroll(&d->top, act, page, (int)d->nlines))
		return (REACT_REDRAW);
	switch (act) {
	case ACT_ENTER:
		return (diag_enter(d, t));
	case ACT_BACK:
	case ACT_DIAGNOSIS:
		return (REACT_CLOSE);
	default:
		return (REACT_NONE);
	}
}

const struct view_type view_diagnosis_type = {
	.name = "diagnosis",
	.init = view_diagnosis_init,
	.free = view_diagnosis_free,
	.resize = view_diagnosis_resize,
	.draw = view_diagnosis_draw,
	.key = view_diagnosis_key,
	.update = view_diagnosis_update,
};
