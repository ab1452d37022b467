/*
 * view-detail.c: one event in full, and the log around it (Enter).
 *
 * The top part is the model's: when, where, which rank and process, the
 * rule that matched and what it says to do; for the first failure, the
 * verdict's reasons.  Below it, for a failure, is the log itself around the
 * line (CONTEXT_LINES either side), as ingestion kept it in the model, since
 * the line that matched is rarely the whole story; nothing here reads a
 * log on the loop thread.  Those raw lines never went through core's
 * sanitizer, so they are stripped of ANSI sequences and drawn through
 * screen_put like everything else.
 *
 * The view's lines are built when the event or the width changes and the
 * draw only copies the visible ones.  h/l step through the row's events
 * without leaving the view, and the timeline's selection follows.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

#define DETAIL_LABEL_W		11		/* "checkpoint " */

/* One line of the view as drawn. */
struct detail_line {
	char		*label;		/* field name, or NULL */
	char		*text;		/* owned */
	enum tui_role	 role;
	enum tui_glyph	 glyph;		/* margin mark on log lines */
	long long	 lineno;	/* log line number, or -1 */
	bool		 target;	/* the event's own log line */
	bool		 rule;		/* a section rule, drawn full width */
};

struct detail {
	int		 ev;		/* the event shown */
	uint64_t	 seq;		/* its seq: the same event after a sort */
	struct detail_line *lines;
	size_t		 nlines;
	int		 top;		/* first line on screen */
	int		 width;		/* built for this many columns */
	int		 log_at;	/* index of the log section, or -1 */
	int		 target_at;	/* index of the event's own log line, or -1 */
	char		**ctx;		/* raw log lines around the event */
	size_t		 nctx;
	long long	 ctx_first;	/* line number of ctx[0] */
	char		*ctx_error;	/* why there is no context, or NULL */
};

/* Free the built lines. */
static void
detail_clear_lines(struct detail *d)
{
	size_t	 i;

	for (i = 0; i < d->nlines; i++) {
		free(d->lines[i].label);
		free(d->lines[i].text);
	}
	free(d->lines);
	d->lines = NULL;
	d->nlines = 0;
}

/* Free the log context. */
static void
detail_clear_context(struct detail *d)
{
	size_t	 i;

	for (i = 0; i < d->nctx; i++)
		free(d->ctx[i]);
	free(d->ctx);
	free(d->ctx_error);
	d->ctx = NULL;
	d->nctx = 0;
	d->ctx_error = NULL;
}

/* Append a line. */
static struct detail_line *
detail_add(struct detail *d, const char *label, enum tui_role role,
    const char *text, size_t len)
{
	struct detail_line	*l;

	d->lines = xreallocarray(d->lines, d->nlines + 1, sizeof *d->lines);
	l = &d->lines[d->nlines++];
	memset(l, 0, sizeof *l);
	l->label = label != NULL ? xstrdup(label) : NULL;
	l->text = xstrndup(text, len);
	l->role = role;
	l->lineno = -1;
	return (l);
}

/* Append a field, word-wrapped to the width after the label column. */
static void
detail_field(struct detail *d, const char *label, enum tui_role role,
    const char *text)
{
	size_t	 len, cut;
	int	 w = d->width - DETAIL_LABEL_W - 3;

	if (text == NULL || *text == '\0')
		return;
	if (w < 10)
		w = 10;
	len = strlen(text);
	do {
		cut = screen_wrap(text, len, w);
		detail_add(d, label, role, text, cut);
		label = "";
		text += cut;
		len -= cut;
		while (len > 0 && *text == ' ') {
			text++;
			len--;
		}
	} while (len > 0);
}

/* Append a formatted field. */
static void __attribute__((format(printf, 4, 5)))
detail_fieldf(struct detail *d, const char *label, enum tui_role role,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	detail_field(d, label, role, s);
	free(s);
}

/*
 * The lines around the event, as ingestion kept them in the model: the
 * loop thread reads no log.  A failure has them; another event, or one
 * whose line as read is not its text, says so.
 */
