/*
 * lines.c: the console's keys for working the lines of every rank (#25):
 * the command line's filters and jumps, the next and previous failing
 * line across ranks (] and [), marks (m, '), the pipe (|), the copy (y)
 * and the merged log (L).  Handlers return reactions and never draw; the
 * one drawing here is the filter's banner, which the timeline and the
 * merged log put in their header.
 */
#include <stdlib.h>
#include <string.h>

#include "tui.h"

/* Is an event a line a row lists (not hidden, not a tee'd copy)? */
bool
lines_listed(const struct tui *t, unsigned ev)
{
	return ev < t->index.nevents && t->index.row_of_event[ev] >= 0 &&
	    t->index.copy_of[ev] < 0;
}

/*
 * The listed event of source src at line n, else the first after it, else
 * the last before it; -1 when the source has no listed line.  A tee'd
 * copy at that line stands for the line it copies.
 */
int
lines_event_at(const struct tui *t, unsigned src, uint64_t n)
{
	const struct rl_event	*e;
	size_t			 i;
	int			 after = -1, before = -1, c;
	uint64_t		 al = 0, bl = 0;

	for (i = 0; i < t->index.nevents; i++) {
		e = t->inc->events[i];
		if (e->source != src || t->index.row_of_event[i] < 0)
			continue;
		c = t->index.copy_of[i] >= 0 ? t->index.copy_of[i] : (int)i;
		if (e->line == n)
			return c;
		if (e->line > n && (after < 0 || e->line < al)) {
			after = c;
			al = e->line;
		} else if (e->line < n && (before < 0 || e->line > bl)) {
			before = c;
			bl = e->line;
		}
	}
	return after >= 0 ? after : before;
}

/* Does path end with name, at a '/' or whole? */
static bool
lines_path_ends(const char *path, const char *name)
{
	size_t	 pl = strlen(path), nl = strlen(name);

	if (nl == 0 || nl > pl || strcmp(path + pl - nl, name) != 0)
		return false;
	return nl == pl || path[pl - nl - 1] == '/' || name[0] == '/';
}

/* The source a FILE names (the end of its path); -1 with *cause. */
int
lines_source(const struct tui *t, const char *name, char **cause)
{
	const struct rl_source	*s;
	size_t			 i;
	int			 found = -1, n = 0;

	for (i = 0; i < t->inc->nsources; i++) {
		s = t->inc->sources[i];
		if (s->path != NULL && (lines_path_ends(s->path, name) ||
		    strcmp(model_source_name(t, (unsigned)i), name) == 0)) {
			if (found < 0)
				found = (int)i;
			n++;
		}
	}
	if (n == 1)
		return found;
	if (n == 0)
		xasprintf(cause, "no source ends with %s", name);
	else
		xasprintf(cause, "%d sources end with %s: give more of the path",
		    n, name);
	return -1;
}

/* Jump to line n of source src, saying what was found. */
static int
lines_goto(struct tui *t, unsigned src, uint64_t n)
{
	int	 ev = lines_event_at(t, src, n);

	if (ev < 0) {
		tui_set_message(t, true, "%s has no line the rows list%s",
		    model_source_name(t, src), filter_active(&t->filter) ?
		    " (a filter is on)" : "");
		return REACT_REDRAW;
	}
	tui_select_event(t, ev);
	if (t->inc->events[ev]->line != n || t->inc->events[ev]->source != src)
		tui_set_message(t, false, "no listed line at %s:%llu; the "
		    "nearest is %s:%llu", model_source_name(t, src),
		    (unsigned long long)n, model_source_name(t,
		    t->inc->events[ev]->source),
		    (unsigned long long)t->inc->events[ev]->line);
	return REACT_REDRAW;
}

/* :rank N: select that rank's row. */
static int
lines_rank(struct tui *t, int rank)
{
	size_t	 r;

	for (r = 0; r < t->index.nrows; r++) {
		if (t->index.rows[r].rank != NULL &&
		    t->index.rows[r].rank->rank == rank) {
			tui_select_row(t, (int)r);
			return REACT_REDRAW;
		}
	}
	tui_set_message(t, true, "no rank %d%s", rank, incident_rank(t->inc,
	    rank) != NULL ? " on screen: the filter hides it (:clear)" : "");
	return REACT_REDRAW;
}

