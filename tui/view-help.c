/*
 * view-help.c: keys and what the timeline's marks mean (?).
 *
 * The key list is read from input.c's binding table, so it always says
 * what the keys really do; the legend is drawn with the same glyphs and
 * roles as the timeline, so it shows what the current theme looks like.
 * A last section says how the console follows its logs, and what p does.
 */

#include <stdlib.h>
#include <string.h>

#include "tui.h"

/* The legend: each glyph and what it marks. */
static const struct {
	enum tui_glyph	 glyph;
	const char	*what;
} help_legend[] = {
	{ GLYPH_FIRST, "the first failure: where to start reading" },
	{ GLYPH_FAIL, "another failure (root or symptom)" },
	{ GLYPH_HANG, "the rank that went quiet while the others waited" },
	{ GLYPH_COLLATERAL, "collateral: failed because a peer did" },
	{ GLYPH_WRAPPER, "a wrapper that carries a failure raised elsewhere" },
	{ GLYPH_CKPT, "a checkpoint save completed" },
	{ GLYPH_CKPT_BEGIN, "a checkpoint save began" },
	{ GLYPH_PROGRESS, "progress: training steps, readiness" },
	{ GLYPH_EVIDENCE, "evidence, or a line made harmless by context" },
};

/* What the lines keys (#25) add to the timeline. */
static const char *help_lines[] = {
	"a search's hits are marked on the rows (the mark above, or a",
	"failure's own mark highlighted), n and N go between them in time",
	"order across ranks, and the status line says \"hit 3 of 41\" and",
	"what was searched: the lines the rules named, which is what the",
	"console holds.  A filter (:) says so at the top right.",
};

/* What the diagnosis view (d) shows, in the order it shows it. */
static const char *help_diagnosis[] = {
	"why this rank failed first, with the lines for and against",
	"the verdict: domain, group, scope and confidence, and why",
	"the next steps: advice with its reasons, never an action",
	"the checkpoint to resume from, and what the folder says",
	"the hosts' clock offsets, vLLM's memory budget and what-ifs",
	"the evidence checklist: what to collect before restarting",
};

struct help {
	int		 top;		/* first line on screen */
	int		 nlines;	/* lines the last draw had */
};

/* Set up. */
static void
view_help_init(struct view *v)
{
	v->data = xcalloc(1, sizeof (struct help));
}

/* Free. */
static void
view_help_free(struct view *v)
{
	free(v->data);
}

/* Draw a section heading. */
static int
help_heading(int y, int top, int h, int x, int w, const char *text)
{
	if (y - top >= 0 && y - top < h)
		screen_puts(1 + y - top, x, w, TR_VERDICT, text);
	return (y + 1);
}

/* The key list in columns x to x + w; returns the next line. */
static int
help_keys(int y, int top, int h, int x, int w)
{
	const char	*name, *what;
	size_t		 i;

	y = help_heading(y, top, h, x, w, "Keys");
	for (i = 0; i < input_nbindings(); i++) {
		switch (input_binding(i, VIEW_NVIEWS, &name, &what)) {
		case 0:
			continue;
		case 2:
			if (y - top >= 0 && y - top < h)
				screen_puts(1 + y - top, x + 1, w - 1,
				    TR_LABEL, what);
			y++;
			continue;
		}
		if (y - top >= 0 && y - top < h) {
			screen_puts(1 + y - top, x + 2, 16, TR_KEY, name);
			screen_cut(1 + y - top, x + 20, w - 20, TR_NORMAL,
			    what);
		}
		y++;
	}
	return (y + 1);
}

