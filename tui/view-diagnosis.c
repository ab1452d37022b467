/*
 * view-diagnosis.c: the three answers with their reasons (d).
 *
 * The timeline says what failed first; this view says why, in the model's
 * own words: each answer's explanation and the lines that support it or
 * argue against it, the next steps with their reasons, the checkpoint, the
 * hosts' clocks, vLLM's memory budget and the evidence checklist.  It
 * computes nothing: every word comes from struct rl_answer, built by core.
 *
 * The lines are built when the width or the model changes and the draw
 * copies the visible ones, as view-detail.c does.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

#define DIAG_EVIDENCE	12	/* evidence lines shown per answer */

/* One line of the view as drawn. */
struct diag_line {
	char		*text;		/* owned */
	enum tui_role	 role;
	int		 indent;	/* columns before the text */
	char		 mark[8];	/* a stance or checklist mark, or "" */
	enum tui_role	 mark_role;
	bool		 rule;		/* a section heading, drawn full width */
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

/* Append formatted text. */
static size_t __attribute__((format(printf, 4, 5)))
diag_textf(struct diag *d, int indent, enum tui_role role, const char *fmt,
    ...)
{
	va_list	 ap;
	char	*s;
	size_t	 at;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	at = diag_text(d, indent, role, s);
	free(s);
	return (at);
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

/* An evidence list: where, what it shows, and the line itself, dimmed. */
static void
diag_evidence(struct diag *d, const struct rl_incident *inc,
    const struct rl_evlist *l)
{
	const struct rl_evidence	*v;
	struct buf			 b = { 0 };
	size_t				 i, at;

	for (i = 0; i < l->n && i < DIAG_EVIDENCE; i++) {
		v = &l->v[i];
		buf_reset(&b);
		if (v->source != RL_NONE && (size_t)v->source < inc->nsources) {
			buf_adds(&b, model_source_name(inc, (unsigned)v->source));
			if (v->line > 0)
				buf_printf(&b, ":%llu", (unsigned long long)v->line);
			buf_adds(&b, "  ");
		}
		buf_adds(&b, v->shows);
		at = diag_text(d, 4, TR_NORMAL, b.p);
		diag_mark(d, at, v->stance == STANCE_AGAINST ? "-" : "+",
		    v->stance == STANCE_AGAINST ? TR_UNSAFE : TR_SAFE);
		if (v->text != NULL && *v->text != '\0')
			diag_add(d, 6, TR_DIM, v->text, strlen(v->text));
	}
	buf_clear(&b);
	if (l->n + l->dropped > DIAG_EVIDENCE)
		diag_textf(d, 4, TR_DIM, "(%zu more: rankline analyze --json)",
		    l->n + l->dropped - DIAG_EVIDENCE);
}

/* The first failure: who, why, and the lines. */
static void
diag_build_first(struct diag *d, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	const struct rl_event	*e;
	char			 when[64];

	diag_section(d, "First failure");
	if (a->first == RL_NONE) {
		diag_text(d, 2, TR_NORMAL, a->summary);
		return;
	}
	e = inc->events[a->first];
	clock_format(&e->time, when, sizeof when);
	diag_textf(d, 2, TR_VERDICT, "%s  (%s at %s)", a->summary,
	    role_name(e->role), when[0] != '\0' ? when : "an unknown time");
	diag_text(d, 2, TR_NORMAL, a->explanation);
	diag_evidence(d, inc, &a->first_evidence);
}

/* The verdict, its confidence and reasons, and the next steps. */
static void
diag_build_verdict(struct diag *d, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	char			*title;
	size_t			 i;

	if (a->first == RL_NONE)
		return;
	xasprintf(&title, "Verdict: %s, %s, scope %s, confidence %s (%.2f)",
	    domain_name(a->domain), group_name(a->group) != NULL ?
	    group_name(a->group) : "-", scope_name(a->scope) != NULL ?
	    scope_name(a->scope) : "-", confidence_level(a->confidence),
	    a->confidence);
	diag_section(d, title);
	free(title);
	diag_text(d, 2, TR_NORMAL, a->verdict_explanation);
	diag_evidence(d, inc, &a->verdict_evidence);
	if (a->nadvice == 0)
		return;
	diag_section(d, "Next steps (advice, not actions)");
	for (i = 0; i < a->nadvice; i++) {
		diag_textf(d, 2, TR_VERDICT, "%zu. %s", i + 1, a->advice[i].text);
		diag_text(d, 5, TR_NORMAL, a->advice[i].why);
	}
}

/* The checkpoint answer. */
static void
diag_build_ckpt(struct diag *d, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	struct buf		 b = { 0 };
	size_t			 i;

	buf_printf(&b, "Checkpoint: %s", ckpt_status_name(a->ckpt));
	if (a->last_safe_step != RL_NONE)
		buf_printf(&b, ", last safe step %d", a->last_safe_step);
	for (i = 0; i < a->nunsafe; i++)
		buf_printf(&b, "%s%d", i ? "," : ", unsafe ", a->unsafe_steps[i]);
	for (i = 0; i < a->nsuspect; i++)
		buf_printf(&b, "%s%d", i ? "," : ", suspect ",
		    a->suspect_steps[i]);
	diag_section(d, b.p);
	buf_clear(&b);
	diag_text(d, 2, TR_NORMAL, a->ckpt_explanation);
	diag_evidence(d, inc, &a->ckpt_evidence);
}

/* The hosts' clocks, when there are several. */
static void
diag_build_skew(struct diag *d, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	size_t			 i;

	if (a->nskew == 0)
		return;
	diag_section(d, "Clocks, from the step lines every rank printed");
	for (i = 0; i < a->nskew; i++) {
		if (a->skew[i].reference)
			diag_textf(d, 2, TR_NORMAL, "%s: the reference",
			    a->skew[i].host);
		else
			diag_textf(d, 2, TR_NORMAL, "%s: %+.3f s (%zu samples, "
			    "spread %.3f s)", a->skew[i].host,
			    (double)a->skew[i].offset_ms / 1000,
			    a->skew[i].samples,
			    (double)a->skew[i].spread_ms / 1000);
	}
}

/* vLLM's memory budget and the what-ifs. */
static void
diag_build_capacity(struct diag *d, const struct rl_incident *inc)
{
	const struct rl_capacity	*c = &inc->answer.capacity;
	size_t				 i;

	if (!c->present)
		return;
	diag_section(d, "Memory budget (vLLM)");
	for (i = 0; i < c->nlines; i++)
		diag_text(d, 2, TR_NORMAL, c->lines[i]);
	if (c->nwhatif > 0)
		diag_text(d, 2, TR_LABEL, "one change at a time:");
	for (i = 0; i < c->nwhatif; i++)
		diag_text(d, 4, TR_VERDICT, c->whatif[i]);
}

/* The evidence checklist: what the logs hold, what to collect. */
static void
diag_build_checklist(struct diag *d, const struct rl_incident *inc)
{
	const struct rl_check_item	*c = inc->answer.checklist;
	size_t				 at;
	int				 k;

	diag_section(d, "Evidence checklist (collect what is missing first)");
	for (k = 0; k < CHECK_NITEMS; k++) {
		if (c[k].found || c[k].missing == NULL)
			at = diag_text(d, 4, TR_NORMAL, check_name(k));
		else
			at = diag_text(d, 4, TR_UNSAFE, c[k].missing);
		diag_mark(d, at, c[k].missing == NULL ? screen_sym("\xe2\x9c\x93",
		    "+") : screen_sym("\xe2\x9c\x97", "-"), c[k].missing ==
		    NULL ? TR_SAFE : TR_UNSAFE);
	}
}

/*
 * Rules that gave lines up at pcre2's match limit: what they would have
 * matched is missing from every answer above.
 */
static void
diag_build_limits(struct diag *d, const struct rl_incident *inc)
{
	char	**notes;
	size_t	  n, i;

	if ((n = ruleset_limit_notes(inc->rules, &notes)) == 0)
		return;
	diag_section(d, "Match limits (rankline rules check names the cause)");
	for (i = 0; i < n; i++) {
		diag_text(d, 2, TR_UNSAFE, notes[i]);
		free(notes[i]);
	}
	free(notes);
}

/* Build every line for the current model and width. */
static void
diag_build(struct diag *d, const struct rl_incident *inc)
{
	diag_clear(d);
	diag_build_first(d, inc);
	diag_build_verdict(d, inc);
	diag_build_ckpt(d, inc);
	diag_build_skew(d, inc);
	diag_build_capacity(d, inc);
	diag_build_limits(d, inc);
	diag_build_checklist(d, inc);
}

/* Set up. */
static void
view_diagnosis_init(struct view *v)
{
	struct diag	*d;

	d = v->data = xcalloc(1, sizeof *d);
	d->width = v->tui->sx;
	diag_build(d, v->tui->inc);
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
	diag_build(d, v->tui->inc);
}

/* The model was diagnosed again: rebuild, keeping the scroll. */
static void
view_diagnosis_update(struct view *v)
{
	diag_build(v->data, v->tui->inc);
}

/* Draw one line at y. */
static void
diag_draw_line(const struct diag_line *l, int y, int sx)
{
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
	int		 h = sy - 2, y;
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
	for (y = 0; y < h && (size_t)(d->top + y) < d->nlines; y++)
		diag_draw_line(&d->lines[d->top + y], 1 + y, sx);
	snprintf(right, sizeof right, "%d-%d/%zu", d->top + 1, d->top + y,
	    d->nlines);
	screen_status(t, sy - 1, "j/k scroll|d back|Esc back|? help", right);
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
