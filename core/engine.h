/*
 * engine.h: ingestion's private state, seen by the engine's own files
 * (ingest.c, context.c, incident.c) and by no reader of the model.
 * core.h keeps the model, which readers include, with opaque pointers
 * (struct rl_keep, struct keep_slot, struct ingest) where the incident
 * holds the engine's state; what the engine keeps while it reads (the
 * bounded keeps of events, the context windows) is defined here.
 */
#ifndef RANKLINE_ENGINE_H
#define RANKLINE_ENGINE_H

#include "core.h"

/*
 * Events are kept per signature and writer (rule, process, source), and a
 * keep is bounded whatever the length of the run: failures and evidence
 * keep their first occurrences, checkpoint marks their latest, and step
 * and periodic lines an even sample over the run plus the latest one.  A
 * run of a million steps on 10,000 ranks costs what its failures cost.
 */
#define EVENT_TEXT_MAX		4096	/* bytes of a line an event keeps */
#define EVENT_TEXT_PROGRESS	200	/* for step and periodic lines */
enum keep_policy { KEEP_FIRST, KEEP_LAST, KEEP_SAMPLE };

struct rl_keep {
	const struct rl_rule *rule;	/* borrowed from the ruleset */
	int		 process;	/* index of its process */
	unsigned	 source;	/* index of its source */
	enum keep_policy policy;
	uint32_t	 limit;		/* events kept at most */
	struct rl_event	*v;		/* kept, in arrival order; owned with text */
	uint32_t	 n;
	uint32_t	 cap;		/* slots of v; grows to limit */
	uint32_t	 ring;		/* KEEP_LAST: next slot to reuse, from 1 */
	uint64_t	 stride;	/* KEEP_SAMPLE: ords kept are multiples;
					   a power of two */
	struct rl_event	 tail;		/* the latest if not in v (rule NULL: none) */
	size_t		 tail_len;	/* its line's length, while dirty */
	bool		 dirty;		/* times and texts are to come (ingest's
					   tail, samples, last) */
	bool		 last_due;	/* `last` is to be the time of the line
					   at last_off, of last_len bytes */
	size_t		 last_len;
	uint64_t	 last_off;
	uint64_t	 matched;	/* lines matched, kept or not */
	uint64_t	 lines;		/* of those, not harmless: the tally's */
	int64_t		 count;		/* their `count` captures, summed */
	int64_t		 total;		/* their largest `total` capture */
	struct rl_time	 first;		/* the first such line's time */
	struct rl_time	 last;		/* the latest's */
};

/*
 * A slot of the keeps' table: a keep and the hash of its identity, so that
 * a look for a keep not there yet (each new writer of a signature, 25K at
 * 1,024 ranks) and the table's growth read the slots and no keep.
 */
struct keep_slot {
	uint64_t	 h;		/* never 0; 0 is an empty slot */
	struct rl_keep	*k;
};

struct rl_keep	*incident_keep(struct rl_incident *, const struct rl_rule *,
		     int, unsigned);
struct rl_event	*keep_add(struct rl_incident *, struct rl_keep *, uint64_t);
struct rl_event	*keep_find(struct rl_keep *, uint64_t);

/*
 * context.c: the lines around a failure, kept while the bytes are in hand.
 * A failure's window is the CONTEXT_WINDOW bytes from CONTEXT_BYTES before
 * its line (fewer at the file's start); what is before the chunk being fed
 * comes from the previous chunks' tail (prev), what is after it from the
 * chunks to come.  A window is cut into whole lines once it is full, or
 * for now when the model is asked for before it is (a followed file).
 */
#define CONTEXT_WINDOW	(2 * CONTEXT_BYTES)

struct context_want {
	uint64_t	 from;		/* the window's offset in the source */
	uint64_t	 offset;	/* the line's */
	uint64_t	 line;		/* its number */
	char		*win;		/* CONTEXT_WINDOW bytes, owned */
	size_t		 have;		/* of them read */
	struct rl_process *proc;	/* its last line, or NULL: an event's */
	bool		 done;		/* cut for good: to be dropped */
};

struct context_reader {
	char		 prev[CONTEXT_BYTES];	/* the bytes before the chunk */
	size_t		 nprev;
	const char	*chunk;		/* being fed, or NULL */
	size_t		 nchunk;
	uint64_t	 abs;		/* its offset in the source */
	struct context_want **want;	/* windows still filling, owned */
	size_t		 nwant;
	size_t		 cwant;
	struct context_want *held;	/* the window of a line that is held
					   across chunks, or NULL */
	struct context_want *last;	/* by process index: the window of
					   its last line, cut when the model
					   is asked for (context_settle) */
	size_t		 nlast;		/* room in last */
};

void		 context_chunk(struct context_reader *, const char *, size_t,
		     uint64_t);
void		 context_event(struct context_reader *, struct rl_source *,
		     uint64_t, uint64_t);
void		 context_process(struct context_reader *, struct rl_source *,
		     struct rl_process *, const char *, size_t, uint64_t);
void		 context_drop(struct rl_source *, uint64_t);
void		 context_chunk_end(struct context_reader *, struct rl_source *,
		     bool, uint64_t);
void		 context_settle(struct context_reader *, struct rl_source *,
		     bool);
void		 context_reader_clear(struct context_reader *);

#endif
