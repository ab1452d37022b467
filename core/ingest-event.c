/*
 * ingest-event.c: a matched line made an event, with its time.
 *
 * The links and records a line's attributions match tie pids and local
 * ranks to global ranks; the line's keep (per rule, process and source)
 * decides whether it is kept; its time is its own, or the time of the
 * last line before it that had one (ingest_when), and the stream's and
 * process's last times move with each timed line (ingest_time).
 */
#define _GNU_SOURCE		/* memrchr */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest-int.h"

void
ingest_link_cb(void *arg, const struct rl_attrib *a, const struct rl_match *m)
{
	struct link_ctx		*lc = arg;
	struct stream		*st = lc->st;
	struct rl_process	*p;
	int			 rank, local, pid;

	rank = ingest_capture_id(m, CAP_RANK);
	local = ingest_capture_id(m, CAP_LOCAL_RANK);
	pid = ingest_capture_id(m, CAP_PID);
	if (a->kind == ATTRIB_RECORD) {
		st->rec = a;
		st->rec_rank = rank;
		st->rec_local = local;
		if ((p = ingest_named_process(lc->in, st, local, rank)) != NULL &&
		    rank != RL_NONE && (p->rank == RL_NONE || p->rank_guessed)) {
			p->rank = rank;
			p->rank_guessed = false;
		}
		return;
	}
	if (rank != RL_NONE)
		lc->rank = rank;
	if (local != RL_NONE)
		lc->local_rank = local;
	if (pid != RL_NONE)
		lc->pid = pid;
	if (!ingest_stream_is_process(lc->in, st) || st->rec != NULL)
		return;
	p = st->proc;
	if (rank != RL_NONE && (p->rank == RL_NONE || p->rank_guessed)) {
		p->rank = rank;
		p->rank_guessed = false;
	}
	if (local != RL_NONE && p->local_rank == RL_NONE)
		p->local_rank = local;
	if (pid != RL_NONE && p->pid == RL_NONE)
		p->pid = pid;
}

/* Did the rule with index ref match within the last n lines of this source? */
static bool
ingest_within(const struct ingest *in, int ref, unsigned n, uint64_t lineno)
{
	return ref >= 0 && in->seen[ref] != 0 && lineno - in->seen[ref] <= n;
}

/* Is the mark or rule a context key names (ref) seen in this source yet? */
static bool
ingest_seen(const struct ingest *in, int ref)
{
	if (ref == RL_REF_NONE)
		return false;
	if (ref < 0)
		return (in->marks & (1u << (-1 - ref))) != 0;
	return in->seen[ref] != 0;
}

/*
 * A launcher's record names a child's pid with its rank: the lines that
 * child wrote under its pid alone (UCX's "[host:pid:..] Caught signal")
 * are that rank's.  Only an unambiguous pid is linked.
 */
static void
ingest_link_pid(struct rl_incident *inc, int pid, int rank, int local)
{
	struct rl_process	*p, *found = NULL;
	size_t			 i;

	for (i = 0; i < inc->nprocs; i++) {
		p = inc->procs[i];
		if (p->pid != pid || (p->rank != RL_NONE && !p->rank_guessed) ||
		    p->local_rank != RL_NONE)
			continue;
		if (found != NULL)
			return;
		found = p;
	}
	if (found != NULL) {
		found->rank = rank;
		found->rank_guessed = false;
		found->local_rank = local;
	}
}

/* Where a keep of the rule and process is, or would go, in in->kfind. */
static size_t
ingest_keep_slot(const struct ingest *in, const struct rl_rule *r, int proc)
{
	uint64_t	 h = (uint64_t)(uintptr_t)r;
	size_t		 mask = in->nkfind - 1, i;
	struct rl_keep	*k;

	h = (h ^ (uint64_t)(uint32_t)proc) * 0x9e3779b97f4a7c15ULL;
	for (i = (size_t)(h >> 32) & mask; (k = in->kfind[i]) != NULL &&
	    (k->rule != r || k->process != proc); i = (i + 1) & mask)
		;
	return i;
}

