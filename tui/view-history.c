/*
 * view-history.c: past incidents and what was written about them (H).
 *
 * Between incidents the engineer browses what happened before, and after
 * one writes down what it was and what fixed it, so that the next time the
 * same failure comes the console says so.  The rows come from the caller's
 * store through struct tui_history (tui/ never speaks SQL); they are read
 * when the view opens, after a search and after a note, not on every draw.
 *
 * A search or a note is typed on the status line.  While it is typed every
 * key is text: q, n and the rest are letters, Enter keeps, Esc drops.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "tui.h"

#define HIST_DETAIL	4	/* lines under the list for the selected row */
#define HIST_EDIT_MAX	1000	/* bytes a typed line may hold */

enum hist_edit {
	EDIT_NONE = 0,
	EDIT_SEARCH,
	EDIT_DIAGNOSIS,
	EDIT_RESOLUTION
};

struct hist {
	struct tui_past	*rows;		/* owned, newest first */
	size_t		 n;
	int		 sel;		/* selected row */
	int		 top;		/* first row on screen */
	char		*query;		/* owned, or NULL: every incident */
	enum hist_edit	 edit;		/* what is being typed, if anything */
	struct buf	 text;		/* what was typed */
	bool		 loaded;	/* rows were read at least once */
};

/* Free an array of rows a list call made. */
void
tui_past_free(struct tui_past *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].when);
		free(v[i].signature);
		free(v[i].message);
		free(v[i].where);
		free(v[i].summary);
		free(v[i].diagnosis);
		free(v[i].resolution);
	}
	free(v);
}

/* Read the rows again, keeping the selection on the same incident. */
static void
hist_load(struct hist *h, struct tui *t)
{
	const struct tui_history *hs = t->cfg->history;
	struct tui_past	*v = NULL;
	size_t		 n = 0, i;
	int64_t		 keep = h->n > 0 ? h->rows[h->sel].id : -1;
	char		*cause = NULL;

	if (hs == NULL) {
		tui_set_message(t, true, "no history: the store is off "
		    "(--no-store)");
		return;
	}
	if (hs->list(hs->arg, h->query, &v, &n, &cause) != 0) {
		tui_set_message(t, true, "history: %s", cause != NULL ? cause :
		    "cannot be read");
		free(cause);
		return;
	}
	tui_past_free(h->rows, h->n);
	h->rows = v;
	h->n = n;
	h->sel = 0;
	for (i = 0; i < n; i++) {
		if (v[i].id == keep)
			h->sel = (int)i;
	}
	h->loaded = true;
}

/* Set up: read the history. */
static void
view_history_init(struct view *v)
{
	struct hist	*h;

	h = v->data = xcalloc(1, sizeof *h);
	hist_load(h, v->tui);
}

/* Free. */
static void
view_history_free(struct view *v)
{
	struct hist	*h = v->data;

	tui_past_free(h->rows, h->n);
	free(h->query);
	buf_clear(&h->text);
	free(h);
}

/* Nothing is laid out ahead of drawing. */
static void
view_history_resize(struct view *v, int sx, int sy)
{
	(void)v;
	(void)sx;
	(void)sy;
}

/* The incident being followed changed; the stored ones did not. */
static void
view_history_update(struct view *v)
{
	(void)v;
}

/* "2026-11-02T14:03:07.123Z" as "2026-11-02 14:03". */
static void
hist_when(const char *iso, char *out, size_t len)
{
	snprintf(out, len, "%.16s", iso != NULL ? iso : "");
	if (strlen(out) > 10 && out[10] == 'T')
		out[10] = ' ';
}

/*
 * One row of the list at line y: number, time, the signature (the rule,
 * then the root line's message: the exception's text is what an engineer
 * recognises), a mark when a note was written (n, or R once it was
 * resolved), and where.  The verdict's sentence is in the detail.
 */
