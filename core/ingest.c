/*
 * ingest.c: bytes to lines to events.
 *
 * A source's bytes arrive in chunks of any size.  They are cut into lines
 * (a partial line is held until its newline comes; CR before LF is dropped;
 * a line longer than LINE_MAX_BYTES is kept cut, with a marker), and each
 * line that is read goes through the same steps:
 *
 *   1. colour codes are stripped and line prefixes peeled, one after
 *      another ([default3]:, [rank3]:, (VllmWorker rank=3 pid=N), node07: );
 *      what they name decides the line's writer and process;
 *   2. the process's clock parses the line's time, or the line inherits
 *      its stream's last one;
 *   3. the prefilter and the rules name the line, if any rule does;
 *   4. link and record attributions tie pids and local ranks to global ranks.
 *
 * Most lines of a training log are of no interest, and reading each one
 * costs what the regexes cost.  So the complete lines of a chunk are first
 * scanned as one block for every rule's literal (prefilter_scan), and a
 * source written by one process skips the lines without a literal: it only
 * counts their newlines, and when a line that is read needs the time before
 * it, it reads the skipped lines backwards to the last one with a time.
 * Every skipped line is walked back over at most once, so the clock costs
 * at most what reading every line would.  A source is read line by line
 * (slow) while it is young (WARMUP_BYTES: is it one writer?), while an
 * early line waits for its first time, while a launcher's record is open,
 * when `cat` wants every line, and for good once a second writer shows up.
 *
 * In a block where a quarter of the lines or more are read (a training
 * log's iteration, timer and throughput lines), the block scan lets few
 * lines be skipped; the next block is then read line by line, and each
 * line's literals and rule are had from its shape (shape.c): a line with
 * the digits of one seen before is named as that one was, with no scan.
 * Such a line of a source one process writes, whose links only repeat what
 * its process knows, goes straight to its event (ingest_line_quick).
 *
 * A stream is one process's lines within a source: the whole file for a
 * per-rank log, or one [defaultN] of a tee'd console.  Each keeps its own
 * last time, so lines are never reordered inside a source.
 */
#define _GNU_SOURCE		/* memrchr */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest-int.h"

static void	ingest_feed_lines(struct ingest *, const char *, size_t);
static void	ingest_block(struct ingest *, const char *, size_t);
static void	ingest_last_settle(struct ingest *);

/*
 * The part of ingest_skipping that holds until a second writer comes, the
 * source turns slow or lines go to a callback: worked out when those
 * change, not at every line.
 */
void
ingest_skip_update(struct ingest *in)
{
	in->skip_ok = !in->slow && in->line_cb == NULL && in->nstreams == 1 &&
	    in->rs != NULL && in->rs->nalways == 0;
}

/* The offset of the line being read: a line callback's own. */
uint64_t
ingest_offset(const struct ingest *in)
{
	return in->offset;
}

/* Numbers for the ingests, threads' too: 0 is none's. */
static _Atomic uint64_t ingest_ids;

/*
 * How many bytes of a source are read line by line before skipping may
 * start; RANKLINE_WARMUP sets it, and RANKLINE_READ_ALL reads every line,
 * so that tests can hold the two ways of reading to the same answers.
 * Asked once before threads read (batch.c), so they only read the answer.
 */
uint64_t
ingest_warmup(void)
{
	static uint64_t	 warmup = UINT64_MAX - 1;
	const char	*s;

	if (warmup == UINT64_MAX - 1) {
		if (getenv("RANKLINE_READ_ALL") != NULL)
			warmup = UINT64_MAX;
		else if ((s = getenv("RANKLINE_WARMUP")) != NULL)
			warmup = strtoull(s, NULL, 10);
		else
			warmup = WARMUP_BYTES;
	}
	return warmup;
}

struct ingest *
ingest_create(struct rl_incident *inc, struct rl_source *src)
{
	struct ingest	*in;

	in = xcalloc(1, sizeof *in);
	in->inc = inc;
	in->src = src;
	in->id = atomic_fetch_add(&ingest_ids, 1) + 1;
	in->rs = (struct ruleset *)inc->rules;
	if (in->rs != NULL) {
		in->seen = xcalloc(in->rs->nrules + 1, sizeof *in->seen);
		in->keep = xcalloc(in->rs->nrules + 1, sizeof *in->keep);
	}
	in->warmup = ingest_warmup();
	in->dense = true;	/* the first lines are all read */
	return in;
}

