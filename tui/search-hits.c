/*
 * search-hits.c: a search's hits as the views read them.
 *
 * search.c finds two kinds of hits, the events' (an index each) and the
 * lines no rule named (find_hit, as core's find-read.c hands them on).
 * Here they are derived, when a view asks and something changed: which
 * line hits are shown (not an event's line, on a row the filter leaves,
 * a tee'd copy once), where each goes on the axis and in time, every hit
 * in one time order for n and N, and each row's line hits for the
 * timeline's marks; and what the merged log asks of a line hit (its
 * place, its text read again, its selection).
 */
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "search-int.h"

#define SEARCH_TWINS	64		/* line hits at one time looked at for
					   a tee'd twin */

/* Forget what was derived from the hits. */
void
search_underive(struct tui_search *s)
{
	free(s->keys);
	free(s->vis);
	free(s->all);
	free(s->row_hits);
	free(s->rpos);
	free(s->rfirst);
	s->keys = NULL;
	s->vis = NULL;
	s->all = NULL;
	s->row_hits = NULL;
	s->rpos = NULL;
	s->rfirst = NULL;
	s->nkeys = s->nvis = s->nall = s->nrows = 0;
}

/* Order events' places by source, then line. */
static int
search_key_cmp(const void *va, const void *vb)
{
	const struct search_evkey	*a = va, *b = vb;

	if (a->source != b->source)
		return a->source < b->source ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/*
 * A time's place in the events' order (diagnose-order.c sorts them by
 * clock_cmp): its instant, untimed last.
 */
int64_t
search_key(const struct rl_time *tm)
{
	return (tm->flags & RL_TIME_VALID) ? clock_utc_ms(tm) : INT64_MAX;
}

/* Order line hits by time, then as they were found (source and line). */
int
search_vis_cmp(const void *va, const void *vb)
{
	const struct search_vis	*a = va, *b = vb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->hit < b->hit ? -1 : a->hit > b->hit;
}

/* The first key at or after (source, line). */
static size_t
search_key_find(const struct tui_search *s, uint32_t source, uint64_t line)
{
	size_t	lo = 0, hi = s->nkeys, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->keys[mid].source < source || (s->keys[mid].source ==
		    source && s->keys[mid].line < line))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Where a line hit goes on the axis: its own time, moved as the model
 * moved the event before it in its source (a zone or a skew fixed); an
 * untimed one, or an untimed axis, next to that event.
 */
static int64_t
search_line_pos(const struct tui *t, const struct find_hit *h, size_t k)
{
	const struct tui_search	*s = t->search;
	const struct rl_event	*e;
	unsigned		 ev = 0;
	bool			 near = false;

	if (k > 0 && s->keys[k - 1].source == h->source) {
		ev = s->keys[k - 1].ev;
		near = true;
	} else if (k < s->nkeys && s->keys[k].source == h->source) {
		ev = s->keys[k].ev;
		near = true;
	}
	if (!t->index.timed || !(h->time.flags & RL_TIME_VALID))
		return near ? t->index.pos[ev] : INT64_MIN;
	e = t->inc->events[ev];
	if (near && (e->time.flags & RL_TIME_VALID))
		return clock_utc_ms(&h->time) + (t->index.pos[ev] -
		    clock_utc_ms(&e->time));
	return clock_utc_ms(&h->time);
}

/* The row a line hit's process is on, or -1 (hidden, or none). */
static int
search_line_row(const struct tui *t, const struct find_hit *h,
    const int *rank_row, const int *src_rank, int orphan)
{
	const struct rl_process	*p;
	long			 pos = -1;

	if (h->proc != FIND_NO_PROC && h->proc < t->inc->nprocs) {
		p = t->inc->procs[h->proc];
		if (p->rank != RL_NONE)
			pos = incident_rank_pos(t->inc, p->rank);
	}
	if (pos < 0 && h->source < t->inc->nsources && src_rank[h->source] >= 0)
		pos = src_rank[h->source];
	if (pos >= 0)
		return rank_row[pos];
	return orphan;
}

/*
 * A line with no time of its own, as the model times an event: its
 * process's last time, else its source's (diagnose_resolve).
 */
static void
search_untimed(const struct tui *t, struct find_hit *h)
{
	const struct rl_process	*p;

	if (h->time.flags & RL_TIME_VALID)
		return;
	if (h->proc != FIND_NO_PROC && h->proc < t->inc->nprocs) {
		p = t->inc->procs[h->proc];
		if (p->last.flags & RL_TIME_VALID) {
			h->time = p->last;
			return;
		}
	}
	if (h->source < t->inc->nsources)
		h->time = t->inc->sources[h->source]->last;
}

/* Index every event by its place, for search_derive. */
static void
search_keys(struct tui *t)
{
	struct tui_search	*s = t->search;
	size_t			 i;

	s->keys = xreallocarray(NULL, t->index.nevents + 1, sizeof *s->keys);
	for (i = 0; i < t->index.nevents; i++) {
		s->keys[i].source = t->inc->events[i]->source;
		s->keys[i].line = t->inc->events[i]->line;
		s->keys[i].ev = (unsigned)i;
	}
	s->nkeys = t->index.nevents;
	qsort(s->keys, s->nkeys, sizeof *s->keys, search_key_cmp);
}

/*
 * Is line hit a a tee'd copy of line hit b: on the same row at the same
 * time, from another source, and b's text is a's without a prefix (a
 * launcher's "[default1]:"), as far as their last bytes tell?
 */
static bool
search_is_copy(const struct tui *t, const struct search_vis *a,
    const struct search_vis *b)
{
	const struct find_hit	*x = &t->search->lines[a->hit];
	const struct find_hit	*y = &t->search->lines[b->hit];

	return a->row == b->row && x->source != y->source &&
	    y->len >= FIND_TAIL && x->tail == y->tail && x->len > y->len;
}

/*
 * A tee'd line is one hit: a hit in a launcher's copy (torchrun.log's
 * [default1]: lines) is dropped when the rank's own file has the line at
 * the same time, as the rows list a tee'd event once (model_dedup).
 */
static void
search_uncopy(struct tui *t)
{
	struct tui_search	*s = t->search;
	size_t			 i, j, k, lo, o = 0;
	bool			 twin;

	for (lo = 0; lo < s->nvis; lo = j) {
		for (j = lo; j < s->nvis && s->vis[j].key == s->vis[lo].key; j++)
			;
		for (i = lo; i < j; i++) {
			twin = false;
			/* Many at one time are untimed lines: no twins. */
			for (k = lo; j - lo <= SEARCH_TWINS && k < j && !twin;
			    k++)
				twin = k != i && search_is_copy(t, &s->vis[i],
				    &s->vis[k]);
			if (!twin)
				s->vis[o++] = s->vis[i];
		}
	}
	s->nvis = o;
}

/*
 * The line hits the rows show: not an event's line (the event stands for
 * it), on a row the filter leaves, and no filter of lines by kind (a line
 * no rule named is no failure and has no signature).
 */
static void
search_visible(struct tui *t)
{
	struct tui_search	*s = t->search;
	const struct tui_index	*ix = &t->index;
	struct find_hit		*h;
	int			*rank_row, *src_rank, orphan = -1, row;
	size_t			 i, k;

	s->vis = xreallocarray(NULL, s->nlines + 1, sizeof *s->vis);
	if (t->filter.failures || t->filter.sig != NULL)
		return;
	rank_row = xreallocarray(NULL, t->inc->nranks + 1, sizeof *rank_row);
	for (i = 0; i < t->inc->nranks; i++)
		rank_row[i] = -1;
	for (i = 0; i < ix->nrows; i++) {
		if (ix->rows[i].rank == NULL)
			orphan = (int)i;
		else
			rank_row[ix->rows[i].rank - t->inc->ranks] = (int)i;
	}
	src_rank = model_source_rows(t->inc);
	for (i = 0; i < s->nlines; i++) {
		h = &s->lines[i];
		search_untimed(t, h);
		k = search_key_find(s, h->source, h->line);
		if (k < s->nkeys && s->keys[k].source == h->source &&
		    s->keys[k].line == h->line)
			continue;
		if ((row = search_line_row(t, h, rank_row, src_rank,
		    orphan)) < 0)
			continue;
		s->vis[s->nvis].key = search_key(&h->time);
		s->vis[s->nvis].pos = search_line_pos(t, h, k);
		s->vis[s->nvis].hit = (uint32_t)i;
		s->vis[s->nvis++].row = row;
	}
	free(src_rank);
	free(rank_row);
	qsort(s->vis, s->nvis, sizeof *s->vis, search_vis_cmp);
	search_uncopy(t);
}

/* Every hit in time order: the event hits and the line hits merged. */
static void
search_merge(struct tui *t)
{
	struct tui_search	*s = t->search;
	size_t			 i = 0, j = 0;

	s->all = xreallocarray(NULL, s->nhits + s->nvis + 1, sizeof *s->all);
	while (i < s->nhits || j < s->nvis) {
		if (j < s->nvis && (i == s->nhits || s->vis[j].key <
		    search_key(&t->inc->events[s->hits[i]]->time))) {
			s->all[s->nall++] = -(long)j - 1;
			j++;
		} else
			s->all[s->nall++] = (long)s->hits[i++];
	}
}

/* Hits per row, and the line hits' positions grouped by row. */
static void
search_rows(struct tui *t)
{
	struct tui_search	*s = t->search;
	const struct tui_index	*ix = &t->index;
	size_t			 i, *at;
	int			 r;

	s->nrows = ix->nrows;
	s->row_hits = xcalloc(s->nrows + 1, sizeof *s->row_hits);
	s->rfirst = xcalloc(s->nrows + 2, sizeof *s->rfirst);
	s->rpos = xreallocarray(NULL, s->nvis + 1, sizeof *s->rpos);
	for (i = 0; i < s->nhits; i++) {
		if ((r = ix->row_of_event[s->hits[i]]) >= 0)
			s->row_hits[r]++;
	}
	for (i = 0; i < s->nvis; i++) {
		s->row_hits[s->vis[i].row]++;
		s->rfirst[s->vis[i].row + 1]++;
	}
	for (i = 0; i < s->nrows; i++)
		s->rfirst[i + 1] += s->rfirst[i];
	at = xcalloc(s->nrows + 1, sizeof *at);
	for (i = 0; i < s->nvis; i++) {
		r = s->vis[i].row;
		s->rpos[s->rfirst[r] + at[r]++] = s->vis[i].pos;
	}
	free(at);
}

/* Bring what is derived from the hits up to date, if it is not. */
void
search_derive(struct tui *t)
{
	struct tui_search	*s = t->search;

	if (s == NULL || !s->stale)
		return;
	search_underive(s);
	search_keys(t);
	search_visible(t);
	search_merge(t);
	search_rows(t);
	s->stale = false;
}

/*
 * Is the line hit selected still (no key moved the selection off the
 * event it was selected at, which a rebuild may renumber)?
 */
static bool
search_sel_valid(const struct tui *t)
{
	const struct tui_search	*s = t->search;

	if (s->sel < 0)
		return false;
	if (t->sel_event == RL_NONE)
		return s->sel_seq == UINT64_MAX;
	return s->sel_seq == t->sel_seq;
}

/* Is the selection the line hit k (into lines)? */
bool
search_sel_is(const struct tui *t, long k)
{
	return search_sel_valid(t) && t->search->sel == k;
}

/* The listed event of row r nearest before pos (else its first), or -1. */
static int
search_near(const struct tui *t, int r, int64_t pos)
{
	const struct tui_row	*row = &t->index.rows[r];
	unsigned		 ev;
	size_t			 i;
	int			 best = -1;

	for (i = 0; i < row->n; i++) {
		ev = t->index.ev[row->first + i];
		if (best >= 0 && t->index.pos[ev] > pos)
			break;
		if (lines_listed(t, ev))
			best = (int)ev;
	}
	return best;
}

/*
 * Select the line hit vis[k]: its row, at the event nearest before it
 * (so that the timeline shows where it is), and the line itself for the
 * merged log.
 */
void
search_select_vis(struct tui *t, size_t k)
{
	struct tui_search	*s = t->search;
	const struct search_vis	*v = &s->vis[k];
	int			 ev;

	if ((ev = search_near(t, v->row, v->pos)) >= 0)
		tui_select_event(t, ev);
	else
		tui_select_row(t, v->row);
	s->sel = v->hit;
	s->sel_seq = t->sel_event == RL_NONE ? UINT64_MAX : t->sel_seq;
}

/* Does row r hold a hit? */
bool
search_row_hit(struct tui *t, int r)
{
	const struct tui_search	*s = t->search;

	search_derive(t);
	return s != NULL && r >= 0 && (size_t)r < s->nrows &&
	    s->row_hits[r] > 0;
}

/* The axis positions of row r's line hits; *n of them. */
const int64_t *
search_row_lines(struct tui *t, int r, size_t *n)
{
	const struct tui_search	*s = t->search;

	*n = 0;
	search_derive(t);
	if (s == NULL || r < 0 || (size_t)r >= s->nrows)
		return NULL;
	*n = s->rfirst[r + 1] - s->rfirst[r];
	return s->rpos + s->rfirst[r];
}

/* The line hits the merged log shows: *n of them, in time order. */
size_t
search_lines(struct tui *t)
{
	search_derive(t);
	return t->search != NULL ? t->search->nvis : 0;
}

/*
 * Line hit k of search_lines: its place on the axis, row, source, line
 * and time (all but the text, which search_line_text reads again).
 */
void
search_line(const struct tui *t, size_t k, struct search_line *l)
{
	const struct tui_search	*s = t->search;
	const struct search_vis	*v = &s->vis[k];
	const struct find_hit	*h = &s->lines[v->hit];

	l->pos = v->pos;
	l->key = v->key;
	l->row = v->row;
	l->source = h->source;
	l->line = h->line;
	l->time = h->time;
	l->proc = h->proc != FIND_NO_PROC && h->proc < t->inc->nprocs ?
	    t->inc->procs[h->proc] : NULL;
	l->selected = search_sel_is(t, v->hit);
}

/* Line hit k's text, read again from its source into b; -1 if gone. */
int
search_line_text(const struct tui *t, size_t k, struct buf *b)
{
	const struct tui_search	*s = t->search;
	const struct find_hit	*h = &s->lines[s->vis[k].hit];

	if (h->source >= t->inc->nsources)
		return -1;
	return find_read_line(t->inc->sources[h->source], h->offset, b);
}

/* Select line hit k of search_lines (the merged log's j and k). */
void
search_line_select(struct tui *t, size_t k)
{
	if (t->search != NULL && k < t->search->nvis)
		search_select_vis(t, k);
}

/* The selection is an event now, not a line hit. */
void
search_line_unselect(struct tui *t)
{
	if (t->search != NULL)
		t->search->sel = -1;
}

/* The selected line hit (of search_lines), or -1. */
long
search_line_selected(const struct tui *t)
{
	const struct tui_search	*s = t->search;
	size_t			 j;

	if (s == NULL || !search_sel_valid(t))
		return -1;
	for (j = 0; j < s->nvis; j++) {
		if (s->vis[j].hit == (uint32_t)s->sel)
			return (long)j;
	}
	return -1;
}
