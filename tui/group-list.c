/*
 * group-list.c: the event list of a folded group of alike ranks.
 *
 * A folded group ("0-8518,8520-9999 x9999 collat") stands for thousands of
 * rows; its list shows what they hold, not its first member's lines alone.
 * Its members' lines are merged in time order, and alike lines are shown
 * once, with how many and on which ranks ("x9999 ranks 0-8518,8520-9999"):
 * at 10,000 ranks the list is as short as one rank's.  Lines are alike
 * when they have one rule and one text but for their numbers (a rank, a
 * pid, a step, a sequence number), and are the same occurrence on their
 * ranks: the fifth step line of every rank goes with the others' fifth,
 * not with their first.  The line shown is the earliest member's, and
 * selecting it selects that line; Enter shows it and the ranks.
 *
 * Built when a folded group is selected, kept until the groups are built
 * again (groups_reset frees it); a frame only reads it.  The build reads
 * every member's line once, in two passes with no sort: at 10,000 ranks
 * (471,442 lines, bench/frame's) it takes 150 ms on a quiet 2-core
 * machine, nearly all of it waiting on the lines' cold memory, so it runs
 * in slices of 4 ms on the loop's idle hook while frames go on, the first
 * member's lines shown meanwhile; frames after it take 0.1 to 0.7 ms.
 */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

#define GL_TEMPLATE_MAX	120	/* characters of a line's template compared */
#define GL_SLICE_NS	4000000	/* a build's slice between frames: 4 ms */
#define GL_BLOCK	4096	/* events templated between looks at the clock */

/* A line's key in the table that finds it (group_list_line). */
struct gl_slot {
	uint64_t	 key;
	size_t		 line;		/* its line + 1; 0: a free slot */
};

/* That table. */
struct gl_table {
	struct gl_slot	*v;
	size_t		 mask;		/* slots - 1, a power of two less one */
	size_t		 used;
	size_t		 cap;		/* room in the list's lines */
};

/* Order rank numbers. */
static int
group_list_int_cmp(const void *va, const void *vb)
{
	int	 a = *(const int *)va, b = *(const int *)vb;

	return ((a > b) - (a < b));
}

/* Order lines by their shown event: time order. */
static int
group_list_line_cmp(const void *va, const void *vb)
{
	const struct group_line	*a = va, *b = vb;

	return ((a->ev > b->ev) - (a->ev < b->ev));
}

/*
 * A line's rule and its text with each number as '#': a number starts
 * with a digit and runs over letters and digits, so that a hex address
 * (0x55d1c0e50ff0) is one number too, and the line's own time is all
 * numbers.  Only the template's first GL_TEMPLATE_MAX characters count: a
 * progress line is kept cut at a length in bytes, which a rank's longer
 * numbers move.  One pass, FNV-1a over the template's characters: at
 * 10,000 ranks this runs half a million times when a group is selected.
 */
static uint64_t
group_list_template(const struct rl_event *e)
{
	const unsigned char	*p;
	uint64_t		 h;
	size_t			 len = 0;
	bool			 num = false, alnum;

	h = hash_bytes(HASH_FNV_OFFSET, &e->rule, sizeof e->rule);
	p = (const unsigned char *)(e->text != NULL ? e->text : "");
	for (; *p != '\0' && len < GL_TEMPLATE_MAX; p++) {
		alnum = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z');
		if (num && alnum)
			continue;
		num = *p >= '0' && *p <= '9';
		h = (h ^ (num ? '#' : *p)) * HASH_FNV_PRIME;
		len++;
	}
	return (h);
}

/* A template's count of lines so far on a row (group_list_key_row). */
struct gl_count {
	uint64_t	 tmpl;
	uint64_t	 n;		/* 0: a free slot */
};

#define GL_FINAL	(1ULL << 63)	/* a step line's key: its step in it */
#define GL_AHEAD	8		/* events fetched ahead of the one read */

/*
 * Each member's line's template, in event order (the events and their
 * texts lie in memory in that order: one sweep, not one per row); a step
 * line's key is final already, its step in it, so that step 16 goes with
 * step 16 though a rank logged a step more or less before it.
 */
