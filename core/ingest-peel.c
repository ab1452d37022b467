/*
 * ingest-peel.c: a line's prefixes peeled, and the writer and stream they
 * name.
 *
 * Launchers put prefixes before what a rank wrote ([default3]:, [rank3]:,
 * (VllmWorker rank=3 pid=N), node07: ), one after another; each is peeled
 * by the ruleset's attribution patterns (memoized by the line's shape), and
 * what they name decides the line's writer, and so its process and its
 * stream within the source (see ingest.c).
 */
#define _GNU_SOURCE		/* memrchr */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest-int.h"

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
int
ingest_capture_id(const struct rl_match *m, enum rl_cap c)
{
	int64_t	v = match_int(m, c);

	return v == RL_CAP_UNSET || v < 0 || v > INT_MAX ? RL_NONE : (int)v;
}

/* Take what a matched prefix names into the peeled line. */
static void
peel_apply(const struct rl_match *m, struct peeled *pl)
{
	int	v;

	if ((v = ingest_capture_id(m, CAP_LOCAL_RANK)) != RL_NONE)
		pl->local_rank = v, pl->any = true;
	if ((v = ingest_capture_id(m, CAP_RANK)) != RL_NONE)
		pl->rank = v, pl->any = true;
	if ((v = ingest_capture_id(m, CAP_PID)) != RL_NONE)
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
 * What a memo's steps named on one line's exact prefix bytes.  The memo
 * keeps the last line's (peel_memo_raw), which a run of one writer's lines
 * hits; where writers take turns line by line (512 ranks of an srun --label
 * console, "  3: " then "  4: "), every line missed it and was replayed,
 * a third of the reading's cost.  So each thread's ruleset keeps many,
 * direct-mapped by the prefix bytes: what the steps name there is theirs
 * and those bytes' alone, whichever source or line they come from.
 */
#define PEEL_RAW_SLOTS	4096

struct peel_raw {
	uint8_t		 nstep;		/* of step, 0 when the slot is empty */
	uint8_t		 rawlen;
	struct peel_step step[PEEL_MEMO_STEPS];
	uint8_t		 raw[PEEL_MEMO_KEY];
	int		 local_rank;	/* what they named */
	int		 rank;
	int		 pid;
	char		 host[64];
	uint64_t	 wid;		/* the ingest whose writer w is, or 0 */
	struct writer	*w;
};

/*
 * The slot for a memo entry's steps over the prefix bytes s[0, len): the
 * entry for them if it holds them (nstep != 0 and the same steps and
 * bytes), else the slot to fill; NULL where none can be kept.
 */
static struct peel_raw *
peel_raw_find(struct ruleset *rs, const struct peel_memo *me, const char *s,
    size_t len)
{
	struct peel_raw	*r;
	uint64_t	 w[PEEL_MEMO_KEY / 8], h;
	size_t		 i;

	if (len == 0 || len > PEEL_MEMO_KEY)
		return NULL;
	if (rs->peel_raw == NULL)
		rs->peel_raw = xcalloc(PEEL_RAW_SLOTS, sizeof *rs->peel_raw);
	/* A word at a time, as peel_key: FNV's byte loop was 2% of a console. */
	memset(w, 0, sizeof w);
	memcpy(w, s, len);
	h = len ^ ((uint64_t)me->nstep << 8);
	for (i = 0; i < (len + 7) / 8; i++)
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ULL;
	r = &rs->peel_raw[(h ^ (h >> 32)) & (PEEL_RAW_SLOTS - 1)];
	if (r->nstep == me->nstep && r->rawlen == len &&
	    memcmp(r->raw, s, len) == 0 &&
	    memcmp(r->step, me->step, me->nstep * sizeof *me->step) == 0)
		return r;
	r->nstep = 0;
	return r;
}

/* Keep in its slot what a memo entry's steps named on prefix bytes s. */
static void
peel_raw_put(struct peel_raw *r, const struct peel_memo *me, const char *s,
    size_t len, const struct peeled *pl)
{
	size_t	hl = strlen(pl->host);

	if (r == NULL || hl >= sizeof r->host ||
	    me->nstep == 0)
		return;
	r->nstep = me->nstep;
	r->rawlen = (uint8_t)len;
	memcpy(r->step, me->step, me->nstep * sizeof *me->step);
	memcpy(r->raw, s, len);
	r->local_rank = pl->local_rank;
	r->rank = pl->rank;
	r->pid = pl->pid;
	memcpy(r->host, pl->host, hl + 1);
	r->wid = 0;
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
size_t
ingest_peel(struct ingest *in, const char *s, size_t n, struct peeled *pl)
{
	struct ruleset		*rs = in->rs;
	struct rl_match		 m;
	const struct rl_attrib	*a;
	struct peel_memo	*me = NULL;
	struct peel_raw		*raw;
	struct peel_try		 t[64];
	uint8_t			 key[PEEL_MEMO_KEY];
	uint32_t		 slot;
	size_t			 pos = 0, i, j, k = 0, k2, nt = 0;
	int			 peels = 0;
	bool			 again = true, track = true;

	pl->local_rank = pl->rank = pl->pid = RL_NONE;
	pl->host[0] = '\0';
	pl->any = false;
	pl->raw = NULL;
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
				me->rawidle = 0;
				pl->local_rank = me->local_rank;
				pl->rank = me->rank;
				pl->pid = me->pid;
				strlcpy_host(pl, me->host);
				pl->any = pl->local_rank != RL_NONE ||
				    pl->rank != RL_NONE || pl->pid != RL_NONE ||
				    pl->host[0] != '\0';
				return me->rawlen;
			}
			for (i = 0; i < me->nstep; i++)
				pos += me->step[i].len;
			if ((raw = peel_raw_find(rs, me, s, pos)) != NULL &&
			    raw->nstep != 0) {
				pl->local_rank = raw->local_rank;
				pl->rank = raw->rank;
				pl->pid = raw->pid;
				strlcpy_host(pl, raw->host);
				pl->any = pl->local_rank != RL_NONE ||
				    pl->rank != RL_NONE || pl->pid != RL_NONE ||
				    pl->host[0] != '\0';
				pl->raw = raw;
				/*
				 * Where writers take turns (512 ranks of an
				 * srun --label console), the next line's
				 * prefix is another's again: copying each
				 * one in cost 2% of the reading.  Where one
				 * writer's run follows another's, the next
				 * line takes it.  So prefixes are copied in
				 * until two in a row went untaken, and again
				 * once a line takes the one there.
				 */
				if (me->rawidle < 2) {
					peel_memo_raw(me, s, pos, pl);
					me->rawidle++;
				}
				return pos;
			}
			for (i = 0, pos = 0; i < me->nstep; i++) {
				peel_replay(rs, &me->step[i], s + pos, pl);
				pos += me->step[i].len;
			}
			peel_memo_raw(me, s, pos, pl);
			peel_raw_put(raw, me, s, pos, pl);
			if (raw != NULL && raw->nstep != 0)
				pl->raw = raw;
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
		me->rawidle = 0;
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
	buf_clear(&key);
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
		buf_clear(&key);
	}
	if (pl->pid != RL_NONE && p->pid == RL_NONE)
		p->pid = pl->pid;
	return p;
}

