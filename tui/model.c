/*
 * model.c: the console's read-only index of the incident.
 *
 * The model is core's; the console only reads it.  What the views need
 * that the model does not hold directly (which timeline row an event is
 * on, each row's events in time order, the span of the time axis) is built
 * here in one O(events) pass whenever the model changes, so that no view
 * ever walks every event to draw one row: with 10,000 ranks a frame costs
 * only the rows on screen.
 *
 * Rows are the incident's ranks in its order (by rank, unranked last).  An
 * event with no rank goes to the row whose sources include its source;
 * events no row claims get one extra row at the end, so nothing is hidden.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

#define MODEL_HOST_MAX	16	/* widest host column */
#define MODEL_SOURCE_MAX 28	/* longest source tail in lists */

/* Free what the index holds; the struct stays, empty. */
void
model_clear(struct tui_index *ix)
{
	size_t	i;

	free(ix->rows);
	free(ix->ev);
	free(ix->row_of_event);
	free(ix->copy_of);
	free(ix->pos);
	free(ix->glyph);
	for (i = 0; i < ix->nsrc_names; i++)
		free(ix->src_names[i]);
	free(ix->src_names);
	memset(ix, 0, sizeof *ix);
}

/* How many ranks at the front have a rank number (the array is sorted). */
static size_t
model_nranked(const struct rl_incident *inc)
{
	size_t	 n = 0;

	while (n < inc->nranks && inc->ranks[n].rank != RL_NONE)
		n++;
	return (n);
}

