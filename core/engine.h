/*
 * engine.h: ingestion's private state and calls, seen by core/'s own files
 * (the reading, the incident's building, the diagnosis through diag.h,
 * the pipeline) and by no reader of the model.  model.h keeps the model,
 * which readers include, with opaque pointers (struct rl_keep, struct
 * ingest) where the incident holds the engine's state; what the engine
 * keeps while it reads (the bounded keeps of events, the context windows)
 * and how it reads are declared here.
 */
#ifndef RANKLINE_ENGINE_H
#define RANKLINE_ENGINE_H

#include "model.h"

/*
 * Events are kept per signature and writer (rule, process, source), and a
 * keep is bounded whatever the length of the run: failures and evidence
 * keep their first occurrences, checkpoint marks their latest, and step
 * and periodic lines an even sample over the run plus the latest one.  A
 * run of a million steps on 10,000 ranks costs what its failures cost.
 */
#define EVENT_TEXT_MAX		4096	/* bytes of a line an event keeps */
#define EVENT_TEXT_PROGRESS	200	/* for step and periodic lines */
#define TEXT_MARK	" [rankline: cut]"	/* ends a text cut at its max */
enum keep_policy { KEEP_FIRST, KEEP_LAST, KEEP_SAMPLE };

/*
 * Widest first, and counts as narrow as their limits: a wide job has some
 * twenty keeps a rank (207,000 at 10,000 ranks), of 160 bytes each before.
 */
struct rl_keep {
	const struct rl_rule *rule;	/* borrowed from the ruleset */
	void		*v;		/* kept, in arrival order, each
					   EVENT_SIZE(rule->ncaps) bytes
					   (keep_at); owned with their texts */
	struct rl_event	*tail;		/* the latest if not in v, as large
					   (rule NULL: none), owned with its
					   text; or
					   &keep_no_tail until one is: most
					   keeps (a rank's first failures and
					   evidence) never have one, and it
					   was half a keep's size */
	uint64_t	 matched;	/* lines matched, kept or not */
	uint64_t	 lines;		/* of those, not harmless: the tally's */
	int64_t		 count;		/* their `count` captures, summed */
	int64_t		 total;		/* their largest `total` capture */
	struct rl_time	 first;		/* the first such line's time */
	struct rl_time	 last;		/* the latest's */
	int		 process;	/* index of its process */
	unsigned	 source;	/* index of its source */
	uint32_t	 due;		/* while its tail and samples wait for
					   the block's end: 1 + its place in
					   its ingest's list of those (struct
					   keep_due); else 0 */
	uint16_t	 limit;		/* events kept at most: KEEP_MAX */
	uint16_t	 n;
	uint16_t	 cap;		/* slots of v; grows to limit */
	uint16_t	 ring;		/* KEEP_LAST: next slot to reuse, from 1 */
	uint8_t		 policy;	/* enum keep_policy */
	uint8_t		 stride;	/* KEEP_SAMPLE: ords kept are multiples
					   of 1 << stride */
	bool		 v_slab;	/* v is its source's slab's: copied out
					   to grow, never freed alone */
};
#define KEEP_MAX	UINT16_MAX

/*
 * A sample's stride stops here: an event keeps the low 32 bits of its ord,
 * and a stride of 32 asks no more of them.  (Reached only by steps past
 * four billion; a full sample then puts later lines in its tail.)
 */
#define KEEP_STRIDE_MAX	32

/* The ords a sample keeps are those with no bit of this set. */
static inline uint64_t
keep_stride_mask(const struct rl_keep *k)
{
	return (UINT64_C(1) << k->stride) - 1;
}

extern struct rl_event keep_no_tail;	/* never written: rule NULL */

/* The bytes of each of a keep's events: the event and its captures. */
static inline size_t
keep_esize(const struct rl_keep *k)
{
	return EVENT_SIZE(k->rule->ncaps);
}

/* A keep's i-th event. */
static inline struct rl_event *
keep_at(const struct rl_keep *k, size_t i)
{
	return (struct rl_event *)(void *)((char *)k->v + i * keep_esize(k));
}

struct rl_keep	*incident_keep(struct rl_incident *, const struct rl_rule *,
		     int, unsigned);
struct rl_event	*keep_add(struct rl_incident *, struct rl_keep *, uint64_t);
struct rl_event	*keep_find(struct rl_keep *, uint64_t);
void		 keep_shrink(struct rl_incident *, struct rl_keep **, size_t,
		     struct rl_source *, bool);