/* Say what the filter now is. */
static void
lines_say_filter(struct tui *t)
{
	struct buf	 b = { 0 };

	if (!filter_active(&t->filter)) {
		tui_set_message(t, false, "no filter: every row and line shown");
		return;
	}
	filter_describe(&t->filter, screen_sym(" \xc2\xb7 ", " - "), &b);
	tui_set_message(t, false, "filter: %s (%zu row%s; :clear shows all)",
	    b.p, t->index.nrows, t->index.nrows == 1 ? "" : "s");
	buf_clear(&b);
}

/* Run a command typed after ':'. */
int
lines_command(struct tui *t, const char *text)
{
	struct cmdline	 c;
	char		*cause = NULL;
	int		 src, r = REACT_REDRAW;

	if (cmdline_parse(&c, text, &cause) != 0) {
		tui_set_message(t, true, "%s", cause);
		free(cause);
		return REACT_REDRAW;
	}
	if (filter_command(&t->filter, &c)) {
		t->sel_auto = false;
		tui_rebuild(t);
		lines_say_filter(t);
		cmdline_clear(&c);
		return REACT_REDRAW;
	}
	switch (c.kind) {
	case CMD_RANK:
		r = lines_rank(t, (int)c.n);
		break;
	case CMD_LINE:
		if (t->sel_event == RL_NONE)
			tui_set_message(t, true, "line: no line is selected, so "
			    "no source: goto FILE:LINE names one");
		else
			r = lines_goto(t, t->inc->events[t->sel_event]->source,
			    (uint64_t)c.n);
		break;
	case CMD_GOTO:
		if ((src = lines_source(t, c.arg, &cause)) < 0) {
			tui_set_message(t, true, "goto: %s", cause);
			free(cause);
		} else
			r = lines_goto(t, (unsigned)src, (uint64_t)c.n);
		break;
	case CMD_NOSEARCH:
		search_free(t);
		tui_set_message(t, false, "search cleared");
		break;
	default:
		break;
	}
	cmdline_clear(&c);
	return r;
}

/* ] and [: the next failing line in time, on any rank. */
static int
lines_next_failure(struct tui *t, int d)
{
	const struct tui_index	*ix = &t->index;
	const struct rl_event	*e;
	const char		*sep = screen_sym(" \xc2\xb7 ", " - ");
	long			 i, n = (long)ix->nevents, at = -1;
	size_t			 k = 0, total = 0;
	int			 from = t->sel_event;
	char			 when[32], label[128];

	if (from == RL_NONE)
		from = d > 0 ? -1 : (int)n;
	for (i = from + d; i >= 0 && i < n; i += d) {
		if (lines_listed(t, (unsigned)i) &&
		    event_failing(t->inc->events[i])) {
			at = i;
			break;
		}
	}
	if (at < 0) {
		tui_set_message(t, false, "no %s failing line%s", d > 0 ?
		    "later" : "earlier", filter_active(&t->filter) ?
		    " the filter shows" : "");
		return REACT_REDRAW;
	}
	for (i = 0; i < n; i++) {
		if (!lines_listed(t, (unsigned)i) ||
		    !event_failing(t->inc->events[i]))
			continue;
		total++;
		if (i <= at)
			k++;
	}
	tui_select_event(t, (int)at);
	e = t->inc->events[at];
	model_time_short(&e->time, when, sizeof when, true);
	tui_set_message(t, false, "failing line %zu of %zu%s%s %s%s%s:%llu", k,
	    total, sep, when, model_event_label(t, (unsigned)at, label,
	    sizeof label), sep, model_source_name(t, e->source),
	    (unsigned long long)e->line);
	return REACT_REDRAW;
}