static void
group_list_templates(const struct tui *t, const bool *member, uint64_t *tmpl,
    size_t from, size_t to)
{
	const struct rl_event	*e;
	size_t			 ev;
	int			 r;
	uint64_t		 h;

	for (ev = from; ev < to; ev++) {
		/*
		 * The texts are cold and scattered: half a million misses in
		 * a row.  Asking for the lines a few events ahead lets the
		 * memory fetch many at once (4 to 5 times faster at 10,000
		 * ranks).
		 */
		if (ev + 2 * GL_AHEAD < to)
			__builtin_prefetch(t->inc->events[ev + 2 * GL_AHEAD]);
		if (ev + GL_AHEAD < to)
			__builtin_prefetch(t->inc->events[ev + GL_AHEAD]->text);
		if ((r = t->index.row_of_event[ev]) < 0 || !member[r])
			continue;
		e = t->inc->events[ev];
		h = group_list_template(e);
		if (e->rule != NULL && e->rule->mark == MARK_STEP &&
		    event_cap(e, CAP_STEP) != RL_CAP_UNSET)
			h = ((h ^ (uint64_t)event_cap(e, CAP_STEP)) *
			    HASH_FNV_PRIME) | GL_FINAL;
		else
			h &= ~GL_FINAL;
		tmpl[ev] = h;
	}
}

/*
 * Key a row's lines: a template and which occurrence of it on the row
 * (counted in tab, room for twice the row's lines), unless final.
 */
static void
group_list_key_row(const struct tui *t, const struct tui_row *row,
    const uint64_t *tmpl, uint64_t *key, struct gl_count *tab)
{
	struct gl_count		*c;
	uint64_t		 h;
	size_t			 i, mask = 1;

	while (mask + 1 < 2 * row->n)
		mask = 2 * mask + 1;
	memset(tab, 0, (mask + 1) * sizeof *tab);
	for (i = 0; i < row->n; i++) {
		if ((h = tmpl[t->index.ev[row->first + i]]) & GL_FINAL) {
			key[i] = h;
			continue;
		}
		for (c = &tab[h & mask]; c->n != 0 && c->tmpl != h;
		    c = &tab[(size_t)(c - tab + 1) & mask])
			;
		c->tmpl = h;
		key[i] = ((h ^ c->n++) * HASH_FNV_PRIME) & ~GL_FINAL;
	}
}

/*
 * The line of a key, added (its event unset, its count 0) if new: an open
 * table of the lines' keys, grown at half full.
 */
static size_t
group_list_line(struct group_list *gl, struct gl_table *tb, uint64_t key)
{
	struct gl_slot	*s, *old;
	size_t		 i, n;

	if (2 * (tb->used + 1) > tb->mask + 1) {
		old = tb->v;
		n = tb->mask + 1;
		tb->mask = 2 * n - 1;
		tb->v = xcalloc(2 * n, sizeof *tb->v);
		for (i = 0; i < n; i++) {
			if (old[i].line == 0)
				continue;
			for (s = &tb->v[old[i].key & tb->mask]; s->line != 0;
			    s = &tb->v[(size_t)(s - tb->v + 1) & tb->mask])
				;
			*s = old[i];
		}
		free(old);
	}
	for (s = &tb->v[key & tb->mask]; s->line != 0 && s->key != key;
	    s = &tb->v[(size_t)(s - tb->v + 1) & tb->mask])
		;
	if (s->line == 0) {
		gl->v = array_grow(gl->v, gl->n + 1, &tb->cap, sizeof *gl->v);
		memset(&gl->v[gl->n], 0, sizeof *gl->v);
		gl->v[gl->n].ev = UINT_MAX;
		s->key = key;
		s->line = ++gl->n;
		tb->used++;
	}
	return (s->line - 1);
}

/* "0-8518,8520-9999": rank numbers (sorted here) as runs; *distinct ranks. */
static char *
group_list_ranks(int *r, size_t n, size_t *distinct)
{
	struct buf	 b = { 0 };
	size_t		 i, j;
	int		 hi;

	/* The members come in rank order: mostly nothing to sort. */
	for (i = 1; i < n && r[i - 1] <= r[i]; i++)
		;
	if (i < n)
		qsort(r, n, sizeof *r, group_list_int_cmp);
	*distinct = 0;
	for (i = 0; i < n; i = j) {
		/* A rank twice (a step it logged twice) is one rank. */
		for (hi = r[i], j = i + 1; j < n && (r[j] == hi ||
		    r[j] == hi + 1); j++)
			hi = r[j];
		if (b.len > 0)
			buf_addc(&b, ',');
		if (hi > r[i])
			buf_printf(&b, "%d-%d", r[i], hi);
		else
			buf_printf(&b, "%d", r[i]);
		*distinct += (size_t)(hi - r[i]) + 1;
	}
	return (b.p != NULL ? buf_steal(&b) : xstrdup(""));
}

