/*
 * ingest-int.h: what the files of ingestion share (ingest.c, ingest-peel.c,
 * ingest-event.c, ingest-skip.c): the state of one source's reading and
 * the steps each file does for the others.  Private to them: the readers
 * of the model see only struct ingest's name (model.h).
 */
#ifndef RANKLINE_INGEST_INT_H
#define RANKLINE_INGEST_INT_H

#include "engine.h"
#include "rules-int.h"

#define LINE_MAX_BYTES	(1024 * 1024)	/* longer lines are cut */
#define PEEL_MAX	8		/* prefixes peeled from one line */
#define LONG_MARK	" [rankline: line cut at 1 MiB]"
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

/*
 * A keep whose latest events wait for the block's end (ingest_tails), and
 * the lines their times and texts are read from then.  Here, not in the
 * keep: a keep waits only within a block, and these were 16 bytes of each
 * of some twenty keeps a rank.
 */
struct keep_due {
	struct rl_keep	*k;		/* k->due is 1 + its place */
	uint64_t	 last_off;	/* with last_due: k->last is to be */
	uint32_t	 last_len;	/* the time of this line */
	uint32_t	 tail_len;	/* the tail's line's length */
	bool		 last_due;
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
	uint64_t	 id;		/* unique in the process: whose writer
					   a peel_raw slot holds */
	struct stream	*bare;		/* the stream of lines without a
					   prefix, once there was one */
	struct quick_peel {		/* lines ingest_line_quick peeled:
					   of this shape ... */
		uint64_t shape;		/* (ruleset_shape_token), or 0 */
		size_t	 len;		/* ... with these prefix bytes */
		char	 raw[64];
	}		*quick;		/* QUICK_WAYS of them, made when first
					   wanted, let go while resting */
	unsigned	 quick_next;	/* the entry to replace next */
	uint32_t	 marks;		/* 1 << mark seen in this source */
	uint64_t	*seen;		/* per rule: last line it matched, 0 never */
	struct rl_keep	**keep;		/* per rule: the keep it used last */
	struct seen_line {		/* while resting (ingest_rest: seen is
					   NULL, and keep), seen's lines */
		uint32_t rule;
		uint64_t line;
	}		*rested;
	size_t		 nrested;
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
	struct keep_due	*dirty;		/* keeps whose tail waits for the
					   block's end */
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
	struct buf	 saved;		/* the previous feed's bytes they need,
					   when copied */
	const char	*saved_p;	/* those bytes: in saved, or in the
					   previous chunk while kept_fed */
	size_t		 saved_len;
	uint64_t	 saved_abs;	/* their offset in the source */
	bool		 kept_fed;	/* the feeder keeps the bytes it fed
					   readable (ingest_keep_fed), */
	uint64_t	 kept_from;	/* in one piece from this offset */
	uint64_t	 saved_feed;	/* that feed's number */
	struct rl_keep	**made;		/* the keeps it made, its source's: a
					   source's end looks at those alone, not
					   at every source's made since it began
					   (the console's 10,000 files begin
					   together: 10,000 walks of them all) */
	size_t		 nmade;
	size_t		 cmade;
	struct rl_keep	**kfind;	/* made by (rule, process), open
					   addressing, at most half full; or
					   NULL (resting, or none made) */
	size_t		 nkfind;	/* its slots, a power of two */
};

struct peeled;

struct peel_raw;

/* What the prefixes of one line named. */
struct peeled {
	int		 local_rank;
	int		 rank;
	int		 pid;
	char		 host[256];	/* empty when none */
	bool		 any;		/* some prefix named a writer */
	struct peel_raw	*raw;		/* the slot of the prefix bytes that
					   named them, or NULL: ingest_stream
					   keeps the writer found there */
};

/* A link or record attribution matched the line. */
struct link_ctx {
	struct ingest	*in;
	struct stream	*st;
	int		 rank;		/* the line's own rank, if a link named it */
	int		 local_rank;
	int		 pid;
};

