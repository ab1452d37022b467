/*
 * ingest.c: bytes to lines to events.
 *
 * A source's bytes arrive in chunks of any size.  They are cut into lines
 * (a partial line is held until its newline comes; CR before LF is dropped;
 * a line longer than LINE_MAX_BYTES is kept cut, with a marker), and each
 * line goes through the same steps:
 *
 *   1. colour codes are stripped and line prefixes peeled, one after
 *      another ([default3]:, [rank3]:, (VllmWorker rank=3 pid=N), node07: );
 *      what they name decides the line's stream and process;
 *   2. the stream's clock parses the line's time, or the line inherits the
 *      stream's last one;
 *   3. the prefilter and the rules name the line, if any rule does;
 *   4. link and record attributions tie pids and local ranks to global ranks.
 *
 * A stream is one writer within a source: the whole file for a per-rank
 * log, or one [defaultN] of a tee'd console.  Each keeps its own last time,
 * so lines are never reordered inside a source.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules-int.h"

#define LINE_MAX_BYTES	(1024 * 1024)	/* longer lines are cut */
#define PEEL_MAX	8		/* prefixes peeled from one line */
#define LONG_MARK	" [rankline: line cut at 1 MiB]"

/* One writer within a source. */
struct stream {
	int		 local_rank;	/* from a prefix, or RL_NONE */
	int		 rank;		/* from a prefix, or RL_NONE */
	int		 pid;		/* from a prefix, or RL_NONE */
	char		*host;		/* from a prefix, or NULL */
	struct rl_process *proc;	/* the process it belongs to */
	struct rl_time	 last;		/* its last timestamp */
	int		 rec_rank;	/* inside a launcher record: its rank */
	int		 rec_local;	/* and local rank */
	const struct rl_attrib *rec;	/* the open record, or NULL */
	uint64_t	*pending;	/* seq of events waiting for the stream's first time */
	size_t		 npending;
};

struct ingest {
	struct rl_incident *inc;	/* borrowed */
	struct rl_source *src;		/* borrowed */
	struct ruleset	*rs;		/* borrowed */
	struct buf	 partial;	/* bytes of an unfinished line */
	bool		 cut;		/* the partial line passed the limit */
	uint64_t	 partial_raw;	/* bytes of it read, kept or not */
	struct buf	 work;		/* scratch for a line with escapes */
	struct stream	**streams;	/* owned */
	size_t		 nstreams;
	struct stream	*last_stream;	/* the one the previous line used */
	uint32_t	 marks;		/* 1 << mark seen in this source */
	uint64_t	*seen;		/* per rule: last line it matched, 0 never */
	ingest_line_cb	 line_cb;	/* for `cat`, or NULL */
	void		*line_arg;
	uint64_t	 offset;	/* bytes consumed so far */
	struct rl_time	 recent;	/* the last time parsed in this source */
};

/* What the prefixes of one line named. */
struct peeled {
	int		 local_rank;
	int		 rank;
	int		 pid;
	char		 host[256];	/* empty when none */
	bool		 any;		/* some prefix named a writer */
};

struct ingest *
ingest_create(struct rl_incident *inc, struct rl_source *src)
{
	struct ingest	*in;

	in = xcalloc(1, sizeof *in);
	in->inc = inc;
	in->src = src;
	in->rs = (struct ruleset *)inc->rules;
	if (in->rs != NULL)
		in->seen = xcalloc(in->rs->nrules + 1, sizeof *in->seen);
	return in;
}

void
ingest_free(struct ingest *in)
{
	size_t	i;

	if (in == NULL)
		return;
	for (i = 0; i < in->nstreams; i++) {
		free(in->streams[i]->host);
		free(in->streams[i]->pending);
		free(in->streams[i]);
	}
	free(in->streams);
	buf_free(&in->partial);
	buf_free(&in->work);
	free(in->seen);
	free(in);
}

void
ingest_set_line_cb(struct ingest *in, ingest_line_cb cb, void *arg)
{
	in->line_cb = cb;
	in->line_arg = arg;
}