/*
 * Each line's ranks, from every member's lines again (their line is
 * known now): a slice of one array per line, in the members' order.
 */
static void
group_list_fill(struct tui *t, struct group_list *gl, const struct tui_groups *g,
    const struct tui_group *gr)
{
	const struct tui_row	*row;
	size_t			*at, i, k, l, sum = 0;
	int			*r;

	at = xreallocarray(NULL, gl->n + 1, sizeof *at);
	for (l = 0; l < gl->n; l++) {
		at[l] = sum;
		sum += gl->v[l].count;
	}
	r = xreallocarray(NULL, sum + 1, sizeof *r);
	for (k = 0; k < gr->n; k++) {
		row = &t->index.rows[g->members[gr->first + k]];
		for (i = 0; i < row->n; i++) {
			l = (size_t)gl->line_of[t->index.ev[row->first + i]];
			r[at[l]++] = row->rank != NULL ? row->rank->rank : RL_NONE;
		}
	}
	for (l = 0, sum = 0; l < gl->n; l++) {
		gl->v[l].ranks = group_list_ranks(&r[sum], gl->v[l].count,
		    &gl->v[l].nranks);
		sum += gl->v[l].count;
	}
	free(r);
	free(at);
}

/*
 * Put the lines in time order, and each event's line with them: a line's
 * place is how many lines show an earlier event, found in one pass.
 */
static void
group_list_order(struct group_list *gl, size_t nevents)
{
	int	*now;
	size_t	 i;
	int	 next = 0;

	now = xreallocarray(NULL, gl->n + 1, sizeof *now);
	for (i = 0; i < nevents; i++) {
		if (gl->line_of[i] >= 0 && gl->v[gl->line_of[i]].ev == i)
			now[gl->line_of[i]] = next++;
	}
	for (i = 0; i < nevents; i++) {
		if (gl->line_of[i] >= 0)
			gl->line_of[i] = now[gl->line_of[i]];
	}
	if (gl->n > 1)
		qsort(gl->v, gl->n, sizeof *gl->v, group_list_line_cmp);
	free(now);
}

/*
 * What a list being built holds between slices: the members, each event's
 * template, the lines' table, and how far each pass went.
 */
struct gl_build {
	bool		*member;	/* per row */
	uint64_t	*tmpl;		/* per event */
	uint64_t	*key;		/* a row's keys, longest rows' room */
	struct gl_count	*tab;		/* a row's templates counted */
	struct gl_table	 tb;		/* the lines, by key */
	size_t		 next_ev;	/* templates made below this */
	size_t		 next_member;	/* members keyed below this */
	size_t		 nevents;	/* the index's, when it began */
	size_t		 nmembers;
	uint64_t	 started;	/* uv_hrtime() when it began */
	unsigned	 slices;
};

static void
group_list_build_free(struct gl_build *b)
{
	if (b == NULL)
		return;
	free(b->member);
	free(b->tmpl);
	free(b->key);
	free(b->tab);
	free(b->tb.v);
	free(b);
}

/* Free a list and what it holds. */
void
group_list_free(struct group_list *gl)
{
	size_t	 i;

	if (gl == NULL)
		return;
	for (i = 0; i < gl->n; i++)
		free(gl->v[i].ranks);
	free(gl->v);
	free(gl->line_of);
	group_list_build_free(gl->build);
	free(gl);
}

/* Start the list of group gr: its members, and room for the passes. */
static struct group_list *
group_list_start(struct tui *t, struct tui_groups *g,
    const struct tui_group *gr)
{
	struct group_list	*gl;
	struct gl_build		*b;
	const struct tui_row	*row;
	size_t			 i, k, longest = 1;

	gl = xcalloc(1, sizeof *gl);
	gl->group = (size_t)(gr - g->v);
	b = gl->build = xcalloc(1, sizeof *b);
	b->started = uv_hrtime();
	b->nevents = t->index.nevents;
	b->nmembers = gr->n;
	b->member = xcalloc(t->index.nrows + 1, sizeof *b->member);
	for (k = 0; k < gr->n; k++) {
		b->member[g->members[gr->first + k]] = true;
		row = &t->index.rows[g->members[gr->first + k]];
		gl->events += row->n;
		if (row->n > longest)
			longest = row->n;
	}
	gl->line_of = xreallocarray(NULL, t->index.nevents + 1,
	    sizeof *gl->line_of);
	for (i = 0; i < t->index.nevents; i++)
		gl->line_of[i] = -1;
	b->tmpl = xreallocarray(NULL, t->index.nevents + 1, sizeof *b->tmpl);
	b->key = xreallocarray(NULL, longest, sizeof *b->key);
	b->tab = xreallocarray(NULL, 4 * longest, sizeof *b->tab);
	b->tb.mask = 63;
	b->tb.v = xcalloc(b->tb.mask + 1, sizeof *b->tb.v);
	return (gl);
}