static void
detail_context(struct detail *d, struct tui *t)
{
	const struct rl_event	*e = t->inc->events[d->ev];
	const char		*ctx, *p, *nl;
	int64_t			 first = 0;
	size_t			 n = 0, len;
	char			**v = NULL;

	detail_clear_context(d);
	if ((ctx = event_context(t->inc, e, &first)) == NULL) {
		d->ctx_error = xstrdup(event_failing(e) ? "no lines around "
		    "this failure were kept: its line as read differs from "
		    "its text" : "lines around an event are kept for "
		    "failures only");
		return;
	}
	for (p = ctx; p != NULL; p = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len > 0 && p[len - 1] == '\r')
			len--;
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n] = xstrndup(p, len);
		v[n][strip_ansi(v[n], strlen(v[n]))] = '\0';
		n++;
	}
	d->ctx = v;
	d->nctx = n;
	d->ctx_first = (long long)first;
}

/* Mark each context line with the strongest event that matched it. */
static void
detail_mark(struct tui *t, unsigned src, long long first, size_t n,
    enum tui_glyph *marks)
{
	const struct rl_event	*e;
	size_t			 i;
	long long		 k;
	enum tui_glyph		 g;

	for (i = 0; i < t->inc->nevents; i++) {
		e = t->inc->events[i];
		k = (long long)e->line - first;
		if (e->source != src || k < 0 || (size_t)k >= n)
			continue;
		if ((g = model_glyph(t->inc, i)) > marks[k])
			marks[k] = g;
	}
}

/* The log section: a rule, then the lines with their marks. */
static void
detail_build_log(struct detail *d, struct tui *t, const struct rl_event *e)
{
	const char		*path = "?";
	enum tui_glyph		*marks;
	struct detail_line	*l;
	char			*title;
	size_t			 i;

	if (e->source < t->inc->nsources)
		path = t->inc->sources[e->source]->path;
	d->log_at = (int)d->nlines;
	d->target_at = -1;
	xasprintf(&title, "log %s", path);
	detail_add(d, NULL, TR_PANE, title, strlen(title))->rule = true;
	free(title);
	if (d->ctx_error != NULL) {
		detail_field(d, "", TR_DIM, d->ctx_error);
		return;
	}
	marks = xcalloc(d->nctx + 1, sizeof *marks);
	detail_mark(t, e->source, d->ctx_first, d->nctx, marks);
	for (i = 0; i < d->nctx; i++) {
		l = detail_add(d, NULL, TR_NORMAL, d->ctx[i],
		    strlen(d->ctx[i]));
		l->lineno = d->ctx_first + (long long)i;
		l->glyph = marks[i];
		l->target = l->lineno == (long long)e->line;
		if (l->target) {
			l->role = TR_HIGHLIGHT;
			d->target_at = (int)d->nlines - 1;
		}
		else if (marks[i] == GLYPH_EMPTY)
			l->role = TR_DIM;
	}
	free(marks);
}

/* The other places a tee'd line was written to (model_dedup). */
static void
detail_build_copies(struct detail *d, const struct tui *t)
{
	const struct rl_event	*c;
	size_t			 i;

	if (t->index.copy_of == NULL)
		return;
	for (i = 0; i < t->index.nevents; i++) {
		if (t->index.copy_of[i] != d->ev)
			continue;
		c = t->inc->events[i];
		detail_fieldf(d, "also in", TR_SOURCE, "%s:%llu  (a copy: "
		    "the same line, tee'd)", c->source < t->inc->nsources ?
		    t->inc->sources[c->source]->path : "?",
		    (unsigned long long)c->line);
	}
}

/* Who wrote the line: rank, host, local rank, pid, exit. */
static void
detail_build_who(struct detail *d, struct tui *t, const struct rl_event *e)
{
	const struct rl_process	*p = NULL;
	struct buf		 b = { NULL, 0, 0 };

	if (e->process >= 0 && (size_t)e->process < t->inc->nprocs)
		p = t->inc->procs[e->process];
	if (e->rank != RL_NONE)
		buf_printf(&b, "rank %d", e->rank);
	else
		buf_adds(&b, "no rank");
	if (p != NULL && p->host != NULL)
		buf_printf(&b, "  host %s", p->host);
	if (p != NULL && p->local_rank != RL_NONE)
		buf_printf(&b, "  local rank %d", p->local_rank);
	if (p != NULL && p->pid != RL_NONE)
		buf_printf(&b, "  pid %d", p->pid);
	if (p != NULL && p->exitcode != RL_NONE)
		buf_printf(&b, "  exit %d", p->exitcode);
	if (p != NULL && p->signal != 0)
		buf_printf(&b, "  signal %d", p->signal);
	detail_field(d, "who", TR_NORMAL, b.p);
	buf_clear(&b);
}

