/*
 * search.c: / and ? over the lines of every rank, n and N between hits.
 *
 * The console holds the model's events (the lines a rule named), not
 * every line read, so that is what is searched, and the status line says
 * so ("187 lines of 5 ranks searched, of 513 read").  A search walks the
 * lines the rows list (a filter's hidden lines are no hits, and a tee'd
 * copy is its listed line), keeps the hits in time order across ranks,
 * and is done again whenever the index is rebuilt (a diagnosis, a filter),
 * so the hits follow a live log.  n goes to the first hit after the
 * selected line in time, N to the one before; after ? they swap, as in
 * less and vi.  The pattern is core's find.c: pcre2, smart case, bounded.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui.h"
#include "find.h"

struct tui_search {
	struct find	*find;		/* owned */
	bool		 backward;	/* ? : n goes back in time */
	unsigned	*hits;		/* event indexes, in time order */
	size_t		 nhits;
	size_t		 chits;		/* room in hits */
	unsigned char	*is_hit;	/* per event of the index */
	size_t		*row_hits;	/* hits per row */
	size_t		 nrows;		/* rows row_hits is for */
	size_t		 searched;	/* lines searched */
	size_t		 limited;	/* lines the match limits stopped */
	double		 ms;		/* what the last pass cost */
};

/* Forget the hits, keep the pattern. */
static void
search_reset(struct tui_search *s)
{
	free(s->hits);
	free(s->is_hit);
	free(s->row_hits);
	s->hits = NULL;
	s->is_hit = NULL;
	s->row_hits = NULL;
	s->nhits = s->chits = s->nrows = s->searched = s->limited = 0;
}

/* Search every listed line again; called whenever the index is rebuilt. */
void
search_update(struct tui *t)
{
	struct tui_search	*s = t->search;
	const struct tui_index	*ix = &t->index;
	const struct rl_event	*e;
	struct timespec		 a, b;
	size_t			 r, i;
	unsigned		 ev;
	int			 m;

	if (s == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &a);
	search_reset(s);
	s->is_hit = xcalloc(ix->nevents + 1, 1);
	s->row_hits = xcalloc(ix->nrows + 1, sizeof *s->row_hits);
	s->nrows = ix->nrows;
	for (r = 0; r < ix->nrows; r++) {
		for (i = 0; i < ix->rows[r].n; i++) {
			ev = ix->ev[ix->rows[r].first + i];
			e = t->inc->events[ev];
			s->searched++;
			if (e->text == NULL)
				continue;
			if ((m = find_match(s->find, e->text,
			    strlen(e->text))) < 0)
				s->limited++;
			if (m > 0) {
				s->is_hit[ev] = 1;
				s->row_hits[r]++;
			}
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
	clock_gettime(CLOCK_MONOTONIC, &b);
	s->ms = (double)(b.tv_sec - a.tv_sec) * 1e3 +
	    (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	tui_log(t, "search /%s/: %zu hits in %zu lines, %.2f ms",
	    find_pattern(s->find), s->nhits, s->searched, s->ms);
}

/* The first hit after event ev (d 1) or before it (d -1), or -1. */
static long
search_after(const struct tui_search *s, int ev, int d)
{
	size_t	 lo = 0, hi = s->nhits, mid;

	/* lo: the first hit > ev (for d 1) or >= ev (for d -1). */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d > 0 ? (int)s->hits[mid] <= ev : (int)s->hits[mid] < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (d > 0)
		return lo < s->nhits ? (long)lo : -1;
	return lo > 0 ? (long)lo - 1 : -1;
}

/* Which ranks were searched, for the status line: "5 ranks". */
static void
search_scope(const struct tui *t, struct buf *b)
{
	const struct tui_search	*s = t->search;

	buf_printf(b, "%zu line%s of %zu row%s searched (the lines rules "
	    "named; %llu read)", s->searched, s->searched == 1 ? "" : "s",
	    t->index.nrows, t->index.nrows == 1 ? "" : "s",
	    (unsigned long long)t->inc->lines);
	if (filter_active(&t->filter))
		buf_adds(b, ", filtered");
	if (s->limited > 0)
		buf_printf(b, "; %zu too costly to match", s->limited);
}

/* Say where the selection is among the hits: "hit 3 of 41". */
static void
search_say(struct tui *t, long at, bool wrapped)
{
	const struct tui_search	*s = t->search;
	const struct rl_event	*e;
	const char		*sep = screen_sym(" \xc2\xb7 ", " - ");
	struct buf		 b = { 0 };
	char			 label[128], when[32];

	if (s->nhits == 0) {
		buf_printf(&b, "no hit for %c%s: ", s->backward ? '?' : '/',
		    find_pattern(s->find));
		search_scope(t, &b);
		tui_set_message(t, true, "%s", b.p);
	} else {
		e = t->inc->events[s->hits[at]];
		model_time_short(&e->time, when, sizeof when, true);
		buf_printf(&b, "hit %ld of %zu%s%s%s %s%s%s:%llu%s%c%s%s",
		    at + 1, s->nhits, wrapped ? " (wrapped)" : "", sep, when,
		    model_event_label(t, s->hits[at], label, sizeof label), sep,
		    model_source_name(t, e->source),
		    (unsigned long long)e->line, sep, s->backward ? '?' : '/',
		    find_pattern(s->find), sep);
		search_scope(t, &b);
		tui_set_message(t, false, "%s", b.p);
	}
	buf_clear(&b);
}

/*
 * Go to the next hit in the search's direction (d 1) or against it
 * (d -1), from the selected line, wrapping around at the ends.
 */
int
search_next(struct tui *t, int d)
{
	struct tui_search	*s = t->search;
	long			 at;
	int			 from = t->sel_event;
	bool			 wrapped = false;

	if (s == NULL) {
		tui_set_message(t, false, "no search yet: / or ? asks one");
		return REACT_REDRAW;
	}
	if (s->backward)
		d = -d;
	if (s->nhits == 0) {
		search_say(t, -1, false);
		return REACT_REDRAW;
	}
	if (from == RL_NONE)
		from = d > 0 ? -1 : (int)t->index.nevents;
	if ((at = search_after(s, from, d)) < 0) {
		at = d > 0 ? 0 : (long)s->nhits - 1;
		wrapped = true;
	}
	tui_select_event(t, (int)s->hits[at]);
	search_say(t, at, wrapped);
	return REACT_REDRAW;
}

/* A new search (backward for ?); a bad pattern is said, not fatal. */
int
search_start(struct tui *t, const char *pattern, bool backward)
{
	struct find	*f;
	char		*cause = NULL;

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
	t->search = xcalloc(1, sizeof *t->search);
	t->search->find = f;
	t->search->backward = backward;
	search_update(t);
	return search_next(t, 1);
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

	return s != NULL && s->is_hit != NULL && ev < t->index.nevents &&
	    s->is_hit[ev];
}

/* Does row r hold a hit? */
bool
search_row_hit(const struct tui *t, int r)
{
	const struct tui_search	*s = t->search;

	return s != NULL && r >= 0 && (size_t)r < s->nrows &&
	    s->row_hits[r] > 0;
}

/* Forget the search. */
void
search_free(struct tui *t)
{
	if (t->search == NULL)
		return;
	search_reset(t->search);
	find_free(t->search->find);
	free(t->search);
	t->search = NULL;
}
