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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules-int.h"
#include "engine.h"

#define LINE_MAX_BYTES	(1024 * 1024)	/* longer lines are cut */
#define PEEL_MAX	8		/* prefixes peeled from one line */
#define LONG_MARK	" [rankline: line cut at 1 MiB]"
#define TEXT_MARK	" [rankline: cut]"
#define WARMUP_BYTES	(64 * 1024)	/* read line by line at first */
#define SETTLE_TIMED	64		/* timed lines a block's end looks back on */
#define SHAPE_PROBE	256		/* lines between looks at the shapes' use */
#define QUICK_WAYS	16		/* peeled prefixes ingest_line_quick keeps */
#define STREAMS_SCAN	8		/* streams sought one by one; more are
					   hashed */

/* How a line's literals are found. */
enum line_how {
	LINE_RAW,		/* scanned on its own */
	LINE_SCANNED,		/* the block's scan found them */
	LINE_SHAPE		/* by its shape, if one like it was seen */
};

/* An event that waits for its stream's first time. */
struct pending {
	struct rl_keep	*keep;		/* where it is kept, borrowed */
	uint64_t	 seq;		/* which one */
};

/* One process's lines within this source. */
struct stream {
	struct rl_process *proc;	/* borrowed from the incident */
	struct rl_time	 last;		/* its last timestamp */
	int		 rec_rank;	/* inside a launcher record: its rank */
	int		 rec_local;	/* and local rank */
	const struct rl_attrib *rec;	/* the open record, or NULL */
	struct pending	*pending;	/* events waiting for its first time */
	size_t		 npending;
	size_t		 cpending;	/* room in pending */
};

/* What the prefixes of a line named, and the stream that names. */
struct writer {
	int		 local_rank;	/* from a prefix, or RL_NONE */
	int		 rank;
	int		 pid;
	char		*host;		/* or NULL */
	struct stream	*st;		/* borrowed from the ingest */
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
	size_t		 cstreams;	/* room in streams */
	struct idhash	 streams_of;	/* past STREAMS_SCAN: process (its
					   address) -> index in streams + 1,
					   as 100,000 ranks may share a file */
	struct writer	**writers;	/* owned */
	size_t		 nwriters;
	size_t		 cwriters;	/* room in writers */
	struct writer	**whash;	/* the writers by what names them,
					   open addressing: 512 ranks share
					   an srun --label console */
	size_t		 whsize;	/* a power of two, or 0 */
	struct writer	*last_writer;	/* the one the previous line named */
	struct stream	*bare;		/* the stream of lines without a
					   prefix, once there was one */
	struct quick_peel {		/* lines ingest_line_quick peeled:
					   of this shape ... */
		uint64_t shape;		/* (ruleset_shape_token), or 0 */
		size_t	 len;		/* ... with these prefix bytes */
		char	 raw[64];
	}		 quick[QUICK_WAYS];
	unsigned	 quick_next;	/* the entry to replace next */
	uint32_t	 marks;		/* 1 << mark seen in this source */
	uint64_t	*seen;		/* per rule: last line it matched, 0 never */
	struct rl_keep	**keep;		/* per rule: the keep it used last */
	ingest_line_cb	 line_cb;	/* for `cat`, or NULL */
	void		*line_arg;
	uint64_t	 offset;	/* bytes consumed so far */
	struct rl_time	 recent;	/* the last time parsed in this source */
	bool		 slow;		/* every line is read from now on */
	bool		 skip_ok;	/* what of ingest_skipping lasts:
					   ingest_skip_update */
	bool		 more;		/* more bytes follow the fed ones at once
					   (ingest_more) */
	uint64_t	 warmup;	/* bytes read line by line first */
	const char	*blk;		/* the block being read, or NULL */
	const char	*blk_end;	/* and its end */
	uint64_t	 blk_abs;	/* its offset in the source */
	uint64_t	 blk_read;	/* lines of it read, not skipped */
	bool		 dense;		/* most lines are read: name them by
					   their shapes, not by a block scan */
	unsigned	 shapes_off;	/* blocks to scan before shapes again */
	unsigned	 shapes_backoff;/* and after the next poor try */
	uint64_t	 tknown;	/* the stream's time is that of the lines
					   before this offset */
	struct {			/* ingest_when's last answer in this
					   block (at NULL: none yet): */
		uint64_t	 tknown;	/* with this much known, */
		const struct stream *st;
		const char	*at;	/* the line starting here */
		struct rl_time	 t;	/* had this time, its own or */
		bool		 found;	/* a line's before it; or none */
	}		 when;
	struct rl_keep	**dirty;	/* keeps whose tail waits for the block's end */
	size_t		 ndirty;
	size_t		 cdirty;	/* room in dirty */
	uint64_t	*idle;		/* per literal: it only feeds links the
					   process knows (bits), while skipping */
	struct idle_key {		/* what idle was worked out for */
		const struct rl_process *p;
		int	 rank, local_rank, pid;
		bool	 guessed;
	}		 idle_for;
	const char	*chunk;		/* the bytes being fed, or NULL */
	uint64_t	 chunk_abs;	/* their offset in the source */
	uint64_t	 fed;		/* bytes fed so far */
	uint64_t	 feed_id;	/* this feed's number in the incident */
	struct context_reader ctx;	/* the lines around failures */
	struct rl_process **moved;	/* processes whose last line this
					   feed moved into the chunk */
	size_t		 nmoved;
	size_t		 cmoved;	/* room in moved */
	struct rl_process **pend;	/* those the previous feed moved: their
					   last line and its context are kept
					   when the next feed does not move
					   them again (ingest_last_keep) */
	size_t		 npend;
	size_t		 cpend;
	struct buf	 saved;		/* the previous feed's bytes they need */
	uint64_t	 saved_abs;	/* its offset in the source */
	uint64_t	 saved_feed;	/* that feed's number */
};

