/*
 * engine.h: ingestion's private state, seen by the engine's own files
 * (ingest.c, context.c, incident.c, batch.c, follow.c, the source-*.c
 * files) and by no reader of the model.  core.h keeps the model, which
 * readers include; what the engine keeps only while it reads is here.
 */
#ifndef RANKLINE_ENGINE_H
#define RANKLINE_ENGINE_H

#include "core.h"

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
	char		 scratch[CONTEXT_WINDOW];/* a window cut at once */
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
