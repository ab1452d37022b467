/*
 * ingest-skip.c: the lines no rule's literal names, skipped.
 *
 * A source one process writes skips the lines without a literal (see
 * ingest.c): whether it may (ingest_skipping, ingest_fate, ingest_idle),
 * the skipped lines counted, and at a block's end the times the skipped
 * lines leave to the stream and to the events that wait for them
 * (ingest_settle, ingest_tails).
 */
#define _GNU_SOURCE		/* memrchr */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest-int.h"

/*
 * The literals whose every target is an idle link for the one stream's
 * process: while skipping, a hit of one of them alone is passed over
 * without finding its line.  Worked out again when what the process
 * knows changes.
 */
const uint64_t *
ingest_idle(struct ingest *in)
{
	const struct prefilter	*pf = &in->rs->pf;
	const struct rl_process	*p = in->streams[0]->proc;
	struct idle_key		 key;
	uint32_t		 o, tg;
	size_t			 li;
	bool			 idle;

	memset(&key, 0, sizeof key);
	key.p = p;
	key.rank = p->rank;
	key.local_rank = p->local_rank;
	key.pid = p->pid;
	key.guessed = p->rank_guessed;
	if (in->idle != NULL && memcmp(&key, &in->idle_for, sizeof key) == 0)
		return in->idle;
	in->idle_for = key;
	free(in->idle);
	in->idle = xcalloc(pf->nlit / 64 + 1, sizeof *in->idle);
	for (li = 0; li < pf->nlit; li++) {
		idle = pf->first[li] != 0;
		for (o = pf->first[li]; o != 0 && idle; o = pf->outnext[o - 1]) {
			tg = pf->outtarget[o - 1];
			idle = tg != TARGET_ESC && (tg & TARGET_ATTRIB) != 0 &&
			    link_idle(in->rs->attribs[tg & ~TARGET_ATTRIB], p);
		}
		if (idle)
			in->idle[li / 64] |= UINT64_C(1) << (li % 64);
	}
	return in->idle;
}

/* Count the whole lines in b[from, to) without reading them. */
void
ingest_skip(struct ingest *in, const char *b, size_t from, size_t to)
{
	if (from < to)
		ingest_skipped(in, mem_count_nl(b + from, to - from), to - from);
}

/*
 * Bring the streams' times up to the block's byte `to` (a line start):
 * the last line before it that has a time, read backwards to where the
 * time was known, for the source's first stream and any other whose line
 * is met on the way.  Whose lines those are says whether this source is
 * still one writer's: a second one turns skipping off.
 *
 * A process's last time is the latest it wrote, and writers within one
 * process (a vLLM engine's lines among the trainer's) are not always in
 * time order: the latest time among the first stream's last `want` timed
 * lines counts too.
 */