/* The table of the keeps made, with room for one more. */
static void
ingest_keep_fit(struct ingest *in)
{
	size_t	 i, size;

	if (in->kfind != NULL && 2 * (in->nmade + 1) <= in->nkfind)
		return;
	for (size = 32; size < 2 * (in->nmade + 1); size *= 2)
		;
	free(in->kfind);
	in->kfind = xcalloc(size, sizeof *in->kfind);
	in->nkfind = size;
	for (i = 0; i < in->nmade; i++)
		in->kfind[ingest_keep_slot(in, in->made[i]->rule,
		    in->made[i]->process)] = in->made[i];
}

/*
 * The keep for a rule's events from this process in this source: the one
 * the rule had last, else one this reading made, else a new one.  Only
 * this reading makes its source's keeps, so it looks them up itself: the
 * incident's table of them all (8 MB at 10,000 ranks) was a cache miss for
 * each writer's first line of a signature, and grew with every source.
 */
static struct rl_keep *
ingest_keep(struct ingest *in, const struct rl_rule *r, int proc)
{
	struct rl_keep	*k = in->keep[r->index];
	size_t		 slot;

	if (k != NULL && k->process == proc)
		return k;
	ingest_keep_fit(in);
	slot = ingest_keep_slot(in, r, proc);
	if ((k = in->kfind[slot]) == NULL) {
		k = in->kfind[slot] = incident_keep(in->inc, r, proc,
		    in->src->index);
		in->made = array_grow(in->made, in->nmade, &in->cmade,
		    sizeof *in->made);
		in->made[in->nmade++] = k;
	}
	return in->keep[r->index] = k;
}

/*
 * Keep a line's text in an event (its rule set): cut, NUL bytes as
 * spaces.  Where the line is the source's bytes at the event's offset as
 * they stand in the chunk being fed (no prefix peeled, no escape taken
 * out, no NUL), the event says so (EVENT_TEXT_RAW): a lean incident lets
 * such texts go and reads them again when asked, and a lean source's are
 * never copied at all (a copy made to be freed at the source's end was
 * 10 MB of the peak of an srun console of 512 ranks, one source).
 */
void
ingest_event_text(const struct ingest *in, struct rl_event *e,
    const char *line, size_t len)
{
	const struct rl_rule *r = e->rule;
	size_t	 max, n, at;
	char	*t, *z;
	bool	 raw;

	max = r->role == ROLE_PROGRESS && r->mark != MARK_CKPT_BEGIN &&
	    r->mark != MARK_CKPT_END ? EVENT_TEXT_PROGRESS : EVENT_TEXT_MAX;
	n = len > max ? max : len;
	raw = in->chunk != NULL && e->offset >= in->chunk_abs &&
	    (at = (size_t)(e->offset - in->chunk_abs)) + len <=
	    in->fed - in->chunk_abs && line == in->chunk + at;
	if (raw && in->src->lean && source_rereadable(in->src) &&
	    !capacity_rule_reads(r) && memchr(line, '\0', n) == NULL) {
		/* What event_text_away would make of it, without the copy. */
		e->text = NULL;
		e->tform = EVENT_TEXT_RAW | EVENT_TEXT_AWAY |
		    (n < len ? EVENT_TEXT_CUT : 0) |
		    (text_names_limits(line, n) ? EVENT_TEXT_LIMITS : 0);
		e->tlen = (uint16_t)n;
		return;
	}
	/* The mark's room only where it is written (75K texts, 1,024 ranks). */
	t = xmalloc(n < len ? n + sizeof TEXT_MARK : n + 1);
	memcpy(t, line, n);
	for (z = memchr(t, '\0', n); z != NULL; z = memchr(z, '\0', n -
	    (size_t)(z - t))) {
		*z = ' ';
		raw = false;
	}
	if (n < len)
		memcpy(t + n, TEXT_MARK, sizeof TEXT_MARK);
	else
		t[n] = '\0';
	e->text = t;
	e->tform = raw ? EVENT_TEXT_RAW | (n < len ? EVENT_TEXT_CUT : 0) : 0;
	e->tlen = raw ? (uint16_t)n : 0;
}

/*
 * The time of a line of the block being read, at ls: its own, or the time
 * of the last line before it that has one, read backwards as far as the
 * stream's time is known (in->tknown), and beyond that the stream's.  Sets
 * *own when the line carried it.  False when no time is known at all.
 */