/* The glyph legend and the rank states; returns the next line. */
static int
help_legend_draw(int y, int top, int h, int x, int w)
{
	static const char *states[] = {
		"ok      ran, no failure seen",
		"FAILED  the first failure is on this rank",
		"failed  failed the same way, after the first",
		"collat  failed because of another rank",
		"HUNG    went quiet while others waited",
		"exited  ended with an error of its own, not the first",
		"errors  failing lines with no rank to judge",
	};
	size_t	 i;

	y = help_heading(y, top, h, x, w, "Timeline marks");
	for (i = 0; i < nitems(help_legend); i++, y++) {
		if (y - top < 0 || y - top >= h)
			continue;
		screen_glyph(1 + y - top, x + 3, help_legend[i].glyph,
		    theme_glyph_role(help_legend[i].glyph));
		screen_cut(1 + y - top, x + 6, w - 6, TR_NORMAL,
		    help_legend[i].what);
	}
	if (y - top >= 0 && y - top < h) {
		screen_puts(1 + y - top, x + 3, 1, TR_LIFE,
		    screen_sym("\xe2\x94\x80", "-"));
		screen_cut(1 + y - top, x + 6, w - 6, TR_NORMAL,
		    "the rank was logging; blank after its last line");
	}
	if (y + 1 - top >= 0 && y + 1 - top < h) {
		screen_puts(1 + y + 1 - top, x + 3, 1, TR_HIGHLIGHT,
		    screen_sym("\xe2\x97\x8f", "*"));
		screen_cut(1 + y + 1 - top, x + 6, w - 6, TR_NORMAL,
		    "a search hit (/ and ?)");
	}
	y++;
	for (i = 0; i < nitems(help_lines); i++, y++) {
		if (y + 1 - top >= 0 && y + 1 - top < h)
			screen_cut(1 + y + 1 - top, x + 3, w - 3, TR_DIM,
			    help_lines[i]);
	}
	y = help_heading(y + 2, top, h, x, w, "Rank states");
	for (i = 0; i < nitems(states); i++, y++) {
		if (y - top >= 0 && y - top < h)
			screen_cut(1 + y - top, x + 3, w - 3, TR_NORMAL,
			    states[i]);
	}
	y = help_heading(y + 1, top, h, x, w, "Diagnosis (d)");
	for (i = 0; i < nitems(help_diagnosis); i++, y++) {
		if (y - top >= 0 && y - top < h)
			screen_cut(1 + y - top, x + 3, w - 3, TR_NORMAL,
			    help_diagnosis[i]);
	}
	return (y + 1);
}

/* How the console follows its sources; returns the next line. */
static int
help_follow(struct tui *t, int y, int top, int h, int x, int w)
{
	static const char *lines[] = {
		"The console follows its logs as they are written: appended",
		"lines, new files in a folder, rotation, commands (--cmd) and",
		"a piped standard input.  It diagnoses again at most every",
		"150 ms while lines come; the status line says what it follows",
		"and how many new lines a second, or idle.",
		"p pauses the screen: lines are still read, and p again shows",
		"them.  --no-follow reads the logs once.",
	};
	size_t	 i;

	y = help_heading(y, top, h, x, w, "Following");
	for (i = 0; i < nitems(lines); i++, y++) {
		if (y - top >= 0 && y - top < h)
			screen_cut(1 + y - top, x + 3, w - 3, TR_NORMAL,
			    lines[i]);
	}
	if (y - top >= 0 && y - top < h)
		screen_cut(1 + y - top, x + 3, w - 3, TR_DIM,
		    t->live.follow == NULL ? "Now: read once (--no-follow)." :
		    t->live.paused ? "Now: paused." : "Now: following.");
	return (y + 2);
}

/* Draw: keys and legend side by side when there is room, else one list. */
static void
view_help_draw(struct view *v, int sx, int sy)
{
	struct help	*hp = v->data;
	struct tui	*t = v->tui;
	int		 h = sy - 2, y, y2, half = sx / 2;

	if (hp->top > hp->nlines - h)
		hp->top = hp->nlines - h;
	if (hp->top < 0)
		hp->top = 0;
	screen_fill(0, 0, sx, TR_TITLE);
	screen_puts(0, 1, sx - 2, TR_TITLE, "rankline help");
	if (sx >= 110) {
		y = help_keys(0, hp->top, h, 1, half - 2);
		y2 = help_legend_draw(0, hp->top, h, half, sx - half - 1);
		y2 = help_follow(t, y2, hp->top, h, half, sx - half - 1);
		y = y > y2 ? y : y2;
	} else {
		y = help_keys(0, hp->top, h, 1, sx - 2);
		y = help_legend_draw(y, hp->top, h, 1, sx - 2);
		y = help_follow(t, y, hp->top, h, 1, sx - 2);
	}
	if (y - hp->top >= 0 && y - hp->top < h)
		screen_printf(1 + y - hp->top, 1, sx - 2, TR_DIM,
		    "theme %s%s; t switches; themes live in ~/.config/rankline/"
		    "themes/", t->theme != NULL ? t->theme : "?",
		    t->mono ? " (no colours)" : "");
	hp->nlines = y + 1;
	screen_status(t, sy - 1, "j/k scroll|Esc back|q back|Q quit", NULL);
}

/* Keys: scroll or close. */
static int
view_help_key(struct view *v, int key, enum tui_action act)
{
	struct help	*hp = v->data;
	int		 page = v->tui->sy > 4 ? v->tui->sy - 3 : 1;

	(void)key;
	if (input_scroll(&hp->top, act, page, hp->nlines))
		return (REACT_REDRAW);
	switch (act) {
	case ACT_BACK:
	case ACT_HELP:
		return (REACT_CLOSE);
	default:
		return (REACT_NONE);
	}
}

const struct view_type view_help_type = {
	.name = "help",
	.init = view_help_init,
	.free = view_help_free,
	.resize = NULL,
	.draw = view_help_draw,
	.key = view_help_key,
	.update = NULL,
};