static void
hist_draw_row(const struct tui_past *r, int y, int sx, bool sel)
{
	enum tui_role	 role = sel ? TR_SELECTED : TR_NORMAL;
	char		 when[24];
	int		 x, n, ww = sx >= 120 ? 24 : 16, w = sx - 25 - ww - 4;

	if (sel)
		screen_fill(y, 0, sx, TR_SELECTED);
	hist_when(r->when, when, sizeof when);
	screen_printf(y, 1, 7, sel ? role : TR_LABEL, "#%lld",
	    (long long)r->id);
	screen_puts(y, 8, 17, sel ? role : TR_TIME, when);
	x = 25;
	if (w < 12)
		w = 12;
	n = screen_cut(y, x, w, sel ? role : r->signature != NULL ?
	    TR_FAILURE : TR_SAFE, r->signature != NULL ? r->signature :
	    "no failure");
	/* screen_cut makes the log's text safe to draw. */
	if (r->message != NULL && n + 1 < w)
		screen_cut(y, x + n + 1, w - n - 1, sel ? role : TR_NORMAL,
		    r->message);
	x += w + 1;
	if (r->diagnosis != NULL || r->resolution != NULL)
		screen_puts(y, x, 1, sel ? role : TR_KEY,
		    r->resolution != NULL ? "R" : "n");
	x += 2;
	if (x < sx - 1 && r->where != NULL)
		screen_cut(y, x, sx - x - 1, role, r->where);
}

/* The selected incident's sentence and notes, under the list. */
static void
hist_draw_detail(const struct tui_past *r, int y, int sx)
{
	screen_fill(y, 0, sx, TR_PANE);
	screen_printf(y, 1, sx - 2, TR_PANE, "incident #%lld  (rankline show "
	    "%lld)", (long long)r->id, (long long)r->id);
	screen_printf(y + 1, 1, sx - 2, TR_NORMAL, "%s", r->summary != NULL ?
	    r->summary : "no failure was found");
	screen_puts(y + 2, 1, 12, TR_LABEL, "diagnosis");
	screen_cut(y + 2, 13, sx - 14, r->diagnosis != NULL ? TR_HIGHLIGHT :
	    TR_DIM, r->diagnosis != NULL ? r->diagnosis : "none yet: n writes "
	    "one");
	screen_puts(y + 3, 1, 12, TR_LABEL, "resolution");
	screen_cut(y + 3, 13, sx - 14, r->resolution != NULL ? TR_HIGHLIGHT :
	    TR_DIM, r->resolution != NULL ? r->resolution : "none yet: R "
	    "writes one");
}

/* The line being typed, on the status line, its end kept in sight. */
static void
hist_draw_edit(const struct hist *h, int y, int sx)
{
	const char	*label = h->edit == EDIT_SEARCH ? "search: " :
			    h->edit == EDIT_DIAGNOSIS ? "diagnosis: " :
			    "resolution: ";
	int		 x;

	screen_fill(y, 0, sx, TR_STATUS);
	x = 1 + screen_puts(y, 1, sx - 2, TR_KEY, label);
	x += screen_cut_left(y, x, sx - x - 2, TR_STATUS,
	    h->text.p != NULL ? h->text.p : "");
	screen_puts(y, x, 1, TR_KEY, "_");
}

/* Draw. */
static void
view_history_draw(struct view *v, int sx, int sy)
{
	struct hist	*h = v->data;
	struct tui	*t = v->tui;
	char		 title[160], right[32];
	int		 list = sy - 2 - (h->n > 0 ? HIST_DETAIL : 0), y;

	if (list < 1)
		list = 1;
	if (h->sel >= (int)h->n)
		h->sel = h->n > 0 ? (int)h->n - 1 : 0;
	if (h->sel < 0)
		h->sel = 0;
	if (h->sel < h->top)
		h->top = h->sel;
	if (h->sel >= h->top + list)
		h->top = h->sel - list + 1;
	snprintf(title, sizeof title, "HISTORY  %zu incident%s%s%s%s", h->n,
	    h->n == 1 ? "" : "s", h->query != NULL ? " matching \"" : "",
	    h->query != NULL ? h->query : "", h->query != NULL ? "\"" : "");
	screen_fill(0, 0, sx, TR_TITLE);
	screen_cut(0, 1, sx - 2, TR_TITLE, title);
	if (h->n == 0)
		screen_puts(2, 2, sx - 4, TR_DIM, t->cfg->history == NULL ?
		    "The store is off (--no-store): nothing is kept." :
		    h->query != NULL ? "Nothing matches: / searches again, "
		    "an empty search shows all." : "Nothing stored yet.");
	for (y = 0; y < list && h->top + y < (int)h->n; y++)
		hist_draw_row(&h->rows[h->top + y], 1 + y, sx,
		    h->top + y == h->sel);
	if (h->n > 0 && sy - 1 - HIST_DETAIL > 1)
		hist_draw_detail(&h->rows[h->sel], sy - 1 - HIST_DETAIL, sx);
	if (h->edit != EDIT_NONE) {
		hist_draw_edit(h, sy - 1, sx);
		return;
	}
	snprintf(right, sizeof right, "%d/%zu", h->n > 0 ? h->sel + 1 : 0,
	    h->n);
	screen_status(t, sy - 1, "j/k move|/ search|n diagnosis|R resolution|"
	    "Esc back", right);
}