bool
ingest_when(struct ingest *in, struct stream *st, const char *ls, size_t len,
    struct rl_time *t, bool *own)
{
	struct clock_ctx	*ck = &in->src->clock;
	const char		*lo, *le, *q;
	size_t			 n;
	bool			 memo, found = false;

	*own = clock_parse(ck, ls, len, t);
	lo = in->blk;
	if (in->tknown > in->blk_abs)
		lo += in->tknown - in->blk_abs;
	/*
	 * Kept events come in bursts (a communicator's set-up, a
	 * traceback) of lines without a time of their own: the walk back
	 * from each stops where the last one's began, and takes its answer.
	 */
	memo = in->when.at != NULL && in->when.tknown == in->tknown &&
	    in->when.st == st && in->when.at >= lo && in->when.at < ls;
	for (le = ls - 1; !*own && le > lo; le = q - 1) {
		q = memrchr(lo, '\n', (size_t)(le - lo));
		q = q == NULL ? lo : q + 1;
		if (memo && q <= in->when.at) {
			if ((found = in->when.found))
				*t = in->when.t;
			break;
		}
		n = (size_t)(le - q);
		if (n > 0 && q[n - 1] == '\r')
			n--;
		if ((found = clock_parse(ck, q, n, t)))
			break;
	}
	in->when.tknown = in->tknown;
	in->when.st = st;
	in->when.at = ls;
	in->when.found = *own || found;
	if (*own || found) {
		in->when.t = *t;
		return true;
	}
	*t = st->last;
	return (t->flags & RL_TIME_VALID) != 0;
}

/* Fold a matched line's counts into its keep's tally. */
static void
keep_count(struct rl_keep *k, const int64_t *cap)
{
	k->lines++;
	if (cap[CAP_COUNT] != RL_CAP_UNSET)
		k->count += cap[CAP_COUNT];
	if (cap[CAP_TOTAL] != RL_CAP_UNSET && cap[CAP_TOTAL] > k->total)
		k->total = cap[CAP_TOTAL];
}

/* Every capture unset: copied, not looped over, once per event. */
static const int64_t cap_unset[] = {
	RL_CAP_UNSET, RL_CAP_UNSET, RL_CAP_UNSET, RL_CAP_UNSET, RL_CAP_UNSET,
	RL_CAP_UNSET, RL_CAP_UNSET, RL_CAP_UNSET, RL_CAP_UNSET, RL_CAP_UNSET,
	RL_CAP_UNSET, RL_CAP_UNSET, RL_CAP_UNSET, RL_CAP_UNSET
};
_Static_assert(sizeof cap_unset / sizeof cap_unset[0] == CAP_NCAPS,
    "cap_unset has one entry per capture");

/*
 * Would keep_add put a line numbered ord in the keep's tail, without
 * thinning the keep first?  Its choice, made ahead; false where keep_add
 * would do more (a sample's ord that may be kept, a mark's ring).
 */
static inline bool
keep_to_tail(const struct rl_keep *k, uint64_t ord)
{
	switch (k->policy) {
	case KEEP_SAMPLE:
		return (ord & keep_stride_mask(k)) != 0;
	case KEEP_FIRST:
		return k->n >= k->limit;
	default:
		return false;
	}
}

/*
 * A keep's entry in the list of those waiting for the block's end, made if
 * it has none.
 */
static struct keep_due *
ingest_due(struct ingest *in, struct rl_keep *k)
{
	if (k->due == 0) {
		in->dirty = array_grow(in->dirty, in->ndirty, &in->cdirty,
		    sizeof *in->dirty);
		in->dirty[in->ndirty] = (struct keep_due){ .k = k };
		k->due = (uint32_t)++in->ndirty;
	}
	return &in->dirty[k->due - 1];
}

/*
 * A line read while skipping, which its keep puts in its tail, where the
 * keep's last line, read the same way, still waits for its time and text
 * (a step line of a long run, most of which are not kept): all the tail
 * holds but the line's own fields is what keep_add and ingest_event would
 * write into it again, and is checked to be.  Those fields alone are
 * written, then.  False, with nothing changed, where the line needs the
 * whole of ingest_event.
 */