/* A source that can be read again at the offsets its lines were read from. */
static inline bool
source_rereadable(const struct rl_source *src)
{
	return src->kind == SOURCE_FILE && src->spill == -1 &&
	    !src->compressed && !src->transient && !src->binary;
}

/* heap.c: the heap a wide read grows, on huge pages where they are had. */
void		 heap_advise(void);
void		 heap_arena(void);

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
	size_t		 room;		/* bytes win holds: CONTEXT_WINDOW, or
					   fewer while its source rests */
	bool		 whole;		/* from is a line's start, the first the
					   cut keeps (context_rest): no cut
					   first line to drop */
	struct rl_process *proc;	/* its last line, or NULL: an event's */
	bool		 done;		/* cut for good: to be dropped */
};

/*
 * The bytes of a source from its offset `from`, as read, shared by the
 * contexts whose lines they hold: a failure's lines overlap those of the
 * failures near it (a traceback is a failure a line), and each context
 * had held a copy of them, 10 KB a rank at 1,000 ranks.  Freed with the
 * last reference (the contexts' and the reader's while it may grow).
 */
#define CONTEXT_SPAN_MAX	(16 * 1024)	/* a span grows no further */

struct context_span {
	uint64_t	 from;		/* the offset of bytes[0] in the source */
	char		*bytes;		/* owned; never a NUL among them */
	uint32_t	 len;		/* bytes held */
	uint32_t	 cap;		/* room in bytes */
	uint32_t	 refs;		/* contexts and readers holding it */
};

