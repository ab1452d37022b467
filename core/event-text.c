/*
 * event-text.c: events' texts held by reference in a wide reading.
 *
 * At 10,000 ranks the events' texts were 77 MB of a 295 MB peak, and the
 * generated ranks' lines differ in their numbers, so that sharing them
 * would not do; a report shows a few of them.  A lean reading's files
 * (analyze and report of LEAN_SOURCES logs or more, read to their end,
 * plain files that can be read again at an offset) let go of the texts
 * that are their bytes as they stand (EVENT_TEXT_RAW) once read, and keep
 * where they are: the event's offset and the text's length, as lnav keeps
 * a line index.  A reader asks event_text, which reads one back and holds
 * it; a pass over many reads them in bulk (event_texts_each), a file at a
 * time in the order of their offsets, so that 20,000 texts cost a few
 * opens and reads of each file, not three calls each.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

#define TEXTS_RUN	(64 * 1024)	/* bytes one read covers at most */

/*
 * The text of n bytes read at an event's place into t (room for n and
 * TEXT_MARK), as ingestion made it; false where the bytes are no longer
 * a line (a NUL, a newline: the file changed since it was read).
 */
static bool
text_compose(char *t, const char *raw, size_t n, bool cut)
{
	if (memchr(raw, '\0', n) != NULL || memchr(raw, '\n', n) != NULL)
		return false;
	memmove(t, raw, n);
	if (cut)
		memcpy(t + n, TEXT_MARK, sizeof TEXT_MARK);
	else
		t[n] = '\0';
	return true;
}

/*
 * The text of an event whose text was let go, read again from its source
 * (see EVENT_TEXT_RAW), or "" if the file can no longer be read there.
 */
static char *
event_text_read(const struct rl_incident *inc, const struct rl_event *e)
{
	char	*t;
	size_t	 n = e->tlen, have = 0;

	t = xmalloc(n + sizeof TEXT_MARK);
	if (e->source < inc->nsources)
		have = source_pread(inc->sources[e->source], t, n, e->offset);
	if (have != n || !text_compose(t, t, n, e->tform & EVENT_TEXT_CUT))
		t[0] = '\0';
	return t;
}

const char *
event_text(const struct rl_incident *inc, const struct rl_event *e)
{
	if (e->text != NULL || !(e->tform & EVENT_TEXT_AWAY) || inc == NULL)
		return e->text;
	/*
	 * Held from now on, as its keep held it: the model is read on one
	 * thread once the reading is done.
	 */
	((struct rl_event *)e)->text = event_text_read(inc, e);
	return e->text;
}

/*
 * Let go of an event's text where it can be read again; of a line the
 * capacity reads numbers from, once they are had (capacity_digest).
 */
static void
event_text_away(struct rl_event *e, struct rl_source *src)
{
	if (e->text == NULL || !(e->tform & EVENT_TEXT_RAW))
		return;
	if (capacity_rule_reads(e->rule))
		capacity_digest(src, e);
	if (text_names_limits(e->text, e->tlen))
		e->tform |= EVENT_TEXT_LIMITS;
	free(e->text);
	e->text = NULL;
	e->tform |= EVENT_TEXT_AWAY;
}

/* A lean source was read to its end: its keep lets its texts go. */
void
keep_texts_away(struct rl_keep *k, struct rl_source *src)
{
	uint32_t	i;

	for (i = 0; i < k->n; i++)
		event_text_away(keep_at(k, i), src);
	if (k->tail != &keep_no_tail)
		event_text_away(k->tail, src);
}

/* An event of a bulk read, and where its text's bytes are. */
struct text_ref {
	uint64_t	 offset;
	unsigned	 source;
	uint32_t	 k;		/* its place in the caller's list */
};

