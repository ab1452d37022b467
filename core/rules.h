/*
 * rules.h: the rule engine, what the rest of rankline sees of it: the rule
 * packs' vocabulary (roles, domains, groups, marks, captures, checklist
 * items), a rule, an attribution form and a knob as parsed, the ruleset
 * that holds them, and the matcher.  rules-int.h is its inside.
 *
 * It stands on base.h alone: the rule layer knows nothing of the incident
 * or the diagnosis, which depend on it and never the other way round.
 */
#ifndef RANKLINE_RULES_H
#define RANKLINE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"

#define RL_CAP_UNSET	INT64_MIN	/* a capture the line did not have */
#define RL_REF_NONE	INT32_MIN	/* a context key naming nothing known */

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
	MARK_ALIVE,		/* a process at work: a request served, a retry */
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
	CAP_DEAD_RANK,		/* the rank of a dead worker the line names */
	CAP_NCAPS
};

/*
 * Numeric captures one pattern may name: an event keeps this many
 * (model.h's EVENT_CAPS), and the parser refuses a pattern with more.
 */
#define RULE_NCAPS	6

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
	bool		 ckpt_write;	/* a failure while writing a checkpoint */
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
	uint32_t	 cap_fields;	/* diag-capacity.c's: which of the
					   memory budget's numbers it names,
					   as bits, with CAP_FIELDS_KNOWN once
					   worked out (by any thread: atomic) */
	bool		 blind;		/* every pattern treats digits alike */
	uint8_t		 ncaps;		/* the most numeric captures one of
					   its patterns names: the room its
					   kept events have (EVENT_SIZE) */
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
/*
 * A pack as loaded: packs carry no version of their own, so a report names
 * each by its file and a hash of its bytes (which pack text judged).
 */
struct rl_pack {
	char		*name;		/* "torch", the file's name less .rules */
	char		*path;		/* as loaded: a path, or "(built in)/..." */
	char		 hash[13];	/* 12 hex digits of FNV-1a of the bytes */
};
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
size_t		 ruleset_packs(const struct ruleset *, const struct rl_pack **);
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

int64_t		 signal_number(const char *, size_t);
const char	*signal_name(int64_t);

/*
 * A known capture as a number, or RL_CAP_UNSET; a signal may be named
 * (signal_number).  Inline: every matched line of a run (steps, counts)
 * reads its numbers through it.  An unset group's offset is pcre2's
 * PCRE2_UNSET, SIZE_MAX (rules.c checks).
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
			return c == CAP_SIGNAL && !neg ?
			    signal_number(s + m->ovec[2 * g],
			    b - m->ovec[2 * g]) : RL_CAP_UNSET;
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

/*
 * The items of the evidence checklist: a rule names those its line fills
 * (checklist = versions, gpu); advice.c tells what each is and how to get it.
 */
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
const char	*check_key(enum rl_check);	/* as packs name it: "gpu" */
int		 check_lookup(const char *);	/* a key's item, or -1 */

#endif