void
ingest_settle(struct ingest *in, const char *b, size_t to, int want)
{
	struct rl_source	*src = in->src;
	struct stream		*st, *done[8], *first = NULL;
	struct peeled		 pl;
	struct rl_time		 t, max, last;
	const char		*lo, *ls, *le, *mls = NULL, *lls = NULL;
	uint64_t		 back = 0, abs = in->blk_abs + to;
	uint64_t		 mline = 0, lline = 0;
	size_t			 len, mlen = 0, llen = 0, ndone = 0, i;
	int			 timed = 0;

	if (in->tknown >= abs || in->nstreams == 0) {
		in->tknown = abs > in->tknown ? abs : in->tknown;
		return;
	}
	/*
	 * The block's tails take their times first: the walk back from a
	 * tail without a time of its own stops where the time is known, and
	 * past here it would find none and take the stream's later one.
	 */
	if (in->ndirty > 0 && b == in->blk)
		ingest_tails(in);
	lo = b + (in->tknown > in->blk_abs ? in->tknown - in->blk_abs : 0);
	for (le = b + to - 1; le >= lo && le > b; le = ls - 1, back++) {
		ls = memrchr(lo, '\n', (size_t)(le - lo));
		ls = ls == NULL ? lo : ls + 1;
		len = (size_t)(le - ls);
		if (len > 0 && ls[len - 1] == '\r')
			len--;
		if (clock_parse(&src->clock, ls, len, &t)) {
			ingest_peel(in, ls, len, &pl);
			st = ingest_stream(in, &pl);
			if (st == in->streams[0]) {
				if (first == NULL) {
					first = st;
					last = max = t;
					lls = mls = ls;
					llen = mlen = len;
					lline = mline = src->lines - back;
				} else if (clock_cmp(&t, &max) > 0) {
					max = t;
					mls = ls;
					mlen = len;
					mline = src->lines - back;
				}
				if (++timed == want)
					break;
			} else {
				for (i = 0; i < ndone && done[i] != st; i++)
					;
				if (i == ndone) {
					ingest_time(in, st, &t, ls, len,
					    src->lines - back,
					    abs - (uint64_t)(b + to - ls));
					if (ndone < sizeof done / sizeof done[0])
						done[ndone++] = st;
				}
			}
		}
		if (ls == lo)
			break;
	}
	if (first != NULL) {
		/* The latest time first, then the last line's for the stream. */
		if (mls != lls)
			ingest_time(in, first, &max, mls, mlen, mline,
			    abs - (uint64_t)(b + to - mls));
		ingest_time(in, first, &last, lls, llen, lline,
		    abs - (uint64_t)(b + to - lls));
	}
	in->tknown = abs;
}

/* Is this writer one the source has had already? */
bool
ingest_writer_known(const struct ingest *in, const struct peeled *pl)
{
	if (in->last_writer != NULL && ingest_writer_is(in->last_writer, pl))
		return true;
	return in->whsize != 0 && in->whash[ingest_writer_slot(in, pl)] != NULL;
}

/* The length of the block's line at ls, without its newline or CR. */
static size_t
ingest_line_len(const struct ingest *in, const char *ls)
{
	const char	*nl;
	size_t		 n;

	nl = memchr(ls, '\n', (size_t)(in->blk_end - ls));
	n = (size_t)((nl != NULL ? nl : in->blk_end) - ls);
	return n > 0 && ls[n - 1] == '\r' ? n - 1 : n;
}

/*
 * The keeps' events of this block read while skipping get their times
 * and texts: each keep's latest (its tail), the samples it still keeps,
 * and its latest line's time.
 */
void
ingest_tails(struct ingest *in)
{
	struct keep_due	*d;
	struct rl_keep	*k;
	struct rl_event	*e;
	const char	*ls;
	size_t		 i, len;
	uint32_t	 j;
	bool		 own;

	for (i = 0; i < in->ndirty; i++) {
		d = &in->dirty[i];
		k = d->k;
		k->due = 0;
		/* The samples of this block still kept: the last ones in v. */
		for (j = k->n; j > 0 && event_text_due(keep_at(k, j - 1)); j--)
			;
		for (; j <= k->n; j++) {
			e = j < k->n ? keep_at(k, j) : k->tail;
			if (e->rule == NULL || !event_text_due(e) ||
			    e->offset < in->blk_abs)
				continue;
			ls = in->blk + (e->offset - in->blk_abs);
			len = e == k->tail ? d->tail_len :
			    ingest_line_len(in, ls);
			if (!ingest_when(in, in->streams[0], ls, len,
			    &e->time, &own))
				e->time = in->streams[0]->last;
			e->timed = own;
			e->guess = own ? TIME_OWN : TIME_STREAM;
			ingest_event_text(in, e, ls, len);
		}
		if (d->last_due && d->last_off >= in->blk_abs) {
			ls = in->blk + (d->last_off - in->blk_abs);
			if (!ingest_when(in, in->streams[0], ls, d->last_len,
			    &k->last, &own))
				k->last = in->streams[0]->last;
		}
	}
	in->ndirty = 0;
}