static int
text_ref_cmp(const void *a, const void *b)
{
	const struct text_ref	*x = a, *y = b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/*
 * Call cb(arg, k, text) for each of the n events idx[k] of the incident,
 * with its text (NULL if it has none), valid during the call: texts held
 * as they are, texts let go read from their files a file at a time, each
 * file's in runs of nearby bytes, in the order of their offsets, without
 * holding them.  The calls come in no particular order.
 */
void
event_texts_each(const struct rl_incident *inc, const size_t *idx, size_t n,
    void (*cb)(void *, size_t, const char *), void *arg)
{
	const struct rl_event	*e;
	struct text_ref		*v;
	char			*run, *t;
	size_t			 nv = 0, i, j, r, have, want;
	uint64_t		 from, to;
	ssize_t			 got;
	int			 fd;

	for (i = 0; i < n; i++) {
		e = inc->events[idx[i]];
		nv += e->text == NULL && (e->tform & EVENT_TEXT_AWAY);
	}
	v = xcalloc(nv + 1, sizeof *v);
	for (i = nv = 0; i < n; i++) {
		e = inc->events[idx[i]];
		if (e->text != NULL || !(e->tform & EVENT_TEXT_AWAY))
			cb(arg, i, e->text);
		else {
			v[nv].source = e->source;
			v[nv].offset = e->offset;
			v[nv++].k = (uint32_t)i;
		}
	}
	qsort(v, nv, sizeof *v, text_ref_cmp);
	run = xmalloc(TEXTS_RUN);
	t = xmalloc(EVENT_TEXT_MAX + sizeof TEXT_MARK);
	for (i = 0; i < nv; i = j) {
		for (j = i; j < nv && v[j].source == v[i].source; j++)
			;
		fd = v[i].source < inc->nsources ?
		    source_reopen(inc->sources[v[i].source]) : -1;
		for (r = i; r < j; r = want) {
			/*
			 * The texts from r that one read of TEXTS_RUN holds
			 * (a text is at most EVENT_TEXT_MAX: one at least).
			 */
			from = v[r].offset;
			to = from;
			for (want = r; want < j; want++) {
				e = inc->events[idx[v[want].k]];
				if (e->offset + e->tlen - from > TEXTS_RUN)
					break;
				if (e->offset + e->tlen > to)
					to = e->offset + e->tlen;
			}
			have = 0;
			while (fd != -1 && have < to - from && (got = pread(fd,
			    run + have, (size_t)(to - from) - have,
			    (off_t)(from + have))) > 0)
				have += (size_t)got;
			for (; r < want; r++) {
				e = inc->events[idx[v[r].k]];
				if (e->offset + e->tlen > from + have ||
				    !text_compose(t, run + (e->offset - from),
				    e->tlen, e->tform & EVENT_TEXT_CUT))
					t[0] = '\0';
				cb(arg, v[r].k, t);
			}
		}
		if (fd != -1)
			close(fd);
	}
	free(t);
	free(run);
	free(v);
}

/* What event_texts_hold's callback is given. */
struct texts_hold {
	const struct rl_incident *inc;
	const size_t	*idx;
};

/* The text held by its event. */
static void
texts_hold_cb(void *arg, size_t k, const char *text)
{
	const struct texts_hold	*h = arg;
	struct rl_event		*e = h->inc->events[h->idx[k]];

	if (e->text == NULL && (e->tform & EVENT_TEXT_AWAY))
		e->text = xstrdup(text != NULL ? text : "");
}

/*
 * Read back and hold the texts of the n events idx[k] (those a reader is
 * about to show), in bulk: what event_text would hold one at a time.
 */
void
event_texts_hold(const struct rl_incident *inc, const size_t *idx, size_t n)
{
	struct texts_hold	h = { inc, idx };

	event_texts_each(inc, idx, n, texts_hold_cb, &h);
}

/*
 * A lean incident's sources let their texts and contexts go once read, if
 * they are many: a few logs keep them, so that nothing opens a log twice
 * (a round trip each on a network file system, and a rotated log is no
 * longer what was read), while at 10,000 ranks they were 115 MB of the
 * peak's 295 MB, for the few texts and contexts a report shows.  One
 * source of as many writers (an srun --label console) turns lean as it
 * meets them (ingest_stream).
 */
void
incident_lean(struct rl_incident *inc)
{
	size_t	i;
	bool	lean = inc->lean && inc->nsources >= LEAN_SOURCES;

	for (i = 0; i < inc->nsources; i++)
		inc->sources[i]->lean = lean;
}