static bool
ingest_tail_again(struct ingest *in, const struct stream *st,
    const struct rl_match *m, struct rl_keep *k, const int64_t *cap,
    const char *line, size_t len, uint64_t lineno, int rank, int local,
    const struct rl_process *p)
{
	const struct rl_rule	*r = m->rule;
	struct rl_event		*e = k->tail;
	struct keep_due		*d;
	uint64_t		 ord;
	int			 i;

	ord = cap[CAP_STEP] >= 0 ? (uint64_t)cap[CAP_STEP] : k->matched;
	if (k->due == 0 || k->lines == 0 || !keep_to_tail(k, ord) ||
	    e->rule != r || !event_text_due(e) || e->harmless || e->timed ||
	    e->guess != TIME_STREAM || e->rank_resolved ||
	    e->source != in->src->index || e->process != (int)p->index ||
	    e->pat != (uint8_t)(m->pat - r->pat) || e->role != r->role ||
	    e->weak != (st->rec != NULL) || e->rank != (rank != RL_NONE ||
	    local != RL_NONE ? rank : RL_NONE))
		return false;
	keep_count(k, cap);
	/* keep_add's part: the tail emptied, numbered and ordered. */
	k->matched++;
	e->seq = in->inc->next_seq++;
	e->ord = (uint32_t)ord;
	if (k->policy == KEEP_FIRST && event_failing_role(r->role)) {
		context_drop(in->src, e->offset);
		context_event(&in->ctx, in->src, in->offset, lineno);
	}
	/* ingest_event's: where the line is, its captures, its wait. */
	e->line = lineno;
	e->offset = in->offset;
	e->time = st->last;
	e->at = m->subject - line <= UINT16_MAX ?
	    (uint16_t)(m->subject - line) : 0;
	for (i = 0; i < m->pat->ncapv; i++)
		event_capv(e)[i] = cap[m->pat->capv[i]];
	d = &in->dirty[k->due - 1];
	d->last_due = true;
	d->last_off = in->offset;
	d->last_len = d->tail_len = (uint32_t)len;
	return true;
}

/*
 * Record a matched line as an event (if its keep wants it).  With `lazy`
 * (a line of a block read while skipping) the line's time was not parsed:
 * an event kept for good has it found now, and the keep's latest event,
 * which the next match may replace, waits for the end of the block.
 */
