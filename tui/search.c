/*
 * search.c: / and ? over the lines of every rank, n and N between hits.
 *
 * A search has two kinds of hits.  The model's events (the lines a rule
 * named) are matched at once, as the rows list them: a filter's hidden
 * lines are no hits, and a tee'd copy is its listed line.  Every other
 * line is read again from its source by core's find-read.c, a step at a
 * time from the loop's idle hook, so that 500 MB of logs never hold the
 * keys or the live follow: the status line says how far it is ("searching…
 * 3,120 of 10,000 sources"), the hits show as they are found, Esc or a new
 * search stops it, and lines a followed source writes later are read as
 * they come.  A line hit is kept compact (source, line, offset, time,
 * process) and its text read again when drawn; a source that cannot be
 * read again (a command's output whose copy filled, a deleted file) is
 * searched through its events only, and the status line names it.
 *
 * n goes to the first hit after the selection in time, N to the one
 * before; after ? they swap, as in less and vi.  A line hit is shown in
 * the merged log (L); on the timeline its row is selected, at the event
 * before it, and the status line names the line.  The pattern is core's
 * find.c: pcre2, smart case, bounded.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui.h"
#include "find.h"
#include "search-int.h"

#define SEARCH_HITS_MAX	100000		/* line hits kept */
#define SEARCH_STEP	(256 * 1024)	/* bytes read between clock looks */
#define SEARCH_SLICE_NS	(8 * 1000000)	/* of the loop an idle turn takes */
#define SEARCH_FIRST_NS	(40 * 1000000)	/* the first turn, so that a small
					   search answers at once */
#define SEARCH_NAMES	3		/* events-only sources named */

static void	search_say(struct tui *, long, bool);

/* Forget the event hits, keep the rest. */
static void
search_reset(struct tui_search *s)
{
	free(s->hits);
	free(s->is_hit);
	s->hits = NULL;
	s->is_hit = NULL;
	s->nhits = s->chits = s->nevents = s->limited = 0;
	s->stale = true;
}

/* A line of a source matched: keep it, compact, while there is room. */
static void
search_hit_cb(void *arg, const struct find_hit *h)
{
	struct tui_search	*s = arg;

	if (s->nlines >= SEARCH_HITS_MAX) {
		s->capped = true;
		return;
	}
	s->lines = array_grow(s->lines, s->nlines + 1, &s->clines,
	    sizeof *s->lines);
	s->lines[s->nlines++] = *h;
	s->stale = true;
}

/* Match the listed events again; called whenever the index is rebuilt. */
static void
search_events(struct tui *t)
{
	struct tui_search	*s = t->search;
	const struct tui_index	*ix = &t->index;
	const struct rl_event	*e;
	size_t			 r, i;
	unsigned		 ev;
	int			 m;

	search_reset(s);
	s->nevents = ix->nevents;
	s->is_hit = xcalloc(ix->nevents + 1, 1);
	for (r = 0; r < ix->nrows; r++) {
		for (i = 0; i < ix->rows[r].n; i++) {
			ev = ix->ev[ix->rows[r].first + i];
			e = t->inc->events[ev];
			if (e->text == NULL)
				continue;
			if ((m = find_match(s->find, e->text,
			    strlen(e->text))) < 0)
				s->limited++;
			if (m > 0)
				s->is_hit[ev] = 1;
		}
	}
	/* The events are in time order: a walk over them sorts the hits. */
	for (i = 0; i < ix->nevents; i++) {
		if (!s->is_hit[i])
			continue;
		s->hits = array_grow(s->hits, s->nhits + 1, &s->chits,
		    sizeof *s->hits);
		s->hits[s->nhits++] = (unsigned)i;
	}
}

/* Can the idle hook run a search (not in bench, not while stopping)? */
static bool
search_can_idle(const struct tui *t)
{
	return t->search_idle.type == UV_IDLE && !t->quitting &&
	    !uv_is_closing((const uv_handle_t *)&t->search_idle);
}