void
ingest_free(struct ingest *in)
{
	size_t	i;

	if (in == NULL)
		return;
	for (i = 0; i < in->nstreams; i++) {
		free(in->streams[i]->pending);
		free(in->streams[i]);
	}
	free(in->streams);
	idhash_clear(&in->streams_of);
	for (i = 0; i < in->nwriters; i++) {
		free(in->writers[i]->host);
		free(in->writers[i]);
	}
	free(in->writers);
	free(in->whash);
	buf_clear(&in->partial);
	buf_clear(&in->work);
	free(in->seen);
	free(in->rested);
	free(in->quick);
	free(in->keep);
	free(in->dirty);
	free(in->idle);
	ingest_last_settle(in);
	free(in->moved);
	free(in->pend);
	buf_clear(&in->saved);
	job_head_end(&in->src->head, &in->src->job, in->src->path);
	context_settle(&in->ctx, in->src, true);
	context_reader_clear(&in->ctx);
	keep_shrink(in->inc, in->made, in->nmade, in->src, true);
	free(in->made);
	free(in->kfind);
	free(in);
	heap_advise();
}

void
ingest_set_line_cb(struct ingest *in, ingest_line_cb cb, void *arg)
{
	in->line_cb = cb;
	in->line_arg = arg;
	ingest_skip_update(in);
}

/*
 * Of the link candidates of a line, drop those that can only fill in what
 * the stream's process knows already: the [rank3] on every line of rank
 * 3's log.
 */
static void
ingest_drop_links(struct ingest *in, const struct stream *st)
{
	struct ruleset		*rs = in->rs;
	size_t			 i, n = 0;

	if (!ingest_stream_is_process(in, st) || st->rec != NULL)
		return;
	/* A kept shape's candidates are read, never written. */
	if (rs->cand != rs->cand_buf) {
		memcpy(rs->cand_buf, rs->cand, rs->ncand * sizeof *rs->cand);
		rs->cand = rs->cand_buf;
	}
	for (i = 0; i < rs->ncand; i++) {
		if ((rs->cand[i] & TARGET_ATTRIB) != 0 && link_idle(
		    rs->attribs[rs->cand[i] & ~TARGET_ATTRIB], st->proc))
			continue;
		rs->cand_buf[n++] = rs->cand[i];
	}
	rs->ncand = n;
}

/*
 * One complete line, without its newline, at in->offset.  With `scanned`
 * the ruleset's candidates are the line's already (from the block scan);
 * a line with colour codes is scanned again once they are gone.  With
 * `lazy` its time is not parsed: the block's reader keeps the stream's
 * time (see ingest_event and ingest_settle).
 */