/* Copy a capture into a fixed buffer; false if the group is unset. */
static bool
capture_copy(const struct rl_match *m, enum rl_cap c, char *dst, size_t sz)
{
	int	g = m->pat->cap[c];
	size_t	n;

	if (g == 0 || g >= m->ngroups || m->ovec[2 * g] == PCRE2_UNSET)
		return false;
	n = m->ovec[2 * g + 1] - m->ovec[2 * g];
	if (n >= sz)
		n = sz - 1;
	memcpy(dst, m->subject + m->ovec[2 * g], n);
	dst[n] = '\0';
	return n > 0;
}

/* Clamp a capture to an int rank or pid. */
static int
capture_id(const struct rl_match *m, enum rl_cap c)
{
	int64_t	v = match_int(m, c);

	return v == RL_CAP_UNSET || v < 0 || v > INT_MAX ? RL_NONE : (int)v;
}

/*
 * Peel the line's prefixes; returns the offset where the message starts.
 * Each prefix pattern is tried at the current position; after a match the
 * search starts over, since prefixes stack in any order the tools chose.
 */
static size_t
ingest_peel(struct ingest *in, const char *s, size_t n, struct peeled *pl)
{
	struct ruleset		*rs = in->rs;
	struct rl_match		 m;
	const struct rl_attrib	*a;
	size_t			 pos = 0, i, j;
	int			 peels = 0, v;
	bool			 again = true;

	pl->local_rank = pl->rank = pl->pid = RL_NONE;
	pl->host[0] = '\0';
	pl->any = false;
	while (again && peels < PEEL_MAX && pos < n) {
		again = false;
		for (i = 0; i < rs->nattribs && !again; i++) {
			a = rs->attribs[i];
			if (a->kind != ATTRIB_PREFIX)
				continue;
			for (j = 0; j < a->npat; j++) {
				uint8_t	c = (uint8_t)s[pos];

				if (!(a->pat[j].first[c >> 3] & (1u << (c & 7))))
					continue;
				if (!ruleset_match_pattern(rs, &a->pat[j], s + pos,
				    n - pos, &m) || m.ovec[0] != 0 ||
				    m.ovec[1] == 0)
					continue;
				if ((v = capture_id(&m, CAP_LOCAL_RANK)) != RL_NONE)
					pl->local_rank = v, pl->any = true;
				if ((v = capture_id(&m, CAP_RANK)) != RL_NONE)
					pl->rank = v, pl->any = true;
				if ((v = capture_id(&m, CAP_PID)) != RL_NONE)
					pl->pid = v, pl->any = true;
				if (capture_copy(&m, CAP_HOST, pl->host,
				    sizeof pl->host))
					pl->any = true;
				pos += m.ovec[1];
				peels++;
				again = true;
				break;
			}
		}
	}
	return pos;
}

/* The process key for what a stream or line is known by. */
static void
process_key(struct buf *b, const char *host, int local_rank, int rank, int pid,
    unsigned src)
{
	buf_reset(b);
	if (local_rank != RL_NONE)
		buf_printf(b, "%s/l%d", host ? host : "-", local_rank);
	else if (rank != RL_NONE)
		buf_printf(b, "r%d", rank);
	else if (pid != RL_NONE)
		buf_printf(b, "%s/p%d", host ? host : "-", pid);
	else if (host != NULL)
		buf_printf(b, "%s/s%u", host, src);	/* pdsh's "node07: " */
	else
		buf_printf(b, "s%u", src);
}

/* Does the source's path alone say whose it is? */
static bool
source_identified(const struct rl_source *src)
{
	return src->proc_key != NULL || src->rank != RL_NONE ||
	    src->local_rank != RL_NONE;
}

/* The process a source's path names. */
static struct rl_process *
ingest_source_process(struct ingest *in)
{
	struct rl_source	*src = in->src;
	struct buf		 key = { 0 };
	struct rl_process	*p;

	if (src->proc_key != NULL)
		buf_adds(&key, src->proc_key);
	else
		process_key(&key, src->host, src->local_rank, src->rank,
		    RL_NONE, src->index);
	p = incident_process(in->inc, key.p, src->host, src->rank,
	    src->local_rank);
	buf_free(&key);
	return p;
}