/*
 * The knobs the rule names, each with what it does, when it helps and what
 * it costs: most are diagnostics for a bounded reproduction, not fixes.
 */
static void
detail_build_knobs(struct detail *d, struct tui *t, const struct rl_rule *r)
{
	const struct rl_knob	*k;
	char			*dup, *tok, *save;

	if (r->knobs == NULL)
		return;
	dup = xstrdup(r->knobs);
	for (tok = strtok_r(dup, ", ", &save); tok != NULL;
	    tok = strtok_r(NULL, ", ", &save)) {
		k = t->inc->rules != NULL ? ruleset_knob(t->inc->rules, tok) :
		    NULL;
		detail_fieldf(d, "knob", TR_SOURCE, "%s%s%s", tok,
		    k != NULL && k->what != NULL ? ": " : "",
		    k != NULL && k->what != NULL ? k->what : "");
		if (k != NULL && k->helps != NULL)
			detail_field(d, "  helps", TR_NORMAL, k->helps);
		if (k != NULL && k->cost != NULL)
			detail_field(d, "  costs", TR_NORMAL, k->cost);
	}
	free(dup);
}

/* Build every line for the current event and width. */
static void
detail_build(struct detail *d, struct tui *t)
{
	const struct rl_event	*e = t->inc->events[d->ev];
	const struct rl_rule	*r = e->rule;
	const struct rl_answer	*a = &t->inc->answer;
	const struct group_line	*g;
	char			 when[64];
	bool			 first = d->ev == a->first;

	detail_clear_lines(d);
	clock_format(&e->time, when, sizeof when);
	detail_fieldf(d, "time", TR_TIME, "%s%s", when,
	    e->guess == TIME_OWN ? "" : e->guess == TIME_STREAM ?
	    "  (inherited from the writer's line before)" :
	    e->guess == TIME_NEXT ? "  (from the writer's next timed line)" :
	    "  (the process's last time, from another file)");
	detail_fieldf(d, "source", TR_SOURCE, "%s:%llu  (byte %llu)",
	    e->source < t->inc->nsources ? t->inc->sources[e->source]->path :
	    "?", (unsigned long long)e->line, (unsigned long long)e->offset);
	detail_build_copies(d, t);
	detail_build_who(d, t, e);
	/* A folded group's line stands for its alike lines on other ranks. */
	if ((g = group_list_selected(t, d->ev)) != NULL)
		detail_fieldf(d, "alike", TR_SOURCE, "%s%zu line%s on %zu "
		    "rank%s: %s (this one is the earliest)",
		    screen_sym("\xc3\x97", "x"), g->count, g->count == 1 ?
		    "" : "s", g->nranks, g->nranks == 1 ? "" : "s", g->ranks);
	if (r != NULL)
		detail_fieldf(d, "rule", TR_NORMAL, "%s%s%s", r->id,
		    r->title != NULL ? "  " : "",
		    r->title != NULL ? r->title : "");
	detail_fieldf(d, "role", TR_NORMAL, "%s%s  severity %s  domain %s  "
	    "group %s", role_name(e->role), e->harmless ? " (harmless here)" :
	    "", r != NULL ? severity_name(r->severity) : "-",
	    r != NULL ? domain_name(r->domain) : "-",
	    r != NULL ? group_name(r->group) : "-");
	detail_add(d, NULL, TR_NORMAL, "", 0);
	detail_field(d, "line", first ? TR_HIGHLIGHT : TR_VERDICT, e->text);
	if (r != NULL) {
		detail_field(d, "meaning", TR_NORMAL, r->explain);
		detail_field(d, "action", TR_VERDICT, r->action);
		detail_field(d, "probe", TR_SOURCE, r->probe);
		detail_build_knobs(d, t, r);
	}
	if (first) {
		detail_field(d, "verdict", TR_VERDICT, a->summary);
		detail_field(d, "why first", TR_NORMAL, a->explanation);
		detail_fieldf(d, "confidence", TR_NORMAL, "%s (%.2f): press d "
		    "for the evidence, the next steps and the checklist",
		    confidence_level(a->confidence), a->confidence);
		if (a->nadvice > 0)
			detail_field(d, "next step", TR_VERDICT,
			    a->advice[0].text);
	}
	detail_add(d, NULL, TR_NORMAL, "", 0);
	detail_build_log(d, t, e);
}