void
ingest_line(struct ingest *in, const char *line, size_t len, enum line_how how,
    bool lazy)
{
	struct rl_source	*src = in->src;
	struct peeled		 pl;
	struct stream		*st;
	struct rl_match		 m;
	struct rl_time		 t;
	struct link_ctx		 lc;
	const char		*msg;
	size_t			 off, mlen;
	uint64_t		 lineno = src->lines + 1;
	bool			 scanned = how != LINE_RAW;
	bool			 timed = false, matched, esc = false;
	bool			 journal = false, jtimed = false;
	struct journal_entry	 jr;
	struct rl_time		 jt;

	in->inc->lines++;
	/*
	 * journalctl -o json: the line is its MESSAGE, written by _HOSTNAME's
	 * _PID at __REALTIME_TIMESTAMP.  The source is then read line by line
	 * (its raw lines all look like one writer's to the skipping reader).
	 */
	if ((len > 0 && (line[0] == '{' || line[0] == 0x1e)) &&
	    journal_unwrap(line, len, &in->work, &jr)) {
		journal = true;
		in->slow = true;
		ingest_skip_update(in);
		jtimed = clock_parse(&src->clock, line, len, &jt);
		line = in->work.p;
		len = in->work.len;
		esc = true;	/* its literals are looked for again */
		lazy = false;
	}
	if ((!scanned || in->rs->cand_esc || journal) &&
	    memchr(line, 0x1b, len) != NULL) {
		if (line != in->work.p) {
			buf_reset(&in->work);
			buf_add(&in->work, line, len);
		}
		len = strip_ansi(in->work.p, len);
		in->work.len = len;
		line = in->work.p;
		esc = true;
		lazy = false;	/* the block's bytes are not this line's */
	}
	/* The job's head scan saw the raw bytes, not these. */
	if (esc)
		src->head.reread = true;
	if (how == LINE_SHAPE && !esc && ruleset_shape_bare(in->rs)) {
		/* A line of this shape had no prefix: nor has this one. */
		pl.local_rank = pl.rank = pl.pid = RL_NONE;
		pl.host[0] = '\0';
		pl.any = false;
		pl.raw = NULL;
		off = 0;
	} else
		off = ingest_peel(in, line, len, &pl);
	if (journal) {
		/* A prefix in the message names the writer better. */
		if (pl.host[0] == '\0' && jr.host[0] != '\0')
			snprintf(pl.host, sizeof pl.host, "%s", jr.host);
		if (pl.pid == RL_NONE)
			pl.pid = jr.pid;
		pl.any = pl.any || pl.host[0] != '\0' || pl.pid != RL_NONE;
		pl.raw = NULL;	/* not the prefix bytes' alone */
	}
	msg = line + off;
	mlen = len - off;
	/*
	 * A new writer while skipping: the lines skipped were the first
	 * stream's, whose time is brought up to here before this line.
	 */
	if (lazy && in->blk != NULL && !ingest_writer_known(in, &pl))
		ingest_settle(in, in->blk, (size_t)(line - in->blk),
		    SETTLE_TIMED);
	/* Counted only now: the walk back numbers lines from the count. */
	src->lines = lineno;
	st = ingest_stream(in, &pl);
	st->proc->lines++;
	if (in->slow)
		lazy = false;	/* a second writer: times line by line */
	if (!lazy) {
		/* A prefix may carry the time itself (syslog, journalctl). */
		timed = jtimed ? (t = jt, true) : clock_parse_msg(&src->clock,
		    line, len, off, &t);
		if (timed)
			ingest_time(in, st, &t, line, len, lineno, in->offset);
		else if (!(st->last.flags & RL_TIME_VALID) &&
		    (in->recent.flags & RL_TIME_VALID))
			st->last = in->recent;	/* a new writer: the source's */
	}

	/*
	 * A search's second reading wants the line, its writer and its time:
	 * the rules' events are the first reading's already, and would hold
	 * a second copy of them for as long as the search lasts.
	 */
	if (in->inc->lines_only) {
		if (in->line_cb != NULL)
			in->line_cb(in->line_arg, src, lineno, &st->last,
			    st->proc, line, len);
		return;
	}

	/* A record ends at its end pattern, before this line is named. */
	if (st->rec != NULL && st->rec->end.code != NULL &&
	    ruleset_match_pattern(in->rs, &st->rec->end, msg, mlen, NULL))
		st->rec = NULL;

	if (how == LINE_SHAPE && !esc)
		matched = ruleset_match_shape(in->rs, line, len, off, &m);
	else if (scanned && !esc)
		matched = ruleset_match_cands(in->rs, msg, mlen, &m);
	else
		matched = ruleset_match(in->rs, msg, mlen, &m);
	memset(&lc, 0, sizeof lc);
	lc.in = in;
	lc.st = st;
	lc.rank = lc.local_rank = lc.pid = RL_NONE;
	ingest_drop_links(in, st);
	ruleset_links(in->rs, msg, mlen, ingest_link_cb, &lc);
	if (matched)
		ingest_event(in, st, &m, line, len, lineno, timed, lazy, &lc);
	if (in->line_cb != NULL)
		in->line_cb(in->line_arg, src, lineno, &st->last, st->proc,
		    line, len);
}

/*
 * A peel kept for a line of this shape with the very same prefix bytes: it
 * peels as that line did, since the prefix patterns treat digits alike and
 * the rest of the line differs only in digits.  Several, as a worker's
 * line kinds (a throughput line, a progress bar) come interleaved.
 */
static struct quick_peel *
ingest_quick_find(struct ingest *in, const char *line, size_t len,
    uint64_t shape)
{
	struct quick_peel	*q;
	unsigned		 i;

	if (shape == 0 || in->quick == NULL)
		return NULL;
	for (i = 0; i < QUICK_WAYS; i++) {
		q = &in->quick[i];
		if (q->shape == shape && q->len <= len &&
		    memcmp(line, q->raw, q->len) == 0)
			return q;
	}
	return NULL;
}

/*
 * A line ingest_fate found FATE_QUICK or FATE_PEEL: what ingest_line would
 * do with it, lazily, without the steps that could not change anything.
 */