/* Where seq is, or would go, in the sorted marks. */
static size_t
lines_mark_pos(const struct tui *t, uint64_t seq)
{
	size_t	 lo = 0, hi = t->nmarks, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->marks[mid] < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Is the event of seq marked? */
bool
lines_marked(const struct tui *t, uint64_t seq)
{
	size_t	 at = lines_mark_pos(t, seq);

	return at < t->nmarks && t->marks[at] == seq;
}

/* m: mark the selected line, or take its mark away. */
static int
lines_mark(struct tui *t)
{
	uint64_t	 seq;
	size_t		 at;

	if (t->sel_event == RL_NONE) {
		tui_set_message(t, false, "no line selected to mark");
		return REACT_REDRAW;
	}
	seq = t->inc->events[t->sel_event]->seq;
	at = lines_mark_pos(t, seq);
	if (at < t->nmarks && t->marks[at] == seq) {
		memmove(&t->marks[at], &t->marks[at + 1],
		    (t->nmarks - at - 1) * sizeof *t->marks);
		t->nmarks--;
		tui_set_message(t, false, "mark taken away (%zu left)",
		    t->nmarks);
		return REACT_REDRAW;
	}
	t->marks = array_grow(t->marks, t->nmarks + 1, &t->cmarks,
	    sizeof *t->marks);
	memmove(&t->marks[at + 1], &t->marks[at],
	    (t->nmarks - at) * sizeof *t->marks);
	t->marks[at] = seq;
	t->nmarks++;
	tui_set_message(t, false, "marked: %zu mark%s (' lists them)",
	    t->nmarks, t->nmarks == 1 ? "" : "s");
	return REACT_REDRAW;
}

/* Where the lines views take n and N: to the hits when there is a search. */
enum tui_action
lines_action(const struct tui *t, enum view_id v, enum tui_action act)
{
	if (!search_active(t) || (v != VIEW_TIMELINE && v != VIEW_MERGED))
		return act;
	if (act == ACT_NEXT_FAILED)
		return ACT_NEXT_HIT;
	if (act == ACT_PREV_FAILED)
		return ACT_PREV_HIT;
	return act;
}

/* The lines keys, for what the view on top left alone. */
int
lines_key(struct tui *t, enum view_id v, enum tui_action act)
{
	(void)v;
	switch (act) {
	case ACT_FIND:
		return prompt_open(t, '/');
	case ACT_FIND_BACK:
		return prompt_open(t, '?');
	case ACT_COMMAND:
		return prompt_open(t, ':');
	case ACT_PIPE:
		if (t->sel_event == RL_NONE) {
			tui_set_message(t, false, "no line selected to pipe");
			return REACT_REDRAW;
		}
		return prompt_open(t, '|');
	case ACT_NEXT_HIT:
	case ACT_PREV_HIT:
		return search_next(t, act == ACT_NEXT_HIT ? 1 : -1);
	case ACT_NEXT_FAILURE:
	case ACT_PREV_FAILURE:
		return lines_next_failure(t, act == ACT_NEXT_FAILURE ? 1 : -1);
	case ACT_MARK:
		return lines_mark(t);
	case ACT_MARKS:
		return REACT_VIEW(VIEW_MARKS);
	case ACT_YANK:
		return pipe_yank(t);
	case ACT_MERGED:
		return REACT_VIEW(VIEW_MERGED);
	default:
		return REACT_NONE;
	}
}

/* The filter, said at the right of header line y, over what is there. */
void
lines_banner(struct tui *t, int y, int sx)
{
	struct buf	 b = { 0 };
	int		 w;

	if (!filter_active(&t->filter))
		return;
	buf_adds(&b, " filter: ");
	filter_describe(&t->filter, screen_sym(" \xc2\xb7 ", " - "), &b);
	buf_addc(&b, ' ');
	w = screen_width(b.p, b.len);
	if (w > sx - 2)
		w = sx - 2;
	screen_cut(y, sx - w - 1, w, TR_UNSAFE, b.p);
	buf_clear(&b);
}

/* Free the search, the command line, the filter and the marks. */
void
lines_free(struct tui *t)
{
	search_free(t);
	prompt_free(t);
	filter_clear(&t->filter);
	free(t->marks);
	t->marks = NULL;
	t->nmarks = t->cmarks = 0;
}