/*
 * Build on for about ns (0: to the end): the templates a block of events
 * at a time, then each member's lines keyed to their line, then the
 * lines' ranks and order.  True when the list is done.
 */
static bool
group_list_build(struct tui *t, struct tui_groups *g,
    const struct tui_group *gr, struct group_list *gl, uint64_t ns)
{
	struct gl_build		*b = gl->build;
	const struct tui_row	*row;
	uint64_t		 a = uv_hrtime();
	size_t			 i, l, to;
	unsigned		 ev;

	b->slices++;
	while (b->next_ev < t->index.nevents) {
		to = b->next_ev + GL_BLOCK;
		if (to > t->index.nevents)
			to = t->index.nevents;
		group_list_templates(t, b->member, b->tmpl, b->next_ev, to);
		b->next_ev = to;
		if (ns != 0 && uv_hrtime() - a >= ns)
			return (false);
	}
	while (b->next_member < gr->n) {
		row = &t->index.rows[g->members[gr->first + b->next_member++]];
		group_list_key_row(t, row, b->tmpl, b->key, b->tab);
		for (i = 0; i < row->n; i++) {
			ev = t->index.ev[row->first + i];
			l = group_list_line(gl, &b->tb, b->key[i]);
			gl->line_of[ev] = (int)l;
			gl->v[l].count++;
			if (ev < gl->v[l].ev)
				gl->v[l].ev = ev;	/* the earliest */
		}
		if (ns != 0 && b->next_member % 64 == 0 &&
		    uv_hrtime() - a >= ns)
			return (false);
	}
	group_list_fill(t, gl, g, gr);
	group_list_order(gl, t->index.nevents);
	tui_log(t, "group list: %zu lines of %zu events in %u slices, %.1f ms",
	    gl->n, gl->events, b->slices,
	    (double)(uv_hrtime() - b->started) / 1e6);
	group_list_build_free(b);
	gl->build = NULL;
	return (true);
}

/* Can the loop's idle hook build a list (not in bench, not stopping)? */
static bool
group_list_can_idle(const struct tui *t)
{
	return t->group_idle.type == UV_IDLE && !t->quitting &&
	    !uv_is_closing((const uv_handle_t *)&t->group_idle);
}

/* The loop is idle: build the selected group's list on, a slice. */
static void
group_list_idle_cb(uv_idle_t *h)
{
	struct tui		*t = h->data;
	struct tui_groups	*g = t->groups;
	struct group_list	*gl;

	/* The index built again since (the timeline drops its list then). */
	if (g == NULL || (gl = g->list) == NULL || gl->build == NULL ||
	    gl->group >= g->n || gl->build->nevents != t->index.nevents ||
	    gl->build->nmembers != g->v[gl->group].n) {
		uv_idle_stop(h);
		return;
	}
	if (group_list_build(t, g, &g->v[gl->group], gl, GL_SLICE_NS)) {
		uv_idle_stop(h);
		t->dirty = true;
	}
}

/*
 * The list of the folded group gr, started if the groups were built again
 * or another group is selected.  At 10,000 ranks a list reads half a
 * million lines' texts (150 ms, cold memory): it is built in slices of a
 * few milliseconds on the loop's idle hook, so that no frame waits for
 * it, and until it is done its build field says so and the caller shows
 * the first member's lines.  Without a loop (bench) it is built at once.
 */
const struct group_list *
group_list_get(struct tui *t, struct tui_groups *g,
    const struct tui_group *gr)
{
	struct group_list	*gl = g->list;

	if (gl != NULL && gl->group == (size_t)(gr - g->v))
		return (gl);
	group_list_free(gl);
	gl = g->list = group_list_start(t, g, gr);
	if (!group_list_can_idle(t)) {
		group_list_build(t, g, gr, gl, 0);
		return (gl);
	}
	if (!group_list_build(t, g, gr, gl, GL_SLICE_NS))
		uv_idle_start(&t->group_idle, group_list_idle_cb);
	return (gl);
}

/*
 * Whether the list is done; if not, *pct is how far: the templates, which
 * read the texts, are nine tenths of the time.
 */
