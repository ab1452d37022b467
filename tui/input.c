/*
 * input.c: the keyboard.
 *
 * The tty is polled by libuv; on each wake-up every key curses has is read
 * (wget_wch in nodelay mode, until ERR), turned into an action through the
 * binding table and handed to the view on top, whose reaction flags say
 * what happens next.  The table is also what the help view shows, so the
 * help can never disagree with the keys.
 */

#include <signal.h>
#include <stdlib.h>

#include <curses.h>

#include "tui.h"

#define INPUT_MAX_KEYS	4096	/* per wake-up, so a paste cannot starve the loop */
#define INPUT_MAX_EMPTY	64	/* wake-ups with nothing to read: the tty is gone */

#define V_ALL		0	/* a binding for every view */
#define V(id)		(1u << (id))
#define V_SUB		(V(VIEW_DETAIL) | V(VIEW_HELP) | V(VIEW_DIAGNOSIS) | \
			    V(VIEW_HISTORY) | V(VIEW_MERGED) | V(VIEW_MARKS) | \
			    V(VIEW_TEXT))
#define V_LINES		(V(VIEW_TIMELINE) | V(VIEW_MERGED))	/* the lines */

/* One key binding; the first that matches the key and the view wins. */
struct binding {
	int		 key;		/* a character, or TUI_KEYFN | KEY_* */
	unsigned	 views;		/* V() mask, or V_ALL */
	enum tui_action	 action;
	const char	*name;		/* keys as help shows them; NULL: an alias */
	const char	*help;		/* what it does */
};

#define INPUT_GROUP	(-1)	/* a heading of help's list, never a key */