/* Find or make the stream for what the prefixes named. */
static struct stream *
ingest_stream(struct ingest *in, const struct peeled *pl)
{
	struct rl_source	*src = in->src;
	struct stream		*st;
	struct buf		 key = { 0 };
	const char		*host;
	size_t			 i;

	st = in->last_stream;
	if (st != NULL && st->local_rank == pl->local_rank &&
	    st->rank == pl->rank && st->pid == pl->pid &&
	    strcmp(st->host ? st->host : "", pl->host) == 0)
		return st;
	for (i = 0; i < in->nstreams; i++) {
		st = in->streams[i];
		if (st->local_rank == pl->local_rank && st->rank == pl->rank &&
		    st->pid == pl->pid &&
		    strcmp(st->host ? st->host : "", pl->host) == 0)
			return in->last_stream = st;
	}
	st = xcalloc(1, sizeof *st);
	st->local_rank = pl->local_rank;
	st->rank = pl->rank;
	st->pid = pl->pid;
	st->host = pl->host[0] != '\0' ? xstrdup(pl->host) : NULL;
	st->rec_rank = st->rec_local = RL_NONE;
	host = st->host != NULL ? st->host : src->host;
	/*
	 * A prefix that names only a pid or host (NCCL's host:pid:tid) in a
	 * file that is already one rank's names that rank's process, not
	 * another one.
	 */
	if (pl->any && pl->rank == RL_NONE && pl->local_rank == RL_NONE &&
	    source_identified(src)) {
		st->proc = ingest_source_process(in);
		if (pl->pid != RL_NONE && st->proc->pid == RL_NONE)
			st->proc->pid = pl->pid;
		goto done;
	}
	if (pl->any) {
		src->multiplexed = true;
		process_key(&key, host, pl->local_rank, pl->rank, pl->pid,
		    src->index);
		st->proc = incident_process(in->inc, key.p, host, pl->rank,
		    pl->local_rank);
	} else
		st->proc = ingest_source_process(in);
	if (pl->pid != RL_NONE && st->proc->pid == RL_NONE)
		st->proc->pid = pl->pid;
done:
	buf_free(&key);
	in->streams = xreallocarray(in->streams, in->nstreams + 1,
	    sizeof *in->streams);
	in->streams[in->nstreams++] = st;
	return in->last_stream = st;
}

/* Does this stream write for one process (so a link may name it)? */
static bool
stream_is_process(const struct ingest *in, const struct stream *st)
{
	return st->local_rank != RL_NONE || st->rank != RL_NONE ||
	    st->pid != RL_NONE || in->src->proc_key != NULL ||
	    in->src->rank != RL_NONE || in->src->local_rank != RL_NONE;
}

/* A record or link attribution matched the line. */
struct link_ctx {
	struct ingest	*in;
	struct stream	*st;
	int		 rank;		/* the line's own rank, if a link named it */
	int		 local_rank;
	int		 pid;
};

/* The process a local rank or pid names on this stream's host. */
static struct rl_process *
ingest_named_process(struct ingest *in, struct stream *st, int local_rank,
    int rank)
{
	struct buf		 key = { 0 };
	struct rl_process	*p;
	const char		*host = st->proc->host;

	if (local_rank == RL_NONE && rank == RL_NONE)
		return NULL;
	process_key(&key, host, local_rank, rank, RL_NONE, in->src->index);
	p = incident_process(in->inc, key.p, host, rank, local_rank);
	buf_free(&key);
	return p;
}