void
ingest_line_quick(struct ingest *in, const char *line, size_t len, bool peel)
{
	struct stream		*st = in->streams[0];
	struct quick_peel	*q;
	struct peeled		 pl;
	struct rl_match		 m;
	struct link_ctx		 lc;
	uint64_t		 lineno, tok = 0;
	size_t			 off = 0;

	if (peel && (q = ingest_quick_find(in, line, len,
	    tok = ruleset_shape_token(in->rs))) != NULL)
		off = q->len;
	else if (peel) {
		off = ingest_peel(in, line, len, &pl);
		/* A writer new to the source: its time is settled first. */
		if (!ingest_writer_known(in, &pl)) {
			ingest_line(in, line, len, LINE_SHAPE, true);
			return;
		}
		/* The one stream, whichever writer it was. */
		st = ingest_stream(in, &pl);
		if (in->quick == NULL)
			in->quick = xcalloc(QUICK_WAYS, sizeof *in->quick);
		q = &in->quick[in->quick_next];
		in->quick_next = (in->quick_next + 1) % QUICK_WAYS;
		q->shape = 0;
		if (off <= sizeof q->raw) {
			q->shape = tok;
			q->len = off;
			memcpy(q->raw, line, off);
		}
	}
	lineno = ++in->src->lines;
	in->inc->lines++;
	st->proc->lines++;
	if (!ruleset_match_shape(in->rs, line, len, off, &m))
		return;
	memset(&lc, 0, sizeof lc);
	lc.in = in;
	lc.st = st;
	lc.rank = lc.local_rank = lc.pid = RL_NONE;
	ingest_event(in, st, &m, line, len, lineno, false, true, &lc);
}

/*
 * A line with NUL bytes: what a crashed node's log holds where pages were
 * never written, a run of zeros, then the next line a writer got out.  The
 * text after the last NUL is the line read (its prefix names its writer);
 * if only NULs follow, the text before the first.  The bytes left out are
 * counted in the source, which the outputs report.  Returns the length
 * kept; *skip is where it starts.
 */
static size_t
ingest_nul_trim(struct ingest *in, const char *p, size_t len, size_t *skip)
{
	const char	*z = memrchr(p, '\0', len), *a;
	size_t		 keep;

	*skip = 0;
	if (z == NULL)
		return len;
	if ((size_t)(z - p) + 1 < len) {
		*skip = (size_t)(z - p) + 1;
		keep = len - *skip;
	} else {
		a = memchr(p, '\0', len);
		keep = (size_t)(a - p);
	}
	in->src->binary_lines++;
	in->src->binary_bytes += len - keep;
	return keep;
}

/* A whole line of a block that holds NUL bytes, read on its own. */
static void
ingest_nul_line(struct ingest *in, const char *p, size_t len)
{
	size_t	n = len, skip, keep;

	if (n > 0 && p[n - 1] == '\r')
		n--;
	keep = ingest_nul_trim(in, p, n, &skip);
	ingest_line(in, p + skip, keep, LINE_RAW, false);
	in->offset += len + 1;
	in->tknown = in->offset;
}

/*
 * A block, its lines with NUL bytes taken out and read on their own: the
 * block's scan and skipping would take the zeros and the line after them
 * for one line, whose prefix is not at its start.
 */
static void
ingest_block_nul(struct ingest *in, const char *p, size_t n)
{
	const char	*z, *ls, *le;

	while (n > 0 && (z = memchr(p, '\0', n)) != NULL) {
		ls = z > p ? memrchr(p, '\n', (size_t)(z - p)) : NULL;
		ls = ls != NULL ? ls + 1 : p;
		if (ls > p)
			ingest_block(in, p, (size_t)(ls - p));
		/* The block ends in a newline. */
		le = memchr(z, '\n', (size_t)(p + n - z));
		ingest_nul_line(in, ls, (size_t)(le - ls));
		n -= (size_t)(le + 1 - p);
		p = le + 1;
	}
	if (n > 0)
		ingest_block(in, p, n);
}

/* Deliver the held partial line, marking it if it was cut. */
static void
ingest_partial(struct ingest *in)
{
	size_t	len = in->partial.len, skip = 0;

	if (len > 0 && in->partial.p[len - 1] == '\r')
		len--;
	if (memchr(in->partial.p, '\0', len) != NULL)
		len = ingest_nul_trim(in, in->partial.p, len, &skip);
	if (in->cut) {
		in->partial.len = skip + len;
		buf_adds(&in->partial, LONG_MARK);
		len = in->partial.len - skip;
		in->src->long_lines++;
	}
	ingest_line(in, in->partial.p + skip, len, LINE_RAW, false);
	in->offset += in->partial_raw;
	in->tknown = in->offset;
	in->partial_raw = 0;
	buf_reset(&in->partial);
	in->cut = false;
}

/* Add bytes to the partial line, up to the limit. */
static void
ingest_hold(struct ingest *in, const char *p, size_t n)
{
	size_t	room;

	in->partial_raw += n;
	if (in->partial.len >= LINE_MAX_BYTES) {
		in->cut = true;
		return;
	}
	room = LINE_MAX_BYTES - in->partial.len;
	if (n > room) {
		n = room;
		in->cut = true;
	}
	buf_add(&in->partial, p, n);
}