static const struct binding input_bindings[] = {
	{ INPUT_GROUP, V_ALL, ACT_NONE, NULL, "Move" },
	{ 'j', V_ALL, ACT_DOWN, "j Down", "next rank (or line)" },
	{ TUI_KEYFN | KEY_DOWN, V_ALL, ACT_DOWN, NULL, NULL },
	{ 'k', V_ALL, ACT_UP, "k Up", "previous rank (or line)" },
	{ TUI_KEYFN | KEY_UP, V_ALL, ACT_UP, NULL, NULL },
	{ TUI_KEYFN | KEY_NPAGE, V_ALL, ACT_PAGE_DOWN, "PgDn ^F Space",
	    "page down" },
	{ TUI_CTRL('f'), V_ALL, ACT_PAGE_DOWN, NULL, NULL },
	{ ' ', V_ALL, ACT_PAGE_DOWN, NULL, NULL },
	{ TUI_KEYFN | KEY_PPAGE, V_ALL, ACT_PAGE_UP, "PgUp ^B", "page up" },
	{ TUI_CTRL('b'), V_ALL, ACT_PAGE_UP, NULL, NULL },
	{ TUI_KEYFN | KEY_HOME, V_ALL, ACT_HOME, "Home g",
	    "first rank (or top)" },
	{ 'g', V_ALL, ACT_HOME, NULL, NULL },
	{ TUI_KEYFN | KEY_END, V_ALL, ACT_END, "End G",
	    "last rank (or bottom)" },
	{ 'G', V_ALL, ACT_END, NULL, NULL },
	{ 'h', V_ALL, ACT_LEFT, "h Left", "previous event of the rank" },
	{ TUI_KEYFN | KEY_LEFT, V_ALL, ACT_LEFT, NULL, NULL },
	{ 'l', V_ALL, ACT_RIGHT, "l Right", "next event of the rank" },
	{ TUI_KEYFN | KEY_RIGHT, V_ALL, ACT_RIGHT, NULL, NULL },
	{ 'f', V_ALL, ACT_FIRST, "f", "go to the first failure (the timeline: "
	    "and zoom to the seconds around it)" },
	{ ']', V_LINES, ACT_NEXT_FAILURE, "] [", "next (previous) failing "
	    "line, on any rank, in time order" },
	{ '[', V_LINES, ACT_PREV_FAILURE, NULL, NULL },

	{ INPUT_GROUP, V_ALL, ACT_NONE, NULL, "Search, filter, marks" },
	/* Help lists a key once: the history's / and n are told below. */
	{ '/', V(VIEW_HISTORY), ACT_SEARCH, NULL, NULL },
	{ 'n', V(VIEW_HISTORY), ACT_NOTE, NULL, NULL },
	{ '/', V_LINES, ACT_FIND, "/", "search every rank's lines (pcre2, "
	    "smart case; history: its incidents)" },
	{ '?', V_LINES, ACT_FIND_BACK, "?", "search backwards in time (in the "
	    "other views: help)" },
	{ 'n', V_ALL, ACT_NEXT_FAILED, "n N", "next (previous) hit in time order, "
	    "else failed rank (history: n notes)" },
	{ 'N', V_ALL, ACT_PREV_FAILED, NULL, NULL },
	{ ':', V_LINES, ACT_COMMAND, ":", "ranks 3,5-7, host H, sig S, failures, "
	    "progress off, clear; rank N, goto F:N" },
	{ 'm', V_LINES | V(VIEW_MARKS), ACT_MARK, "m", "mark the selected line, "
	    "or take its mark away" },
	{ '\'', V_LINES | V(VIEW_MARKS), ACT_MARKS, "'", "the marked lines; "
	    "Enter goes to one" },
	{ '|', V_LINES, ACT_PIPE, "|", "pipe the selected line to a shell "
	    "command (on its stdin)" },
	{ 'y', V_LINES, ACT_YANK, "y", "copy the selected line to the "
	    "clipboard (OSC 52)" },
	{ 'L', V_LINES, ACT_MERGED, "L", "the merged log: every rank's lines "
	    "in time order" },
	{ '<', V(VIEW_MERGED), ACT_SCROLL_LEFT, "< >", "merged log: scroll "
	    "the lines sideways" },
	{ '>', V(VIEW_MERGED), ACT_SCROLL_RIGHT, NULL, NULL },

	{ INPUT_GROUP, V_ALL, ACT_NONE, NULL, "Views" },
	{ '\n', V_ALL, ACT_ENTER, "Enter", "open the selected event (history: "
	    "the incident; diagnosis: its file:line, merged)" },
	{ '\r', V_ALL, ACT_ENTER, NULL, NULL },
	{ TUI_KEYFN | KEY_ENTER, V_ALL, ACT_ENTER, NULL, NULL },
	{ 'q', V_SUB, ACT_BACK, "Esc q", "close this view" },
	{ 27, V_ALL, ACT_BACK, NULL, NULL },
	{ TUI_KEYFN | KEY_BACKSPACE, V_SUB, ACT_BACK, NULL, NULL },
	{ 'd', V_ALL, ACT_DIAGNOSIS, "d", "diagnosis: why, evidence, next "
	    "steps, checklist" },
	{ 'H', V_ALL, ACT_HISTORY, "H", "history: past incidents and their "
	    "notes" },
	{ TUI_KEYFN | KEY_F(1), V_ALL, ACT_HELP, "F1", "help (? too, where "
	    "? does not search)" },
	{ '?', V_ALL, ACT_HELP, NULL, NULL },
	{ 't', V_ALL, ACT_THEME, "t", "next colour theme" },
	{ TUI_CTRL('l'), V_ALL, ACT_REDRAW, "^L", "redraw the screen" },
	{ 'p', V_ALL, ACT_PAUSE, "p",
	    "pause following (lines are still read), or resume" },
	/* Told in help only: input_key takes the mouse before the table. */
	{ TUI_KEYFN | KEY_MOUSE, V_ALL, ACT_NONE, "mouse",
	    "click selects a rank or event, the wheel scrolls (--no-mouse)" },

	{ INPUT_GROUP, V_ALL, ACT_NONE, NULL, "Time and ranks" },
	{ '+', V(VIEW_TIMELINE), ACT_ZOOM_IN, "+ =", "zoom in on the time "
	    "axis, around the selected event" },
	{ '=', V(VIEW_TIMELINE), ACT_ZOOM_IN, NULL, NULL },
	{ '-', V(VIEW_TIMELINE), ACT_ZOOM_OUT, "-", "zoom out" },
	{ '{', V(VIEW_TIMELINE), ACT_PAN_LEFT, "{ S-Left",
	    "pan back in time (a quarter of the window)" },
	{ TUI_KEYFN | KEY_SLEFT, V(VIEW_TIMELINE), ACT_PAN_LEFT, NULL, NULL },
	{ '}', V(VIEW_TIMELINE), ACT_PAN_RIGHT, "} S-Right",
	    "pan forward in time" },
	{ TUI_KEYFN | KEY_SRIGHT, V(VIEW_TIMELINE), ACT_PAN_RIGHT, NULL, NULL },
	{ '0', V(VIEW_TIMELINE), ACT_ZOOM_RESET, "0",
	    "the whole job on the time axis again" },
	{ 'T', V(VIEW_TIMELINE), ACT_GOTO_TIME, "T", "go to a time in the "
	    "header's clock: HH:MM:SS[.mmm] or YYYY-MM-DDTHH:MM:SS" },
	{ 'z', V(VIEW_TIMELINE), ACT_GROUP, "z Tab", "expand or collapse the "
	    "selected group of ranks that behave alike" },
	{ '\t', V(VIEW_TIMELINE), ACT_GROUP, NULL, NULL },
	{ 'Z', V(VIEW_TIMELINE), ACT_GROUP_ALL, "Z", "collapse every group of "
	    "alike ranks, or expand them all" },

	{ INPUT_GROUP, V_ALL, ACT_NONE, NULL, "Report, history, quit" },
	{ 'e', V_ALL, ACT_EXPORT, "e", "write the report (Markdown) to a "
	    "file named in the status line" },
	{ 'E', V_ALL, ACT_EXPORT_ASK, "E", "write the report to a path you "
	    "type; .md, .html or .json says the format" },
	{ 'R', V(VIEW_HISTORY), ACT_RESOLVE, "R",
	    "history: write what fixed it" },
	{ 'q', V(VIEW_TIMELINE), ACT_QUIT, "q", "quit (from the timeline)" },
	{ 'Q', V_ALL, ACT_QUIT, "Q", "quit from anywhere" },
};