static void
ingest_link_cb(void *arg, const struct rl_attrib *a, const struct rl_match *m)
{
	struct link_ctx		*lc = arg;
	struct stream		*st = lc->st;
	struct rl_process	*p;
	int			 rank, local, pid;

	rank = capture_id(m, CAP_RANK);
	local = capture_id(m, CAP_LOCAL_RANK);
	pid = capture_id(m, CAP_PID);
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
	if (!stream_is_process(lc->in, st) || st->rec != NULL)
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

/* Did rule `id` match within the last n lines of this source? */
static bool
ingest_within(const struct ingest *in, const char *id, unsigned n,
    uint64_t lineno)
{
	const struct rl_rule	*r = ruleset_find(in->rs, id);

	return r != NULL && in->seen[r->index] != 0 &&
	    lineno - in->seen[r->index] <= n;
}

/* Is the mark or rule id named by `what` seen in this source already? */
static bool
ingest_seen(const struct ingest *in, const char *what)
{
	const struct rl_rule	*r;
	int			 i;

	for (i = 1; i < MARK_NMARKS; i++) {
		if (strcmp(mark_name(i), what) == 0)
			return (in->marks & (1u << i)) != 0;
	}
	r = ruleset_find(in->rs, what);
	return r != NULL && in->seen[r->index] != 0;
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

/* Record a matched line as an event. */
static void
ingest_event(struct ingest *in, struct stream *st, const struct rl_match *m,
    const char *line, size_t len, uint64_t lineno, bool timed,
    const struct link_ctx *lc)
{
	const struct rl_rule	*r = m->rule;
	struct rl_event		*e;
	struct rl_process	*p = st->proc;
	int			 i, rank, local;
	size_t			 off;

	e = incident_add_event(in->inc);
	e->source = in->src->index;
	e->line = lineno;
	e->offset = in->offset;
	e->time = st->last;
	e->timed = timed;
	e->guess = timed ? TIME_OWN : TIME_STREAM;
	e->rule = r;
	e->role = r->role;
	for (i = 0; i < CAP_NCAPS; i++)
		e->cap[i] = i == CAP_HOST || i == CAP_PCI ? RL_CAP_UNSET :
		    match_int(m, i);
	if (r->only_after != NULL && !ingest_seen(in, r->only_after))
		e->harmless = true;
	if (r->not_within != NULL && ingest_within(in, r->not_within,
	    r->not_within_lines, lineno))
		e->harmless = true;
	if (r->not_after != NULL && ingest_seen(in, r->not_after))
		e->harmless = true;

	/* Inside a launcher's record, the record names the rank. */
	rank = st->rec != NULL ? st->rec_rank : RL_NONE;
	local = st->rec != NULL ? st->rec_local : RL_NONE;
	e->weak = st->rec != NULL;
	if (st->rec != NULL && e->cap[CAP_PID] != RL_CAP_UNSET)
		ingest_link_pid(in->inc, (int)e->cap[CAP_PID], rank, local);
	if (rank == RL_NONE && local == RL_NONE && !stream_is_process(in, st)) {
		/* A launcher line about one of its children. */
		rank = e->cap[CAP_RANK] != RL_CAP_UNSET ? (int)e->cap[CAP_RANK] :
		    lc->rank;
		local = e->cap[CAP_LOCAL_RANK] != RL_CAP_UNSET ?
		    (int)e->cap[CAP_LOCAL_RANK] : lc->local_rank;
	}
	if (rank != RL_NONE || local != RL_NONE) {
		if ((p = ingest_named_process(in, st, local, rank)) == NULL)
			p = st->proc;
		e->rank = rank;
	}
	e->process = (int)p->index;
	e->text = xstrndup(line, len);
	for (off = 0; off < len; off++) {
		if (e->text[off] == '\0')
			e->text[off] = ' ';
	}
	if (!(e->time.flags & RL_TIME_VALID)) {
		st->pending = xreallocarray(st->pending, st->npending + 1,
		    sizeof *st->pending);
		st->pending[st->npending++] = e->seq;
	}
	in->seen[r->index] = lineno;
	if (r->mark != MARK_NONE)
		in->marks |= 1u << r->mark;
}

/*
 * The event with this arrival number.  Until the first diagnosis sorts the
 * events, an event's index is its seq; a followed source keeps adding lines
 * after that, so a pending event may have moved and is looked for.
 */
static struct rl_event *
ingest_event_by_seq(struct rl_incident *inc, uint64_t seq)
{
	size_t	i;

	if (seq < inc->nevents && inc->events[seq].seq == seq)
		return &inc->events[seq];
	for (i = 0; i < inc->nevents; i++) {
		if (inc->events[i].seq == seq)
			return &inc->events[i];
	}
	return NULL;
}

/* Update the times of a stream, its process and the source. */
static void
ingest_time(struct ingest *in, struct stream *st, const struct rl_time *t,
    const char *line, size_t len)
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
		if ((e = ingest_event_by_seq(inc, st->pending[i])) == NULL)
			continue;
		e->time = *t;
		e->guess = TIME_NEXT;
	}
	st->npending = 0;
	st->last = *t;
	if (!(p->last.flags & RL_TIME_VALID) || clock_cmp(t, &p->last) >= 0) {
		p->last = *t;
		p->last_source = (int)src->index;
		p->last_line = src->lines;
		p->last_offset = in->offset;
		p->last_len = len;
		if (src->kind != SOURCE_FILE || src->transient) {
			free(p->last_text);
			p->last_text = xstrndup(line, len);
		}
	}
	if (!(src->first.flags & RL_TIME_VALID))
		src->first = *t;
	if (clock_cmp(t, &src->last) > 0 || !(src->last.flags & RL_TIME_VALID))
		src->last = *t;
	if (!(inc->start.flags & RL_TIME_VALID) || clock_cmp(t, &inc->start) < 0)
		inc->start = *t;
	if (!(inc->end.flags & RL_TIME_VALID) || clock_cmp(t, &inc->end) > 0)
		inc->end = *t;
}

