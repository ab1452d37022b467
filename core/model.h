/*
 * model.h: the model every reader includes.  Logs come in, are cut into
 * lines, attributed to ranks, matched against the rule packs, and gathered
 * into one model, the incident, which every reader (the console, analyze
 * --json, cat, the store, reports) reads and none recomputes.  A reader
 * gets it from the pipeline (pipeline_read, pipeline_diagnose) and reads
 * it through the structs and accessors below; ingestion's bookkeeping
 * (engine.h) and the diagnosis's parts (diag.h) are behind opaque
 * pointers, seen by core/'s own files only.
 *
 * core/ never includes curses or sqlite: the console (tui/) and the store
 * (store/) depend on core, never the other way round.
 *
 * Ownership, for every type below:
 *  - a struct made by X_create is freed by X_free, and owns what it points to
 *    unless a field's comment says "borrowed"; X_clear frees what a struct
 *    holds and keeps the struct;
 *  - a returned char * belongs to the caller; a const char * is borrowed and
 *    lives as long as the object it came from;
 *  - the incident owns its sources, processes, ranks and events; the ruleset
 *    outlives every incident that points into it.
 */
#ifndef RANKLINE_MODEL_H
#define RANKLINE_MODEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <time.h>

#include "base.h"
#include "rules.h"

#define RL_NONE		(-1)		/* an unknown rank, pid or index */

/*
 * job.c: which job an incident belongs to.  Each fact keeps where it was
 * read, for `analyze --json` and the console: "PATH:LINE" for a log line,
 * "PATH (its name)" for a path, "ranks seen" for what the ranks imply.
 */
enum job_fact {
	JOB_NAME,		/* the job's name (SLURM_JOB_NAME, --job-name) */
	JOB_ID,			/* the scheduler's job id (Slurm) */
	JOB_RUN,		/* the launcher's run id */
	JOB_COMMAND,		/* the launch command or its arguments */
	JOB_HOSTS,		/* the hosts, comma-separated, sorted */
	JOB_WORLD,		/* the world size, in decimal */
	JOB_NFACTS
};

struct rl_job {
	struct rl_job_fact {
		char	*value;		/* or NULL: not found */
		char	*from;		/* where it was read, or NULL */
	}		 fact[JOB_NFACTS];
};

/* A log's first JOB_HEAD bytes, scanned for the job as they are read. */
#define JOB_HEAD	65536
struct job_head {
	struct buf	 line;		/* the unfinished line of the head */
	uint64_t	 fed;		/* head bytes seen */
	uint64_t	 lines;		/* whole lines of it scanned */
	bool		 reread;	/* a line of the source was read
					   otherwise than it stands (escape
					   sequences, journald's JSON): its
					   events' texts are scanned again */
};

/* The root of an incident, as recurrence sees it. */
struct rl_signature {
	int		 scheme;	/* FP_SCHEME when made */
	char		*rule;		/* root rule id, or NULL: nothing failed */
	char		*template;	/* the root line, masked */
	char		*host;		/* the root's host, or NULL */
	char		*pci;		/* a GPU in the root line, normalised, or NULL */
	int		 rank;		/* the root's rank, or RL_NONE */
	bool		 hardware;	/* the verdict is hardware: host is in the hash */
	char		*fingerprint;	/* "<scheme>:<hex>", or NULL */
};

/*
 * The lines around a failure, as ingestion read them: up to CONTEXT_LINES
 * whole lines before and after its line, within CONTEXT_BYTES each way, a
 * first line cut by that limit dropped.  Hostile text: sanitize per
 * destination.
 */
#define CONTEXT_LINES	3
#define CONTEXT_BYTES	2048
struct context_span;
struct rl_context {
	uint64_t	 offset;	/* the failure's line's byte offset */
	int64_t		 first;		/* the number of text's first line */
	struct context_span *span;	/* holds the lines, shared with the
					   source's other contexts near it (a
					   reference); NULL: none (dropped, or
					   nothing of the line was read), or
					   held by reference */
	uint64_t	 from;		/* by reference: the lines' offset in
					   the source, read again when asked */
	uint32_t	 at;		/* where in span the lines begin */
	uint32_t	 len;		/* their bytes, the last newline trimmed */
	char		*text;		/* the lines as a string, made when
					   first asked for (event_context), or
					   NULL */
	uint8_t		 nhead;		/* bytes of head */
	bool		 dropped;	/* no event is this line any more */
	bool		 byref;		/* the lines are the source's len
					   bytes at from, no span's: a file
					   read to its end in a batch, which
					   can be read at an offset again */
	char		 head[64];	/* the line's first bytes as read, to
					   tell that an event is this line */
};