/*
 * Move a pager's first line by a scrolling action (end: where END goes);
 * false for any other action.  The view clamps it when it draws.
 */
bool
input_scroll(int *top, enum tui_action act, int page, int end)
{
	switch (act) {
	case ACT_DOWN:
		*top += 1;
		return true;
	case ACT_UP:
		*top -= 1;
		return true;
	case ACT_PAGE_DOWN:
		*top += page;
		return true;
	case ACT_PAGE_UP:
		*top -= page;
		return true;
	case ACT_HOME:
		*top = 0;
		return true;
	case ACT_END:
		*top = end;
		return true;
	default:
		return false;
	}
}

/* The action of a key in a view. */
enum tui_action
input_action(enum view_id view, int key)
{
	const struct binding	*b;
	size_t			 i;

	for (i = 0; i < nitems(input_bindings); i++) {
		b = &input_bindings[i];
		if (b->key == key && (b->views == V_ALL ||
		    (b->views & V(view)) != 0))
			return (b->action);
	}
	return (ACT_NONE);
}

/* How many bindings there are, for the help view. */
size_t
input_nbindings(void)
{
	return (nitems(input_bindings));
}

/*
 * Binding i as help shows it, if it applies to the view (VIEW_NVIEWS: to
 * any) and is not an alias: returns 1 and sets its keys and what it does,
 * or 2 for a group's heading (*name NULL, *help the heading).
 */
int
input_binding(size_t i, enum view_id view, const char **name,
    const char **help)
{
	const struct binding	*b = &input_bindings[i];

	if (b->key == INPUT_GROUP) {
		*name = NULL;
		*help = b->help;
		return (2);
	}
	if (b->name == NULL || (view != VIEW_NVIEWS && b->views != V_ALL &&
	    (b->views & V(view)) == 0))
		return (0);
	*name = b->name;
	*help = b->help;
	return (1);
}

/*
 * The keys every view shares, for what the view left alone: help, the
 * next theme, pause, quit.  Kept here once, so no view can forget one.
 */