/* Show another event: read its context and build its lines. */
static void
detail_show(struct detail *d, struct tui *t, int ev)
{
	d->ev = ev;
	d->seq = ev >= 0 && (size_t)ev < t->inc->nevents ?
	    t->inc->events[ev]->seq : 0;
	d->top = 0;
	detail_context(d, t);
	detail_build(d, t);
}

/* Set up on the selected event. */
static void
view_detail_init(struct view *v)
{
	struct detail	*d;

	d = v->data = xcalloc(1, sizeof *d);
	d->width = v->tui->sx;
	d->log_at = -1;
	detail_show(d, v->tui, v->tui->sel_event);
}

/* Free. */
static void
view_detail_free(struct view *v)
{
	struct detail	*d = v->data;

	detail_clear_lines(d);
	detail_clear_context(d);
	free(d);
}

/* Wrap again for the new width. */
static void
view_detail_resize(struct view *v, int sx, int sy)
{
	struct detail	*d = v->data;

	(void)sy;
	if (sx == d->width)
		return;
	d->width = sx;
	detail_build(d, v->tui);
}

/*
 * The model was diagnosed again.  The same event may sit at another index
 * (events are sorted) and its log may have grown below it: read it again
 * and keep the scroll, or, scrolled to the end, stay at the end as less +F
 * does.  Another event (the old one went) starts at the top.
 */
static void
view_detail_update(struct view *v)
{
	struct detail	*d = v->data;
	struct tui	*t = v->tui;
	int		 h = t->sy - 2;
	bool		 at_end = d->top > 0 && d->top >= (int)d->nlines - h;

	if (t->sel_event == RL_NONE) {
		if ((size_t)d->ev >= t->index.nevents)
			d->ev = 0;
		if (t->index.nevents > 0)
			tui_select_event(t, d->ev);
	}
	if (t->sel_event == RL_NONE)
		return;
	if (t->inc->events[t->sel_event]->seq != d->seq) {
		detail_show(d, t, t->sel_event);
		return;
	}
	d->ev = t->sel_event;
	detail_context(d, t);
	detail_build(d, t);
	if (at_end)
		d->top = (int)d->nlines - h;
}

/* Draw one line of the body at y. */
static void
detail_draw_line(const struct detail_line *l, int y, int sx)
{
	const char	*bar = screen_sym("\xe2\x94\x82", "|");
	int		 x = 1;

	if (l->rule) {
		screen_fill(y, 0, sx, TR_PANE);
		screen_cut(y, 1, sx - 2, TR_PANE, l->text);
		return;
	}
	if (l->lineno >= 0) {
		if (l->target)
			screen_fill(y, 0, sx, TR_HIGHLIGHT);
		screen_glyph(y, 0, l->target ? GLYPH_FIRST : l->glyph,
		    l->target ? TR_HIGHLIGHT : theme_glyph_role(l->glyph));
		x += 1 + screen_printf(y, x, 7, l->target ? TR_HIGHLIGHT :
		    TR_DIM, "%6lld", l->lineno);
		x += 1 + screen_puts(y, x, 1, l->target ? TR_HIGHLIGHT :
		    TR_AXIS, bar);
		screen_cut(y, x, sx - x, l->role, l->text);
		return;
	}
	if (l->label != NULL)
		screen_puts(y, x, DETAIL_LABEL_W, TR_LABEL, l->label);
	x += l->label != NULL ? DETAIL_LABEL_W + 1 : 0;
	screen_cut(y, x, sx - x - 1, l->role, l->text);
}