struct peeled;
static void	ingest_settle(struct ingest *, const char *, size_t, int);
static void	ingest_tails(struct ingest *);
static void	ingest_feed_lines(struct ingest *, const char *, size_t);
static void	ingest_last_settle(struct ingest *);
static bool	ingest_writer_known(const struct ingest *,
		    const struct peeled *);

/* What the prefixes of one line named. */
struct peeled {
	int		 local_rank;
	int		 rank;
	int		 pid;
	char		 host[256];	/* empty when none */
	bool		 any;		/* some prefix named a writer */
};

/* A link or record attribution matched the line. */
struct link_ctx {
	struct ingest	*in;
	struct stream	*st;
	int		 rank;		/* the line's own rank, if a link named it */
	int		 local_rank;
	int		 pid;
};

/*
 * The part of ingest_skipping that holds until a second writer comes, the
 * source turns slow or lines go to a callback: worked out when those
 * change, not at every line.
 */
static void
ingest_skip_update(struct ingest *in)
{
	in->skip_ok = !in->slow && in->line_cb == NULL && in->nstreams == 1 &&
	    in->rs != NULL && in->rs->nalways == 0;
}

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
	idhash_free(&in->streams_of);
	for (i = 0; i < in->nwriters; i++) {
		free(in->writers[i]->host);
		free(in->writers[i]);
	}
	free(in->writers);
	free(in->whash);
	buf_free(&in->partial);
	buf_free(&in->work);
	free(in->seen);
	free(in->keep);
	free(in->dirty);
	free(in->idle);
	ingest_last_settle(in);
	free(in->moved);
	free(in->pend);
	buf_free(&in->saved);
	job_head_end(&in->src->head, &in->src->job, in->src->path);
	context_settle(&in->ctx, in->src, true);
	context_reader_clear(&in->ctx);
	free(in);
}