static int
input_common(struct tui *t, int react, enum tui_action act)
{
	if (react != REACT_NONE)
		return (react);
	switch (act) {
	case ACT_HELP:
		return (REACT_VIEW(VIEW_HELP));
	case ACT_DIAGNOSIS:
		return (REACT_VIEW(VIEW_DIAGNOSIS));
	case ACT_HISTORY:
		return (REACT_VIEW(VIEW_HISTORY));
	case ACT_THEME:
		theme_next(t);
		return (REACT_REDRAW);
	case ACT_PAUSE:
		return (live_pause(t));
	case ACT_EXPORT:
		return (tui_export(t));
	case ACT_EXPORT_ASK:
		return (tui_export_ask(t));
	case ACT_QUIT:
		return (REACT_QUIT);
	default:
		return (lines_key(t, t->views[t->nviews - 1]->id, act));
	}
}

/* Give an action to the view on top and act on its reaction. */
static void
input_act(struct tui *t, int key, enum tui_action act)
{
	struct view	*v = t->views[t->nviews - 1];

	/* The engineer is reading: the selection no longer follows the answer. */
	if (act != ACT_NONE && act != ACT_HELP && act != ACT_THEME &&
	    act != ACT_PAUSE)
		t->sel_auto = false;
	tui_react(t, input_common(t, v->type->key(v, key, act), act));
}

/*
 * The mouse: the wheel moves as j and k do, three at a time as terminals
 * scroll, and button 1 is a click the view places (ACT_CLICK).
 */
static void
input_mouse(struct tui *t)
{
	MEVENT	me;
	int	i;

	if (getmouse(&me) != OK || t->export_path != NULL)
		return;
	if (me.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		for (i = 0; i < 3; i++)
			input_act(t, 0, me.bstate & BUTTON4_PRESSED ? ACT_UP :
			    ACT_DOWN);
	} else if (me.bstate & BUTTON1_PRESSED) {
		t->click_y = me.y;
		t->click_x = me.x;
		input_act(t, 0, ACT_CLICK);
	}
}

/* Give one key to the view on top and act on its reaction. */
static void
input_key(struct tui *t, int key)
{
	struct view	*v = t->views[t->nviews - 1];
	enum tui_action	 act;

	if (crash_test_key(key))
		return;
	/* E is asking a path: every key is the path's until Enter or Esc. */
	if (t->export_path != NULL) {
		tui_react(t, tui_export_key(t, key));
		return;
	}
	/* T is asking a time: the same, until Enter or Esc. */
	if (t->zoom.ask != NULL) {
		tui_react(t, zoom_ask_key(t, key));
		return;
	}
	/* So is the command line's (:, /, ?, |). */
	if (t->prompt != NULL) {
		tui_react(t, prompt_key(t, key));
		return;
	}
	if (t->message != NULL) {
		free(t->message);
		t->message = NULL;
		t->dirty = true;
	}
	if (key == (TUI_KEYFN | KEY_MOUSE)) {
		input_mouse(t);
		return;
	}
	act = lines_action(t, v->id, input_action(v->id, key));
	/* Esc stops a search that is still reading, before it closes. */
	if (act == ACT_BACK && key == 27 && (v->id == VIEW_TIMELINE ||
	    v->id == VIEW_MERGED) && search_cancel(t))
		return;
	if (act == ACT_REDRAW) {
		clearok(curscr, TRUE);
		t->dirty = true;
		return;
	}
	input_act(t, key, act);
}

/*
 * Read every key curses has: when the tty is readable (polled true), and
 * after a resize, for the KEY_RESIZE that resizeterm may have queued.
 */
void
input_drain(struct tui *t, bool polled)
{
	wint_t	 wc;
	int	 r, n = 0;

	while (n < INPUT_MAX_KEYS && !t->quitting) {
		if ((r = wget_wch(stdscr, &wc)) == ERR)
			break;
		n++;
		if (r == KEY_CODE_YES && wc == KEY_RESIZE)
			tui_resize(t);
		else if (r == KEY_CODE_YES)
			input_key(t, TUI_KEYFN | (int)wc);
		else
			input_key(t, (int)wc);
	}
	/* A hung-up tty stays readable and yields nothing: leave, not spin. */
	if (polled && n == 0 && ++t->empty_wakes >= INPUT_MAX_EMPTY)
		tui_quit(t, SIGHUP);
	else if (n > 0)
		t->empty_wakes = 0;
}