/* A count as people read it: 10,000. */
static const char *
search_count(size_t n, char *buf, size_t len)
{
	char	 d[32];
	size_t	 nd, i, o = 0;

	nd = (size_t)snprintf(d, sizeof d, "%zu", n);
	for (i = 0; i < nd && o + 2 < len; i++) {
		if (i > 0 && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
	return buf;
}

/* Say how far the reading is. */
static void
search_progress(struct tui *t)
{
	struct tui_search	*s = t->search;
	size_t			 done, total;
	char			 a[32], b[32];

	done = find_read_progress(s->reader, &total);
	tui_set_message(t, false, "searching%s %s of %s source%s%s%zu hit%s so "
	    "far (Esc stops)", screen_sym("\xe2\x80\xa6", "..."),
	    search_count(done, a, sizeof a), search_count(total, b, sizeof b),
	    total == 1 ? "" : "s", screen_sym(" \xc2\xb7 ", " - "),
	    s->nhits + s->nvis, s->nhits + s->nvis == 1 ? "" : "s");
}

/* The reading caught up: say the first hit, or that there is none. */
static void
search_done(struct tui *t)
{
	struct tui_search	*s = t->search;

	s->reading = false;
	if (search_can_idle(t))
		uv_idle_stop(&t->search_idle);
	if (s->said)
		return;
	s->said = true;
	s->ms = (double)(uv_hrtime() - s->started) / 1e6;
	tui_log(t, "search /%s/: %zu line hits, %zu event hits, %.1f ms",
	    find_pattern(s->find), s->nlines, s->nhits, s->ms);
	/* Say where the selection is, going to the first hit if none was. */
	search_next(t, 0);
}

/* Read for about `ns` of the loop; false when the reading caught up. */
static bool
search_read(struct tui *t, uint64_t ns)
{
	struct tui_search	*s = t->search;
	uint64_t		 a = uv_hrtime();
	bool			 more;

	do
		more = find_read_step(s->reader, SEARCH_STEP);
	while (more && uv_hrtime() - a < ns);
	if (s->stale)
		t->dirty = true;
	return more;
}

/* The loop is idle: read on, and say how far. */
static void
search_idle_cb(uv_idle_t *h)
{
	struct tui	*t = h->data;
	struct tui_search *s = t->search;

	if (s == NULL || s->reader == NULL || !s->reading) {
		uv_idle_stop(h);
		return;
	}
	if (search_read(t, SEARCH_SLICE_NS)) {
		if (!s->said) {
			search_derive(t);
			search_progress(t);
		}
		return;
	}
	search_done(t);
}

/* Start (or go on with) reading every line, on the idle hook. */
static void
search_pump(struct tui *t)
{
	struct tui_search	*s = t->search;

	if (s->reader == NULL || s->stopped || s->reading)
		return;
	s->reading = true;
	if (search_can_idle(t)) {
		uv_idle_start(&t->search_idle, search_idle_cb);
		return;
	}
	/* No loop to run it on (bench): read it all now. */
	while (find_read_step(s->reader, SEARCH_STEP))
		;
	s->reading = false;
	s->said = true;
}

/*
 * Read every line of the console's incident, from the start: a new search,
 * or a stored incident opened from the history (or closed) under it.
 */
static void
search_restart(struct tui *t)
{
	struct tui_search	*s = t->search;

	find_read_free(s->reader);
	s->reader = NULL;
	s->nlines = 0;
	s->capped = s->stopped = s->said = false;
	s->sel = -1;
	s->stale = true;
	s->inc = t->inc;
	s->started = uv_hrtime();
	if (t->inc->rules != NULL)
		s->reader = find_read_create(t->inc, s->find, t->home == NULL &&
		    t->cfg != NULL && t->cfg->follow != NULL, search_hit_cb, s);
	if (s->reader == NULL)
		s->said = true;
}

/* The index was rebuilt (a diagnosis, a filter): match the events again. */
void
search_update(struct tui *t)
{
	struct tui_search	*s = t->search;

	if (s == NULL)
		return;
	if (s->inc != t->inc) {
		if (s->reading && search_can_idle(t))
			uv_idle_stop(&t->search_idle);
		s->reading = false;
		search_restart(t);
	}
	search_events(t);
	/* A followed source grew: its new lines are read too. */
	search_pump(t);
}

/*
 * How many hits come before the selection in time; *on when it is one.
 * An event hit is placed by its index, a line hit by its position (the
 * order search_merge made).
 */
static size_t
search_before(const struct tui *t, bool *on)
{
	const struct tui_search	*s = t->search;
	const struct search_vis	*sv = NULL, *v;
	size_t			 lo = 0, hi = s->nall, mid, j;
	long			 a;
	int			 ev = t->sel_event;
	bool			 before;

	*on = false;
	for (j = 0; s->sel >= 0 && j < s->nvis; j++) {
		if (search_sel_is(t, s->vis[j].hit)) {
			sv = &s->vis[j];
			break;
		}
	}
	if (sv == NULL && ev == RL_NONE)
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		a = s->all[mid];
		v = a < 0 ? &s->vis[-a - 1] : NULL;
		if (sv != NULL)
			before = v != NULL ? search_vis_cmp(v, sv) < 0 :
			    search_key(&t->inc->events[a]->time) <= sv->key;
		else
			before = v != NULL ? v->key <
			    search_key(&t->inc->events[ev]->time) : a < ev;
		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nall) {
		a = s->all[lo];
		*on = sv != NULL ? a < 0 && &s->vis[-a - 1] == sv : a == ev;
	}
	return lo;
}

/* Which ranks were searched, for the status line. */
static void
search_scope(const struct tui *t, struct buf *b)
{
	const struct tui_search	*s = t->search;
	struct buf		 names = { 0 };
	uint64_t		 lines, limited = 0;
	size_t			 i, n = 0;

	lines = s->reader != NULL ? find_read_lines(s->reader, &limited) : 0;
	for (i = 0; i < t->inc->nsources; i++) {
		if (s->reader != NULL && !find_read_events_only(s->reader,
		    (unsigned)i))
			continue;
		if (n++ < SEARCH_NAMES) {
			if (n > 1)
				buf_adds(&names, ", ");
			buf_adds(&names, model_source_name(t, (unsigned)i));
		}
	}
	buf_printf(b, "%llu line%s of %zu row%s searched",
	    (unsigned long long)lines, lines == 1 ? "" : "s", t->index.nrows,
	    t->index.nrows == 1 ? "" : "s");
	if (s->stopped)
		buf_adds(b, " (stopped)");
	if (filter_active(&t->filter))
		buf_adds(b, ", filtered");
	if (n > 0)
		buf_printf(b, "; %zu source%s searched by %s events only: %s%s",
		    n, n == 1 ? "" : "s", n == 1 ? "its" : "their", names.p,
		    n > SEARCH_NAMES ? ", ..." : "");
	if (s->capped)
		buf_printf(b, "; the first %d line hits kept", SEARCH_HITS_MAX);
	if (s->limited + limited > 0)
		buf_printf(b, "; %llu too costly to match",
		    (unsigned long long)(s->limited + limited));
	buf_clear(&names);
}

/* A line hit's rank as the rows name it: "rank 4 (node1)". */
static const char *
search_line_label(const struct tui *t, const struct search_vis *v,
    char *buf, size_t len)
{
	return model_row_label(&t->index.rows[v->row], buf, len);
}

/* Say where the selection is among the hits: "hit 3 of 41". */
static void
search_say(struct tui *t, long at, bool wrapped)
{
	const struct tui_search	*s = t->search;
	const struct rl_event	*e;
	const struct search_vis	*v;
	const struct find_hit	*h;
	const char		*sep = screen_sym(" \xc2\xb7 ", " - ");
	struct buf		 b = { 0 };
	char			 label[128], when[32];
	long			 a;

	if (s->nall == 0) {
		buf_printf(&b, "no hit for %c%s: ", s->backward ? '?' : '/',
		    find_pattern(s->find));
		search_scope(t, &b);
		tui_set_message(t, true, "%s", b.p);
		buf_clear(&b);
		return;
	}
	buf_printf(&b, "hit %ld of %zu%s%s", at + 1, s->nall,
	    wrapped ? " (wrapped)" : "", sep);
	if ((a = s->all[at]) >= 0) {
		e = t->inc->events[a];
		model_time_short(&e->time, when, sizeof when, true);
		buf_printf(&b, "%s %s%s%s:%llu", when,
		    model_event_label(t, (unsigned)a, label, sizeof label), sep,
		    model_source_name(t, e->source),
		    (unsigned long long)e->line);
	} else {
		v = &s->vis[-a - 1];
		h = &s->lines[v->hit];
		model_time_short(&h->time, when, sizeof when, true);
		buf_printf(&b, "%s %s%s%s:%llu", when,
		    search_line_label(t, v, label, sizeof label), sep,
		    model_source_name(t, h->source),
		    (unsigned long long)h->line);
	}
	buf_printf(&b, "%s%c%s%s", sep, s->backward ? '?' : '/',
	    find_pattern(s->find), sep);
	/* The timeline lists events: the merged log shows this line. */
	if (a < 0 && t->nviews > 0 &&
	    t->views[t->nviews - 1]->id == VIEW_TIMELINE)
		buf_printf(&b, "L shows the line%s", sep);
	if (s->reading && !s->said) {
		buf_adds(&b, "searching");
		buf_adds(&b, screen_sym("\xe2\x80\xa6", "..."));
	} else
		search_scope(t, &b);
	tui_set_message(t, false, "%s", b.p);
	buf_clear(&b);
}

/* Select hit at of the merged order. */
static void
search_select(struct tui *t, long at)
{
	struct tui_search	*s = t->search;
	long			 a = s->all[at];

	if (a >= 0) {
		tui_select_event(t, (int)a);
		s->sel = -1;
	} else
		search_select_vis(t, (size_t)(-a - 1));
}

/*
 * Go to the next hit in the search's direction (d 1) or against it
 * (d -1), from the selection, wrapping around at the ends; d 0 says
 * where the selection is, going to the first hit if it is on none.
 */
int
search_next(struct tui *t, int d)
{
	struct tui_search	*s = t->search;
	size_t			 lo;
	long			 at;
	bool			 on, wrapped = false;

	if (s == NULL) {
		tui_set_message(t, false, "no search yet: / or ? asks one");
		return REACT_REDRAW;
	}
	search_derive(t);
	if (s->nall == 0) {
		search_say(t, -1, false);
		return REACT_REDRAW;
	}
	lo = search_before(t, &on);
	if (d == 0) {
		if (on) {
			search_say(t, (long)lo, false);
			return REACT_REDRAW;
		}
		d = 1;
	} else if (s->backward)
		d = -d;
	if (d > 0)
		at = on ? (long)lo + 1 : (long)lo;
	else
		at = (long)lo - 1;
	if (at < 0 || (size_t)at >= s->nall) {
		at = d > 0 ? 0 : (long)s->nall - 1;
		wrapped = true;
	}
	search_select(t, at);
	search_say(t, at, wrapped);
	return REACT_REDRAW;
}

/* A new search (backward for ?); a bad pattern is said, not fatal. */
int
search_start(struct tui *t, const char *pattern, bool backward)
{
	struct tui_search	*s;
	struct find		*f;
	char			*cause = NULL;

	/* An empty pattern searches again for the last one. */
	if (pattern[0] == '\0' && t->search != NULL) {
		t->search->backward = backward;
		return search_next(t, 1);
	}
	if ((f = find_compile(pattern, &cause)) == NULL) {
		tui_set_message(t, true, "search: %s", cause);
		free(cause);
		return REACT_REDRAW;
	}
	search_free(t);
	s = t->search = xcalloc(1, sizeof *t->search);
	s->find = f;
	s->backward = backward;
	search_restart(t);
	search_events(t);
	if (s->reader != NULL && search_can_idle(t)) {
		/* A small search is over before the key is answered. */
		if (!search_read(t, SEARCH_FIRST_NS))
			s->said = true;
		else {
			s->reading = true;
			uv_idle_start(&t->search_idle, search_idle_cb);
		}
	} else if (s->reader != NULL)
		search_pump(t);
	search_derive(t);
	if (!s->said) {
		/* The hits so far: the events', at once; the lines follow. */
		if (s->nall > 0)
			search_next(t, 1);
		search_progress(t);
		return REACT_REDRAW;
	}
	s->ms = (double)(uv_hrtime() - s->started) / 1e6;
	tui_log(t, "search /%s/: %zu line hits, %zu event hits, %.1f ms",
	    find_pattern(s->find), s->nlines, s->nhits, s->ms);
	return search_next(t, 1);
}

/* Esc while a search reads: stop it, keeping the hits found. */
bool
search_cancel(struct tui *t)
{
	struct tui_search	*s = t->search;

	if (s == NULL || !s->reading)
		return false;
	s->stopped = true;
	s->reading = false;
	s->said = true;
	if (search_can_idle(t))
		uv_idle_stop(&t->search_idle);
	search_derive(t);
	search_next(t, 0);
	return true;
}

/* Is there a search? */
bool
search_active(const struct tui *t)
{
	return t->search != NULL;
}

/* Is event ev a hit of the search? */
bool
search_is_hit(const struct tui *t, unsigned ev)
{
	const struct tui_search	*s = t->search;

	return s != NULL && s->is_hit != NULL && ev < s->nevents &&
	    s->is_hit[ev];
}

/* Forget the search, stopping its reading. */
void
search_free(struct tui *t)
{
	struct tui_search	*s = t->search;

	if (s == NULL)
		return;
	if (s->reading && search_can_idle(t))
		uv_idle_stop(&t->search_idle);
	find_read_free(s->reader);
	search_reset(s);
	search_underive(s);
	free(s->lines);
	find_free(s->find);
	free(s);
	t->search = NULL;
}