/*
 * The model.  A source is one input (a file, a command, stdin).  A process is
 * one rank's process, which may write to several sources (stdout.log and
 * stderr.log of torchrun's --log-dir, and the tee'd console).  A rank
 * gathers the processes that held one global rank.
 */
enum source_kind { SOURCE_FILE, SOURCE_CMD, SOURCE_STDIN };

struct rl_source {
	char		*path;		/* as given by the user */
	enum source_kind kind;
	int		 rank;		/* from the path, or RL_NONE */
	int		 local_rank;	/* from the path, or RL_NONE */
	char		*host;		/* from the path, or NULL */
	char		*proc_key;	/* files sharing it are one process */
	uint64_t	 lines;		/* lines read */
	uint64_t	 bytes;		/* bytes read */
	uint64_t	 walk_size;	/* its size when its path was walked */
	int64_t		 walk_mtime;	/* and its time then, if walk_size */
	uint64_t	 walk_dev;	/* the file its path was then, or 0: */
	uint64_t	 walk_ino;	/* read again only while it still is */
	int64_t		 file_size;	/* a regular file's size when the
					   reading opened it, or -1 */
	uint64_t	 long_lines;	/* lines cut at the length limit */
	uint64_t	 binary_lines;	/* lines with NUL bytes, read around them */
	uint64_t	 binary_bytes;	/* the bytes of those lines not read */
	bool		 multiplexed;	/* lines carry rank prefixes */
	bool		 copy;		/* a launcher's copy of what a rank wrote */
	bool		 binary;	/* looked like a binary file: skipped */
	bool		 compressed;	/* read whole through a decompressor */
	bool		 transient;	/* cannot be re-read at an offset (followed) */
	bool		 lean;		/* read to its end, it lets its events'
					   texts and its contexts go where it
					   can be read again at their offsets
					   (incident_lean); its texts from the
					   first are never copied */
	unsigned	 generation;	/* files read at its path before this one
					   (rotations and truncations while
					   followed): 0 for the first */
	int		 spill;		/* an unlinked temporary file holding what
					   was read (commands, standard input,
					   decompressed logs), owned; or -1 */
	uint64_t	 spill_end;	/* bytes it holds, from the source's
					   first */
	uint64_t	 spill_max;	/* and may hold (source_spill_start) */
	bool		 spill_full;	/* it holds no more: it reached
					   spill_max or a write failed (said in
					   the incident's errors) */
	char		*error;		/* why it could not be read, or NULL */
	bool		 failed;	/* its command failed (said in the
					   incident's errors): the analysis
					   exits non-zero */
	struct ingest	*ingest;	/* owned: line state kept between reads */
	int		 early_fd;	/* opened by the prefilter's learning,
					   for the reading to take, or -1 */
	struct clock_ctx clock;		/* timestamp form detection */
	struct rl_time	 first;		/* first time seen */
	struct rl_time	 last;		/* last time seen */
	struct rl_time	 local_lo;	/* earliest and latest time written */
	struct rl_time	 local_hi;	/* without a zone (diag-zone.c) */
	struct rl_time	 zone_prev;	/* its last time, zoned or local, */
	uint64_t	 zone_prev_line; /* and its line */
	int64_t		 zone_lo;	/* how far its local times read ahead */
	int64_t		 zone_hi;	/* of its zoned ones, by neighbours */
	size_t		 zone_samples;	/* neighbours of the two kinds */
	int64_t		 zone_fix_ms;	/* the zone found from those; 0 none */
	size_t		 zone_matched;	/* or from this many lines matched with
					   zoned sources' (diag-clocks.c) */
	unsigned	 index;		/* position in the incident */
	struct rl_job	 job;		/* what its head says of the job */
	struct job_head	 head;		/* its head's unfinished line */
	char		 lead[64];	/* its first bytes, NUL-ended (a
					   checkpoint tracker's step) */
	struct cap_digests *capd;	/* what the capacity reads of its
					   lines whose texts a lean reading
					   let go (diag-capacity.c), owned;
					   or NULL */
	struct rl_context *contexts;	/* around its failures, by offset */
	size_t		 ncontexts;
	size_t		 ccontexts;	/* room in contexts */
};