void
ingest_event(struct ingest *in, struct stream *st, const struct rl_match *m,
    const char *line, size_t len, uint64_t lineno, bool timed, bool lazy,
    const struct link_ctx *lc)
{
	const struct rl_rule	*r = m->rule;
	struct rl_event		*e;
	struct rl_keep		*k;
	struct rl_process	*p = st->proc;
	struct rl_time		 t = st->last;
	int64_t			 cap[CAP_NCAPS];
	struct keep_due		*d;
	int			 i, rank, local;
	bool			 harmless = false, first, sample;
	uint64_t		 old_tail;

	in->inc->matched++;
	memcpy(cap, cap_unset, sizeof cap);
	for (i = 0; i < m->pat->ncapv; i++)
		cap[m->pat->capv[i]] = match_int(m, m->pat->capv[i]);
	if (r->only_after != NULL && !ingest_seen(in, r->only_after_ref))
		harmless = true;
	if (r->not_within != NULL && ingest_within(in, r->not_within_ref,
	    r->not_within_lines, lineno))
		harmless = true;
	if (r->not_after != NULL && ingest_seen(in, r->not_after_ref))
		harmless = true;
	in->seen[r->index] = lineno;
	if (r->mark != MARK_NONE)
		in->marks |= 1u << r->mark;

	/* Inside a launcher's record, the record names the rank. */
	rank = st->rec != NULL ? st->rec_rank : RL_NONE;
	local = st->rec != NULL ? st->rec_local : RL_NONE;
	if (st->rec != NULL && cap[CAP_PID] != RL_CAP_UNSET)
		ingest_link_pid(in->inc, (int)cap[CAP_PID], rank, local);
	if (rank == RL_NONE && local == RL_NONE && !ingest_stream_is_process(in, st)) {
		/* A launcher line about one of its children. */
		rank = cap[CAP_RANK] != RL_CAP_UNSET ? (int)cap[CAP_RANK] :
		    lc->rank;
		local = cap[CAP_LOCAL_RANK] != RL_CAP_UNSET ?
		    (int)cap[CAP_LOCAL_RANK] : lc->local_rank;
	}
	/*
	 * A line that names the worker that died ("Worker proc VllmWorker-3
	 * died") is that worker's failure, whoever printed it.
	 */
	if (cap[CAP_DEAD_RANK] != RL_CAP_UNSET && cap[CAP_DEAD_RANK] >= 0 &&
	    cap[CAP_DEAD_RANK] <= INT32_MAX) {
		rank = (int)cap[CAP_DEAD_RANK];
		local = RL_NONE;
	}
	if ((rank != RL_NONE || local != RL_NONE) &&
	    (p = ingest_named_process(in, st, local, rank)) == NULL)
		p = st->proc;

	k = ingest_keep(in, r, (int)p->index);
	if (lazy && !harmless && !timed && ingest_tail_again(in, st, m, k,
	    cap, line, len, lineno, rank, local, p))
		return;
	first = !harmless && k->lines == 0;
	if (!harmless)
		keep_count(k, cap);
	old_tail = k->tail->rule != NULL ? k->tail->offset : UINT64_MAX;
	e = keep_add(in->inc, k, cap[CAP_STEP] >= 0 ?
	    (uint64_t)cap[CAP_STEP] : k->matched);
	if (e != NULL && event_failing_role(r->role) &&
	    k->policy == KEEP_FIRST) {
		if (e == k->tail && old_tail != UINT64_MAX)
			context_drop(in->src, old_tail);
		if (!harmless)
			context_event(&in->ctx, in->src, in->offset, lineno);
	}
	/*
	 * A sample kept while the stream's time is known waits for the end
	 * of the block, as the tail does: most samples of a block are thinned
	 * out again before it ends (keep_thin), and need no time or text.
	 */
	sample = lazy && e != NULL && e != k->tail && !first &&
	    k->policy == KEEP_SAMPLE && (st->last.flags & RL_TIME_VALID);
	if (lazy && !sample && (e != k->tail || first)) {
		/* Kept for good, or the tally's first: its time now. */
		if (!ingest_when(in, st, line, len, &t, &timed))
			t = st->last;
		lazy = false;
	}
	if (first && !lazy)
		k->first = t;
	if (!harmless && !lazy) {
		k->last = t;
		if (k->due != 0)
			in->dirty[k->due - 1].last_due = false;
	} else if (!harmless) {
		/* The latest line's time, once it is known. */
		d = ingest_due(in, k);
		d->last_due = true;
		d->last_off = in->offset;
		d->last_len = (uint32_t)len;
	}
	if (e == NULL)
		return;
	e->source = in->src->index;
	e->line = lineno;
	e->offset = in->offset;
	e->time = t;
	e->timed = timed;
	e->guess = timed ? TIME_OWN : TIME_STREAM;
	e->rule = r;
	e->role = r->role;
	e->harmless = harmless;
	/*
	 * Where the match was (the message, in the line), so that a capture
	 * read later needs one try.
	 */
	e->pat = (uint8_t)(m->pat - r->pat);
	e->at = m->subject - line <= UINT16_MAX ?
	    (uint16_t)(m->subject - line) : 0;
	for (i = 0; i < m->pat->ncapv; i++)
		event_capv(e)[i] = cap[m->pat->capv[i]];
	e->weak = st->rec != NULL;
	e->process = (int)p->index;
	if (rank != RL_NONE || local != RL_NONE)
		e->rank = rank;
	if (lazy) {
		/* Its time and text at the end of the block (ingest_tails). */
		d = ingest_due(in, k);
		if (e == k->tail)
			d->tail_len = (uint32_t)len;
		return;
	}
	ingest_event_text(in, e, line, len);
	if (!(e->time.flags & RL_TIME_VALID)) {
		st->pending = array_grow(st->pending, st->npending,
		    &st->cpending, sizeof *st->pending);
		st->pending[st->npending].keep = k;
		st->pending[st->npending++].seq = e->seq;
	}
}

/*
 * A source's zoned line and local line next to each other (diag-zone.c):
 * the later was written no earlier, which bounds how far its local times
 * read ahead of its zoned ones.
 */