/* Read one whole line of a block, at b[from, nl). */
static void
ingest_block_line(struct ingest *in, const char *b, size_t from, size_t nl,
    enum line_how how, bool lazy)
{
	size_t	len = nl - from;

	in->blk_read++;
	ingest_line(in, b + from, len > 0 && b[nl - 1] == '\r' ? len - 1 : len,
	    how, lazy);
	in->offset += len + 1;
	if (!lazy || in->slow)
		in->tknown = in->offset;
}

/*
 * A block read line by line, each line's candidates found by its shape
 * (shape.c) rather than by a scan of the block: for blocks where most
 * lines hold a literal, and the scan would save little.  While the source
 * allows skipping, a line without a useful candidate is skipped as the
 * block scan would skip it, and times are parsed only where needed.
 * Returns where it stopped: the block's end, or sooner if more than a
 * quarter of the lines so far were new shapes.
 */
static size_t
ingest_block_shapes(struct ingest *in, const char *b, size_t n)
{
	struct ruleset	*rs = in->rs;
	uint64_t	 hits = ruleset_shape_hits(rs), seen = 0, nskip = 0;
	size_t		 pos = 0, skip = 0, nl;
	enum fate	 fate;

	if (ruleset_learning(rs))
		ruleset_learn(rs, b, n);
	while (pos < n) {
		/* Many new shapes so far: the block scan does better. */
		if (++seen % SHAPE_PROBE == 0 &&
		    (ruleset_shape_hits(rs) - hits) * 4 < seen * 3)
			break;
		nl = pos + ruleset_shape_scan(rs, b + pos, n - pos);
		if (!ingest_skipping(in)) {
			ingest_skipped(in, nskip, pos - skip);
			nskip = 0;
			ingest_settle(in, b, pos, SETTLE_TIMED);
			ingest_block_line(in, b, pos, nl, LINE_SHAPE, false);
			skip = pos = nl + 1;
			continue;
		}
		switch ((fate = ingest_fate(in, b + pos))) {
		case FATE_SKIP:
			/* Counted with the next line read: no second look. */
			nskip++;
			pos = nl + 1;
			continue;
		case FATE_QUICK:
		case FATE_PEEL:
			ingest_skipped(in, nskip, pos - skip);
			nskip = 0;
			in->blk_read++;
			ingest_line_quick(in, b + pos, nl > pos && b[nl - 1] ==
			    '\r' ? nl - pos - 1 : nl - pos, fate == FATE_PEEL);
			in->offset += nl - pos + 1;
			break;
		case FATE_READ:
			ingest_skipped(in, nskip, pos - skip);
			nskip = 0;
			ingest_block_line(in, b, pos, nl, LINE_SHAPE, true);
			break;
		}
		skip = pos = nl + 1;
	}
	ingest_skipped(in, nskip, pos - skip);
	return pos;
}

/*
 * A block of whole lines, each shorter than LINE_MAX_BYTES, the last
 * ending in b[n - 1] == '\n'.  Scanned once for every literal; then read
 * line by line, or skipping from one line with a useful literal to the
 * next while the source allows it.  While skipping, times are parsed only
 * where an event needs one; the stream's time is brought up to date
 * before a line is read one by one, and at the end of the block.
 */