struct rl_process {
	char		*key;		/* identity: host/local rank, or a source */
	char		*host;		/* or NULL */
	int		 rank;		/* global rank, or RL_NONE */
	int		 local_rank;	/* or RL_NONE */
	bool		 rank_guessed;	/* diagnose took rank from local_rank */
	int		 pid;		/* or RL_NONE */
	int		 exitcode;	/* from an exit record, or RL_NONE */
	int		 signal;	/* from an exit record, or 0 */
	struct rl_time	 last;		/* last time seen in any of its streams */
	uint64_t	 lines;		/* lines seen */
	int		 last_source;	/* where its last timed line is, or RL_NONE */
	uint64_t	 last_line;	/* its line number */
	uint64_t	 last_offset;	/* its byte offset */
	char		*last_text;	/* its text, copied as it was read, or NULL */
	size_t		 last_len;	/* its length */
	unsigned	 index;
	uint64_t	 last_fed;	/* ingestion's: the chunk that last
					   moved its last line */
	struct rl_context *last_context;/* around its last line, or NULL */
};

/* The state of a rank when the analysis ended. */
enum rank_state {
	RANK_OK = 0,		/* ran, no failure seen */
	RANK_FAILED,		/* the first failure is here */
	RANK_COLLATERAL,	/* failed because of another rank */
	RANK_HUNG,		/* went quiet while others waited */
	RANK_EXITED,		/* ended with an error of its own, not first */
	RANK_NSTATES
};

struct rl_rank {
	int		 rank;		/* global rank, or RL_NONE for unranked */
	char		*host;		/* or NULL */
	unsigned	*sources;	/* indexes of its sources */
	size_t		 nsources;
	enum rank_state	 state;
	int		 first_event;	/* its first failing event, or RL_NONE */
	struct rl_time	 first;		/* first time seen */
	struct rl_time	 last;		/* last time seen */
	uint64_t	 lines;
	int		 last_step;	/* last training step seen, or RL_NONE */
};

/* How an event's time was had, from best to worst. */
#define TIME_OWN	0	/* the line carried it */
#define TIME_STREAM	1	/* inherited from its writer's last line */
#define TIME_NEXT	2	/* from its writer's next timed line */
#define TIME_PROCESS	3	/* its process's last time, from another file */

/*
 * The numeric captures an event keeps: a rule's pattern names a few (three
 * at most in the shipped packs), and an event held thirteen slots for them,
 * half of its size, across millions of kept and gathered events.  The
 * pattern that matched says which each is, so the event keeps the values
 * alone, in its order, RL_CAP_UNSET where the line had none; and they
 * follow the event in memory, as many as its rule's patterns name at most
 * (rule->ncaps): most kept events are of rules that name none (a rank's
 * evidence, its tracebacks), and six slots each were 48 of their 128
 * bytes.  An event made whole (incident_add_event) has room for all.
 */
#define EVENT_CAPS	RULE_NCAPS

/* One matched line. */
struct rl_event {
	/* Widest first, so that nothing is padding. */
	uint64_t	 line;		/* 1-based line number in the source */
	uint64_t	 offset;	/* byte offset of the line in the source */
	struct rl_time	 time;		/* its own or inherited */
	const struct rl_rule *rule;	/* borrowed from the ruleset */
	char		*text;		/* the line as written (NUL as space), cut at
					   EVENT_TEXT_MAX: sanitize per destination;
					   borrowed from the event's keep; NULL
					   with EVENT_TEXT_AWAY: read it with
					   event_text */
	uint64_t	 seq;		/* arrival order, for stable sorting */
	uint32_t	 ord;		/* its keep's match number (or step),
					   from 0, its low 32 bits: all a
					   sample's stride tests (KEEP_STRIDE_MAX) */
	unsigned	 source;	/* index of its source */
	int		 process;	/* index of its process, or RL_NONE */
	int		 rank;		/* resolved global rank, or RL_NONE */
	uint8_t		 role;		/* enum rl_role: the rule's, or demoted
					   by context */
	uint8_t		 pat;		/* which of the rule's patterns did */
	uint16_t	 at;		/* where in text its pattern matched */
	uint16_t	 tlen;		/* with EVENT_TEXT_RAW: the line's bytes
					   text holds */
	/* In bits: with them, an event is 80 bytes, not 88. */
	unsigned	 guess:2;	/* how its time was had: TIME_OWN, ... */
	unsigned	 tform:4;	/* EVENT_TEXT_*: where text can be had */
	bool		 timed:1;	/* the line carried its time itself */
	bool		 weak:1;	/* in a launcher's record: a copy, coarse time */
	bool		 rank_resolved:1;/* diagnose took rank from the process */
	bool		 harmless:1;	/* context made it harmless */
	bool		 revived:1;	/* the diagnosis found it was not */
	/* Then its numeric captures (event_capv). */
};

