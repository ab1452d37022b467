/*
 * core.h: rankline's engine.  Logs come in, are cut into lines, attributed
 * to ranks, matched against the rule packs, and gathered into one model, the
 * incident, which every reader (the console, analyze --json, cat, the store,
 * reports) reads and none recomputes.
 *
 * core/ never includes curses or sqlite: the console (tui/) and the store
 * (store/) depend on core, never the other way round.
 *
 * Ownership, for every type below:
 *  - a struct made by X_create is freed by X_free, and owns what it points to
 *    unless a field's comment says "borrowed";
 *  - a returned char * belongs to the caller; a const char * is borrowed and
 *    lives as long as the object it came from;
 *  - the incident owns its sources, processes, ranks and events; the ruleset
 *    outlives every incident that points into it.
 */
#ifndef RANKLINE_CORE_H
#define RANKLINE_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <time.h>

#include "clock.h"

/* The elements of an array (BSD's <sys/param.h> name). */
#ifndef nitems
#define nitems(a)	(sizeof (a) / sizeof (a)[0])
#endif

#define RL_NONE		(-1)		/* an unknown rank, pid or index */
#define RL_CAP_UNSET	INT64_MIN	/* a capture the line did not have */
#define RL_REF_NONE	INT32_MIN	/* a context key naming nothing known */