/* Draw the title, the visible lines and the status line. */
static void
view_detail_draw(struct view *v, int sx, int sy)
{
	struct detail	*d = v->data;
	struct tui	*t = v->tui;
	const struct tui_row *row;
	char		 label[128], right[48];
	int		 h = sy - 2, y, pos, row_i;

	if (d->width != sx)
		view_detail_resize(v, sx, sy);
	if (d->ev < 0 || (size_t)d->ev >= t->index.nevents) {
		screen_puts(1, 1, sx - 2, TR_DIM, "no event to show");
		screen_status(t, sy - 1, "Esc back|? help", NULL);
		return;
	}
	if (d->top > (int)d->nlines - h)
		d->top = (int)d->nlines - h;
	if (d->top < 0)
		d->top = 0;
	row_i = t->index.row_of_event[d->ev];
	row = &t->index.rows[row_i < 0 ? 0 : row_i];
	pos = model_event_pos(t, (unsigned)d->ev);
	screen_fill(0, 0, sx, d->ev == t->inc->answer.first ? TR_FAILURE :
	    TR_TITLE);
	screen_printf(0, 1, sx - 2, d->ev == t->inc->answer.first ? TR_FAILURE :
	    TR_TITLE, "%sEVENT %d of %zu on %s", d->ev == t->inc->answer.first ?
	    "FIRST FAILURE  " : "", pos + 1, row->n, model_row_label(row, label,
	    sizeof label));
	for (y = 0; y < h && (size_t)(d->top + y) < d->nlines; y++)
		detail_draw_line(&d->lines[d->top + y], 1 + y, sx);
	snprintf(right, sizeof right, "%d-%d/%zu", d->top + 1, d->top + y,
	    d->nlines);
	screen_status(t, sy - 1, "j/k scroll|h/l prev/next event|Enter log|"
	    "d diagnosis|Esc back|? help", right);
}

/* Where Enter scrolls to: the event's log line a third down the screen. */
static int
detail_log_top(const struct detail *d, int h)
{
	int	 top;

	if (d->target_at < 0)
		return (d->log_at > 0 ? d->log_at : 0);
	top = d->target_at - h / 3;
	return (top < d->log_at ? d->log_at : top);
}

/* Step to the previous or next event of the same row. */
static int
detail_step(struct detail *d, struct tui *t, int dir)
{
	const struct tui_row	*row;
	int			 pos, r = t->index.row_of_event[d->ev];

	if (r < 0)
		return (REACT_NONE);
	row = &t->index.rows[r];
	pos = model_event_pos(t, (unsigned)d->ev) + dir;
	if (pos < 0 || (size_t)pos >= row->n) {
		tui_set_message(t, false, "no %s event on this row", dir > 0 ?
		    "later" : "earlier");
		return (REACT_REDRAW);
	}
	tui_select_event(t, (int)t->index.ev[row->first + pos]);
	detail_show(d, t, t->sel_event);
	return (REACT_REDRAW);
}

/* Keys: scroll, step, back; never draw. */
static int
view_detail_key(struct view *v, int key, enum tui_action act)
{
	struct detail	*d = v->data;
	struct tui	*t = v->tui;
	int		 page = t->sy > 4 ? t->sy - 3 : 1;

	(void)key;
	if (input_scroll(&d->top, act, page, (int)d->nlines))
		return (REACT_REDRAW);
	switch (act) {
	case ACT_ENTER:
		d->top = d->top != 0 ? 0 : detail_log_top(d, t->sy - 2);
		return (REACT_REDRAW);
	case ACT_LEFT:
	case ACT_RIGHT:
		return (detail_step(d, t, act == ACT_LEFT ? -1 : 1));
	case ACT_BACK:
		return (REACT_CLOSE);
	default:
		return (REACT_NONE);
	}
}

const struct view_type view_detail_type = {
	.name = "detail",
	.init = view_detail_init,
	.free = view_detail_free,
	.resize = view_detail_resize,
	.draw = view_detail_draw,
	.key = view_detail_key,
	.update = view_detail_update,
};