/* The bytes of an event with room for n numeric captures after it. */
#define EVENT_SIZE(n)	(sizeof(struct rl_event) + \
			 (size_t)(n) * sizeof(int64_t))

/*
 * Its numeric captures, in the order of its pattern's (rule->pat[pat]),
 * as many as the pattern names: see event_cap.
 */
static inline int64_t *
event_capv(struct rl_event *e)
{
	return (int64_t *)(void *)(e + 1);
}

/*
 * Where an event's text can be had.  RAW: it is the tlen bytes of its
 * source at its offset as they stand (no prefix peeled, no escape taken
 * out, no NUL), then TEXT_MARK if CUT.  AWAY: it is not held (text is
 * NULL) and is read again when asked (event_text): analyze's files, read
 * to their end, can be read at an offset again, and their events' texts
 * were 77 MB of the peak at 10,000 ranks, for the few a reader shows.
 * LIMITS: a text let go names a limit of the memory budget
 * (text_names_limits), noted as it went: a capacity verdict looks at every
 * event's for one, and read back that was each of 10,000 files again.
 */
#define EVENT_TEXT_RAW		0x01
#define EVENT_TEXT_CUT		0x02
#define EVENT_TEXT_AWAY		0x04
#define EVENT_TEXT_LIMITS	0x08

/*
 * The i-th of an incident's gathered events, with the one EVENT_AHEAD
 * places on fetched meanwhile: in a pass over them in time order, each is
 * somewhere else in the keeps' memory, and the pass waits on memory more
 * than it computes.
 */
#define EVENT_AHEAD	8

/* Fetch the first n cache lines at p, to be read soon. */
static inline void
fetch_lines(const void *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		__builtin_prefetch((const char *)p + 64 * i);
}

static inline struct rl_event *
event_ahead(struct rl_event *const *v, size_t n, size_t i)
{
	if (i + EVENT_AHEAD < n)
		fetch_lines(v[i + EVENT_AHEAD], 3);
	return v[i];
}

/*
 * Is a role a failure's: root, symptom, collateral, wrapper, or the
 * diagnosis's hang?  Progress and evidence are not.
 */
static inline bool
event_failing_role(enum rl_role r)
{
	return r == ROLE_ROOT || r == ROLE_SYMPTOM || r == ROLE_COLLATERAL ||
	    r == ROLE_WRAPPER || r == ROLE_HANG;
}

/*
 * Is an event a failure: of a failing role and not made harmless by its
 * context.  The store gives such events their context lines; the console
 * draws them as failures; the diagnosis judges those a rule named.
 */
static inline bool
event_failing(const struct rl_event *e)
{
	return event_failing_role(e->role) && !e->harmless;
}

/*
 * incident.c: an event's text, read again from its source if it is not
 * held (EVENT_TEXT_AWAY), then held; NULL if it has none.  inc may be
 * NULL for an event made by hand, which holds its text.
 */
struct rl_incident;
const char	*event_text(const struct rl_incident *, const struct rl_event *);

/*
 * event-text.c: the texts of the n events idx[k] of the incident, held
 * (read back in bulk where they were let go), for a reader about to show
 * many: what event_text would hold one at a time.
 */
void		 event_texts_hold(const struct rl_incident *, const size_t *,
		     size_t);