/* What becomes of a line of a block, while skipping. */
enum fate {
	FATE_SKIP,	/* nothing: counted, not read */
	FATE_READ,	/* read whole */
	FATE_QUICK,	/* a rule's line without a prefix: ingest_line_quick */
	FATE_PEEL	/* the same, once its prefixes are peeled */
};

/* ingest.c */
void		 ingest_line(struct ingest *, const char *, size_t,
		     enum line_how, bool);
void		 ingest_line_quick(struct ingest *, const char *, size_t, bool);
void		 ingest_skip_update(struct ingest *);

/* ingest-peel.c */
int		 ingest_capture_id(const struct rl_match *, enum rl_cap);
struct rl_process *ingest_named_process(struct ingest *, struct stream *,
		     int, int);
size_t		 ingest_peel(struct ingest *, const char *, size_t,
		     struct peeled *);
struct stream	*ingest_stream(struct ingest *, const struct peeled *);
bool		 ingest_writer_is(const struct writer *, const struct peeled *);
size_t		 ingest_writer_slot(const struct ingest *,
		     const struct peeled *);

/* ingest-event.c */
void		 ingest_event_text(const struct ingest *, struct rl_event *,
		     const char *, size_t);
void		 ingest_event(struct ingest *, struct stream *,
		     const struct rl_match *, const char *, size_t, uint64_t,
		     bool, bool, const struct link_ctx *);
void		 ingest_link_cb(void *, const struct rl_attrib *,
		     const struct rl_match *);
void		 ingest_time(struct ingest *, struct stream *,
		     const struct rl_time *, const char *, size_t, uint64_t,
		     uint64_t);
bool		 ingest_when(struct ingest *, struct stream *, const char *,
		     size_t, struct rl_time *, bool *);

/* ingest-skip.c */
const uint64_t	*ingest_idle(struct ingest *);
void		 ingest_settle(struct ingest *, const char *, size_t, int);
void		 ingest_skip(struct ingest *, const char *, size_t, size_t);
void		 ingest_tails(struct ingest *);
bool		 ingest_writer_known(const struct ingest *,
		     const struct peeled *);

/*
 * The steps every line of a block takes, here so that each file inlines
 * them: as calls between files they cost 50 M instructions a gigabyte
 * (a fifth of skipping's whole cost), where ingest.c alone had them.
 */

/*
 * Is a kept event's text still to come (a line read while skipping, its
 * time and text found at the block's end)?  A text let go as it was read
 * (a lean source's) is there, only not held.
 */
static inline bool
event_text_due(const struct rl_event *e)
{
	return e->text == NULL && !(e->tform & EVENT_TEXT_AWAY);
}

/* Does this stream write for one process (so a link may name it)? */
static inline bool
ingest_stream_is_process(const struct ingest *in, const struct stream *st)
{
	const struct rl_process	*p = st->proc;

	return p->local_rank != RL_NONE || p->rank != RL_NONE ||
	    p->pid != RL_NONE || in->src->proc_key != NULL ||
	    in->src->rank != RL_NONE || in->src->local_rank != RL_NONE;
}

/*
 * Does a link attribution only fill in what the process knows already
 * (the [rank3] on every line of rank 3's log)?
 */
static inline bool
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

/*
 * May the lines without a literal be skipped?  Only in a source one
 * process writes, whose stream has nothing that needs every line.
 */
static inline bool
ingest_skipping(const struct ingest *in)
{
	const struct stream	*st;

	if (!in->skip_ok || in->offset < in->warmup)
		return false;
	st = in->streams[0];
	return st->npending == 0 && st->rec == NULL;
}

/* Count k whole lines of n bytes, passed over unread. */
static inline void
ingest_skipped(struct ingest *in, uint64_t k, size_t n)
{
	if (n == 0)
		return;
	in->src->lines += k;
	in->inc->lines += k;
	in->streams[0]->proc->lines += k;
	in->offset += n;
}

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
	    !ingest_stream_is_process(in, st))
		return FATE_READ;
	if (ruleset_shape_bare(rs))
		return in->bare == st ? FATE_QUICK : FATE_READ;
	return ruleset_shape_prefixed(rs) ? FATE_PEEL : FATE_READ;
}

#endif