int
group_list_done(const struct group_list *gl, int *pct)
{
	const struct gl_build	*b = gl->build;

	if (b == NULL)
		return (1);
	*pct = (int)(90 * b->next_ev / (b->nevents + 1) +
	    10 * b->next_member / (b->nmembers + 1));
	return (0);
}

/* One line: glyph, time, how many and on which ranks, the message. */
static void
group_list_draw_line(struct tui *t, const struct group_line *ln, int y,
    int x, int w, bool sel)
{
	const struct rl_event	*e = t->inc->events[ln->ev];
	enum tui_glyph		 g = model_glyph(t->inc, ln->ev);
	enum tui_role		 role = sel ? TR_SELECTED : TR_SOURCE;
	char			 when[32];
	int			 right = x + w, cap = w * 2 / 5;

	if (sel)
		screen_fill(y, x, w, TR_SELECTED);
	screen_glyph(y, x, g, sel ? TR_SELECTED : theme_glyph_role(g));
	x += 2;
	model_time_short(&e->time, when, sizeof when, true);
	x += 1 + screen_puts(y, x, right - x, sel ? TR_SELECTED : TR_TIME,
	    when);
	if (ln->nranks > 1 || ln->count > 1)
		x += 1 + screen_printf(y, x, cap < right - x ? cap : right - x,
		    role, "%s%zu ranks %s", screen_sym("\xc3\x97", "x"),
		    ln->count, ln->ranks);
	else
		x += 1 + screen_printf(y, x, right - x, role, "rank %s",
		    ln->ranks);
	screen_cut(y, x, right - x, sel ? TR_SELECTED : ((int)ln->ev ==
	    t->inc->answer.first ? TR_HIGHLIGHT : TR_NORMAL),
	    model_message(e));
}

/* The line of the selected event, or -1. */
static int
group_list_pos(const struct tui *t, const struct group_list *gl)
{
	if (t->sel_event == RL_NONE || t->sel_event < 0 ||
	    (size_t)t->sel_event >= t->index.nevents)
		return (-1);
	return (gl->line_of[t->sel_event]);
}

/*
 * Draw h lines of the list at y, x, w wide, from *top, which is moved to
 * keep the selected line on screen (a third down after a jump).
 */
void
group_list_draw(struct tui *t, const struct group_list *gl, int y, int x,
    int w, int h, int *top)
{
	int	 pos = group_list_pos(t, gl), i;

	if (pos < 0)
		pos = 0;
	if (pos < *top || pos >= *top + h)
		*top = pos - h / 3;
	if (*top > (int)gl->n - h)
		*top = (int)gl->n - h;
	if (*top < 0)
		*top = 0;
	for (i = 0; i < h && (size_t)(*top + i) < gl->n; i++)
		group_list_draw_line(t, &gl->v[*top + i], y + i, x, w,
		    *top + i == group_list_pos(t, gl));
}

/* h and l on a folded group: the next or previous line of its list. */
int
group_list_step(struct tui *t, const struct group_list *gl, int d)
{
	int	 pos;

	if (gl->n == 0)
		return (REACT_NONE);
	if ((pos = group_list_pos(t, gl)) < 0)
		pos = d > 0 ? -1 : (int)gl->n;
	pos += d;
	if (pos < 0)
		pos = 0;
	if ((size_t)pos >= gl->n)
		pos = (int)gl->n - 1;
	tui_select_event(t, (int)gl->v[pos].ev);
	return (REACT_REDRAW);
}

/* A click on the list's line pos. */
int
group_list_click(struct tui *t, const struct group_list *gl, int pos)
{
	if (pos < 0 || (size_t)pos >= gl->n)
		return (REACT_NONE);
	tui_select_event(t, (int)gl->v[pos].ev);
	return (REACT_REDRAW);
}

/*
 * The line of the folded group selected on the timeline that event ev
 * shows, for the detail; NULL when no folded group is selected.
 */
const struct group_line *
group_list_selected(const struct tui *t, int ev)
{
	const struct tui_groups	*g = t->groups;
	const struct tui_group	*gr;
	int			 i;

	if (g == NULL || g->list == NULL || g->disp_of_row == NULL ||
	    t->index.nrows == 0 || ev < 0 || (size_t)ev >= t->index.nevents ||
	    (gr = groups_of(g, g->disp_of_row[t->sel_row])) == NULL ||
	    (size_t)(gr - g->v) != g->list->group ||
	    (i = g->list->line_of[ev]) < 0)
		return (NULL);
	return (&g->list->v[i]);
}