/* An event's numeric capture c, or RL_CAP_UNSET. */
static inline int64_t
event_cap(const struct rl_event *e, enum rl_cap c)
{
	const struct rl_pattern	*p;
	int			 i;

	if (e->rule == NULL || e->pat >= e->rule->npat)
		return RL_CAP_UNSET;
	p = &e->rule->pat[e->pat];
	for (i = 0; i < p->ncapv; i++) {
		if (p->capv[i] == c)
			return ((const int64_t *)(const void *)(e + 1))[i];
	}
	return RL_CAP_UNSET;
}


/* How often one signature was seen in all (harmless ones not counted). */
struct rl_tally {
	uint64_t	 lines;		/* lines it matched */
	int64_t		 count;		/* sum of `count` captures */
	int64_t		 total;		/* largest `total` capture */
	int64_t		 first;		/* utc ms of the first timed, or INT64_MAX */
	int64_t		 last;		/* and of the last, or INT64_MIN */
};

enum ckpt_status { CKPT_NONE = 0, CKPT_SAFE, CKPT_UNSAFE, CKPT_UNKNOWN };
enum rl_scope { SCOPE_NONE = 0, SCOPE_ONE, SCOPE_SOME, SCOPE_ALL };

/* Does a line offered as evidence support an answer or argue against it? */
enum rl_stance { STANCE_SUPPORTS = 0, STANCE_AGAINST };

/*
 * One piece of evidence for or against an answer: a line of a source (or,
 * with line 0, a file such as a checkpoint shard), and what it shows.
 */
struct rl_evidence {
	int		 source;	/* index of its source, or RL_NONE */
	uint64_t	 line;		/* 1-based line, or 0 for the whole file */
	int		 rank;		/* or RL_NONE */
	struct rl_time	 time;		/* or not VALID */
	char		*text;		/* the line as written: hostile, or NULL */
	char		*shows;		/* what it shows, in rankline's words */
	enum rl_stance	 stance;
};

/* A bounded list of evidence; what did not fit is counted. */
struct rl_evlist {
	struct rl_evidence *v;
	size_t		 n;
	size_t		 dropped;	/* items left out past the cap */
};

/* One host's clock against the reference host's (skew.c). */
/* A source whose times without a zone are local time in a known zone. */
struct rl_zone {
	unsigned	 source;	/* index of the source */
	int		 tz_min;	/* the zone its local times are in */
	size_t		 matched;	/* lines matched with zoned sources'
					   that showed it; 0: its own zoned
					   lines around them did */
};

struct rl_skew {
	char		*host;
	int64_t		 offset_ms;	/* this host's clock minus the reference's */
	int64_t		 spread_ms;	/* median absolute deviation of the samples */
	size_t		 samples;	/* steps both hosts logged */
	bool		 reference;	/* the host the others are measured against */
};

/* What the collective timeouts say about a hang (hang.c). */
struct rl_hang {
	int		 culprit;	/* the rank blamed, or RL_NONE */
	const char	*basis;		/* why: "lagging", "silent", "dump", "quiet" */
	int		 lag_rank;	/* rank whose last enqueued collective lags */
	int64_t		 lag_enqueued;	/* its last enqueued sequence number */
	int64_t		 peers_enqueued;/* the most any other rank enqueued */
	int		 lag_event;	/* its desync line, or RL_NONE */
	bool		 lag_seq;	/* the numbers are the watchdog
					   timeouts' SeqNum, no desync line */
	int		 dump_origin;	/* rank named by "Received a dump signal" */
	int		 dump_event;	/* such a line, or RL_NONE */
	bool		 frozen;	/* every rank's last enqueued was -1 */
	size_t		 desync_ranks;	/* ranks that printed their progress */
	size_t		 reporters;	/* ranks that reported a timeout */
	int		 timeout_event;	/* the earliest timeout line, or RL_NONE */
	int64_t		 timeout_ms;	/* its timeout */
	struct rl_time	 began;		/* its time minus its timeout, or not VALID */
};