struct context_reader {
	struct context_span *span;	/* the span new lines extend, a
					   reference, or NULL */
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
	struct context_want *last;	/* by process index from last_lo: the
					   window of its last line, cut when
					   the model is asked for
					   (context_settle) */
	size_t		 nlast;		/* room in last */
	unsigned	 last_lo;	/* the process index of last[0] */
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
void		 context_rest(struct context_reader *, struct rl_source *);

/* incident.c: the model built as the lines are read. */
struct rl_source *incident_add_source(struct rl_incident *, const char *,
		     enum source_kind);
struct rl_process *incident_process(struct rl_incident *, const char *,
		     const char *, int, int);
struct rl_process *incident_process_find(struct rl_incident *, const char *);
struct rl_event	*incident_add_event(struct rl_incident *);
uint32_t	 incident_samples(size_t);

/* event-text.c: a lean reading's texts, read back when asked. */
#define LEAN_SOURCES	512	/* sources from which a reading is lean,
					   or writers of one source */
void		 incident_lean(struct rl_incident *);
void		 keep_texts_away(struct rl_keep *, struct rl_source *);
bool		 capacity_rule_reads(const struct rl_rule *);
void		 capacity_digest(struct rl_source *, const struct rl_event *);
void		 capacity_digests_fit(struct cap_digests *);
void		 capacity_digests_free(struct cap_digests *);
void		 event_texts_each(const struct rl_incident *, const size_t *,
		     size_t, void (*)(void *, size_t, const char *), void *);

char		*incident_own(struct rl_incident *, char *);
void		 incident_disown(struct rl_incident *);
void		 incident_gather(struct rl_incident *);
void		 incident_absorb(struct rl_incident *, struct rl_incident *);
struct rl_tally	*incident_tally(struct rl_incident *, const struct rl_rule *);
void		 tally_times(struct rl_tally *, const struct rl_time *,
		     const struct rl_time *);
void		 answer_clear(struct rl_answer *);
void		 evlist_clear(struct rl_evlist *);	/* diag-evidence.c */
char		*process_last_line(const struct rl_incident *,
		     const struct rl_process *);

/* ingest.c: bytes to lines to events. */
struct ingest;
struct ingest	*ingest_create(struct rl_incident *, struct rl_source *);
void		 ingest_free(struct ingest *);
void		 ingest_feed(struct ingest *, const char *, size_t);
void		 ingest_more(struct ingest *, bool);
void		 ingest_keep_fed(struct ingest *, bool);
void		 ingest_flush(struct ingest *);
void		 ingest_rest(struct ingest *);
void		 ingest_drop_zeros(struct ingest *, size_t);
void		 ingest_set_line_cb(struct ingest *, ingest_line_cb, void *);
bool		 ingest_pending(const struct ingest *);
uint64_t	 ingest_offset(const struct ingest *);
void		 ingest_context(struct ingest *);
uint64_t	 ingest_warmup(void);

/* attrib.c */
void		 attrib_path(const struct ruleset *, struct rl_source *);

/* source-file.c: reading files and folders named on the command line. */
int		 source_add_path(struct rl_incident *, const char *);
struct ingest	*source_ingest(struct rl_incident *, struct rl_source *,
		     ingest_line_cb, void *);
int		 source_file_open(struct rl_incident *, struct rl_source *,
		     uint64_t *);
int64_t		 source_fd_drain(struct rl_incident *, struct rl_source *, int,
		     uint64_t *, uint64_t);
int		 source_file_read(struct rl_incident *, struct rl_source *,
		     ingest_line_cb, void *);
void		 source_spill_start(struct rl_incident *, struct rl_source *);
void		 source_spill_write(struct rl_incident *, struct rl_source *,
		     const char *, size_t);
bool		 source_spilled(const struct rl_source *, uint64_t);
void		 source_feed(struct rl_incident *, struct rl_source *,
		     struct ingest *, const char *, size_t);
int		 source_reopen(const struct rl_source *);
size_t		 source_pread(const struct rl_source *, void *, size_t,
		     uint64_t);
/* find-read.c: a source read again in an incident of its own (cat, /). */
struct rl_source *source_again(struct rl_incident *, const struct rl_source *,
		     ingest_line_cb, void *);
void		 source_readbuf_free(void);

/* batch.c: every source read to its end, on every core. */
int		 batch_read(struct rl_incident *, ingest_line_cb, void *, int);

/* source-cmd.c: commands (--cmd) and a piped standard input on a uv loop. */
struct uv_loop_s;
struct source_cmds;
struct source_cmds *source_cmds_create(struct uv_loop_s *, struct rl_incident *,
		     bool, void (*)(void *, size_t), void (*)(void *), void *);
void		 source_cmds_add(struct source_cmds *, const char *);
void		 source_cmds_add_stdin(struct source_cmds *, struct rl_source *);
void		 source_cmds_stop(struct source_cmds *);
int		 source_cmds_live(const struct source_cmds *, bool *);

/* context.c: the model's context lines, cut and freed. */
int		 context_cut(const char *, size_t, size_t, bool, uint64_t,
		     char **, int64_t *);
void		 context_free(struct rl_context *);
void		 context_list_clear(struct rl_source *);

/* capture.c: named values of an event's line, read back on demand. */
char		*event_capture(const struct rl_incident *,
		     const struct rl_event *, const char *);
bool		 event_capture_num(const struct rl_incident *,
		     const struct rl_event *, const char *, double *);
bool		 rule_has_capture(const struct rl_rule *, const char *);
bool		 rule_has_named(const struct rl_rule *, const char *, uint64_t);
bool		 text_key_num(const char *, const char *, double *);
char		*text_key_str(const char *, const char *);
bool		 text_names_limits(const char *, size_t);
bool		 pci_normalize(const char *, char *, size_t);

/* fingerprint.c: the root's signature and fingerprint (the model's sig). */
int		 fingerprint_find_pci(const char *, char *, size_t);
int		 fingerprint_pci(const char *, char *, size_t);
int		 fingerprint_pci_busid(const char *, char *, size_t);
const char	*fingerprint_event_host(const struct rl_incident *,
		     const struct rl_event *);
void		 fingerprint_signature(const struct rl_incident *,
		     struct rl_signature *);
void		 fingerprint_signature_clear(struct rl_signature *);
void		 fingerprint_incident(struct rl_incident *);

/* job.c: the job's identity, read from the heads of the logs. */
void		 job_scan(struct rl_job *, const char *, size_t);
void		 job_head_feed(struct job_head *, struct rl_job *, const char *,
		     const char *, size_t);
void		 job_head_end(struct job_head *, struct rl_job *, const char *);
void		 job_merge(struct rl_job *, const struct rl_job *);
void		 job_path(struct rl_job *, const char *);
void		 job_identity(const struct rl_incident *, struct rl_job *);
void		 job_clear(struct rl_job *);

/* journal.c: a line of journalctl -o json, read as its message. */
struct journal_entry {
	char		 host[256];	/* _HOSTNAME, or empty */
	int		 pid;		/* _PID, or RL_NONE */
};
bool		 journal_unwrap(const char *, size_t, struct buf *,
		     struct journal_entry *);

#endif