/* One complete line, without its newline. */
static void
ingest_line(struct ingest *in, const char *line, size_t len)
{
	struct rl_source	*src = in->src;
	struct peeled		 pl;
	struct stream		*st;
	struct rl_match		 m;
	struct rl_time		 t;
	struct link_ctx		 lc;
	const char		*msg;
	size_t			 off, mlen;
	uint64_t		 lineno = ++src->lines;
	bool			 timed, matched;

	in->inc->lines++;
	if (memchr(line, 0x1b, len) != NULL) {
		buf_reset(&in->work);
		buf_add(&in->work, line, len);
		len = strip_ansi(in->work.p, in->work.len);
		line = in->work.p;
	}
	off = ingest_peel(in, line, len, &pl);
	msg = line + off;
	mlen = len - off;
	st = ingest_stream(in, &pl);
	st->proc->lines++;
	timed = clock_parse(&src->clock, msg, mlen, &t);
	if (timed) {
		ingest_time(in, st, &t, line, len);
		in->recent = t;
	} else if (!(st->last.flags & RL_TIME_VALID) &&
	    (in->recent.flags & RL_TIME_VALID))
		st->last = in->recent;	/* a new writer: the source's time */

	/* A record ends at its end pattern, before this line is named. */
	if (st->rec != NULL && st->rec->end.code != NULL &&
	    ruleset_match_pattern(in->rs, &st->rec->end, msg, mlen, NULL))
		st->rec = NULL;

	matched = ruleset_match(in->rs, msg, mlen, &m);
	memset(&lc, 0, sizeof lc);
	lc.in = in;
	lc.st = st;
	lc.rank = lc.local_rank = lc.pid = RL_NONE;
	ruleset_links(in->rs, msg, mlen, ingest_link_cb, &lc);
	if (matched)
		ingest_event(in, st, &m, line, len, lineno, timed, &lc);
	if (in->line_cb != NULL)
		in->line_cb(in->line_arg, src, lineno, &st->last, st->proc,
		    line, len);
}

/* Deliver the held partial line, marking it if it was cut. */
static void
ingest_partial(struct ingest *in)
{
	size_t	len = in->partial.len;

	if (len > 0 && in->partial.p[len - 1] == '\r')
		len--;
	if (in->cut) {
		in->partial.len = len;
		buf_adds(&in->partial, LONG_MARK);
		len = in->partial.len;
		in->src->long_lines++;
	}
	ingest_line(in, in->partial.p, len);
	in->offset += in->partial_raw;
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

/* Feed a chunk of a source's bytes. */
void
ingest_feed(struct ingest *in, const char *p, size_t n)
{
	const char	*end = p + n, *nl;
	size_t		 len;

	in->src->bytes += n;
	in->inc->bytes += n;
	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			ingest_hold(in, p, (size_t)(end - p));
			return;
		}
		len = (size_t)(nl - p);
		if (in->partial.len > 0 || in->cut || len > LINE_MAX_BYTES) {
			ingest_hold(in, p, len);
			ingest_partial(in);
			in->offset++;
		} else {
			ingest_line(in, p, len > 0 && p[len - 1] == '\r' ?
			    len - 1 : len);
			in->offset += len + 1;
		}
		p = nl + 1;
	}
}

/* Is a partial line held, waiting for its newline? */
bool
ingest_pending(const struct ingest *in)
{
	return in->partial.len > 0 || in->cut;
}

/* The source ended (or went quiet): a held partial line is complete. */
void
ingest_flush(struct ingest *in)
{
	if (in->partial.len > 0 || in->cut)
		ingest_partial(in);
}