/* vLLM's memory budget, as far as the logs tell it (capacity.c). */
struct rl_capacity {
	bool		 present;	/* any memory-profile line was seen */
	double		 total_gib;	/* GPU memory; NAN when not known */
	double		 util;		/* --gpu-memory-utilization */
	double		 budget_gib;	/* total x utilization */
	double		 weights_gib;
	double		 non_torch_gib;
	double		 activation_gib;/* PyTorch activation peak */
	double		 graph_gib;	/* CUDA graph estimate */
	double		 kv_gib;	/* what was left for the KV cache */
	double		 needed_gib;	/* KV one max-length request needs */
	double		 kv_tokens;	/* KV cache capacity in tokens */
	double		 max_model_len;
	double		 max_num_seqs;
	double		 concurrency;	/* full-length requests that fit */
	char		**lines;	/* the budget, one step a line */
	size_t		 nlines;
	char		**whatif;	/* what one change would give */
	size_t		 nwhatif;
	struct rl_evlist evidence;	/* the lines the numbers come from */
};

struct rl_check_item {
	bool		 found;		/* the logs hold it */
	char		*missing;	/* what to collect, or NULL */
	struct rl_evlist evidence;	/* lines that fill it */
};

/* The next steps the verdict suggests: advice, never an action. */
enum rl_advice_kind {
	ADVICE_RESTART = 0,	/* restart as is */
	ADVICE_EXCLUDE_HOST,	/* restart without host X */
	ADVICE_RESUME,		/* resume from checkpoint N */
	ADVICE_ROLLBACK,	/* roll back the code (or config) */
	ADVICE_HARDWARE,	/* hand the node to the hardware team */
	ADVICE_NKINDS
};

struct rl_advice {
	enum rl_advice_kind kind;
	char		*host;		/* for EXCLUDE_HOST and HARDWARE, or NULL */
	int		 step;		/* for RESUME, or RL_NONE */
	char		*text;		/* the advice in a sentence */
	char		*why;		/* its reasons */
};

/* The three answers, and the reasons for each. */
struct rl_answer {
	int		 first;		/* index of the first failure event, or RL_NONE */
	enum rl_role	 first_role;	/* its role (ROLE_HANG for a culprit) */
	bool		 first_launcher;/* a launcher's line, no rank's */
	bool		 first_unattributed;/* no rank's, while others have
					   ranks: no prefix names its writer */
	enum rl_domain	 domain;
	enum rl_group	 group;
	enum rl_scope	 scope;
	char		*summary;	/* one sentence */
	char		*explanation;	/* why this event and not another */
	struct rl_evlist first_evidence;/* for it, and what ties the others to it */
	char		*verdict_explanation; /* why this domain and group */
	struct rl_evlist verdict_evidence;
	double		 confidence;	/* in the verdict, 0..1 (see rankline.1) */
	enum ckpt_status ckpt;
	int		 last_safe_step;/* or RL_NONE */
	int		*unsafe_steps;
	size_t		 nunsafe;
	int		*suspect_steps;	/* completed after a hardware error */
	size_t		 nsuspect;
	int		 clean_step;	/* last safe step before any hardware error */
	char		*ckpt_explanation;
	struct rl_evlist ckpt_evidence;
	struct rl_skew	*skew;		/* per host; empty on one host */
	size_t		 nskew;
	struct idhash	 skew_of;	/* a host's hash_bytes -> its index in
					   skew + 1 (diag-skew.c) */
	struct rl_zone	*zones;		/* sources whose local times were
					   read in their zone (diag-zone.c) */
	size_t		 nzones;
	int64_t		 skew_tolerance_ms; /* cross-host order is unsure within it */
	struct rl_hang	 hang;
	struct rl_capacity capacity;
	struct rl_check_item checklist[CHECK_NITEMS];
	struct rl_advice *advice;	/* next steps, most pressing first */
	size_t		 nadvice;
};