/* The row of a rank number among the ranked rows, or -1. */
static int
model_rank_row(const struct rl_incident *inc, size_t nranked, int rank)
{
	size_t	 lo = 0, hi = nranked, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (inc->ranks[mid].rank == rank)
			return ((int)mid);
		if (inc->ranks[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (-1);
}

/*
 * Map each source to the one row that owns it: -1 for none, -2 for a source
 * several rows share (a multiplexed console), which cannot place a line.
 */
int *
model_source_rows(const struct rl_incident *inc)
{
	const struct rl_rank	*r;
	int			*map;
	size_t			 i, j;
	unsigned		 s;

	map = xreallocarray(NULL, inc->nsources + 1, sizeof *map);
	for (i = 0; i <= inc->nsources; i++)
		map[i] = -1;
	for (i = 0; i < inc->nranks; i++) {
		r = &inc->ranks[i];
		for (j = 0; j < r->nsources; j++) {
			if ((s = r->sources[j]) >= inc->nsources)
				continue;
			map[s] = map[s] == -1 ? (int)i : -2;
		}
	}
	return (map);
}

/* Place every event on a row; returns how many no row claimed. */
static size_t
model_place(struct tui_index *ix, const struct rl_incident *inc)
{
	const struct rl_event	*e;
	size_t			 i, orphans = 0;
	size_t			 nranked = model_nranked(inc);
	int			*map, row;

	map = model_source_rows(inc);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		row = -1;
		if (e->rank != RL_NONE)
			row = model_rank_row(inc, nranked, e->rank);
		if (row < 0 && e->source < inc->nsources)
			row = map[e->source];
		if (row < 0)
			orphans++;
		ix->row_of_event[i] = row < 0 ? -1 : row;
	}
	free(map);
	return (orphans);
}

/* Group event indexes by row (counting sort: rows keep time order). */
static void
model_group(struct tui_index *ix, size_t nevents)
{
	size_t	*fill, i, at = 0;
	int	 row;

	for (i = 0; i < nevents; i++)
		ix->rows[ix->row_of_event[i]].n++;
	fill = xreallocarray(NULL, ix->nrows + 1, sizeof *fill);
	for (i = 0; i < ix->nrows; i++) {
		ix->rows[i].first = fill[i] = at;
		at += ix->rows[i].n;
	}
	ix->ev = xreallocarray(NULL, nevents + 1, sizeof *ix->ev);
	ix->nev = nevents;
	for (i = 0; i < nevents; i++) {
		row = ix->row_of_event[i];
		ix->ev[fill[row]++] = (unsigned)i;
	}
	free(fill);
}

#define MODEL_DEDUP_BACK 16	/* same-time events looked back at */

/* The incident model_path_cmp sorts the sources of: qsort has no arg. */
static const struct rl_incident *model_sort_inc;

/* Order paths by their ends, so that the ones that end alike are next. */
static int
model_path_cmp(const void *va, const void *vb)
{
	const char	*a = model_sort_inc->sources[*(const unsigned *)va]->path;
	const char	*b = model_sort_inc->sources[*(const unsigned *)vb]->path;
	size_t		 i, j;

	if (a == NULL || b == NULL)
		return ((a == NULL) - (b == NULL));
	i = strlen(a);
	j = strlen(b);
	while (i > 0 && j > 0 && a[i - 1] == b[j - 1]) {
		i--;
		j--;
	}
	if (i == 0 || j == 0)
		return (i == 0 ? (j == 0 ? 0 : -1) : 1);
	return ((unsigned char)a[i - 1] - (unsigned char)b[j - 1]);
}

/* How many whole path components two paths end with in common. */
static size_t
model_common_tail(const char *a, const char *b)
{
	size_t	i = strlen(a), j = strlen(b), n = 0;

	while (i > 0 && j > 0 && a[i - 1] == b[j - 1]) {
		if (a[i - 1] == '/')
			n++;
		i--;
		j--;
	}
	if ((i == 0 || a[i - 1] == '/') && (j == 0 || b[j - 1] == '/'))
		n++;
	return (n);
}

/* The last k components of path, the middle elided past the column. */
static char *
model_tail_name(const char *path, size_t k)
{
	const char	*p = path + strlen(path), *start, *two = NULL;
	const char	*first_end;
	size_t		 seen = 0;
	char		*s;

	start = path;
	for (; p > path; p--) {
		if (p[-1] != '/')
			continue;
		if (++seen == 2)
			two = p;
		if (seen == k) {
			start = p;
			break;
		}
	}
	if (strlen(start) <= MODEL_SOURCE_MAX || k <= 2 || two == NULL)
		return (xstrdup(start));
	first_end = strchr(start, '/');
	/* Under LANG=C an ellipsis would be drawn as three '?'. */
	xasprintf(&s, "%.*s/%s/%s", (int)(first_end - start), start,
	    screen_sym("\xe2\x80\xa6", "..."), two);
	return (s);
}

/*
 * Does a neighbour's path tell this one apart?  Not when it is the same
 * path: a later file at a followed path (rotated, truncated) is told by
 * its generation instead.
 */
static bool
model_other_path(const struct rl_incident *inc, unsigned a, unsigned b)
{
	return (inc->sources[b]->path != NULL &&
	    strcmp(inc->sources[a]->path, inc->sources[b]->path) != 0);
}

/*
 * Name every source by the shortest end of its path no other shares; a
 * later file read at a followed path has its generation: "rank0.log#2".
 */
static void
model_source_names(struct tui_index *ix, const struct rl_incident *inc)
{
	const struct rl_source	*src;
	unsigned	*v;
	size_t		 i, n = inc->nsources, need, c;
	char		*name;

	ix->src_names = xcalloc(n + 1, sizeof *ix->src_names);
	ix->nsrc_names = n;
	v = xreallocarray(NULL, n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = (unsigned)i;
	model_sort_inc = inc;
	qsort(v, n, sizeof *v, model_path_cmp);
	for (i = 0; i < n; i++) {
		if (inc->sources[v[i]]->path == NULL)
			continue;
		need = 1;
		if (i > 0 && model_other_path(inc, v[i], v[i - 1]) &&
		    (c = model_common_tail(inc->sources[v[i]]->path,
		    inc->sources[v[i - 1]]->path) + 1) > need)
			need = c;
		if (i + 1 < n && model_other_path(inc, v[i], v[i + 1]) &&
		    (c = model_common_tail(inc->sources[v[i]]->path,
		    inc->sources[v[i + 1]]->path) + 1) > need)
			need = c;
		src = inc->sources[v[i]];
		ix->src_names[v[i]] = model_tail_name(src->path, need);
		if (src->generation > 0) {
			xasprintf(&name, "%s#%u", ix->src_names[v[i]],
			    src->generation + 1);
			free(ix->src_names[v[i]]);
			ix->src_names[v[i]] = name;
		}
	}
	free(v);
}

/* Is b a copy of a: the same time and message, written to another file? */
static bool
model_same_line(const struct rl_event *a, const struct rl_event *b)
{
	return (a->source != b->source && (a->time.flags & RL_TIME_VALID) &&
	    (b->time.flags & RL_TIME_VALID) && clock_cmp(&a->time,
	    &b->time) == 0 && a->text != NULL && b->text != NULL &&
	    strcmp(model_message(a), model_message(b)) == 0);
}

/* Must the list keep this event itself: an answer or a rank's first? */
static bool
model_keeps(const struct rl_incident *inc, const struct tui_row *row,
    unsigned i)
{
	return ((int)i == inc->answer.first || (row->rank != NULL &&
	    row->rank->first_event == (int)i));
}

/*
 * A line tee'd to a rank's stdout.log and to torchrun.log is one line
 * written twice: list it once per row.  The copy keeps its row (the
 * timeline's cells are the same) and copy_of names the listed event, whose
 * detail names both places.  The answer's events are the ones listed.
 */
static void
model_dedup(struct tui_index *ix, const struct rl_incident *inc,
    struct tui_row *row)
{
	unsigned	*v = &ix->ev[row->first], b;
	size_t		 n = 0, i, k, lo;

	for (i = 0; i < row->n; i++) {
		b = v[i];
		lo = n > MODEL_DEDUP_BACK ? n - MODEL_DEDUP_BACK : 0;
		for (k = n; k > lo; k--) {
			if (model_same_line(inc->events[v[k - 1]],
			    inc->events[b]))
				break;
		}
		if (k == lo) {
			v[n++] = b;
			continue;
		}
		k--;
		if (model_keeps(inc, row, b) && !model_keeps(inc, row, v[k])) {
			/* b is listed instead; the list stays in order. */
			ix->copy_of[v[k]] = (int)b;
			memmove(&v[k], &v[k + 1], (n - k - 1) * sizeof *v);
			v[n - 1] = b;
		} else
			ix->copy_of[b] = (int)v[k];
	}
	row->n = n;
}

/* Point every copy at the event listed, past copies of copies. */
static void
model_copies(struct tui_index *ix)
{
	size_t	i;
	int	c, hops;

	for (i = 0; i < ix->nevents; i++) {
		c = ix->copy_of[i];
		for (hops = 0; c >= 0 && ix->copy_of[c] >= 0 && hops < 64;
		    hops++)
			c = ix->copy_of[c];
		ix->copy_of[i] = c;
	}
}

/*
 * The time axis: from start to end, or event order when there are no times.
 * Its labels are in the clock the first failure's line was written in, as
 * the header shows it: a job's lines may be in two zones (diag-zone.c).
 */
static void
model_axis(struct tui_index *ix, const struct rl_incident *inc)
{
	const struct rl_time	*f = NULL;

	ix->t0 = clock_utc_ms(&inc->start);
	ix->t1 = clock_utc_ms(&inc->end);
	ix->shown0 = inc->start.ms;
	if (inc->answer.first != RL_NONE)
		f = &inc->events[inc->answer.first]->time;
	if (f != NULL && (f->flags & RL_TIME_VALID) &&
	    !(f->flags & RL_TIME_BOOT) && !(inc->start.flags & RL_TIME_BOOT))
		ix->shown0 = ix->t0 + (f->ms - clock_utc_ms(f));
	ix->timed = ix->t1 > ix->t0 && !(inc->start.flags & RL_TIME_BOOT);
	if (!ix->timed) {
		ix->t0 = 0;
		ix->t1 = inc->nevents > 1 ? (int64_t)inc->nevents - 1 : 1;
	}
}

/* The incident model_line_cmp sorts the events of: qsort has no arg. */
static const struct rl_incident *model_line_inc;

/* Order event indexes by where they were written: source, then line. */
static int
model_line_cmp(const void *va, const void *vb)
{
	const struct rl_event	*a = model_line_inc->events[*(const unsigned *)va];
	const struct rl_event	*b = model_line_inc->events[*(const unsigned *)vb];

	if (a->source != b->source)
		return (a->source < b->source ? -1 : 1);
	if (a->line != b->line)
		return (a->line < b->line ? -1 : 1);
	return ((a->seq > b->seq) - (a->seq < b->seq));
}

/*
 * One source's events v[0..n), in time order: a line with no time of its
 * own (or a launcher's coarse one) is placed no earlier than the line
 * written before it.  They are put in line order first, when they are not
 * in it already (a coarse time earlier than the line before it).
 */
static void
model_source_order(struct tui_index *ix, const struct rl_incident *inc,
    unsigned *v, size_t n)
{
	const struct rl_event	*e;
	size_t			 i;
	bool			 guessed = false, sorted = true;
	int			 first = inc->answer.first;

	for (i = 0; i < n; i++) {
		e = inc->events[v[i]];
		if (e->guess != TIME_OWN || e->weak)
			guessed = true;
		if (i > 0 && model_line_cmp(&v[i - 1], &v[i]) > 0)
			sorted = false;
	}
	if (!guessed)
		return;
	if (!sorted)
		qsort(v, n, sizeof *v, model_line_cmp);
	for (i = 1; i < n; i++) {
		e = inc->events[v[i]];
		if ((e->guess != TIME_OWN || e->weak) && (int)v[i] != first &&
		    ix->pos[v[i]] < ix->pos[v[i - 1]])
			ix->pos[v[i]] = ix->pos[v[i - 1]];
	}
}

/*
 * Where each event goes on the axis, in the order the header tells.  A
 * line's clock can put it before what caused it: a line with no time of
 * its own inherits the line before it, torchrun's failure records carry
 * whole seconds, another host's clock runs behind.  The header names the
 * first failure; every other failing line follows it causally, so it is
 * placed no earlier than the first failure's mark.  Then, within each
 * source, a line without a time of its own (or with a launcher's coarse
 * one) sits no earlier than the line written before it.  The lists keep
 * the times the logs wrote; only the marks move.
 */
static void
model_positions(struct tui_index *ix, const struct rl_incident *inc)
{
	const struct rl_event	*e;
	unsigned		*v;
	int64_t			 p, tf = INT64_MIN;
	size_t			*at, i, k;
	int			 first = inc->answer.first;

	ix->pos = xreallocarray(NULL, inc->nevents + 1, sizeof *ix->pos);
	for (i = 0; i < inc->nevents; i++) {
		p = ix->timed ? clock_utc_ms(&inc->events[i]->time) :
		    (int64_t)i;
		ix->pos[i] = p < ix->t0 ? ix->t0 : p > ix->t1 ? ix->t1 : p;
	}
	if (first >= 0 && (size_t)first < inc->nevents)
		tf = ix->pos[first];
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if ((int)i != first && event_failing(e) && !e->harmless &&
		    ix->pos[i] < tf)
			ix->pos[i] = tf;
	}
	/* Each source's events in the order they were written: a counting
	   sort by source keeps time order, nearly line order already; only
	   a source with a line placed by another's time needs the pass. */
	at = xcalloc(inc->nsources + 2, sizeof *at);
	for (i = 0; i < inc->nevents; i++) {
		if (inc->events[i]->source < inc->nsources)
			at[inc->events[i]->source + 2]++;
	}
	for (i = 2; i < inc->nsources + 2; i++)
		at[i] += at[i - 1];
	v = xreallocarray(NULL, inc->nevents + 1, sizeof *v);
	for (i = 0; i < inc->nevents; i++) {
		if (inc->events[i]->source < inc->nsources)
			v[at[inc->events[i]->source + 1]++] = (unsigned)i;
	}
	model_line_inc = inc;
	for (k = 0; k < inc->nsources; k++)
		model_source_order(ix, inc, &v[at[k]], at[k + 1] - at[k]);
	free(at);
	free(v);
}

/*
 * Remember the selected row by what it is (its rank, or an unranked row's
 * host), before a diagnosis remakes the ranks the index points into.
 */
void
model_keep(struct tui *t)
{
	struct tui_rowkey	*k = &t->sel_key;
	const struct rl_rank	*r;

	free(k->host);
	memset(k, 0, sizeof *k);
	if (t->sel_row < 0 || (size_t)t->sel_row >= t->index.nrows)
		return;
	r = t->index.rows[t->sel_row].rank;
	k->valid = true;
	k->orphan = r == NULL;
	k->rank = r != NULL ? r->rank : RL_NONE;
	if (r != NULL && r->rank == RL_NONE && r->host != NULL)
		k->host = xstrdup(r->host);
}

/* The row a remembered key names in the new index, or -1. */
static int
model_key_row(const struct tui *t, const struct tui_rowkey *k)
{
	const struct tui_index	*ix = &t->index;
	const struct rl_rank	*r;
	size_t			 i, nranked = model_nranked(t->inc);

	if (!k->valid)
		return (-1);
	if (k->orphan)
		return (ix->nrows > 0 && ix->rows[ix->nrows - 1].rank == NULL ?
		    (int)ix->nrows - 1 : -1);
	if (k->rank != RL_NONE)
		return (model_rank_row(t->inc, nranked, k->rank));
	for (i = nranked; i < ix->nrows; i++) {
		if ((r = ix->rows[i].rank) == NULL || r->rank != RL_NONE)
			continue;
		if (r->host == NULL ? k->host == NULL :
		    k->host != NULL && strcmp(r->host, k->host) == 0)
			return ((int)i);
	}
	return (-1);
}

/* The selected event after a diagnosis: found by its seq, or -1. */
static int
model_find_selected(const struct tui *t)
{
	const struct rl_incident	*inc = t->inc;
	size_t				 i;

	if (t->sel_event == RL_NONE)
		return (RL_NONE);
	if ((size_t)t->sel_event < inc->nevents &&
	    inc->events[t->sel_event]->seq == t->sel_seq)
		return (t->sel_event);
	for (i = 0; i < inc->nevents; i++) {
		if (inc->events[i]->seq == t->sel_seq)
			return ((int)i);
	}
	return (RL_NONE);
}

/*
 * Select again after a rebuild, keeping what the engineer chose: the same
 * event (events move when a diagnosis sorts them), else the same row (a
 * row without events, or whose event was the hang's, which each diagnosis
 * makes anew), else the first failure.  Until a key moves it, the
 * selection follows the answer as it changes.
 */
static void
model_reselect(struct tui *t)
{
	const struct rl_incident	*inc = t->inc;
	int				 ev, row;

	if (t->sel_auto) {
		if (inc->answer.first != RL_NONE)
			tui_select_event(t, inc->answer.first);
		else
			tui_select_row(t, 0);
		return;
	}
	if ((ev = model_find_selected(t)) != RL_NONE) {
		tui_select_event(t, ev);
		return;
	}
	if ((row = model_key_row(t, &t->sel_key)) >= 0) {
		if (t->sel_event != RL_NONE)
			tui_select_row(t, row);
		else
			t->sel_row = row;
		return;
	}
	if (inc->answer.first != RL_NONE) {
		tui_select_event(t, inc->answer.first);
		return;
	}
	row = t->sel_row;
	if (t->index.nrows > 0 && (size_t)row >= t->index.nrows)
		row = (int)t->index.nrows - 1;
	tui_select_row(t, row);
}

/* Rebuild the index from the model. */
void
model_build(struct tui *t)
{
	const struct rl_incident	*inc = t->inc;
	struct tui_index		*ix = &t->index;
	size_t				 i, hl;
	int				 first = inc->answer.first;

	model_clear(ix);
	ix->nevents = inc->nevents;
	ix->nranks = inc->nranks;
	ix->rows = xcalloc(inc->nranks + 1, sizeof *ix->rows);
	ix->max_rank = -1;
	for (i = 0; i < inc->nranks; i++) {
		ix->rows[i].rank = &inc->ranks[i];
		if (inc->ranks[i].rank > ix->max_rank)
			ix->max_rank = inc->ranks[i].rank;
		if (inc->ranks[i].host != NULL &&
		    (hl = strlen(inc->ranks[i].host)) > ix->host_width)
			ix->host_width = hl > MODEL_HOST_MAX ?
			    MODEL_HOST_MAX : hl;
	}
	ix->nrows = inc->nranks;
	ix->nranked = model_nranked(inc);
	ix->row_of_event = xreallocarray(NULL, inc->nevents + 1,
	    sizeof *ix->row_of_event);
	if (model_place(ix, inc) > 0) {
		for (i = 0; i < inc->nevents; i++) {
			if (ix->row_of_event[i] == -1)
				ix->row_of_event[i] = (int)ix->nrows;
		}
		ix->nrows++;
	}
	model_group(ix, inc->nevents);
	ix->copy_of = xreallocarray(NULL, inc->nevents + 1,
	    sizeof *ix->copy_of);
	for (i = 0; i < inc->nevents; i++)
		ix->copy_of[i] = -1;
	for (i = 0; i < ix->nrows; i++)
		model_dedup(ix, inc, &ix->rows[i]);
	model_copies(ix);
	model_source_names(ix, inc);
	filter_apply(t);
	ix->first_row = -1;
	if (first >= 0 && (size_t)first < inc->nevents)
		ix->first_row = ix->row_of_event[first];
	model_axis(ix, inc);
	model_positions(ix, inc);
	ix->glyph = xreallocarray(NULL, inc->nevents + 1, sizeof *ix->glyph);
	for (i = 0; i < inc->nevents; i++)
		ix->glyph[i] = (unsigned char)model_glyph(inc, i);
	model_reselect(t);
	/* The filter may hide what was selected: its row's best instead. */
	if (t->sel_event == RL_NONE || (size_t)t->sel_row >= ix->nrows)
		tui_select_row(t, t->sel_row);
	search_update(t);
}

/* A row's name as headers say it: "rank 4 (node1)". */
const char *
model_row_label(const struct tui_row *row, char *buf, size_t len)
{
	const struct rl_rank	*r = row->rank;

	if (r == NULL)
		snprintf(buf, len, "unattributed lines");
	else if (r->rank != RL_NONE && r->host != NULL)
		snprintf(buf, len, "rank %d (%s)", r->rank, r->host);
	else if (r->rank != RL_NONE)
		snprintf(buf, len, "rank %d", r->rank);
	else if (r->host != NULL)
		snprintf(buf, len, "%s (no rank)", r->host);
	else
		snprintf(buf, len, "no rank");
	return (buf);
}

/*
 * An event's rank as headers say it, from its row, or from the model when
 * a filter hides the row: the header never loses the first failure.
 */
const char *
model_event_label(const struct tui *t, unsigned ev, char *buf, size_t len)
{
	const struct rl_event	*e = t->inc->events[ev];
	struct tui_row		 row = { 0 };
	int			 r = t->index.row_of_event[ev];

	if (r >= 0)
		return (model_row_label(&t->index.rows[r], buf, len));
	row.rank = e->rank != RL_NONE ? incident_rank(t->inc, e->rank) : NULL;
	return (model_row_label(&row, buf, len));
}

/* How a row ended. */
enum rank_state
model_row_state(const struct tui_row *row)
{
	return (row->rank != NULL ? row->rank->state : RANK_OK);
}

/*
 * Does a row hold a failing line?  The row of lines with no rank has no
 * state of its own, and must not read "ok" when it holds failures.
 */
bool
model_row_failing(const struct tui *t, const struct tui_row *row)
{
	const struct rl_event	*e;
	size_t			 i;

	for (i = 0; i < row->n; i++) {
		e = t->inc->events[t->index.ev[row->first + i]];
		if (event_failing(e) && !e->harmless)
			return (true);
	}
	return (false);
}

/* An event's message, without the time, rank and level it starts with. */
const char *
model_message(const struct rl_event *e)
{
	if (e->text == NULL)
		return ("");
	return (e->text + clock_message(e->text, strlen(e->text)));
}

/* The timeline glyph of an event: what it is, at a glance. */
enum tui_glyph
model_glyph(const struct rl_incident *inc, size_t i)
{
	const struct rl_event	*e = inc->events[i];
	enum rl_mark		 mark;

	mark = e->rule != NULL ? e->rule->mark : MARK_NONE;

	/* A hang's first failure is the quiet rank: the legend's hung mark. */
	if ((int)i == inc->answer.first)
		return (e->role == ROLE_HANG ? GLYPH_HANG : GLYPH_FIRST);
	if (e->harmless)
		return (GLYPH_EVIDENCE);
	if (event_failing(e)) {
		switch (e->role) {
		case ROLE_HANG:
			return (GLYPH_HANG);
		case ROLE_COLLATERAL:
			return (GLYPH_COLLATERAL);
		case ROLE_WRAPPER:
			return (GLYPH_WRAPPER);
		default:
			return (GLYPH_FAIL);
		}
	}
	switch (e->role) {
	case ROLE_PROGRESS:
		if (mark == MARK_CKPT_END)
			return (GLYPH_CKPT);
		if (mark == MARK_CKPT_BEGIN)
			return (GLYPH_CKPT_BEGIN);
		return (GLYPH_PROGRESS);
	default:
		return (GLYPH_EVIDENCE);
	}
}

/* Where an event sits in its row's list, or -1. */
int
model_event_pos(const struct tui *t, unsigned ev)
{
	const struct tui_index	*ix = &t->index;
	const struct tui_row	*row;
	size_t			 lo, hi, mid;

	if (ev >= ix->nevents || ix->row_of_event[ev] < 0)
		return (-1);
	row = &ix->rows[ix->row_of_event[ev]];
	lo = 0;
	hi = row->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ix->ev[row->first + mid] == ev)
			return ((int)mid);
		if (ix->ev[row->first + mid] < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (-1);
}

/*
 * The event of a row most worth reading: its first failing event, else its
 * first of the strongest kind when that is a failure of some sort, else its
 * latest line (where a healthy rank had got to).
 */
int
model_row_default(const struct tui *t, int r)
{
	const struct tui_row	*row = &t->index.rows[r];
	const struct rl_incident *inc = t->inc;
	enum tui_glyph		 g, best = GLYPH_EMPTY;
	size_t			 i;
	int			 at = RL_NONE;

	if (row->n == 0)
		return (RL_NONE);
	if (row->rank != NULL && row->rank->first_event >= 0 &&
	    (size_t)row->rank->first_event < inc->nevents &&
	    t->index.row_of_event[row->rank->first_event] == r)
		return (row->rank->first_event);
	for (i = 0; i < row->n; i++) {
		g = model_glyph(inc, t->index.ev[row->first + i]);
		if (g > best) {
			best = g;
			at = (int)t->index.ev[row->first + i];
		}
	}
	if (best >= GLYPH_WRAPPER)
		return (at);
	return ((int)t->index.ev[row->first + row->n - 1]);
}

/*
 * A source's name in lists: the shortest end of its path no other source
 * shares (node0's and node1's attempt_0/0/stdout.log differ by their
 * node), its middle elided when long: "node1/…/0/stdout.log".
 */
const char *
model_source_name(const struct tui *t, unsigned src)
{
	const struct tui_index	*ix = &t->index;

	if (src < ix->nsrc_names && ix->src_names[src] != NULL)
		return (ix->src_names[src]);
	if (src >= t->inc->nsources || t->inc->sources[src]->path == NULL)
		return ("?");
	return (t->inc->sources[src]->path);
}

/* A time as a list shows it: 13:49:41 or 13:49:41.895, as the log wrote it. */
void
model_time_short(const struct rl_time *tm, char *buf, size_t len, bool ms)
{
	int64_t	 s, frac, tod;

	if (tm->flags & RL_TIME_BOOT) {
		snprintf(buf, len, "[%lld.%03lld]", (long long)(tm->ms / 1000),
		    (long long)(tm->ms % 1000));
		return;
	}
	if (tm->ms == 0 && !(tm->flags & RL_TIME_VALID)) {
		snprintf(buf, len, ms ? "--:--:--.---" : "--:--:--");
		return;
	}
	s = tm->ms / 1000;
	frac = tm->ms % 1000;
	if (frac < 0) {
		frac += 1000;
		s--;
	}
	tod = ((s % 86400) + 86400) % 86400;
	if (ms)
		snprintf(buf, len, "%02d:%02d:%02d.%03d", (int)(tod / 3600),
		    (int)(tod / 60 % 60), (int)(tod % 60), (int)frac);
	else
		snprintf(buf, len, "%02d:%02d:%02d", (int)(tod / 3600),
		    (int)(tod / 60 % 60), (int)(tod % 60));
}
