/*
 * view-text.c: a stored incident's report, read from the store alone.
 *
 * The history's Enter shows an incident in the console's own views by
 * reading its logs again; when they are gone (rotated, a node's local
 * disk, a pipe), what the store kept is still the diagnosis: the report
 * `rankline report --incident N` writes, shown here as a pager.  Its
 * lines hold log text, so each is drawn through screen_cut, which makes
 * it safe for the terminal.
 */

#include <stdlib.h>
#include <string.h>

#include "tui.h"

struct text {
	char		*title;		/* owned */
	char		*p;		/* the text, owned, cut into lines */
	char		**lines;	/* into p */
	size_t		 n;
	int		 top;		/* first line on screen */
};

/* Take the text the history left for us (tui_show_text), line by line. */
static void
view_text_init(struct view *v)
{
	struct text	*x;
	struct tui	*t = v->tui;
	char		*s, *nl;

	x = v->data = xcalloc(1, sizeof *x);
	x->title = t->text_title != NULL ? t->text_title : xstrdup("");
	x->p = t->text != NULL ? t->text : xstrdup("");
	t->text_title = t->text = NULL;
	for (s = x->p; *s != '\0'; s = nl + 1) {
		x->lines = xreallocarray(x->lines, x->n + 1, sizeof *x->lines);
		x->lines[x->n++] = s;
		if ((nl = strchr(s, '\n')) == NULL)
			break;
		*nl = '\0';
	}
}

static void
view_text_free(struct view *v)
{
	struct text	*x = v->data;

	free(x->title);
	free(x->p);
	free(x->lines);
	free(x);
}

static void
view_text_draw(struct view *v, int sx, int sy)
{
	struct text	*x = v->data;
	char		 right[48];
	int		 h = sy - 2, y;

	if (x->top > (int)x->n - h)
		x->top = (int)x->n - h;
	if (x->top < 0)
		x->top = 0;
	screen_fill(0, 0, sx, TR_TITLE);
	screen_cut(0, 1, sx - 2, TR_TITLE, x->title);
	for (y = 0; y < h && (size_t)(x->top + y) < x->n; y++)
		screen_cut(1 + y, 1, sx - 2, TR_NORMAL, x->lines[x->top + y]);
	snprintf(right, sizeof right, "%d-%d/%zu", x->n ? x->top + 1 : 0,
	    x->top + y, x->n);
	screen_status(v->tui, sy - 1, "j/k scroll|Esc back|Q quit", right);
}

static int
view_text_key(struct view *v, int key, enum tui_action act)
{
	struct text	*x = v->data;
	int		 page = v->tui->sy > 4 ? v->tui->sy - 3 : 1;

	(void)key;
	if (input_scroll(&x->top, act, page, (int)x->n))
		return (REACT_REDRAW);
	if (act == ACT_BACK)
		return (REACT_CLOSE);
	return (REACT_NONE);
}

const struct view_type view_text_type = {
	.name = "text",
	.init = view_text_init,
	.free = view_text_free,
	.draw = view_text_draw,
	.key = view_text_key,
};