static void
ingest_block(struct ingest *in, const char *b, size_t n)
{
	struct ruleset		*rs = in->rs;
	const struct pf_list	*h = &rs->block_hits.all;
	const uint64_t		*idle;
	const char		*q;
	size_t			 pos = 0, hi = 0, ls, nl, stop;
	uint64_t		 lines, hits;

	in->blk = b;
	in->blk_end = b + n;
	in->blk_abs = in->offset;
	in->when.at = NULL;
	lines = in->src->lines;
	in->blk_read = 0;
	if (in->dense && in->shapes_off == 0 && ruleset_shapes(rs)) {
		hits = ruleset_shape_hits(rs);
		stop = ingest_block_shapes(in, b, n);
		/*
		 * A line of a new shape (an id or a hash in each) costs a hash
		 * and a scan, more than the block scan: where more than a
		 * quarter of the lines are new, the source is scanned by
		 * blocks for a while, longer each time, from the line where
		 * that showed.
		 */
		if (stop < n || (ruleset_shape_hits(rs) - hits) * 4 <
		    (in->src->lines - lines) * 3) {
			in->shapes_off = in->shapes_backoff =
			    in->shapes_backoff == 0 ? 1 :
			    in->shapes_backoff < 64 ? in->shapes_backoff * 2 :
			    64;
		} else
			in->shapes_backoff = 0;
		if (stop < n) {
			ingest_settle(in, b, stop, SETTLE_TIMED);
			ingest_tails(in);
			in->blk = NULL;
			ingest_block(in, b + stop, n - stop);
			return;
		}
		goto done;
	}
	if (in->shapes_off > 0)
		in->shapes_off--;
	ruleset_scan_block(rs, b, n, &rs->block_hits);
	while (pos < n) {
		if (!ingest_skipping(in)) {
			ingest_settle(in, b, pos, SETTLE_TIMED);
			nl = (size_t)((const char *)memchr(b + pos, '\n',
			    n - pos) - b);
			ruleset_scan_begin(rs);
			for (; hi < h->n && h->v[hi].pos < nl; hi++)
				ruleset_scan_lit(rs, h->v[hi].lit);
			ingest_block_line(in, b, pos, nl, LINE_SCANNED,
			    false);
			pos = nl + 1;
			continue;
		}
		/* Hits that can only feed idle links: not worth a look. */
		idle = ingest_idle(in);
		while (hi < h->n && (idle[h->v[hi].lit / 64] >>
		    (h->v[hi].lit % 64) & 1))
			hi++;
		if (hi == h->n) {
			ingest_skip(in, b, pos, n);
			pos = n;
			break;
		}
		q = memrchr(b + pos, '\n', h->v[hi].pos - pos);
		ls = q == NULL ? pos : (size_t)(q - b) + 1;
		nl = (size_t)((const char *)memchr(b + h->v[hi].pos, '\n',
		    n - h->v[hi].pos) - b);
		/* The line's candidates are all its hits, passed over or not. */
		while (hi > 0 && h->v[hi - 1].pos >= ls)
			hi--;
		ruleset_scan_begin(rs);
		for (; hi < h->n && h->v[hi].pos < nl; hi++)
			ruleset_scan_lit(rs, h->v[hi].lit);
		if (ingest_fate(in, NULL) == FATE_SKIP)
			continue;
		ingest_skip(in, b, pos, ls);
		ingest_block_line(in, b, ls, nl, LINE_SCANNED, true);
		pos = nl + 1;
	}
done:
	/*
	 * The latest time of the writers is looked for where the reading
	 * stops: between blocks of one read of a file, the stream's time
	 * is all the next block needs.
	 */
	ingest_settle(in, b, n, in->more ? 1 : SETTLE_TIMED);
	ingest_tails(in);
	in->blk = NULL;
	/*
	 * Where a quarter of the lines or more are read, the next block is
	 * named by shapes: a scan of it would let few lines be skipped.
	 */
	in->dense = in->blk_read * 4 >= in->src->lines - lines;
}

/*
 * Say whether more of the source's bytes follow the next ones fed at once
 * (a read of a file that goes on): where they do not, a block's end is
 * where the reading stops for now.
 */
void
ingest_more(struct ingest *in, bool more)
{
	in->more = more;
}

/*
 * A process's last timed line, and the lines around it, kept from the
 * saved bytes of the feed that moved it there (and the chunk in hand, for
 * the lines after it).  A lean source keeps where the line is, and it is
 * read again when asked (process_last_line): a copy of each was 4.7 MB of
 * the peak at 10,000 ranks, for the few lines a hang shows.
 */
static void
ingest_last_keep(struct ingest *in, struct rl_process *p)
{
	if (p->last_fed != in->saved_feed ||
	    p->last_source != (int)in->src->index ||
	    p->last_offset < in->saved_abs || p->last_offset + p->last_len >
	    in->saved_abs + in->saved_len)
		return;
	free(p->last_text);
	p->last_text = in->src->lean && source_rereadable(in->src) ? NULL :
	    xstrndup(in->saved_p + (p->last_offset - in->saved_abs),
	    p->last_len);
	context_process(&in->ctx, in->src, p, in->saved_p, in->saved_len,
	    in->saved_abs);
}

/* Keep what the last feed's processes need: reading stops for now. */
static void
ingest_last_settle(struct ingest *in)
{
	size_t	i;

	for (i = 0; i < in->npend; i++)
		ingest_last_keep(in, in->pend[i]);
	in->npend = 0;
}

/*
 * What the reader keeps of a chunk before it is gone.  A process's last
 * timed line is copied, with its context, only once a feed has not moved
 * it again: in a console 512 ranks write in every chunk, and copying each
 * one's line and window per chunk cost two thirds of the reading.  So the
 * bytes the moved processes need (from CONTEXT_BYTES before the earliest
 * of their lines) are saved until the next feed, which keeps the lines of
 * those it did not move.  Where the feeder keeps the bytes it fed (a
 * mapping: ingest_keep_fed), they are not copied but pointed to: the copy
 * was the most of a console's chunk, every chunk.
 */