/* util.c: memory that cannot fail, and the one fatal exit. */
void		*xmalloc(size_t);
void		*xcalloc(size_t, size_t);
void		*xrealloc(void *, size_t);
void		*xreallocarray(void *, size_t, size_t);
char		*xstrdup(const char *);
char		*xstrndup(const char *, size_t);
void		 strv_free(char **, size_t);
int		 xasprintf(char **, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
int		 xvasprintf(char **, const char *, va_list);
void		 fatal(const char *, ...)
		     __attribute__((noreturn, format(printf, 1, 2)));
extern void	(*fatal_hook)(void);	/* run before exit: the console ends curses */
size_t		 mem_count_nl(const char *, size_t);
#define STR_HASH_SEED	1469598103934665603ULL
uint64_t	 str_hash(uint64_t, const char *);
#define HASH_FNV_OFFSET	0xcbf29ce484222325ULL
#define HASH_FNV_PRIME	0x100000001b3ULL
uint64_t	 hash_bytes(uint64_t, const void *, size_t);
void		*array_grow(void *, size_t, size_t *, size_t);

/*
 * A table of 64-bit ids, open addressing: a set, or with idhash_put a map
 * of each id to a value (0 until set).  Zeroed it is empty; idhash_free
 * frees it.
 */
struct idhash {
	uint64_t	*v;		/* key + 1, 0 empty */
	uint64_t	*val;		/* per slot: its key's value, or NULL
					   while only idhash_add was used */
	size_t		 cap;		/* a power of two */
	size_t		 n;		/* keys held */
};
bool		 idhash_add(struct idhash *, uint64_t);
uint64_t	*idhash_put(struct idhash *, uint64_t);
void		 idhash_free(struct idhash *);

/* A growable byte buffer; text is kept NUL-terminated for convenience. */
struct buf {
	char		*p;		/* bytes, p[len] == '\0' */
	size_t		 len;		/* bytes used */
	size_t		 cap;		/* bytes allocated */
};
void		 buf_grow(struct buf *, size_t);

/*
 * The appends are inline: a report is millions of short pieces, most of
 * them literals, whose length the compiler then knows and whose copy it
 * makes in a move or two; only a buffer out of room calls buf_grow.
 */
static inline void
buf_add(struct buf *b, const void *p, size_t n)
{
	/* Room for n bytes and the NUL: len + n + 1 <= cap. */
	if (b->cap - b->len <= n)
		buf_grow(b, n);
	if (n != 0)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static inline void
buf_addc(struct buf *b, char c)
{
	if (b->cap - b->len <= 1)
		buf_grow(b, 1);
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

static inline void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}
void		 buf_printf(struct buf *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
void		 buf_add_int(struct buf *, long long);
void		 buf_reset(struct buf *);
void		 buf_free(struct buf *);
char		*buf_steal(struct buf *);

/* A list of error messages, each naming file:line, collected not printed. */
struct errlist {
	char		**v;		/* messages, owned */
	size_t		  n;		/* how many */
};
void		 errlist_add(struct errlist *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
void		 errlist_free(struct errlist *);

/* sanitize.c: log text is hostile; these make it safe for each destination. */
void		 sanitize_terminal(struct buf *, const char *, size_t);
void		 sanitize_json(struct buf *, const char *, size_t);
void		 sanitize_html(struct buf *, const char *, size_t);
void		 sanitize_json_string(struct buf *, const char *);
size_t		 strip_ansi(char *, size_t);

/* ini.c: the INI-like format of rule packs and themes (see rules/FORMAT.md). */
typedef int	(*ini_cb)(void *, const char *, unsigned, const char *,
		     const char *, const char *, char **);
int		 ini_parse(const char *, const char *, size_t, ini_cb, void *,
		     struct errlist *);

/* Roles a rule gives a line, in the order the diagnosis prefers them. */
enum rl_role {
	ROLE_NONE = 0,
	ROLE_ROOT,		/* can be the first failure */
	ROLE_SYMPTOM,		/* a failure; root only when nothing better exists */
	ROLE_COLLATERAL,	/* caused by a peer's failure */
	ROLE_WRAPPER,		/* carries a failure raised elsewhere */
	ROLE_PROGRESS,		/* steps, checkpoints, readiness */
	ROLE_EVIDENCE,		/* versions, hardware, arguments, memory */
	ROLE_HANG,		/* the diagnosis's own: the rank that went quiet */
	ROLE_NROLES
};

enum rl_domain {
	DOMAIN_NONE = 0,	/* no failure */
	DOMAIN_CODE,
	DOMAIN_CONFIG,
	DOMAIN_INFRA,
	DOMAIN_HARDWARE,
	DOMAIN_FRAMEWORK,
	DOMAIN_UNKNOWN,
	DOMAIN_NDOMAINS
};

enum rl_group {
	GROUP_NONE = 0,
	GROUP_CAPACITY,
	GROUP_WORKER_DEATH,
	GROUP_COMMUNICATION,
	GROUP_KERNEL,
	GROUP_OTHER,
	GROUP_NGROUPS
};

enum rl_severity {
	SEV_INFO = 0,
	SEV_WARNING,
	SEV_ERROR,
	SEV_FATAL
};

/* What a progress or evidence line marks. */
enum rl_mark {
	MARK_NONE = 0,
	MARK_STEP,		/* a training step; captures step */
	MARK_CKPT_BEGIN,	/* a checkpoint save began; captures step */
	MARK_CKPT_END,		/* a checkpoint save completed; captures step */
	MARK_READY,		/* the job or engine reported it was up */
	MARK_SHUTDOWN,		/* an operator or launcher asked it to stop */
	MARK_EXIT,		/* a process ended; captures exitcode, signal */
	MARK_RECORD,		/* a launcher's per-rank failure record */
	MARK_NMARKS
};

/* The capture names the engine understands; others are kept as text only. */
enum rl_cap {
	CAP_RANK = 0,
	CAP_LOCAL_RANK,
	CAP_HOST,
	CAP_PID,
	CAP_STEP,
	CAP_SEQ,
	CAP_EXITCODE,
	CAP_SIGNAL,
	CAP_TIMEOUT_MS,
	CAP_XID,
	CAP_PCI,
	CAP_COUNT,		/* occurrences the line reports (an interval's count) */
	CAP_TOTAL,		/* a running total the line reports */
	CAP_NCAPS
};

/* One compiled pattern of a rule. */
struct rl_pattern {
	void		*code;		/* pcre2_code_8 */
	char		*source;	/* the text as written in the pack */
	int		 cap[CAP_NCAPS];/* group number of each known capture, or 0 */
	uint8_t		 first[32];	/* bytes a match can start with (bitmap) */
	uint8_t		 jit;		/* JIT_*: compiled for pcre2_jit_match,
					   on first use (pattern_ready) */
	uint8_t		 capv[CAP_NCAPS];/* the known captures it has */
	int		 ncapv;
	char		*names;		/* its group names, each NUL-ended,
					   then an empty one */
	uint64_t	 name_bits;	/* capture_name_bits of each, or'ed */
	bool		 anywhere;	/* a match never depends on where the
					   subject starts (no ^, \G, \A, \b,
					   \B or lookbehind) */
	uint32_t	 owner;		/* its rule's index, or an attribution's
					   with TARGET_ATTRIB, once the ruleset
					   is finished; else UINT32_MAX */
};

/* rl_pattern's jit: its JIT code is made on the first match. */
#define JIT_NOT_YET	0
#define JIT_READY	1
#define JIT_NONE	2		/* RANKLINE_NO_JIT, or pcre2 could not */
bool		 pattern_ready(const struct rl_pattern *);
uint64_t	 capture_name_bits(const char *);

/* A rule from a pack. */
struct rl_rule {
	char		*id;		/* dotted, unique in the set */
	char		*file;		/* pack it came from */
	unsigned	 line;		/* line of its [rule] header */
	struct rl_pattern *pat;		/* patterns, any may match */
	size_t		 npat;
	char		**literal;	/* required literals for the prefilter */
	size_t		 nliteral;
	enum rl_role	 role;
	enum rl_domain	 domain;
	enum rl_group	 group;
	enum rl_severity severity;
	enum rl_mark	 mark;
	int		 priority;	/* highest wins on one line */
	bool		 job_scope;	/* by its nature it concerns the whole job */
	char		*only_after;	/* mark name or rule id, or NULL */
	char		*not_after;	/* mark name or rule id, or NULL */
	char		*not_within;	/* rule id whose match shortly before... */
	unsigned	 not_within_lines;/* ...this many lines makes it harmless */
	int		 only_after_ref;/* the three above resolved when the set is */
	int		 not_after_ref;	/*   finished: a mark (-1 - mark), a rule */
	int		 not_within_ref;/*   index, or RL_REF_NONE (unknown) */
	char		*title;
	char		*explain;
	char		*action;
	char		*probe;
	char		*knobs;		/* comma-separated knob names */
	unsigned	 checklist;	/* CHECK_* bits the line fills, or 0 */
	char		**example;	/* must match */
	size_t		 nexample;
	char		**counter;	/* must not match */
	size_t		 ncounter;
	unsigned	 index;		/* position in the set */
	bool		 blind;		/* every pattern treats digits alike */
};

/* Attribution: where a file or a line comes from. */
enum attrib_kind { ATTRIB_PATH, ATTRIB_PREFIX, ATTRIB_LINK, ATTRIB_RECORD };

struct rl_attrib {
	char		*id;
	char		*file;
	unsigned	 line;
	enum attrib_kind kind;
	struct rl_pattern *pat;
	size_t		 npat;
	struct rl_pattern end;		/* record: the pattern that closes it */
	char		**literal;
	size_t		 nliteral;
	int		 priority;
	int		 proc_group;	/* path: group number of (?<proc>), or 0 */
	bool		 copy;		/* path: the file copies what ranks wrote */
	uint32_t	 caps;		/* 1 << each known capture a pattern has */
	char		**example;
	size_t		 nexample;
	char		**counter;
	size_t		 ncounter;
};

struct rl_knob {
	char		*name;
	char		*what;
	char		*helps;
	char		*cost;
};

/* rules.c: the set of rules, attribution forms and knobs, and the matcher. */
struct ruleset;
#define RL_MAXGROUPS	24		/* capture groups a pattern may report */
struct rl_match {
	const struct rl_rule *rule;	/* borrowed from the set */
	const struct rl_pattern *pat;	/* the pattern that matched */
	const char	*subject;	/* the line matched, borrowed */
	size_t		 ovec[2 * RL_MAXGROUPS];	/* offsets of the groups */
	int		 ngroups;	/* groups set in ovec */
};
typedef void	(*ruleset_attrib_cb)(void *, const struct rl_attrib *,
		     const struct rl_match *);
struct ruleset	*ruleset_create(void);
void		 ruleset_free(struct ruleset *);
int		 ruleset_load(struct ruleset *, const char *, const char *,
		     size_t, struct errlist *);
int		 ruleset_load_file(struct ruleset *, const char *,
		     struct errlist *);
int		 ruleset_load_defaults(struct ruleset *, struct errlist *);
void		 ruleset_finish(struct ruleset *);
struct ruleset	*ruleset_clone(struct ruleset *);
void		 ruleset_absorb(struct ruleset *, const struct ruleset *);
void		 ruleset_learn(struct ruleset *, const char *, size_t);
bool		 ruleset_learning(const struct ruleset *);
void		 ruleset_learnt(struct ruleset *);
size_t		 ruleset_nrules(const struct ruleset *);
const struct rl_rule *ruleset_rule(const struct ruleset *, size_t);
const struct rl_rule *ruleset_find(const struct ruleset *, const char *);
size_t		 ruleset_nattribs(const struct ruleset *);
const struct rl_attrib *ruleset_attrib(const struct ruleset *, size_t);
size_t		 ruleset_nknobs(const struct ruleset *);
const struct rl_knob *ruleset_knob_at(const struct ruleset *, size_t);
const struct rl_knob *ruleset_knob(const struct ruleset *, const char *);
bool		 ruleset_match(struct ruleset *, const char *, size_t,
		     struct rl_match *);
void		 ruleset_links(struct ruleset *, const char *, size_t,
		     ruleset_attrib_cb, void *);
bool		 ruleset_match_rule(struct ruleset *, const struct rl_rule *,
		     const char *, size_t, struct rl_match *);
bool		 ruleset_match_pattern(struct ruleset *,
		     const struct rl_pattern *, const char *, size_t,
		     struct rl_match *);
uint64_t	 ruleset_limit_hits(const struct ruleset *);
const struct errlist *ruleset_warnings(const struct ruleset *);
uint64_t	 ruleset_rule_limit_hits(const struct ruleset *, size_t);
uint64_t	 ruleset_attrib_limit_hits(const struct ruleset *, size_t);
size_t		 ruleset_limit_notes(const struct ruleset *, char ***);

/*
 * A known capture as a number, or RL_CAP_UNSET.  Inline: every matched
 * line of a run (steps, counts) reads its numbers through it.  An unset
 * group's offset is pcre2's PCRE2_UNSET, SIZE_MAX (rules.c checks).
 */
static inline int64_t
match_int(const struct rl_match *m, enum rl_cap c)
{
	int		 g = m->pat->cap[c];
	const char	*s;
	size_t		 a, b;
	int64_t		 v = 0;
	bool		 neg = false, check;

	if (g == 0 || g >= m->ngroups || m->ovec[2 * g] == SIZE_MAX)
		return RL_CAP_UNSET;
	a = m->ovec[2 * g];
	b = m->ovec[2 * g + 1];
	s = m->subject;
	if (a < b && s[a] == '-') {
		neg = true;
		a++;
	}
	if (a == b)
		return RL_CAP_UNSET;
	/* 18 digits cannot overflow: only a longer run is checked for it. */
	check = b - a > 18;
	for (; a < b; a++) {
		if ((unsigned)(s[a] - '0') > 9 ||
		    (check && v > INT64_MAX / 10 - 10))
			return RL_CAP_UNSET;
		v = v * 10 + (s[a] - '0');
	}
	return neg ? -v : v;
}
char		*match_str(const struct rl_match *, enum rl_cap);
const char	*role_name(enum rl_role);
const char	*domain_name(enum rl_domain);
const char	*group_name(enum rl_group);
const char	*severity_name(enum rl_severity);
const char	*mark_name(enum rl_mark);
const char	*cap_name(enum rl_cap);

/* rules-parse.c: the pack format into rules, attribs and knobs. */
int		 rules_parse(struct ruleset *, const char *, const char *,
		     size_t, struct errlist *);

/* rules-check.c: `rankline rules check` and `rankline rules test`. */
int		 ruleset_test(struct ruleset *, struct errlist *, unsigned *);
int		 ruleset_check(const struct ruleset *, struct errlist *);

/* embedded.c (generated): the shipped packs and themes, for a lone binary. */
struct rl_embedded {
	const char	*name;		/* file name, such as "torch.rules" */
	const char	*data;
	size_t		 len;
};
extern const struct rl_embedded rl_embedded_files[];
extern const size_t rl_embedded_nfiles;

/* paths.c: where data files are found. */
char		*paths_datadir(const char *);
char		*paths_user_config(const char *);
char		*paths_user_data(const char *);
char		**paths_list(const char *, const char *, size_t *);

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
struct rl_context {
	uint64_t	 offset;	/* the failure's line's byte offset */
	int64_t		 first;		/* the number of text's first line */
	char		*text;		/* the lines, the last newline trimmed;
					   NULL: dropped (a replaced tail's) */
	uint8_t		 nhead;		/* bytes of head */
	bool		 dropped;	/* no event is this line any more */
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
	int64_t		 file_size;	/* a regular file's size when the
					   reading opened it, or -1 */
	uint64_t	 long_lines;	/* lines cut at the length limit */
	uint64_t	 binary_lines;	/* lines with NUL or invalid UTF-8 */
	bool		 multiplexed;	/* lines carry rank prefixes */
	bool		 copy;		/* a launcher's copy of what a rank wrote */
	bool		 binary;	/* looked like a binary file: skipped */
	bool		 compressed;	/* read whole through a decompressor */
	bool		 transient;	/* cannot be re-read at an offset (followed) */
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
	unsigned	 index;		/* position in the incident */
	struct rl_job	 job;		/* what its head says of the job */
	struct job_head	 head;		/* its head's unfinished line */
	char		 lead[64];	/* its first bytes, NUL-ended (a
					   checkpoint tracker's step) */
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
 * half of its size, across millions of kept and gathered events.
 */
#define EVENT_CAPS	6

/* One matched line. */
struct rl_event {
	/* Widest first, so that nothing is padding. */
	uint64_t	 line;		/* 1-based line number in the source */
	uint64_t	 offset;	/* byte offset of the line in the source */
	struct rl_time	 time;		/* its own or inherited */
	const struct rl_rule *rule;	/* borrowed from the ruleset */
	char		*text;		/* the line as written (NUL as space), cut at
					   EVENT_TEXT_MAX: sanitize per destination;
					   borrowed from the event's keep */
	uint64_t	 seq;		/* arrival order, for stable sorting */
	uint64_t	 ord;		/* its keep's match number, from 0 */
	int64_t		 capv[EVENT_CAPS];/* numeric captures; see event_cap */
	unsigned	 source;	/* index of its source */
	int		 process;	/* index of its process, or RL_NONE */
	int		 rank;		/* resolved global rank, or RL_NONE */
	enum rl_role	 role;		/* the rule's, or demoted by context */
	uint16_t	 at;		/* where in text its pattern matched */
	uint8_t		 pat;		/* which of the rule's patterns did */
	uint8_t		 capk[EVENT_CAPS];/* which capture each is (rl_cap) */
	uint8_t		 ncap;		/* how many it holds */
	uint8_t		 guess;		/* how its time was had: TIME_OWN, ... */
	bool		 timed;		/* the line carried its time itself */
	bool		 weak;		/* in a launcher's record: a copy, coarse time */
	bool		 rank_resolved;	/* diagnose took rank from the process */
	bool		 harmless;	/* context made it harmless */
};

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

/* An event's numeric capture c, or RL_CAP_UNSET. */
static inline int64_t
event_cap(const struct rl_event *e, enum rl_cap c)
{
	int	i;

	for (i = 0; i < e->ncap; i++) {
		if (e->capk[i] == c)
			return e->capv[i];
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

/* The items of the evidence checklist (advice.c). */
enum rl_check {
	CHECK_VERSIONS = 0,	/* framework versions */
	CHECK_GPU,		/* GPU model */
	CHECK_DRIVER,		/* driver version */
	CHECK_ARGS,		/* launch command or non-default arguments */
	CHECK_MODEL,		/* model and quantization */
	CHECK_MEMORY,		/* memory profile */
	CHECK_KERNEL,		/* host kernel lines (dmesg) */
	CHECK_TRACEBACK,	/* the first traceback of every failing rank */
	CHECK_NITEMS
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
	struct rl_event	*copies;	/* what events point to while sources
					   may still grow; else the keeps */
	size_t		 ccopies;
	struct rl_event	**made;		/* the diagnosis's own events, owned */
	size_t		 nmade;
	bool		 settled;	/* no more lines will be read */
	uint32_t	 samples;	/* per sampling keep: incident_samples
					   of all the sources, or 0: of those
					   known when the keep is made */
	struct rl_keep	**keeps;	/* owned, in creation order (engine.h) */
	size_t		 nkeeps;
	size_t		 ckeeps;	/* room for so many */
	struct keep_slot *khash;	/* engine.h's: by (rule, process, source), open
					   addressing, at most half full */
	size_t		 khsize;	/* slots, a power of two, or 0 */
	struct rl_tally	*tally;		/* per rule index, or NULL */
	size_t		 ntally;
	uint64_t	 matched;	/* lines a rule named, kept or not */
	char		**owned;	/* texts of events made by hand (the hang's
					   culprit line), owned */
	size_t		 nowned;
	struct rl_answer answer;
	struct rl_time	 start;		/* earliest time seen */
	struct rl_time	 end;		/* latest time seen */
	uint64_t	 lines;		/* lines read in all */
	uint64_t	 bytes;
	uint64_t	 next_seq;
	uint64_t	 feeds;		/* chunks fed to its ingests */
	unsigned	 diagnoses;	/* times diagnose() ran on it */
	const struct ruleset *rules;	/* borrowed */
	struct errlist	 errors;	/* unreadable paths and the like */
	char		*fingerprint;	/* of the root signature, or NULL */
	struct rl_signature sig;	/* the root as recurrence sees it */
	struct rl_job	 job;		/* which job it was (job_identity) */
	const struct rl_history *history;/* borrowed: its past, or NULL */
	char		*readbuf;	/* what its sources are read into, kept
					   from one source to the next */
};

/* incident.c */
struct rl_incident *incident_create(const struct ruleset *);
void		 incident_free(struct rl_incident *);
struct rl_source *incident_add_source(struct rl_incident *, const char *,
		     enum source_kind);
struct rl_process *incident_process(struct rl_incident *, const char *,
		     const char *, int, int);
struct rl_process *incident_process_find(struct rl_incident *, const char *);
struct rl_event	*incident_add_event(struct rl_incident *);
uint32_t	 incident_samples(size_t);
char		*incident_own(struct rl_incident *, char *);
void		 incident_disown(struct rl_incident *);
void		 incident_gather(struct rl_incident *);
void		 incident_absorb(struct rl_incident *, struct rl_incident *);
struct rl_tally	*incident_tally(struct rl_incident *, const struct rl_rule *);
long		 incident_rank_pos(const struct rl_incident *, int);
const struct rl_rank *incident_rank(const struct rl_incident *, int);
const char	*rank_state_name(enum rank_state);
const char	*ckpt_status_name(enum ckpt_status);
const char	*scope_name(enum rl_scope);
void		 answer_clear(struct rl_answer *);
char		*process_last_line(const struct rl_incident *,
		     const struct rl_process *);

/* ingest.c: bytes to lines to events. */
struct ingest;
struct ingest	*ingest_create(struct rl_incident *, struct rl_source *);
void		 ingest_free(struct ingest *);
void		 ingest_feed(struct ingest *, const char *, size_t);
void		 ingest_more(struct ingest *, bool);
void		 ingest_flush(struct ingest *);
void		 ingest_drop_zeros(struct ingest *, size_t);
typedef void	(*ingest_line_cb)(void *, const struct rl_source *, uint64_t,
		     const struct rl_time *, const struct rl_process *,
		     const char *, size_t);
void		 ingest_set_line_cb(struct ingest *, ingest_line_cb, void *);

/* attrib.c */
void		 attrib_path(const struct ruleset *, struct rl_source *);

bool		 ingest_pending(const struct ingest *);
void		 ingest_context(struct ingest *);
uint64_t	 ingest_warmup(void);

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

/* batch.c: every source read to its end, on every core. */
int		 batch_read(struct rl_incident *, ingest_line_cb, void *, int);

/*
 * follow.c: the sources named on the command line read, then followed on
 * the caller's uv loop (files and folders watched, commands and a piped
 * stdin read as they write) until the caller calls follow_stop.  analyze
 * --follow, cat --follow and the console each run one.
 */
struct uv_loop_s;
struct follow;
struct follow_config {
	uint64_t	 until_idle_ms;	/* end_cb after this long without bytes, or 0 */
	bool		 poll;		/* --poll: stat, never inotify */
	bool		 batch;		/* no watching: run the commands to their end */
	char		**cmds;		/* --cmd COMMAND, borrowed for follow_start */
	size_t		 ncmds;
	bool		 restart;	/* --restart: run a command again when it exits */
	ingest_line_cb	 line_cb;	/* for `cat`, or NULL */
	void		*line_arg;
	void		(*data_cb)(void *);	/* bytes were read in, or NULL */
	void		(*end_cb)(void *);	/* nothing more will come: stop it */
	void		*cb_arg;	/* for data_cb and end_cb */
};
struct follow_stats {
	size_t		 files;		/* text files followed, open or awaiting their name */
	size_t		 polled;	/* of those, polled (network file system, --poll) */
	size_t		 dirs;		/* folders watched for new files */
	int		 cmds;		/* commands not ended for good */
	bool		 in;		/* standard input is still read */
	uint64_t	 bytes;		/* read since the start */
	uint64_t	 last_data;	/* uv_now of the last bytes, or 0 */
};
struct follow	*follow_start(struct uv_loop_s *, struct rl_incident *,
		     const struct follow_config *, int, char **, int *);
void		 follow_stop(struct follow *);
void		 follow_stats(const struct follow *, struct follow_stats *);

/* source-cmd.c: commands (--cmd) and a piped standard input on a uv loop. */
struct source_cmds;
struct source_cmds *source_cmds_create(struct uv_loop_s *, struct rl_incident *,
		     bool, void (*)(void *, size_t), void (*)(void *), void *);
void		 source_cmds_add(struct source_cmds *, const char *);
void		 source_cmds_add_stdin(struct source_cmds *, struct rl_source *);
void		 source_cmds_stop(struct source_cmds *);
int		 source_cmds_live(const struct source_cmds *, bool *);

/*
 * pipeline.c: read -> diagnose -> fingerprint -> job identity; the one
 * caller of diagnose().
 */
int		 pipeline_read(struct rl_incident *, int, char **,
		     ingest_line_cb, void *, int);
void		 pipeline_diagnose(struct rl_incident *);

/* diagnose.c: the three answers from the events (through pipeline.c). */
void		 diagnose(struct rl_incident *);
void		 diagnose_reset(struct rl_incident *);

/* checkpoint.c */
void		 diagnose_checkpoint(struct rl_incident *);

/* ckptdir.c: the checkpoint folder, when its files are among the paths. */
struct ckpt_disk {
	bool		 present;	/* some checkpoint file was given */
	int		*broken;	/* steps whose files are incomplete */
	size_t		 nbroken;
	int		*complete;	/* steps whose files look whole */
	size_t		 ncomplete;
	int		 tracker;	/* the step a tracker file names, or RL_NONE */
	int		 tracker_source;/* that file's source, or RL_NONE */
	struct rl_evlist evidence;	/* what the files show */
};
void		 ckptdir_check(struct rl_incident *, struct ckpt_disk *);

/* context.c: the lines around a failure, from the model. */
const char	*event_context(const struct rl_incident *,
		     const struct rl_event *, int64_t *);
int		 context_cut(const char *, size_t, size_t, bool, uint64_t,
		     char **, int64_t *);
void		 context_free(struct rl_context *);
void		 context_list_free(struct rl_source *);

/* capture.c: named values of an event's line, read back on demand. */
char		*event_capture(const struct rl_event *, const char *);
bool		 event_capture_num(const struct rl_event *, const char *,
		     double *);
bool		 rule_has_capture(const struct rl_rule *, const char *);
bool		 rule_has_named(const struct rl_rule *, const char *, uint64_t);
bool		 text_key_num(const char *, const char *, double *);
char		*text_key_str(const char *, const char *);
bool		 pci_normalize(const char *, char *, size_t);
const char	*event_host(const struct rl_incident *, const struct rl_event *);

/* join.c: hardware and kernel lines joined to ranks (PCI address, pid). */
void		 join_resolve(struct rl_incident *);
int		 join_pci_rank(const struct rl_incident *, const char *,
		     const char *);

/* skew.c: each host's clock offset, from the step lines of every rank. */
void		 skew_estimate(struct rl_incident *);
int64_t		 skew_utc_ms(const struct rl_incident *, const struct rl_time *,
		     const char *);
int		 skew_cmp(const struct rl_incident *, const struct rl_time *,
		     const char *, const struct rl_time *, const char *, bool *);

/* hang.c: collective progress at a timeout, the hang's start. */
void		 hang_analyze(struct rl_incident *);

/* evidence.c: the reasons for each answer. */
void		 evlist_add(struct rl_evlist *, const struct rl_incident *, int,
		     enum rl_stance, const char *, ...)
		     __attribute__((format(printf, 5, 6)));
void		 evlist_add_file(struct rl_evlist *, int, const char *,
		     enum rl_stance, const char *, ...)
		     __attribute__((format(printf, 5, 6)));
void		 evlist_move(struct rl_evlist *, struct rl_evlist *);
void		 evlist_free(struct rl_evlist *);
void		 evidence_first(struct rl_incident *);
void		 evidence_verdict(struct rl_incident *);
const char	*stance_name(enum rl_stance);
const char	*confidence_level(double);

/* capacity.c: vLLM's memory budget and what one change would give. */
void		 capacity_build(struct rl_incident *);

/* advice.c: the evidence checklist and the next steps. */
void		 advice_build(struct rl_incident *);
const char	*check_name(enum rl_check);
const char	*check_key(enum rl_check);
int		 check_lookup(const char *);
const char	*advice_kind_name(enum rl_advice_kind);
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
 * SQL).  The incident borrows it; its filler frees it with history_free.
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

void		 fingerprint_template(const char *, const char *const *, size_t,
		     struct buf *);
int		 fingerprint_find_pci(const char *, char *, size_t);
int		 fingerprint_pci(const char *, char *, size_t);
int		 fingerprint_pci_busid(const char *, char *, size_t);
const char	*fingerprint_event_host(const struct rl_incident *,
		     const struct rl_event *);
char		*fingerprint_make(int, const char *, const char *, const char *);
void		 fingerprint_signature(const struct rl_incident *,
		     struct rl_signature *);
void		 fingerprint_signature_free(struct rl_signature *);
void		 fingerprint_incident(struct rl_incident *);
void		 history_free(struct rl_history *);
const char	*offender_kind_name(enum rl_offender_kind);

const char	*job_fact_name(enum job_fact);	/* "name", "id", ... "world_size" */
void		 job_scan(struct rl_job *, const char *, size_t);
void		 job_head_feed(struct job_head *, struct rl_job *, const char *,
		     const char *, size_t);
void		 job_head_end(struct job_head *, struct rl_job *, const char *);
void		 job_merge(struct rl_job *, const struct rl_job *);
void		 job_path(struct rl_job *, const char *);
void		 job_identity(const struct rl_incident *, struct rl_job *);
void		 job_free(struct rl_job *);

/* journal.c: a line of journalctl -o json, read as its message. */
struct journal_entry {
	char		 host[256];	/* _HOSTNAME, or empty */
	int		 pid;		/* _PID, or RL_NONE */
};
bool		 journal_unwrap(const char *, size_t, struct buf *,
		     struct journal_entry *);

/* report-json.c */
void		 report_json(const struct rl_incident *, struct buf *, FILE *);
void		 report_text(const struct rl_incident *, struct buf *);

#endif