void
ingest_set_line_cb(struct ingest *in, ingest_line_cb cb, void *arg)
{
	in->line_cb = cb;
	in->line_arg = arg;
	ingest_skip_update(in);
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

/* Take what a matched prefix names into the peeled line. */
static void
peel_apply(const struct rl_match *m, struct peeled *pl)
{
	int	v;

	if ((v = capture_id(m, CAP_LOCAL_RANK)) != RL_NONE)
		pl->local_rank = v, pl->any = true;
	if ((v = capture_id(m, CAP_RANK)) != RL_NONE)
		pl->rank = v, pl->any = true;
	if ((v = capture_id(m, CAP_PID)) != RL_NONE)
		pl->pid = v, pl->any = true;
	if (capture_copy(m, CAP_HOST, pl->host, sizeof pl->host))
		pl->any = true;
}

/* What a prefix may name, in the order a memo's step keeps them. */
static const enum rl_cap peel_caps[PEEL_CAPS] = {
	CAP_LOCAL_RANK, CAP_RANK, CAP_PID, CAP_HOST
};

/* One attempt of the full peel, for the memo's check. */
struct peel_try {
	uint16_t	 attrib;
	uint8_t		 pat;
	bool		 matched;
	size_t		 pos;		/* where it was tried */
	size_t		 len;		/* what it peeled */
	uint8_t		 cap[PEEL_CAPS][2];	/* see struct peel_step */
};

/* Where a match's captures of peel_caps are, for a memo's step. */
static void
peel_caps_of(const struct rl_match *m, uint8_t cap[PEEL_CAPS][2])
{
	size_t	i;
	int	g;

	for (i = 0; i < PEEL_CAPS; i++) {
		g = m->pat->cap[peel_caps[i]];
		cap[i][0] = cap[i][1] = UINT8_MAX;
		if (g != 0 && g < m->ngroups &&
		    m->ovec[2 * g] != PCRE2_UNSET &&
		    m->ovec[2 * g + 1] < UINT8_MAX) {
			cap[i][0] = (uint8_t)m->ovec[2 * g];
			cap[i][1] = (uint8_t)m->ovec[2 * g + 1];
		}
	}
}

/*
 * A step of a memo, over the line at s: what its pattern would capture
 * there, where it captured on the line remembered.  The line's first bytes
 * are that line's but for digits, and every prefix pattern treats digits
 * alike, so the pattern would match as it did: no need to run it.
 */
static void
peel_replay(const struct ruleset *rs, const struct peel_step *st,
    const char *s, struct peeled *pl)
{
	struct rl_match	 m;
	size_t		 i;
	int		 g;

	m.rule = NULL;
	m.pat = &rs->attribs[st->attrib]->pat[st->pat];
	m.subject = s;
	m.ngroups = 0;
	for (i = 0; i < PEEL_CAPS; i++) {
		if ((g = m.pat->cap[peel_caps[i]]) == 0 || g >= RL_MAXGROUPS)
			continue;
		for (; m.ngroups <= g; m.ngroups++)
			m.ovec[2 * m.ngroups] = m.ovec[2 * m.ngroups + 1] =
			    PCRE2_UNSET;
		if (st->cap[i][0] != UINT8_MAX) {
			m.ovec[2 * g] = st->cap[i][0];
			m.ovec[2 * g + 1] = st->cap[i][1];
		}
	}
	peel_apply(&m, pl);
}

/*
 * Were all of a full peel's decisions made by the first k bytes, so that
 * every line whose first k bytes are these (digits aside) peels alike?
 */
static bool
peel_memoizable(struct ruleset *rs, const char *s, size_t n, size_t k,
    const struct peel_try *t, size_t nt, size_t end)
{
	const struct rl_attrib	*a;
	size_t			 i, len;
	int			 rc;

	if (k == n)
		return true;
	if (end >= k)
		return false;	/* it went on past the key */
	for (i = 0; i < nt; i++) {
		if (t[i].pos >= k)
			return false;
		a = rs->attribs[t[i].attrib];
		rc = ruleset_match_partial(rs, &a->pat[t[i].pat], s + t[i].pos,
		    k - t[i].pos, &len);
		if (rc < 0)
			return false;
		if (t[i].matched ? rc != 1 || len != t[i].len :
		    rc == 1 && len != 0)
			return false;
	}
	return true;
}

/*
 * How many of a line's k key bytes the peel is remembered by: the hashed
 * ones if they decide it, else the fewest that do, in steps of 8, as a
 * label and a time peeled before a pattern is tried near the 32nd byte
 * ("  3: 2026-12-02 13:06:43,123 INFO") need a few more to decide on, and
 * a key longer than needed would take in a progress bar; 0 if not even
 * all k do.
 */
static size_t
peel_memo_len(struct ruleset *rs, const char *s, size_t n, size_t k,
    const struct peel_try *t, size_t nt, size_t end)
{
	size_t	lo = k < PEEL_MEMO_HASHED ? k : PEEL_MEMO_HASHED, hi = k, mid;

	if (peel_memoizable(rs, s, n, lo, t, nt, end))
		return lo;
	if (hi == lo || !peel_memoizable(rs, s, n, hi, t, nt, end))
		return 0;
	/* lo does not decide, hi does. */
	while (hi - lo > 8) {
		mid = lo + (hi - lo) / 2;
		if (peel_memoizable(rs, s, n, mid, t, nt, end))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * The memo's key for a line: its first bytes, digits as '0'; and its slot,
 * by the first PEEL_MEMO_HASHED of them.  Returns how many there are.
 */
static size_t
peel_key(const char *s, size_t n, uint8_t *key, uint32_t *slot)
{
	size_t		k = n < PEEL_MEMO_KEY ? n : PEEL_MEMO_KEY;
	uint64_t	w[PEEL_MEMO_HASHED / 8], h;

	memset(key, 0, PEEL_MEMO_KEY);
	digits_mask(s, k, key);
	memcpy(w, key, sizeof w);
	h = (w[0] * 0x9e3779b97f4a7c15ULL) ^ (w[1] * 0xc2b2ae3d27d4eb4fULL) ^
	    (w[2] * 0x165667b19e3779f9ULL) ^ (w[3] * 0x27d4eb2f165667c5ULL) ^
	    (k < PEEL_MEMO_HASHED ? k : PEEL_MEMO_HASHED);
	*slot = (uint32_t)(h >> 40) & (PEEL_MEMO_SLOTS / PEEL_MEMO_WAYS - 1);
	return k;
}

/*
 * Does a memo entry hold for a line of n bytes with this key?  Its bytes
 * must be the line's first; if they were a whole line, the line must end
 * where that one did.
 */
static bool
peel_memo_is(const struct peel_memo *me, const uint8_t *key, size_t n)
{
	return me->used && (me->whole ? n == me->klen : n >= me->klen) &&
	    memcmp(me->key, key, me->klen) == 0;
}

/* Copy what a peel named into a line's, the host cut to fit. */
static void
strlcpy_host(struct peeled *pl, const char *host)
{
	size_t	n = strlen(host);

	if (n >= sizeof pl->host)
		n = sizeof pl->host - 1;
	memcpy(pl->host, host, n);
	pl->host[n] = '\0';
}

/*
 * Remember the exact prefix bytes of a line and what they named, so that
 * the next line with the very same prefixes (one writer's, line after
 * line) takes them without running a pattern.
 */
static void
peel_memo_raw(struct peel_memo *me, const char *s, size_t len,
    const struct peeled *pl)
{
	me->rawlen = 0;
	if (len == 0 || len > sizeof me->raw ||
	    strlen(pl->host) >= sizeof me->host)
		return;
	memcpy(me->raw, s, len);
	me->rawlen = (uint8_t)len;
	me->local_rank = pl->local_rank;
	me->rank = pl->rank;
	me->pid = pl->pid;
	memcpy(me->host, pl->host, strlen(pl->host) + 1);
}

/*
 * The entry of the memo's set of PEEL_MEMO_WAYS that holds a key, or else
 * the one to replace: an empty one, or the least recently used.
 */
static struct peel_memo *
peel_memo_find(struct ruleset *rs, uint32_t slot, const uint8_t *key,
    size_t n)
{
	struct peel_memo	*set = &rs->memo[slot * PEEL_MEMO_WAYS], *old;
	size_t			 i;

	old = &set[0];
	for (i = 0; i < PEEL_MEMO_WAYS; i++) {
		if (peel_memo_is(&set[i], key, n))
			return &set[i];
		if (!set[i].used || (old->used && set[i].stamp < old->stamp))
			old = &set[i];
	}
	return old;
}

/*
 * Peel the line's prefixes; returns the offset where the message starts.
 * Each prefix pattern is tried at the current position; after a match the
 * search starts over, since prefixes stack in any order the tools chose.
 *
 * Most lines of a log start alike but for their digits (a timestamp, then
 * the same level and logger), and most prefix patterns fail on them; so
 * what a peel came to is remembered by the line's first bytes, digits
 * masked, and a line that starts alike only runs the patterns that matched
 * (for what they capture).  Only a peel whose every decision was made
 * within those bytes is remembered, and only when no prefix pattern tells
 * one digit from another (ruleset_memo).
 */
static size_t
ingest_peel(struct ingest *in, const char *s, size_t n, struct peeled *pl)
{
	struct ruleset		*rs = in->rs;
	struct rl_match		 m;
	const struct rl_attrib	*a;
	struct peel_memo	*me = NULL;
	struct peel_try		 t[64];
	uint8_t			 key[PEEL_MEMO_KEY];
	uint32_t		 slot;
	size_t			 pos = 0, i, j, k = 0, k2, nt = 0;
	int			 peels = 0;
	bool			 again = true, track = true;

	pl->local_rank = pl->rank = pl->pid = RL_NONE;
	pl->host[0] = '\0';
	pl->any = false;
	if (rs->memo != NULL && n > 0) {
		k = peel_key(s, n, key, &slot);
		me = peel_memo_find(rs, slot, key, n);
		if (peel_memo_is(me, key, n)) {
			me->stamp = ++rs->memo_clock;
			if (me->nstep == 0)
				return 0;
			/* The very prefixes of the last line: what they named. */
			if (me->rawlen != 0 && me->rawlen <= n &&
			    memcmp(me->raw, s, me->rawlen) == 0) {
				pl->local_rank = me->local_rank;
				pl->rank = me->rank;
				pl->pid = me->pid;
				strlcpy_host(pl, me->host);
				pl->any = pl->local_rank != RL_NONE ||
				    pl->rank != RL_NONE || pl->pid != RL_NONE ||
				    pl->host[0] != '\0';
				return me->rawlen;
			}
			for (i = 0; i < me->nstep; i++) {
				peel_replay(rs, &me->step[i], s + pos, pl);
				pos += me->step[i].len;
			}
			peel_memo_raw(me, s, pos, pl);
			return pos;
		}
	}
	while (again && peels < PEEL_MAX && pos < n) {
		again = false;
		for (i = 0; i < rs->nattribs && !again; i++) {
			a = rs->attribs[i];
			if (a->kind != ATTRIB_PREFIX)
				continue;
			for (j = 0; j < a->npat; j++) {
				uint8_t	c = (uint8_t)s[pos];
				bool	ok;

				if (!(a->pat[j].first[c >> 3] & (1u << (c & 7))))
					continue;
				ok = ruleset_match_pattern(rs, &a->pat[j], s + pos,
				    n - pos, &m) && m.ovec[0] == 0 &&
				    m.ovec[1] != 0;
				if (nt < sizeof t / sizeof t[0]) {
					t[nt].attrib = (uint16_t)i;
					t[nt].pat = (uint8_t)j;
					t[nt].matched = ok;
					t[nt].pos = pos;
					t[nt].len = ok ? m.ovec[1] : 0;
					if (ok)
						peel_caps_of(&m, t[nt].cap);
					nt++;
				} else
					track = false;
				if (!ok)
					continue;
				peel_apply(&m, pl);
				pos += m.ovec[1];
				peels++;
				again = true;
				break;
			}
		}
	}
	if (me != NULL && track && peels <= PEEL_MEMO_STEPS &&
	    (pos >= n || peels < PEEL_MAX) &&
	    (k2 = peel_memo_len(rs, s, n, k, t, nt, pos)) != 0) {
		me->used = true;
		me->stamp = ++rs->memo_clock;
		me->klen = (uint8_t)k2;
		me->whole = k2 == n;
		memcpy(me->key, key, k2);
		for (i = j = 0; i < nt; i++) {
			if (!t[i].matched)
				continue;
			me->step[j].attrib = t[i].attrib;
			me->step[j].pat = t[i].pat;
			memcpy(me->step[j].cap, t[i].cap, sizeof t[i].cap);
			me->step[j++].len = (uint8_t)t[i].len;
		}
		me->nstep = (uint8_t)j;
		peel_memo_raw(me, s, pos, pl);
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

/* The stream of a process in this source, made on first use. */
static struct stream *
ingest_stream_of(struct ingest *in, struct rl_process *p)
{
	struct stream	*st;
	uint64_t	*at = NULL;
	size_t		 i;

	/* A few are sought one by one: most sources have one writer. */
	if (in->nstreams <= STREAMS_SCAN) {
		for (i = 0; i < in->nstreams; i++) {
			if (in->streams[i]->proc == p)
				return in->streams[i];
		}
		for (i = 0; in->nstreams == STREAMS_SCAN && i < in->nstreams;
		    i++)
			*idhash_put(&in->streams_of,
			    (uint64_t)(uintptr_t)in->streams[i]->proc) = i + 1;
	}
	if (in->nstreams >= STREAMS_SCAN) {
		at = idhash_put(&in->streams_of, (uint64_t)(uintptr_t)p);
		if (*at != 0)
			return in->streams[*at - 1];
		*at = in->nstreams + 1;
	}
	st = xcalloc(1, sizeof *st);
	st->proc = p;
	st->rec_rank = st->rec_local = RL_NONE;
	/* A new writer starts from the source's time, not from nothing. */
	st->last = in->recent;
	in->streams = array_grow(in->streams, in->nstreams, &in->cstreams,
	    sizeof *in->streams);
	in->streams[in->nstreams++] = st;
	/* Two writers share this source: their lines must all be read. */
	if (in->nstreams > 1)
		in->slow = true;
	ingest_skip_update(in);
	return st;
}

/* The process a writer's prefixes name. */
static struct rl_process *
ingest_writer_process(struct ingest *in, const struct peeled *pl)
{
	struct rl_source	*src = in->src;
	struct rl_process	*p;
	struct buf		 key = { 0 };
	const char		*host;

	/*
	 * A prefix that names only a pid or host (NCCL's host:pid:tid) in a
	 * file that is already one rank's names that rank's process, not
	 * another one.
	 */
	if (!pl->any || (pl->rank == RL_NONE && pl->local_rank == RL_NONE &&
	    source_identified(src)))
		p = ingest_source_process(in);
	else {
		src->multiplexed = true;
		host = pl->host[0] != '\0' ? pl->host : src->host;
		process_key(&key, host, pl->local_rank, pl->rank, pl->pid,
		    src->index);
		p = incident_process(in->inc, key.p, host, pl->rank,
		    pl->local_rank);
		buf_free(&key);
	}
	if (pl->pid != RL_NONE && p->pid == RL_NONE)
		p->pid = pl->pid;
	return p;
}

/* Does a writer stand for what the prefixes named? */
static bool
writer_is(const struct writer *w, const struct peeled *pl)
{
	const char	*h = w->host != NULL ? w->host : "";

	return w->local_rank == pl->local_rank && w->rank == pl->rank &&
	    w->pid == pl->pid && h[0] == pl->host[0] &&
	    (h[0] == '\0' || strcmp(h, pl->host) == 0);
}

/* Where the writer a line's prefixes named is, or would go, in whash. */
static size_t
writer_slot(const struct ingest *in, const struct peeled *pl)
{
	uint64_t	 h;
	size_t		 k;

	h = (STR_HASH_SEED ^ (uint32_t)pl->local_rank) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ (uint32_t)pl->rank) * 0x9e3779b97f4a7c15ULL;
	h = str_hash((h ^ (uint32_t)pl->pid) * 0x9e3779b97f4a7c15ULL,
	    pl->host);
	for (k = (size_t)(h ^ (h >> 29)) & (in->whsize - 1);
	    in->whash[k] != NULL && !writer_is(in->whash[k], pl);
	    k = (k + 1) & (in->whsize - 1))
		;
	return k;
}

/* A writer as a line's prefixes name it, for writer_slot. */
static void
writer_peeled(const struct writer *w, struct peeled *pl)
{
	pl->local_rank = w->local_rank;
	pl->rank = w->rank;
	pl->pid = w->pid;
	snprintf(pl->host, sizeof pl->host, "%s", w->host != NULL ? w->host :
	    "");
}

/* Put every writer in whash again, with room for one more. */
static void
writer_rehash(struct ingest *in)
{
	struct peeled	pl;
	size_t		i;

	free(in->whash);
	for (in->whsize = in->whsize == 0 ? 16 : in->whsize;
	    in->whsize < 2 * (in->nwriters + 1);)
		in->whsize *= 2;
	in->whash = xcalloc(in->whsize, sizeof *in->whash);
	for (i = 0; i < in->nwriters; i++) {
		writer_peeled(in->writers[i], &pl);
		in->whash[writer_slot(in, &pl)] = in->writers[i];
	}
}

/* Find or make the stream for what the prefixes named. */
static struct stream *
ingest_stream(struct ingest *in, const struct peeled *pl)
{
	struct writer	*w = in->last_writer;
	size_t		 slot;

	if (w != NULL && writer_is(w, pl))
		return w->st;
	if (2 * (in->nwriters + 1) > in->whsize)
		writer_rehash(in);
	slot = writer_slot(in, pl);
	if (in->whash[slot] != NULL) {
		in->last_writer = in->whash[slot];
		return in->last_writer->st;
	}
	w = xcalloc(1, sizeof *w);
	w->local_rank = pl->local_rank;
	w->rank = pl->rank;
	w->pid = pl->pid;
	w->host = pl->host[0] != '\0' ? xstrdup(pl->host) : NULL;
	w->st = ingest_stream_of(in, ingest_writer_process(in, pl));
	in->writers = array_grow(in->writers, in->nwriters, &in->cwriters,
	    sizeof *in->writers);
	in->writers[in->nwriters++] = w;
	in->whash[slot] = w;
	in->last_writer = w;
	if (w->local_rank == RL_NONE && w->rank == RL_NONE &&
	    w->pid == RL_NONE && w->host == NULL)
		in->bare = w->st;
	return w->st;
}

/* Does this stream write for one process (so a link may name it)? */
static bool
stream_is_process(const struct ingest *in, const struct stream *st)
{
	const struct rl_process	*p = st->proc;

	return p->local_rank != RL_NONE || p->rank != RL_NONE ||
	    p->pid != RL_NONE || in->src->proc_key != NULL ||
	    in->src->rank != RL_NONE || in->src->local_rank != RL_NONE;
}

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

/* The keep for a rule's events from this process in this source. */
static struct rl_keep *
ingest_keep(struct ingest *in, const struct rl_rule *r, int proc)
{
	struct rl_keep	*k = in->keep[r->index];

	if (k == NULL || k->process != proc)
		k = in->keep[r->index] = incident_keep(in->inc, r, proc,
		    in->src->index);
	return k;
}

/* Keep a line's text in an event: cut, NUL bytes as spaces. */
static char *
event_text(const struct rl_rule *r, const char *line, size_t len)
{
	size_t	 max, n;
	char	*t, *z;

	max = r->role == ROLE_PROGRESS && r->mark != MARK_CKPT_BEGIN &&
	    r->mark != MARK_CKPT_END ? EVENT_TEXT_PROGRESS : EVENT_TEXT_MAX;
	n = len > max ? max : len;
	/* The mark's room only where it is written (75K texts, 1,024 ranks). */
	t = xmalloc(n < len ? n + sizeof TEXT_MARK : n + 1);
	memcpy(t, line, n);
	for (z = memchr(t, '\0', n); z != NULL; z = memchr(z, '\0', n -
	    (size_t)(z - t)))
		*z = ' ';
	if (n < len)
		memcpy(t + n, TEXT_MARK, sizeof TEXT_MARK);
	else
		t[n] = '\0';
	return t;
}

/*
 * The time of a line of the block being read, at ls: its own, or the time
 * of the last line before it that has one, read backwards as far as the
 * stream's time is known (in->tknown), and beyond that the stream's.  Sets
 * *own when the line carried it.  False when no time is known at all.
 */
static bool
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
	RL_CAP_UNSET, RL_CAP_UNSET, RL_CAP_UNSET
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
		return (ord & (k->stride - 1)) != 0;
	case KEEP_FIRST:
		return k->n >= k->limit;
	default:
		return false;
	}
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
	struct rl_event		*e = &k->tail;
	uint64_t		 ord;
	int			 i;

	ord = cap[CAP_STEP] >= 0 ? (uint64_t)cap[CAP_STEP] : k->matched;
	if (!k->dirty || k->lines == 0 || !keep_to_tail(k, ord) ||
	    e->rule != r || e->text != NULL || e->harmless || e->timed ||
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
	e->ord = ord;
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
	memset(e->capv, 0, sizeof e->capv);
	memset(e->capk, 0, sizeof e->capk);
	e->ncap = 0;
	for (i = 0; i < m->pat->ncapv && e->ncap < EVENT_CAPS; i++) {
		if (cap[m->pat->capv[i]] == RL_CAP_UNSET)
			continue;
		e->capk[e->ncap] = m->pat->capv[i];
		e->capv[e->ncap++] = cap[m->pat->capv[i]];
	}
	k->last_due = true;
	k->last_off = in->offset;
	k->last_len = len;
	k->tail_len = len;
	return true;
}

/*
 * Record a matched line as an event (if its keep wants it).  With `lazy`
 * (a line of a block read while skipping) the line's time was not parsed:
 * an event kept for good has it found now, and the keep's latest event,
 * which the next match may replace, waits for the end of the block.
 */
static void
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
	if (rank == RL_NONE && local == RL_NONE && !stream_is_process(in, st)) {
		/* A launcher line about one of its children. */
		rank = cap[CAP_RANK] != RL_CAP_UNSET ? (int)cap[CAP_RANK] :
		    lc->rank;
		local = cap[CAP_LOCAL_RANK] != RL_CAP_UNSET ?
		    (int)cap[CAP_LOCAL_RANK] : lc->local_rank;
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
	old_tail = k->tail.rule != NULL ? k->tail.offset : UINT64_MAX;
	e = keep_add(in->inc, k, cap[CAP_STEP] >= 0 ?
	    (uint64_t)cap[CAP_STEP] : k->matched);
	if (e != NULL && event_failing_role(r->role) &&
	    k->policy == KEEP_FIRST) {
		if (e == &k->tail && old_tail != UINT64_MAX)
			context_drop(in->src, old_tail);
		if (!harmless)
			context_event(&in->ctx, in->src, in->offset, lineno);
	}
	/*
	 * A sample kept while the stream's time is known waits for the end
	 * of the block, as the tail does: most samples of a block are thinned
	 * out again before it ends (keep_thin), and need no time or text.
	 */
	sample = lazy && e != NULL && e != &k->tail && !first &&
	    k->policy == KEEP_SAMPLE && (st->last.flags & RL_TIME_VALID);
	if (lazy && !sample && (e != &k->tail || first)) {
		/* Kept for good, or the tally's first: its time now. */
		if (!ingest_when(in, st, line, len, &t, &timed))
			t = st->last;
		lazy = false;
	}
	if (first && !lazy)
		k->first = t;
	if (!harmless && !lazy) {
		k->last = t;
		k->last_due = false;
	} else if (!harmless) {
		/* The latest line's time, once it is known. */
		k->last_due = true;
		k->last_off = in->offset;
		k->last_len = len;
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
	for (i = 0; i < m->pat->ncapv && e->ncap < EVENT_CAPS; i++) {
		if (cap[m->pat->capv[i]] == RL_CAP_UNSET)
			continue;
		e->capk[e->ncap] = m->pat->capv[i];
		e->capv[e->ncap++] = cap[m->pat->capv[i]];
	}
	e->weak = st->rec != NULL;
	e->process = (int)p->index;
	if (rank != RL_NONE || local != RL_NONE)
		e->rank = rank;
	if (lazy) {
		/* Its time and text at the end of the block (ingest_tails). */
		if (e == &k->tail)
			k->tail_len = len;
		if (!k->dirty) {
			k->dirty = true;
			in->dirty = array_grow(in->dirty, in->ndirty,
			    &in->cdirty, sizeof *in->dirty);
			in->dirty[in->ndirty++] = k;
		}
		return;
	}
	e->text = event_text(r, line, len);
	if (!(e->time.flags & RL_TIME_VALID)) {
		st->pending = array_grow(st->pending, st->npending,
		    &st->cpending, sizeof *st->pending);
		st->pending[st->npending].keep = k;
		st->pending[st->npending++].seq = e->seq;
	}
}

/*
 * Update the times of a stream, its process and the source with a line's
 * time; the line is number lineno, at offset, of len bytes.
 */
static void
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
		if (in->chunk != NULL && offset >= in->chunk_abs) {
			/* Its bytes are copied once, at the feed's end. */
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
	const struct rl_process	*p = st->proc;
	const struct rl_attrib	*a;
	size_t			 i, n = 0;

	if (!stream_is_process(in, st) || st->rec != NULL)
		return;
	/* A kept shape's candidates are read, never written. */
	if (rs->cand != rs->cand_buf) {
		memcpy(rs->cand_buf, rs->cand, rs->ncand * sizeof *rs->cand);
		rs->cand = rs->cand_buf;
	}
	for (i = 0; i < rs->ncand; i++) {
		if ((rs->cand[i] & TARGET_ATTRIB) != 0) {
			a = rs->attribs[rs->cand[i] & ~TARGET_ATTRIB];
			if (a->kind == ATTRIB_LINK &&
			    (!(a->caps & (1u << CAP_RANK)) ||
			    (p->rank != RL_NONE && !p->rank_guessed)) &&
			    (!(a->caps & (1u << CAP_LOCAL_RANK)) ||
			    p->local_rank != RL_NONE) &&
			    (!(a->caps & (1u << CAP_PID)) || p->pid != RL_NONE))
				continue;
		}
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
static void
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
	uint64_t		 lineno = ++src->lines;
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
	if (how == LINE_SHAPE && !esc && ruleset_shape_bare(in->rs)) {
		/* A line of this shape had no prefix: nor has this one. */
		pl.local_rank = pl.rank = pl.pid = RL_NONE;
		pl.host[0] = '\0';
		pl.any = false;
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

	if (shape == 0)
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
static void
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
	ingest_line(in, in->partial.p, len, LINE_RAW, false);
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

/*
 * May the lines without a literal be skipped?  Only in a source one
 * process writes, whose stream has nothing that needs every line.
 */
static bool
ingest_skipping(const struct ingest *in)
{
	const struct stream	*st;

	if (!in->skip_ok || in->offset < in->warmup)
		return false;
	st = in->streams[0];
	return st->npending == 0 && st->rec == NULL;
}

/*
 * Does a link attribution only fill in what the process knows already
 * (the [rank3] on every line of rank 3's log)?
 */
static bool
link_idle(const struct rl_attrib *a, const struct rl_process *p)
{
	if (a->kind != ATTRIB_LINK)
		return false;
	if ((a->caps & (1u << CAP_RANK)) &&
	    (p->rank == RL_NONE || p->rank_guessed))
		return false;
	if ((a->caps & (1u << CAP_LOCAL_RANK)) && p->local_rank == RL_NONE)
		return false;
	if ((a->caps & (1u << CAP_PID)) && p->pid == RL_NONE)
		return false;
	return true;
}

/* What becomes of a line of a block, while skipping. */
enum fate {
	FATE_SKIP,	/* nothing: counted, not read */
	FATE_READ,	/* read whole */
	FATE_QUICK,	/* a rule's line without a prefix: ingest_line_quick */
	FATE_PEEL	/* the same, once its prefixes are peeled */
};

/*
 * Would the candidates of a line do anything?  A link that can only fill
 * in what the one process already knows is not worth reading the line for.
 * And a line whose shape was read before (`line`, if the caller named it
 * by its shape), whose links are all such, needs only its prefixes peeled
 * (if its shape had any) and its match: ingest_line would find the same
 * stream, parse no time and drop every link.
 */
static inline enum fate
ingest_fate(const struct ingest *in, const char *line)
{
	const struct ruleset	*rs = in->rs;
	const struct stream	*st = in->streams[0];
	size_t			 i;
	bool			 rule = false;

	if (rs->cand_esc)
		return FATE_READ;
	for (i = 0; i < rs->ncand; i++) {
		if ((rs->cand[i] & TARGET_ATTRIB) == 0)
			rule = true;
		else if (!link_idle(rs->attribs[rs->cand[i] & ~TARGET_ATTRIB],
		    st->proc))
			return FATE_READ;
	}
	if (!rule)
		return FATE_SKIP;
	/* journalctl's JSON is unwrapped first: ingest_line does that. */
	if (line == NULL || line[0] == '{' || line[0] == 0x1e ||
	    !stream_is_process(in, st))
		return FATE_READ;
	if (ruleset_shape_bare(rs))
		return in->bare == st ? FATE_QUICK : FATE_READ;
	return ruleset_shape_prefixed(rs) ? FATE_PEEL : FATE_READ;
}

/*
 * The literals whose every target is an idle link for the one stream's
 * process: while skipping, a hit of one of them alone is passed over
 * without finding its line.  Worked out again when what the process
 * knows changes.
 */
static const uint64_t *
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

/* Count k whole lines of n bytes, passed over unread. */
static void
ingest_skipped(struct ingest *in, uint64_t k, size_t n)
{
	if (n == 0)
		return;
	in->src->lines += k;
	in->inc->lines += k;
	in->streams[0]->proc->lines += k;
	in->offset += n;
}

/* Count the whole lines in b[from, to) without reading them. */
static void
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
static void
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
static bool
ingest_writer_known(const struct ingest *in, const struct peeled *pl)
{
	if (in->last_writer != NULL && writer_is(in->last_writer, pl))
		return true;
	return in->whsize != 0 && in->whash[writer_slot(in, pl)] != NULL;
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
static void
ingest_tails(struct ingest *in)
{
	struct rl_keep	*k;
	struct rl_event	*e;
	const char	*ls;
	size_t		 i, len;
	uint32_t	 j;
	bool		 own;

	for (i = 0; i < in->ndirty; i++) {
		k = in->dirty[i];
		k->dirty = false;
		/* The samples of this block still kept: the last ones in v. */
		for (j = k->n; j > 0 && k->v[j - 1].text == NULL; j--)
			;
		for (; j <= k->n; j++) {
			e = j < k->n ? &k->v[j] : &k->tail;
			if (e->rule == NULL || e->text != NULL ||
			    e->offset < in->blk_abs)
				continue;
			ls = in->blk + (e->offset - in->blk_abs);
			len = e == &k->tail ? k->tail_len :
			    ingest_line_len(in, ls);
			if (!ingest_when(in, in->streams[0], ls, len,
			    &e->time, &own))
				e->time = in->streams[0]->last;
			e->timed = own;
			e->guess = own ? TIME_OWN : TIME_STREAM;
			e->text = event_text(e->rule, ls, len);
		}
		if (k->last_due && k->last_off >= in->blk_abs) {
			ls = in->blk + (k->last_off - in->blk_abs);
			if (!ingest_when(in, in->streams[0], ls, k->last_len,
			    &k->last, &own))
				k->last = in->streams[0]->last;
		}
		k->last_due = false;
	}
	in->ndirty = 0;
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
 * the lines after it).
 */
static void
ingest_last_keep(struct ingest *in, struct rl_process *p)
{
	if (p->last_fed != in->saved_feed ||
	    p->last_source != (int)in->src->index ||
	    p->last_offset < in->saved_abs || p->last_offset + p->last_len >
	    in->saved_abs + in->saved.len)
		return;
	free(p->last_text);
	p->last_text = xstrndup(in->saved.p + (p->last_offset - in->saved_abs),
	    p->last_len);
	context_process(&in->ctx, in->src, p, in->saved.p, in->saved.len,
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
 * those it did not move.
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
	if (in->npend > 0) {
		/* The bytes in hand: the chunk, and the tail before it. */
		low = in->chunk_abs - in->ctx.nprev;
		lo = in->chunk_abs + in->ctx.nchunk;
		for (i = 0; i < in->npend; i++) {
			if (in->pend[i]->last_offset < lo)
				lo = in->pend[i]->last_offset;
		}
		lo = lo < low + CONTEXT_BYTES ? low : lo - CONTEXT_BYTES;
		if (lo < in->chunk_abs)
			buf_add(&in->saved, in->ctx.prev + (lo - low),
			    (size_t)(in->chunk_abs - lo));
		buf_add(&in->saved, in->chunk + (lo > in->chunk_abs ?
		    lo - in->chunk_abs : 0), (size_t)(in->chunk_abs +
		    in->ctx.nchunk - (lo > in->chunk_abs ? lo :
		    in->chunk_abs)));
		in->saved_abs = lo;
		in->saved_feed = in->feed_id;
	}
	in->chunk = NULL;
	context_chunk_end(&in->ctx, in->src, ingest_pending(in), in->offset);
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
		ingest_block(in, p, len);
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
	if (in->partial.len > 0 || in->cut)
		ingest_partial(in);
	ingest_last_settle(in);
}