static void
ingest_fed(struct ingest *in)
{
	struct rl_process	**v;
	uint64_t		  lo, low;
	size_t			  i, c;

	for (i = 0; i < in->npend; i++)
		ingest_last_keep(in, in->pend[i]);
	v = in->pend;
	c = in->cpend;
	in->pend = in->moved;
	in->cpend = in->cmoved;
	in->npend = in->nmoved;
	in->moved = v;
	in->cmoved = c;
	in->nmoved = 0;
	buf_reset(&in->saved);
	in->saved_p = NULL;
	in->saved_len = 0;
	if (in->npend > 0) {
		/* The bytes in hand: the chunk, and the tail before it. */
		low = in->chunk_abs - in->ctx.nprev;
		lo = in->chunk_abs + in->ctx.nchunk;
		for (i = 0; i < in->npend; i++) {
			if (in->pend[i]->last_offset < lo)
				lo = in->pend[i]->last_offset;
		}
		lo = lo < low + CONTEXT_BYTES ? low : lo - CONTEXT_BYTES;
		in->saved_abs = lo;
		in->saved_feed = in->feed_id;
		if (in->kept_fed && lo >= in->kept_from) {
			in->saved_p = in->chunk - in->chunk_abs + lo;
			in->saved_len = (size_t)(in->chunk_abs +
			    in->ctx.nchunk - lo);
		} else {
			if (lo < in->chunk_abs)
				buf_add(&in->saved, in->ctx.prev + (lo - low),
				    (size_t)(in->chunk_abs - lo));
			buf_add(&in->saved, in->chunk + (lo > in->chunk_abs ?
			    lo - in->chunk_abs : 0), (size_t)(in->chunk_abs +
			    in->ctx.nchunk - (lo > in->chunk_abs ? lo :
			    in->chunk_abs)));
			in->saved_p = in->saved.p;
			in->saved_len = in->saved.len;
		}
	}
	in->chunk = NULL;
	context_chunk_end(&in->ctx, in->src, ingest_pending(in), in->offset);
}

/*
 * Say whether the bytes fed from now on stay readable, where they were and
 * in one piece, until this is said again with false (the windows of a
 * mapping, until it is unmapped): the bytes the next feed needs of the
 * last ones are then pointed to, not copied.  When they stop being kept,
 * what is pointed to is copied, once.
 */
void
ingest_keep_fed(struct ingest *in, bool keep)
{
	if (!keep && in->saved_p != NULL && in->saved_p != in->saved.p) {
		buf_reset(&in->saved);
		buf_add(&in->saved, in->saved_p, in->saved_len);
		in->saved_p = in->saved.p;
	}
	in->kept_fed = keep;
	in->kept_from = in->fed;
}

/*
 * A resting source's tables by rule (3.4 KB for 212 rules, of which a rank
 * matches a score) let go: the keeps are found again (incident_keep), the
 * lines seen are kept for the rules that have one.  Its peels kept go.
 */
static void
ingest_tables_rest(struct ingest *in)
{
	size_t	i, n;

	if (in->seen == NULL)
		return;
	for (i = n = 0; i <= in->rs->nrules; i++)
		n += in->seen[i] != 0;
	in->rested = n > 0 ? xreallocarray(NULL, n, sizeof *in->rested) :
	    NULL;
	for (i = n = 0; i <= in->rs->nrules; i++) {
		if (in->seen[i] == 0)
			continue;
		in->rested[n].rule = (uint32_t)i;
		in->rested[n++].line = in->seen[i];
	}
	in->nrested = n;
	free(in->seen);
	free(in->keep);
	free(in->kfind);
	in->seen = NULL;
	in->keep = NULL;
	in->kfind = NULL;
	in->nkfind = 0;
	/* The peels kept, a cache too: 1.3 KB. */
	free(in->quick);
	in->quick = NULL;
	in->quick_next = 0;
}

/* Bytes come to a resting source: its tables again. */
static void
ingest_wake(struct ingest *in)
{
	size_t	i;

	/* Resting: it has rules and let their tables go. */
	if (in->seen != NULL || in->rs == NULL)
		return;
	in->seen = xcalloc(in->rs->nrules + 1, sizeof *in->seen);
	in->keep = xcalloc(in->rs->nrules + 1, sizeof *in->keep);
	for (i = 0; i < in->nrested; i++)
		in->seen[in->rested[i].rule] = in->rested[i].line;
	free(in->rested);
	in->rested = NULL;
	in->nrested = 0;
}