struct rl_incident {
	struct rl_source **sources;
	size_t		 nsources;
	size_t		 csources;	/* room in sources */
	struct rl_process **procs;
	size_t		 nprocs;
	size_t		 cprocs;	/* room in procs */
	struct rl_process **phash;	/* procs by key, open addressing */
	size_t		 phsize;	/* its slots: a power of two, or 0 */
	size_t		 phashed;	/* procs[0, phashed) are in it */
	struct rl_rank	*ranks;		/* sorted by rank, unranked last */
	size_t		 nranks;
	struct rl_event	**events;	/* gathered from the keeps, in time order
					   once diagnosed; texts borrowed */
	size_t		 nevents;
	size_t		 cevents;
	void		*copies;	/* what events point to while sources
					   may still grow, each as large as
					   its keep's; else the keeps */
	size_t		 ccopies;	/* bytes there */
	struct rl_event	**made;		/* the diagnosis's own events, owned */
	size_t		 nmade;
	bool		 settled;	/* no more lines will be read */
	bool		 lines_only;	/* a second reading for its line
					   callback: no rules, no events */
	bool		 lean;		/* a wide reading's files may let their
					   texts and contexts go (see
					   rl_source.lean): set by analyze and
					   report, whose readers ask
					   event_text; the console reads text
					   itself */
	size_t		 width;		/* sources of the whole reading, which
					   sets what a keep holds (keep_policy),
					   or 0: those known when it is made */
	struct rl_keep	**keeps;	/* in creation order (engine.h) */
	size_t		 nkeeps;
	size_t		 ckeeps;	/* room for so many */
	struct slab	*kslab;		/* engine.h's: the keeps' memory, owned;
					   the one filling first */
	struct slab	*eslab;		/* and the events' of sources read */
	struct rl_tally	*tally;		/* per rule index, or NULL */
	size_t		 ntally;
	uint64_t	 matched;	/* lines a rule named, kept or not */
	char		**owned;	/* texts of events made by hand (the hang's
					   culprit line), owned */
	size_t		 nowned;
	struct rl_answer answer;
	struct rl_time	 start;		/* earliest time seen */
	struct rl_time	 end;		/* latest time seen */
	struct rl_time	 zoned_start;	/* the same of the times with a zone */
	struct rl_time	 zoned_end;	/* (or boot-relative): diag-zone.c */
	uint64_t	 lines;		/* lines read in all */
	uint64_t	 bytes;
	uint64_t	 next_seq;
	uint64_t	 feeds;		/* chunks fed to its ingests */
	unsigned	 diagnoses;	/* times diagnose() ran on it */
	const struct ruleset *rules;	/* borrowed */
	struct errlist	 errors;	/* unreadable paths and the like */
	struct fileset	 walked;	/* files and folders added: source-file.c */
	char		*fingerprint;	/* of the root signature, or NULL */
	struct rl_signature sig;	/* the root as recurrence sees it */
	struct rl_job	 job;		/* which job it was (job_identity) */
	const struct rl_history *history;/* borrowed: its past, or NULL */
};

/* incident.c: the model's own accessors. */
struct rl_incident *incident_create(const struct ruleset *);
void		 incident_free(struct rl_incident *);
long		 incident_rank_pos(const struct rl_incident *, int);
const struct rl_rank *incident_rank(const struct rl_incident *, int);
const char	*rank_state_name(enum rank_state);
const char	*ckpt_status_name(enum ckpt_status);
const char	*scope_name(enum rl_scope);

/*
 * pipeline.c: read -> diagnose -> fingerprint -> job identity; the one
 * caller of diagnose().  A line callback sees each line as it is read
 * (cat): its source, line number, time, process, text and length.
 */
typedef void	(*ingest_line_cb)(void *, const struct rl_source *, uint64_t,
		     const struct rl_time *, const struct rl_process *,
		     const char *, size_t);
int		 pipeline_read(struct rl_incident *, int, char **,
		     ingest_line_cb, void *, int);
void		 pipeline_diagnose(struct rl_incident *);

/* context.c: the lines around a failure, from the model. */
const char	*event_context(const struct rl_incident *,
		     const struct rl_event *, int64_t *);

/* capture.c: the host of an event's process, or NULL. */
const char	*event_host(const struct rl_incident *, const struct rl_event *);

/* The names of the answer's parts, as the outputs write them. */
const char	*stance_name(enum rl_stance);		/* diag-evidence.c */
const char	*confidence_level(double);		/* diag-evidence.c */
const char	*check_name(enum rl_check);		/* diag-advice.c */
const char	*advice_kind_name(enum rl_advice_kind);	/* diag-advice.c */
const char	*job_fact_name(enum job_fact);	/* job.c: "name", ... "world_size" */

/*
 * fingerprint.c: what makes two incidents the same failure.  The root line
 * becomes a template (typed masks, launcher prefixes cut); the fingerprint
 * hashes the root rule, the template and, for hardware, the host, and is
 * prefixed by the scheme that made it, so that a change of masking never
 * regroups old incidents silently.
 */
#define FP_SCHEME	1	/* the masking and grouping this build does */
#define FP_TEMPLATE_MAX	512	/* bytes of a template */