/* Keep what was typed: search with it, or write it as a note. */
static void
hist_commit(struct hist *h, struct tui *t)
{
	const struct tui_history *hs = t->cfg->history;
	const char	*s = h->text.p != NULL ? h->text.p : "";
	enum hist_edit	 what = h->edit;
	char		*cause = NULL;
	int64_t		 id;

	h->edit = EDIT_NONE;
	/* Blanks around what was typed are not part of it. */
	while (h->text.len > 0 && h->text.p[h->text.len - 1] == ' ')
		h->text.p[--h->text.len] = '\0';
	while (*s == ' ')
		s++;
	if (what == EDIT_SEARCH) {
		free(h->query);
		h->query = *s != '\0' ? xstrdup(s) : NULL;
		hist_load(h, t);
		return;
	}
	if (*s == '\0' || h->n == 0 || hs == NULL)
		return;
	id = h->rows[h->sel].id;
	if (hs->note(hs->arg, id, what == EDIT_RESOLUTION, s, &cause) != 0) {
		tui_set_message(t, true, "note not written: %s", cause != NULL ?
		    cause : "the store failed");
		free(cause);
		return;
	}
	hist_load(h, t);
	tui_set_message(t, false, "%s written on incident #%lld",
	    what == EDIT_RESOLUTION ? "resolution" : "diagnosis",
	    (long long)id);
}