/*
 * A followed source read to its end has gone quiet: what its reading holds
 * for bytes to come is given back, as ingest_free does for a source read
 * once, and grows again if they come.  The processes' last lines are kept
 * now (what the next feed would do), so the bytes saved for them go; the
 * context windows keep what they have; the keeps' slots not filled go;
 * the tables by rule go.  At 10,000 followed ranks these were 8 KB, some
 * 12 KB, 2 KB and 3.4 KB a rank, a third of the console's peak.
 */
void
ingest_rest(struct ingest *in)
{
	ingest_flush(in);
	buf_clear(&in->saved);
	in->saved_p = NULL;
	in->saved_len = 0;
	context_rest(&in->ctx, in->src);
	keep_shrink(in->inc, in->made, in->nmade, in->src, false);
	ingest_tables_rest(in);
}

/*
 * The lines around the failures read so far, and the processes' last
 * lines, kept for now: the model is asked for while the source may grow.
 */
void
ingest_context(struct ingest *in)
{
	ingest_last_settle(in);
	context_settle(&in->ctx, in->src, false);
}

/* The source's first bytes, for the job and a checkpoint tracker. */
static void
ingest_lead(struct ingest *in, const char *p, size_t n)
{
	struct rl_source	*src = in->src;
	size_t			 k;

	if (in->fed < sizeof src->lead - 1) {
		k = sizeof src->lead - 1 - (size_t)in->fed;
		if (k > n)
			k = n;
		memcpy(src->lead + in->fed, p, k);
	}
	if (src->head.fed < JOB_HEAD)
		job_head_feed(&src->head, &src->job, src->path, p, n);
}

/* Feed a chunk of a source's bytes. */
void
ingest_feed(struct ingest *in, const char *p, size_t n)
{
	/*
	 * The heap this chunk's events grow, on huge pages before they are
	 * touched: a console of 512 ranks is one source, read at once.
	 */
	heap_advise();
	ingest_wake(in);
	in->src->bytes += n;
	in->inc->bytes += n;
	ingest_lead(in, p, n);
	in->chunk = p;
	in->chunk_abs = in->fed;
	in->fed += n;
	in->feed_id = ++in->inc->feeds;
	context_chunk(&in->ctx, p, n, in->chunk_abs);
	ingest_feed_lines(in, p, n);
	ingest_fed(in);
}

/* Cut a chunk into lines and blocks of lines. */
static void
ingest_feed_lines(struct ingest *in, const char *p, size_t n)
{
	const char	*end = p + n, *nl;
	size_t		 len, span;

	while (p < end) {
		if (in->partial.len > 0 || in->cut) {
			/* The rest of a held line comes first. */
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
				ingest_hold(in, p, (size_t)(end - p));
				return;
			}
			ingest_hold(in, p, (size_t)(nl - p));
			ingest_partial(in);
			in->tknown = ++in->offset;
			p = nl + 1;
			continue;
		}
		/*
		 * A block is whole lines of at most LINE_MAX_BYTES; a line
		 * longer than that is held and cut.
		 */
		span = (size_t)(end - p);
		if (span > LINE_MAX_BYTES + 1)
			span = LINE_MAX_BYTES + 1;
		if ((nl = memrchr(p, '\n', span)) == NULL) {
			ingest_hold(in, p, span);
			p += span;
			continue;
		}
		len = (size_t)(nl - p) + 1;
		ingest_block_nul(in, p, len);
		p += len;
	}
}

/*
 * Take back up to `most` NUL bytes from the end of the held line: bytes
 * fed that the file never had (zero pages over a mapping that outlived
 * the file's end).  A line already past the limit is left as it is.
 */
void
ingest_drop_zeros(struct ingest *in, size_t most)
{
	size_t	n = 0;

	if (in->cut)
		return;
	while (n < most && n < in->partial.len &&
	    in->partial.p[in->partial.len - 1 - n] == '\0')
		n++;
	in->partial.len -= n;
	in->partial_raw -= n;
	in->fed -= n;
	in->src->bytes -= n;
	in->inc->bytes -= n;
}

/* Is a partial line held, waiting for its newline? */
bool
ingest_pending(const struct ingest *in)
{
	return in->partial.len > 0 || in->cut;
}

/*
 * The source ended (or went quiet): a held partial line is complete, and
 * the processes' last lines are kept.
 */
void
ingest_flush(struct ingest *in)
{
	if (in->partial.len > 0 || in->cut) {
		ingest_wake(in);
		ingest_partial(in);
	}
	ingest_last_settle(in);
}