/*
 * The incident's past, as the store found it before the report was made:
 * filled by store/, read by the reports and the console (which never speak
 * SQL).  The incident borrows it; its filler frees it with history_clear.
 */
struct rl_history_match {
	int64_t		 incident;	/* its id in the database */
	char		*time;		/* ISO 8601: when it began, else when stored */
	char		*fingerprint;	/* or NULL */
	char		*diagnosis;	/* the latest diagnosis written then, or NULL */
	char		*resolution;	/* the latest resolution, or NULL */
	char		*summary;	/* the verdict then */
	bool		 exact;		/* same fingerprint; else a near match */
	double		 score;		/* a near match's closeness, 0 to 1 */
};

enum rl_offender_kind { OFFENDER_HOST, OFFENDER_GPU, OFFENDER_RANK };

/* A host, GPU or rank of this root that was in earlier incidents' roots. */
struct rl_offender {
	enum rl_offender_kind kind;
	char		*name;		/* host, normalised PCI address, or rank */
	size_t		 count;		/* earlier incidents with it in their root */
	char		*first;		/* ISO 8601 of the first of them */
	char		*last;		/* and of the latest */
	int64_t		 last_incident;	/* the latest one's id */
};

struct rl_history {
	bool		 looked;	/* a database was asked */
	int64_t		 incident;	/* this incident's own id, or 0 */
	size_t		 seen_before;	/* earlier incidents of the same fingerprint */
	struct rl_history_match *matches;/* exact first (newest first), then near */
	size_t		 nmatches;
	struct rl_offender *offenders;
	size_t		 noffenders;
};

/*
 * The fingerprint's parts, for the store's migration of fingerprints made
 * by an older scheme; the incident's own is inc->sig, made by the pipeline.
 */
void		 fingerprint_template(const char *, const char *const *, size_t,
		     struct buf *);
char		*fingerprint_make(int, const char *, const char *, const char *);

/* history.c */
void		 history_clear(struct rl_history *);
const char	*offender_kind_name(enum rl_offender_kind);

/* report-json.c: analyze --json, and what the reports share. */
struct report_tally {			/* how often one signature was seen */
	const struct rl_rule *rule;
	const struct rl_tally *t;	/* borrowed from the incident */
};
void		 report_json(const struct rl_incident *, struct buf *, FILE *);
struct json_t		*report_json_tree(const struct rl_incident *);
struct json_t		*report_json_job(const struct rl_job *);
struct json_t		*report_json_str(const char *);	/* raw bytes, or null */
struct json_t		*report_json_int(int);		/* null for RL_NONE */

/*
 * The one JSON printer: a jansson tree, laid out by a table of rules,
 * each at a path ("" the value, "a.b" key b of a, "a[]" an element of a).
 */
enum report_json_kind {
	JL_ROWS,		/* one key or element a line, at indent */
	JL_BREAK,		/* a line break before this key, at indent */
	JL_REAL,		/* print this real with the format real */
	JL_TIGHT		/* this array's elements joined by ',' alone */
};
struct report_json_layout {
	const char	*path;
	enum report_json_kind kind;
	int		 indent;	/* of a row or the key after a break */
	int		 close;		/* rows: the closing line's indent, or
					   -1 to close on the last row's line */
	const char	*real;		/* printf format of a JL_REAL */
};
struct report_json_stream {		/* an array printed as it is made */
	const char	*path;		/* where, as in a layout */
	bool		(*row)(void *, struct buf *);/* appends its next element
					   (escaped with sanitize_json), or
					   returns false: no more */
	void		*arg;
};
void		 report_json_print(struct buf *, const struct json_t *,
		     const struct report_json_layout *, size_t, FILE *);
void		 report_json_print_stream(struct buf *, const struct json_t *,
		     const struct report_json_layout *, size_t, FILE *,
		     const struct report_json_stream *, size_t);
struct report_tally *report_tally(const struct rl_incident *, size_t *);
int64_t		 report_tally_amount(const struct rl_tally *);
double		 report_tally_rate(const struct rl_tally *);
const char	*report_event_signature(const struct rl_incident *,
		     const struct rl_event *);

/* report-text.c */
void		 report_text(const struct rl_incident *, struct buf *);

#endif
