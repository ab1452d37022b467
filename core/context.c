/*
 * context.c: the lines around each failure, kept as ingestion reads them.
 *
 * The store and the console show a failure with the lines around it.
 * They used to read them again from the log at the event's offset, which
 * opened every log once more and read files on the console's loop.  Now
 * the reader keeps them while the bytes are in hand: a failure's window
 * (CONTEXT_BYTES before its line, and as much after as makes
 * CONTEXT_WINDOW) is filled from the tail of the chunks before it, the
 * chunk being fed and the chunks after it, then cut into whole lines
 * exactly as a read at the offset cut them (context_cut), and only the
 * lines are kept: a few hundred bytes per failure, never the window.
 * The lines of failures near each other are one copy of the source's
 * bytes (a context_span) that their contexts share, and each context is
 * made a string only when a reader asks for it (event_context): at 1,000
 * ranks the failures' contexts held 9.9 MB of copies of the same lines.
 *
 * A window not full yet (the lines after a failure at a followed file's
 * end) is cut for now when the model is asked for (context_settle) and
 * again when it fills.
 */
#define _GNU_SOURCE		/* memrchr */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static void	context_compact(struct rl_source *);
static void	context_text_clear(struct rl_context *);

#define CONTEXT_RAW_SLOTS 1024	/* a reader's process slots up to which
					   their windows are kept raw */

/*
 * A window cut as soon as it is filled: one per reading thread, not one
 * per source, since a console following 10,000 files keeps 10,000 ingests.
 */
static _Thread_local char context_scratch[CONTEXT_WINDOW];

/*
 * The lines around the line at win[before] in a window of n bytes read at
 * a source's offset from: up to CONTEXT_LINES whole lines before it and
 * after it; when the window does not start the source (cut), a first line
 * it cut is dropped.  *first is the number of the first line returned,
 * that of the line at `before` being line.  -1 when the window holds
 * nothing of the line.
 */