/* Append a typed character, as UTF-8. */
static void
hist_type(struct hist *h, int key)
{
	unsigned	c = (unsigned)key;

	if (h->text.len >= HIST_EDIT_MAX)
		return;
	if (c < 0x80)
		buf_addc(&h->text, (char)c);
	else if (c < 0x800) {
		buf_addc(&h->text, (char)(0xc0 | (c >> 6)));
		buf_addc(&h->text, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		buf_addc(&h->text, (char)(0xe0 | (c >> 12)));
		buf_addc(&h->text, (char)(0x80 | ((c >> 6) & 0x3f)));
		buf_addc(&h->text, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x110000) {
		buf_addc(&h->text, (char)(0xf0 | (c >> 18)));
		buf_addc(&h->text, (char)(0x80 | ((c >> 12) & 0x3f)));
		buf_addc(&h->text, (char)(0x80 | ((c >> 6) & 0x3f)));
		buf_addc(&h->text, (char)(0x80 | (c & 0x3f)));
	}
}

/* Take back the last character typed (a whole UTF-8 sequence). */
static void
hist_rubout(struct hist *h)
{
	while (h->text.len > 0) {
		h->text.len--;
		if (((unsigned char)h->text.p[h->text.len] & 0xc0) != 0x80)
			break;
	}
	if (h->text.p != NULL)
		h->text.p[h->text.len] = '\0';
}

/* A key while a line is typed: every key is text but these. */
static int
hist_edit_key(struct hist *h, struct tui *t, int key)
{
	switch (key) {
	case 27:
		h->edit = EDIT_NONE;
		return (REACT_REDRAW);
	case '\n':
	case '\r':
	case TUI_KEYFN | KEY_ENTER:
		hist_commit(h, t);
		return (REACT_REDRAW);
	case 8:
	case 127:
	case TUI_KEYFN | KEY_BACKSPACE:
		hist_rubout(h);
		return (REACT_REDRAW);
	case TUI_CTRL('u'):
		buf_reset(&h->text);
		return (REACT_REDRAW);
	}
	/* Control characters and function keys are not text. */
	if ((key & TUI_KEYFN) == 0 && key >= 0x20 && key != 0x7f &&
	    (key < 0x80 || key >= 0xa0))
		hist_type(h, key);
	return (REACT_REDRAW);
}

/* Start typing a line of some kind. */
static int
hist_begin(struct hist *h, struct tui *t, enum hist_edit what)
{
	if (what != EDIT_SEARCH && h->n == 0) {
		tui_set_message(t, true, "no incident to write about");
		return (REACT_REDRAW);
	}
	if (t->cfg->history == NULL) {
		tui_set_message(t, true, "no history: the store is off "
		    "(--no-store)");
		return (REACT_REDRAW);
	}
	if (what != EDIT_SEARCH && t->cfg->history->note == NULL) {
		tui_set_message(t, true, "the store is read only (--no-store): "
		    "no note is written");
		return (REACT_REDRAW);
	}
	h->edit = what;
	buf_reset(&h->text);
	if (what == EDIT_SEARCH && h->query != NULL)
		buf_adds(&h->text, h->query);
	return (REACT_REDRAW);
}

/* Open the selected incident in the timeline, from its logs read again. */
static int
hist_open(struct hist *h, struct tui *t)
{
	const struct tui_history *hs = t->cfg->history;
	struct rl_incident	*inc;
	char			*cause = NULL, *text = NULL, *why = NULL;

	if (h->n == 0 || h->sel < 0 || (size_t)h->sel >= h->n)
		return (REACT_NONE);
	if (hs == NULL || hs->open == NULL) {
		tui_set_message(t, true, "no history: the store is off");
		return (REACT_REDRAW);
	}
	if (hs->open(hs->arg, h->rows[h->sel].id, &inc, &cause) != 0) {
		/* Its logs are gone: what the store kept, as a report. */
		if (hs->report != NULL && hs->report(hs->arg,
		    h->rows[h->sel].id, &text, &why) == 0) {
			free(t->text);
			free(t->text_title);
			t->text = text;
			xasprintf(&t->text_title, "incident #%lld from the "
			    "store: its logs cannot be read again",
			    (long long)h->rows[h->sel].id);
			tui_set_message(t, false, "%s", cause != NULL ? cause :
			    "");
			free(cause);
			return (REACT_VIEW(VIEW_TEXT));
		}
		tui_set_message(t, true, "%s", cause != NULL ? cause :
		    "the incident could not be opened");
		free(cause);
		free(why);
		return (REACT_REDRAW);
	}
	tui_open(t, inc, h->rows[h->sel].id);
	return (REACT_CLOSE | REACT_REDRAW);
}

/* Keys: move, search, write a note, back; never draw. */
static int
view_history_key(struct view *v, int key, enum tui_action act)
{
	struct hist	*h = v->data;
	struct tui	*t = v->tui;
	int		 page = t->sy > HIST_DETAIL + 4 ?
			    t->sy - HIST_DETAIL - 3 : 1;

	if (h->edit != EDIT_NONE)
		return (hist_edit_key(h, t, key));
	if (input_scroll(&h->sel, act, page, (int)h->n - 1))
		return (REACT_REDRAW);
	switch (act) {
	case ACT_ENTER:
		return (hist_open(h, t));
	case ACT_CLICK:
		/* The list starts on line 1, under its title. */
		if (t->click_y >= 1 && h->top + t->click_y - 1 < (int)h->n &&
		    t->click_y < t->sy - 1 - HIST_DETAIL) {
			h->sel = h->top + t->click_y - 1;
			return (REACT_REDRAW);
		}
		return (REACT_NONE);
	case ACT_SEARCH:
		return (hist_begin(h, t, EDIT_SEARCH));
	case ACT_NOTE:
		return (hist_begin(h, t, EDIT_DIAGNOSIS));
	case ACT_RESOLVE:
		return (hist_begin(h, t, EDIT_RESOLUTION));
	case ACT_BACK:
	case ACT_HISTORY:
		/* Opened with no paths, there is no incident to go back to. */
		return (t->cfg->start_history ? REACT_QUIT : REACT_CLOSE);
	default:
		return (REACT_NONE);
	}
}

const struct view_type view_history_type = {
	.name = "history",
	.init = view_history_init,
	.free = view_history_free,
	.resize = view_history_resize,
	.draw = view_history_draw,
	.key = view_history_key,
	.update = view_history_update,
};