static void
zone_neighbours(struct rl_source *src, const struct rl_time *t,
    uint64_t lineno)
{
	const struct rl_time	*p = &src->zone_prev;
	int64_t			 d;

	if (!(p->flags & RL_TIME_VALID) || ((p->flags | t->flags) &
	    RL_TIME_BOOT) || src->zone_prev_line >= lineno)
		return;
	if (src->zone_samples == 0) {
		src->zone_lo = INT64_MIN;
		src->zone_hi = INT64_MAX;
	}
	if (t->flags & RL_TIME_ZONED) {
		/* Local, then zoned: it reads ahead by at least d. */
		if ((d = clock_utc_ms(p) - clock_utc_ms(t)) > src->zone_lo)
			src->zone_lo = d;
	} else if ((d = clock_utc_ms(t) - clock_utc_ms(p)) < src->zone_hi)
		src->zone_hi = d;
	src->zone_samples++;
}

/*
 * Update the times of a stream, its process and the source with a line's
 * time; the line is number lineno, at offset, of len bytes.
 */
void
ingest_time(struct ingest *in, struct stream *st, const struct rl_time *t,
    const char *line, size_t len, uint64_t lineno, uint64_t offset)
{
	struct rl_source	*src = in->src;
	struct rl_incident	*inc = in->inc;
	struct rl_process	*p = st->proc;
	struct rl_event		*e;
	size_t			 i;

	/*
	 * Lines before a stream's first time (a traceback at the top of
	 * stderr.log) were written just before the next timed line.
	 */
	for (i = 0; i < st->npending; i++) {
		if ((e = keep_find(st->pending[i].keep,
		    st->pending[i].seq)) == NULL)
			continue;
		e->time = *t;
		e->guess = TIME_NEXT;
	}
	st->npending = 0;
	st->last = *t;
	in->recent = *t;
	if (!(p->last.flags & RL_TIME_VALID) || clock_cmp(t, &p->last) >= 0) {
		p->last = *t;
		p->last_source = (int)src->index;
		p->last_line = lineno;
		p->last_offset = offset;
		p->last_len = len;
		free(p->last_text);
		p->last_text = NULL;
		/*
		 * Its bytes are copied once, at the feed's end, with the lines
		 * around it: a line begun in the chunk before (a read split
		 * it) is in the bytes kept before this chunk.  Copied here
		 * alone, it had no lines around it.
		 */
		if (in->chunk != NULL &&
		    offset + in->ctx.nprev >= in->chunk_abs) {
			if (p->last_fed != in->feed_id) {
				p->last_fed = in->feed_id;
				in->moved = array_grow(in->moved, in->nmoved,
				    &in->cmoved, sizeof *in->moved);
				in->moved[in->nmoved++] = p;
			}
		} else
			p->last_text = xstrndup(line, len);
	}
	if (!(src->first.flags & RL_TIME_VALID))
		src->first = *t;
	if (clock_cmp(t, &src->last) > 0 || !(src->last.flags & RL_TIME_VALID))
		src->last = *t;
	if (!(inc->start.flags & RL_TIME_VALID) || clock_cmp(t, &inc->start) < 0)
		inc->start = *t;
	if (!(inc->end.flags & RL_TIME_VALID) || clock_cmp(t, &inc->end) > 0)
		inc->end = *t;
	/* Apart by zone: a source's local times may be in another. */
	if ((t->flags ^ src->zone_prev.flags) & RL_TIME_ZONED)
		zone_neighbours(src, t, lineno);
	if (!(t->flags & RL_TIME_BOOT)) {
		src->zone_prev = *t;
		src->zone_prev_line = lineno;
	}
	if ((t->flags & (RL_TIME_ZONED | RL_TIME_BOOT)) == 0) {
		if (!(src->local_lo.flags & RL_TIME_VALID) ||
		    t->ms < src->local_lo.ms)
			src->local_lo = *t;
		if (!(src->local_hi.flags & RL_TIME_VALID) ||
		    t->ms > src->local_hi.ms)
			src->local_hi = *t;
	} else {
		if (!(inc->zoned_start.flags & RL_TIME_VALID) ||
		    clock_cmp(t, &inc->zoned_start) < 0)
			inc->zoned_start = *t;
		if (!(inc->zoned_end.flags & RL_TIME_VALID) ||
		    clock_cmp(t, &inc->zoned_end) > 0)
			inc->zoned_end = *t;
	}
}