static int
context_bounds(const char *win, size_t n, size_t before, bool cut,
    uint64_t line, size_t *at, size_t *len, int64_t *first)
{
	const char	*p, *nl, *start, *end;
	size_t		 lines;

	if (n <= before)
		return -1;
	/*
	 * Back over CONTEXT_LINES whole lines; a cut first one is dropped.
	 * Newlines are looked for with memrchr and memchr: a byte at a time,
	 * the cut was a sixth of a console's reading.
	 */
	start = win + before;
	for (lines = 0; start > win; start = nl) {
		if ((nl = memrchr(win, '\n', (size_t)(start - win))) == NULL) {
			start = win;
			break;
		}
		if (++lines > CONTEXT_LINES) {
			start = nl + 1;
			break;
		}
	}
	if (start == win && cut) {
		nl = memchr(start, '\n', before);
		start = nl != NULL ? nl + 1 : win + before;
	}
	for (p = start, lines = 0; (p = memchr(p, '\n',
	    (size_t)(win + before - p))) != NULL; p++)
		lines++;
	*first = (int64_t)line - (int64_t)lines;
	/* Forward: the line and CONTEXT_LINES more. */
	for (end = win + before, lines = 0; ; end = nl + 1) {
		if ((nl = memchr(end, '\n', (size_t)(win + n - end))) == NULL) {
			end = win + n;
			break;
		}
		if (lines++ == CONTEXT_LINES) {
			end = nl;
			break;
		}
	}
	while (end > start && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	/* As a string: it ends at a NUL byte, as the text read back did. */
	*at = (size_t)(start - win);
	*len = strnlen(start, (size_t)(end - start));
	return 0;
}

/* The same cut, as a string of the caller's. */
int
context_cut(const char *win, size_t n, size_t before, bool cut,
    uint64_t line, char **text, int64_t *first)
{
	size_t	at, len;

	*text = NULL;
	if (context_bounds(win, n, before, cut, line, &at, &len, first) != 0)
		return -1;
	*text = xstrndup(win + at, len);
	return 0;
}

/* Let go of a reference to a span: the last one frees it. */
static void
context_span_unref(struct context_span *sp)
{
	if (sp == NULL)
		return;
	assert(sp->refs > 0);
	if (--sp->refs > 0)
		return;
	free(sp->bytes);
	free(sp);
}

/* A new span holding n bytes of the source at abs. */
static struct context_span *
context_span_new(const char *p, size_t n, uint64_t abs)
{
	struct context_span	*sp;

	sp = xcalloc(1, sizeof *sp);
	sp->from = abs;
	sp->cap = (uint32_t)(n < 1024 ? 1024 : n);
	sp->bytes = xmalloc(sp->cap);
	memcpy(sp->bytes, p, n);
	sp->len = (uint32_t)n;
	sp->refs = 1;
	return sp;
}

/*
 * Can the n bytes at the source's offset abs be had by growing sp: they
 * begin within it or where it ends, the bytes both hold are the same (a
 * followed file may have been truncated and written again), and it stays
 * within CONTEXT_SPAN_MAX.
 */
static bool
context_span_fits(const struct context_span *sp, const char *p, size_t n,
    uint64_t abs)
{
	size_t	both;

	if (abs < sp->from || abs > sp->from + sp->len ||
	    abs + n - sp->from > CONTEXT_SPAN_MAX)
		return false;
	both = (size_t)(sp->from + sp->len - abs);
	if (both > n)
		both = n;
	return memcmp(sp->bytes + (abs - sp->from), p, both) == 0;
}

/*
 * Give c the n bytes of lines at the source's offset abs: from the
 * reader's span when they overlap or follow what it holds, else from a new
 * one that later lines extend.  A span no context holds any more (a flood
 * of one failure, each line's context dropped for the next) begins again
 * rather than grow.
 */
static void
context_store(struct context_reader *cr, struct rl_context *c,
    const char *p, size_t n, uint64_t abs)
{
	struct context_span	*sp = cr->span;
	size_t			 end, cap;

	if (sp != NULL && sp->refs == 1) {
		sp->from = abs;
		sp->len = 0;
	}
	if (sp == NULL || !context_span_fits(sp, p, n, abs)) {
		context_span_unref(sp);
		sp = cr->span = context_span_new(p, n, abs);
	} else if ((end = (size_t)(abs + n - sp->from)) > sp->len) {
		if (end > sp->cap) {
			cap = 2 * (size_t)sp->cap;
			if (cap < end)
				cap = end;
			if (cap > CONTEXT_SPAN_MAX)
				cap = CONTEXT_SPAN_MAX;
			sp->bytes = xrealloc(sp->bytes, cap);
			sp->cap = (uint32_t)cap;
		}
		memcpy(sp->bytes + sp->len, p + (sp->len - (abs - sp->from)),
		    end - sp->len);
		sp->len = (uint32_t)end;
	}
	sp->refs++;
	c->span = sp;
	c->at = (uint32_t)(abs - sp->from);
	c->len = (uint32_t)n;
}

/* A reader's span is grown no more: its room past its bytes is let go. */
static void
context_span_close(struct context_reader *cr)
{
	struct context_span	*sp = cr->span;

	if (sp == NULL)
		return;
	cr->span = NULL;
	if (sp->refs > 1 && sp->cap > sp->len && sp->len > 0) {
		sp->bytes = xrealloc(sp->bytes, sp->len);
		sp->cap = sp->len;
	}
	context_span_unref(sp);
}

/* Free what a context holds, its lines' span referred to no more. */
static void
context_text_clear(struct rl_context *c)
{
	free(c->text);
	c->text = NULL;
	context_span_unref(c->span);
	c->span = NULL;
	c->at = c->len = 0;
	c->from = 0;
	c->byref = false;
}

/*
 * The source was read to its end and can be read at an offset again (a
 * plain file, not followed): c lets go of its span and keeps where its
 * lines are.  At 10,000 ranks the spans were 38 MB of the peak, for the
 * few contexts a report or the store shows.
 */
static void
context_unhold(struct rl_context *c)
{
	if (c == NULL || c->span == NULL)
		return;
	c->from = c->span->from + c->at;
	c->at = 0;
	context_span_unref(c->span);
	c->span = NULL;
	c->byref = true;
}

/*
 * A context's lines read again from its source, or NULL: they cannot be,
 * or the bytes there are no longer the failure's line (the file changed
 * since it was read).
 */
static char *
context_reread(const struct rl_source *src, const struct rl_context *c)
{
	char	*t;
	size_t	 have, off, cmp;

	if (c->offset < c->from || c->offset - c->from > c->len)
		return NULL;
	t = xmalloc((size_t)c->len + 1);
	have = source_pread(src, t, c->len, c->from);
	off = (size_t)(c->offset - c->from);
	cmp = c->len - off < c->nhead ? c->len - off : c->nhead;
	if (have != c->len || memchr(t, '\0', have) != NULL ||
	    memcmp(t + off, c->head, cmp) != 0) {
		free(t);
		return NULL;
	}
	t[have] = '\0';
	return t;
}

/* Free a context and what it holds. */
void
context_free(struct rl_context *c)
{
	if (c == NULL)
		return;
	context_text_clear(c);
	free(c);
}

/* Free a source's contexts. */
void
context_list_clear(struct rl_source *src)
{
	size_t	i;

	for (i = 0; i < src->ncontexts; i++)
		context_text_clear(&src->contexts[i]);
	free(src->contexts);
	src->contexts = NULL;
	src->ncontexts = src->ccontexts = 0;
}

/* A source's context at a line's offset, or NULL: a binary search. */
static struct rl_context *
context_find(const struct rl_source *src, uint64_t offset)
{
	size_t	lo = 0, hi = src->ncontexts, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (src->contexts[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < src->ncontexts && src->contexts[lo].offset == offset ?
	    &src->contexts[lo] : NULL;
}

/* Is c the context of a line whose text is the event's? */
static bool
context_matches(const struct rl_context *c, const char *text)
{
	size_t	cmp;

	if (c == NULL || (c->span == NULL && !c->byref) || text == NULL)
		return false;
	cmp = strlen(text);
	if (cmp > sizeof c->head)
		cmp = sizeof c->head;
	return c->nhead >= cmp && memcmp(c->head, text, cmp) == 0;
}

/*
 * The lines around an event, or NULL: it is no failure, or its line is
 * not the text it holds (a colour code or a journal entry was taken out
 * of it).  *first is the number of the first line.
 */
const char *
event_context(const struct rl_incident *inc, const struct rl_event *e,
    int64_t *first)
{
	struct rl_context	*c = NULL;
	const struct rl_process	*p;

	if (e->source >= inc->nsources || event_text(inc, e) == NULL)
		return NULL;
	if (e->process != RL_NONE && (size_t)e->process < inc->nprocs) {
		p = inc->procs[e->process];
		if (p->last_context != NULL && p->last_source ==
		    (int)e->source && p->last_context->offset == e->offset)
			c = p->last_context;
	}
	if (c == NULL)
		c = context_find(inc->sources[e->source], e->offset);
	if (!context_matches(c, e->text))
		return NULL;
	/*
	 * Made a string once, for the few a reader shows: the model is read
	 * on one thread once the reading is done.
	 */
	if (c->text == NULL && c->span != NULL)
		c->text = xstrndup(c->span->bytes + c->at, c->len);
	else if (c->text == NULL &&
	    (c->text = context_reread(inc->sources[e->source], c)) == NULL)
		return NULL;
	*first = c->first;
	return c->text;
}

/* Cut a want's window into its context, for now or for good. */
static void
context_want_cut(struct context_reader *cr, struct context_want *w,
    struct rl_source *src)
{
	struct rl_context	*c, one = { 0 };
	size_t			 before = (size_t)(w->offset - w->from);
	size_t			 at, len;

	if (w->proc != NULL) {
		/* A process's last line: only while it is still its last. */
		if (w->proc->last_source != (int)src->index ||
		    w->proc->last_offset != w->offset)
			return;
		c = w->proc->last_context;
		if (c == NULL)
			c = w->proc->last_context = xcalloc(1, sizeof *c);
	} else if ((c = context_find(src, w->offset)) == NULL || c->dropped)
		return;
	context_text_clear(c);
	one.offset = w->offset;
	if (context_bounds(w->win, w->have, before, w->from > 0 && !w->whole,
	    w->line, &at, &len, &one.first) == 0) {
		context_store(cr, &one, w->win + at, len, w->from + at);
		one.nhead = (uint8_t)(w->have - before < sizeof one.head ?
		    w->have - before : sizeof one.head);
		memcpy(one.head, w->win + before, one.nhead);
	}
	*c = one;
}

/* Copy what the window lacks from bytes at the source's offset abs. */
static void
context_fill(struct context_want *w, const char *p, size_t n, uint64_t abs)
{
	uint64_t	at = w->from + w->have;
	size_t		k;

	if (at < abs || at >= abs + n || w->have == CONTEXT_WINDOW)
		return;
	k = (size_t)(abs + n - at);
	if (k > CONTEXT_WINDOW - w->have)
		k = CONTEXT_WINDOW - w->have;
	if (w->room < w->have + k) {
		/* A resting source's window, growing again. */
		w->win = xrealloc(w->win, CONTEXT_WINDOW);
		w->room = CONTEXT_WINDOW;
	}
	memcpy(w->win + w->have, p + (at - abs), k);
	w->have += k;
}

/* A new window for the line at offset, filled from what is in hand. */
static struct context_want *
context_want_new(struct context_reader *cr, uint64_t offset, uint64_t line)
{
	struct context_want	*w;

	w = xcalloc(1, sizeof *w);
	w->offset = offset;
	w->line = line;
	w->from = offset < CONTEXT_BYTES ? 0 : offset - CONTEXT_BYTES;
	w->win = xmalloc(CONTEXT_WINDOW);
	w->room = CONTEXT_WINDOW;
	context_fill(w, cr->prev, cr->nprev, cr->abs - cr->nprev);
	if (cr->chunk != NULL)
		context_fill(w, cr->chunk, cr->nchunk, cr->abs);
	return w;
}

static void
context_want_free(struct context_want *w)
{
	if (w == NULL)
		return;
	free(w->win);
	free(w);
}

static void
context_want_add(struct context_reader *cr, struct context_want *w)
{
	cr->want = array_grow(cr->want, cr->nwant, &cr->cwant,
	    sizeof *cr->want);
	cr->want[cr->nwant++] = w;
}

/*
 * A chunk of the source's bytes, at its offset abs, is being fed: the
 * windows still filling take what they lack of it.
 */
void
context_chunk(struct context_reader *cr, const char *p, size_t n,
    uint64_t abs)
{
	size_t	i;

	cr->chunk = p;
	cr->nchunk = n;
	cr->abs = abs;
	for (i = 0; i < cr->nwant; i++)
		context_fill(cr->want[i], p, n, abs);
	if (cr->held != NULL)
		context_fill(cr->held, p, n, abs);
}

/*
 * A failure's line at offset, number line, was kept: its context is
 * wanted.  A line held across chunks takes the window begun for it.
 */
void
context_event(struct context_reader *cr, struct rl_source *src,
    uint64_t offset, uint64_t line)
{
	struct context_want	*w, one;
	struct rl_context	*c;

	if (src->ncontexts > 0 &&
	    src->contexts[src->ncontexts - 1].offset >= offset)
		return;
	if (cr->held != NULL && cr->held->offset == offset) {
		w = cr->held;
		cr->held = NULL;
		w->line = line;
	} else if (cr->chunk == NULL || offset < cr->abs)
		return;
	else
		w = NULL;
	if (src->ncontexts == src->ccontexts)
		context_compact(src);
	src->contexts = array_grow(src->contexts, src->ncontexts,
	    &src->ccontexts, sizeof *src->contexts);
	c = &src->contexts[src->ncontexts++];
	memset(c, 0, sizeof *c);
	c->offset = offset;
	if (w == NULL) {
		/* The whole chunk is in hand: most windows are cut at once. */
		memset(&one, 0, sizeof one);
		one.offset = offset;
		one.line = line;
		one.from = offset < CONTEXT_BYTES ? 0 : offset - CONTEXT_BYTES;
		one.win = context_scratch;
		one.room = CONTEXT_WINDOW;
		context_fill(&one, cr->prev, cr->nprev, cr->abs - cr->nprev);
		context_fill(&one, cr->chunk, cr->nchunk, cr->abs);
		if (one.have == CONTEXT_WINDOW) {
			context_want_cut(cr, &one, src);
			return;
		}
		w = xmalloc(sizeof *w);
		*w = one;
		w->win = xmalloc(CONTEXT_WINDOW);
		memcpy(w->win, one.win, one.have);
	}
	context_want_add(cr, w);
}

/*
 * The slot of the process of this index.  The slots cover the indexes of
 * the processes this source wrote for, from the lowest: indexed from 0,
 * the 1,000th log's reader kept 2,000 slots for its one process, and
 * reading 10,000 logs set and went over 100 million.
 */
static struct context_want *
context_slot(struct context_reader *cr, unsigned index)
{
	struct context_want	*v;
	size_t			 lo, hi, n;

	if (cr->nlast == 0)
		cr->last_lo = index;
	if (index >= cr->last_lo && index - cr->last_lo < cr->nlast)
		return &cr->last[index - cr->last_lo];
	/* Grow to hold it, doubling on the side it falls. */
	lo = index < cr->last_lo ? index : cr->last_lo;
	hi = index < cr->last_lo ? cr->last_lo + cr->nlast : (size_t)index + 1;
	n = hi - lo < 2 * cr->nlast ? 2 * cr->nlast : hi - lo;
	if (n < 4)
		n = 4;
	if (index < cr->last_lo)
		lo = hi > n ? hi - n : 0;
	v = xcalloc(n, sizeof *v);
	if (cr->nlast > 0)
		memcpy(v + (cr->last_lo - lo), cr->last,
		    cr->nlast * sizeof *v);
	free(cr->last);
	cr->last = v;
	cr->last_lo = (unsigned)lo;
	cr->nlast = n;
	return &cr->last[index - lo];
}

/*
 * A process's last timed line is to be kept: its window from n bytes at
 * the source's offset abs (saved by ingestion) and the chunk in hand.  A
 * whole window is kept raw in the process's slot and cut only when the
 * model is asked for: in a console a rank's last line is kept some twenty
 * times over a read, and cutting each cost a fifth of the reading.  Past
 * CONTEXT_RAW_SLOTS processes a window is cut at once, as an event's is:
 * a pdsh stream of 100,000 hosts held 410 MB of raw windows, four fifths
 * of its peak, for lines each host wrote three of.  A window the bytes in
 * hand do not fill fills from the chunks to come.
 */
void
context_process(struct context_reader *cr, struct rl_source *src,
    struct rl_process *p, const char *b, size_t n, uint64_t abs)
{
	struct context_want	*w, *slot;
	bool			 raw;

	slot = context_slot(cr, p->index);
	raw = slot->win != NULL || cr->nlast <= CONTEXT_RAW_SLOTS;
	if (slot->win == NULL && raw) {
		slot->win = xmalloc(CONTEXT_WINDOW);
		slot->room = CONTEXT_WINDOW;
	} else if (!raw) {
		slot->win = context_scratch;
		slot->room = CONTEXT_WINDOW;
	}
	slot->offset = p->last_offset;
	slot->line = p->last_line;
	slot->from = slot->offset < CONTEXT_BYTES ? 0 :
	    slot->offset - CONTEXT_BYTES;
	slot->proc = p;
	slot->have = 0;
	slot->done = false;
	slot->whole = false;
	/*
	 * A last line begun in the chunk before (a line a read split, as a
	 * block-buffered writer's often is) has fewer than CONTEXT_BYTES
	 * before it in hand: its window begins at the first of them.  Its
	 * cut needs CONTEXT_LINES lines of them, not all; this gave up and
	 * the process had no lines around its last line.
	 */
	if (slot->from < abs)
		slot->from = abs;
	context_fill(slot, b, n, abs);
	if (cr->chunk != NULL)
		context_fill(slot, cr->chunk, cr->nchunk, cr->abs);
	if (slot->have == CONTEXT_WINDOW && !raw) {
		context_want_cut(cr, slot, src);
		slot->done = true;
	}
	if (slot->have < CONTEXT_WINDOW) {
		/* The rest is to come: it fills as an event's window does. */
		w = xmalloc(sizeof *w);
		*w = *slot;
		w->win = xmalloc(CONTEXT_WINDOW);
		memcpy(w->win, slot->win, slot->have);
		context_want_add(cr, w);
		slot->have = 0;
	}
	if (!raw) {
		slot->win = NULL;
		slot->room = 0;
	}
}

/*
 * A failure's context is no longer wanted: the keep's latest line that
 * held it was replaced by a later one.  Dropped from the end of the list
 * when it is there, else left without text.
 */
void
context_drop(struct rl_source *src, uint64_t offset)
{
	struct rl_context	*c;

	if ((c = context_find(src, offset)) == NULL)
		return;
	context_text_clear(c);
	c->dropped = true;
	if (c == &src->contexts[src->ncontexts - 1])
		src->ncontexts--;
}

/*
 * Before the list grows: the dropped contexts out of it, so that a flood
 * of one failure on many writers (each line replacing its keep's latest)
 * costs the contexts kept, not the lines seen.
 */
static void
context_compact(struct rl_source *src)
{
	size_t	i, k;

	for (i = k = 0; i < src->ncontexts; i++) {
		if (!src->contexts[i].dropped)
			src->contexts[k++] = src->contexts[i];
	}
	src->ncontexts = k;
}

/*
 * The source is read to its end: its list holds the contexts kept and no
 * more room (doubling had left a quarter of it empty, and dropped tails).
 */
static void
context_fit(struct rl_source *src)
{
	context_compact(src);
	if (src->ccontexts == src->ncontexts)
		return;
	if (src->ncontexts == 0) {
		free(src->contexts);
		src->contexts = NULL;
	} else
		src->contexts = xreallocarray(src->contexts, src->ncontexts,
		    sizeof *src->contexts);
	src->ccontexts = src->ncontexts;
}

/*
 * The chunk was fed: full windows are cut for good; the tail of the bytes
 * is kept for the windows of the next chunk; and the line held for the
 * next chunk (from held_at, when held) has its window begun.
 */
void
context_chunk_end(struct context_reader *cr, struct rl_source *src,
    bool held, uint64_t held_at)
{
	struct context_want	*w;
	size_t			 i, k, keep;

	if (held && (cr->held == NULL || cr->held->offset != held_at)) {
		context_want_free(cr->held);
		cr->held = held_at >= cr->abs ?
		    context_want_new(cr, held_at, 0) : NULL;
	} else if (!held) {
		context_want_free(cr->held);
		cr->held = NULL;
	}
	for (i = k = 0; i < cr->nwant; i++) {
		w = cr->want[i];
		if (w->have == CONTEXT_WINDOW || (w->proc != NULL &&
		    (w->proc->last_offset != w->offset ||
		    w->proc->last_source != (int)src->index))) {
			context_want_cut(cr, w, src);
			context_want_free(w);
		} else
			cr->want[k++] = w;
	}
	cr->nwant = k;
	/* The last CONTEXT_BYTES before the next chunk. */
	if (cr->nchunk >= CONTEXT_BYTES) {
		memcpy(cr->prev, cr->chunk + cr->nchunk - CONTEXT_BYTES,
		    CONTEXT_BYTES);
		cr->nprev = CONTEXT_BYTES;
	} else {
		keep = CONTEXT_BYTES - cr->nchunk;
		if (keep > cr->nprev)
			keep = cr->nprev;
		memmove(cr->prev, cr->prev + cr->nprev - keep, keep);
		memcpy(cr->prev + keep, cr->chunk, cr->nchunk);
		cr->nprev = keep + cr->nchunk;
	}
	cr->abs += cr->nchunk;
	cr->chunk = NULL;
	cr->nchunk = 0;
}

/*
 * Cut the windows still filling with what they have: for now (a followed
 * source may bring the rest), or for good when the reading ends.
 */
void
context_settle(struct context_reader *cr, struct rl_source *src, bool end)
{
	struct context_want	*slot;
	size_t			 i;
	bool			 reread;

	for (i = 0; i < cr->nlast; i++) {
		slot = &cr->last[i];
		if (slot->have == CONTEXT_WINDOW && !slot->done) {
			context_want_cut(cr, slot, src);
			slot->done = true;
		}
	}
	for (i = 0; i < cr->nwant; i++) {
		context_want_cut(cr, cr->want[i], src);
		if (end)
			context_want_free(cr->want[i]);
	}
	if (!end)
		return;
	cr->nwant = 0;
	context_span_close(cr);
	context_fit(src);
	reread = src->lean && source_rereadable(src);
	for (i = 0; i < src->ncontexts && reread; i++)
		context_unhold(&src->contexts[i]);
	for (i = 0; i < cr->nlast; i++) {
		slot = &cr->last[i];
		if (reread && slot->proc != NULL &&
		    slot->proc->last_source == (int)src->index)
			context_unhold(slot->proc->last_context);
		free(slot->win);
		memset(slot, 0, sizeof *slot);
	}
}

/*
 * The source rests at its end (a followed file gone quiet): the windows
 * still filling are cut for now and keep only the bytes they have from
 * their cut's first line, the processes' slots with nothing to fill let
 * go of theirs, and the span grown for the next lines gives back its
 * room.  Each grows again when bytes come.  A window was 4 KB however
 * little of it was had: at 10,000 followed ranks, 120 MB of a console's
 * 690.
 */
void
context_rest(struct context_reader *cr, struct rl_source *src)
{
	struct context_want	*w;
	size_t			 i, before, at, len;
	int64_t			 first;

	context_settle(cr, src, false);
	for (i = 0; i < cr->nwant; i++) {
		w = cr->want[i];
		/*
		 * Where the cut begins depends on no byte still to come: the
		 * window keeps its lines from there, some 300 bytes of the
		 * CONTEXT_BYTES before its line.
		 */
		before = (size_t)(w->offset - w->from);
		if (context_bounds(w->win, w->have, before, w->from > 0 &&
		    !w->whole, w->line, &at, &len, &first) == 0 && at > 0) {
			memmove(w->win, w->win + at, w->have - at);
			w->from += at;
			w->have -= at;
			w->whole = true;
		}
		if (w->room > w->have && w->have > 0) {
			w->win = xrealloc(w->win, w->have);
			w->room = w->have;
		}
	}
	for (i = 0; i < cr->nlast; i++) {
		w = &cr->last[i];
		if (w->win != NULL && (w->have == 0 || w->done)) {
			free(w->win);
			w->win = NULL;
			w->room = 0;
		}
	}
	context_span_close(cr);
}

/* Free what a reader holds; its cuts are the model's. */
void
context_reader_clear(struct context_reader *cr)
{
	size_t	i;

	for (i = 0; i < cr->nwant; i++)
		context_want_free(cr->want[i]);
	free(cr->want);
	for (i = 0; i < cr->nlast; i++)
		free(cr->last[i].win);
	free(cr->last);
	context_want_free(cr->held);
	context_span_close(cr);
	memset(cr, 0, sizeof *cr);
}