/* Does a writer stand for what the prefixes named? */
bool
ingest_writer_is(const struct writer *w, const struct peeled *pl)
{
	const char	*h = w->host != NULL ? w->host : "";

	return w->local_rank == pl->local_rank && w->rank == pl->rank &&
	    w->pid == pl->pid && h[0] == pl->host[0] &&
	    (h[0] == '\0' || strcmp(h, pl->host) == 0);
}

/* Where the writer a line's prefixes named is, or would go, in whash. */
size_t
ingest_writer_slot(const struct ingest *in, const struct peeled *pl)
{
	uint64_t	 h;
	size_t		 k;

	h = (STR_HASH_SEED ^ (uint32_t)pl->local_rank) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ (uint32_t)pl->rank) * 0x9e3779b97f4a7c15ULL;
	h = str_hash((h ^ (uint32_t)pl->pid) * 0x9e3779b97f4a7c15ULL,
	    pl->host);
	for (k = (size_t)(h ^ (h >> 29)) & (in->whsize - 1);
	    in->whash[k] != NULL && !ingest_writer_is(in->whash[k], pl);
	    k = (k + 1) & (in->whsize - 1))
		;
	return k;
}

/* A writer as a line's prefixes name it, for ingest_writer_slot. */
static void
writer_peeled(const struct writer *w, struct peeled *pl)
{
	pl->local_rank = w->local_rank;
	pl->rank = w->rank;
	pl->pid = w->pid;
	snprintf(pl->host, sizeof pl->host, "%s", w->host != NULL ? w->host :
	    "");
	pl->raw = NULL;
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
		in->whash[ingest_writer_slot(in, &pl)] = in->writers[i];
	}
}

/* The writer just found, kept in the slot of the bytes that named it. */
static void
ingest_writer_keep(const struct ingest *in, const struct peeled *pl)
{
	if (pl->raw != NULL) {
		pl->raw->wid = in->id;
		pl->raw->w = in->last_writer;
	}
}

/* Find or make the stream for what the prefixes named. */
struct stream *
ingest_stream(struct ingest *in, const struct peeled *pl)
{
	struct writer	*w = in->last_writer;
	size_t		 slot;

	if (w != NULL && ingest_writer_is(w, pl))
		return w->st;
	/*
	 * Where 512 writers take turns (an srun --label console), each
	 * line's is another than the last's: the prefix bytes' slot keeps
	 * whose they were, where hashing what they named again and
	 * comparing it was 5% of the samples.
	 */
	if (pl->raw != NULL && pl->raw->wid == in->id)
		return (in->last_writer = pl->raw->w)->st;
	if (2 * (in->nwriters + 1) > in->whsize)
		writer_rehash(in);
	slot = ingest_writer_slot(in, pl);
	if (in->whash[slot] != NULL) {
		in->last_writer = in->whash[slot];
		ingest_writer_keep(in, pl);
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
	/*
	 * A console of as many writers as a wide reading has files (an
	 * srun --label stream of 512 ranks) is as lean as they would be:
	 * its texts from here on are let go as read (incident_lean).
	 */
	if (in->nwriters == LEAN_SOURCES && in->inc->lean)
		in->src->lean = true;
	in->last_writer = w;
	ingest_writer_keep(in, pl);
	if (w->local_rank == RL_NONE && w->rank == RL_NONE &&
	    w->pid == RL_NONE && w->host == NULL)
		in->bare = w->st;
	return w->st;
}

/* The process a local rank or pid names on this stream's host. */
struct rl_process *
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
	buf_clear(&key);
	return p;
}
