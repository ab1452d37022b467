/*
 * rules-int.h: the inside of a ruleset, shared by the rule engine's files:
 * rules.c (compile), rules-match.c (match), rules-shape.c (the line shape
 * memo), prefilter.c (literals), rules-parse.c (the pack format),
 * rules-load.c, rules-check.c (validation) and rules-backtrack.c; and by
 * the reader (ingest.c, attrib.c), which drives the scan and the peels.
 * It includes rules.h alone: the engine sees nothing of the incident.
 */
#ifndef RANKLINE_RULES_INT_H
#define RANKLINE_RULES_INT_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "rules.h"

/* What a literal found by the prefilter points at. */
#define TARGET_ATTRIB	0x80000000u	/* else a rule index */
#define TARGET_ESC	0x7fffffffu	/* the escape byte: a colour code */

/*
 * The multi-literal prefilter (see prefilter.c): literals of seven bytes or
 * more are found by a hashed set of four consecutive four-byte anchors of
 * each, probed at every fourth position; shorter ones by two of their
 * bytes, or (under three bytes) by memchr.
 */
#define PF_BITS		16		/* bits of the hash */
#define PF_LEARN_BYTES	(256 * 1024)	/* input seen before re-anchoring */
#define PF_SLOTS	(1u << PF_BITS)
#define PF_STRIDE	4		/* positions apart the set is probed */
#define PF_LONG		(PF_STRIDE + 3)	/* bytes a literal needs for the set */
#define PF_MID		3		/* bytes a literal needs for two probes */

struct prefilter {
	uint32_t	 bits[PF_SLOTS / 32];/* hashes some literal's anchor has */
	uint32_t	*start;		/* per hash: first of its items (CSR) */
	uint32_t	*items;		/* literal indexes, bucketed by hash */
	uint32_t	*item_off;	/* per item: the anchor's offset in it */
	char		**lit;		/* the distinct literals, owned */
	uint32_t	*len;		/* their lengths */
	uint32_t	*anchor;	/* offset of the first anchor */
	uint32_t	*head;		/* its first four bytes, as a word */
	uint32_t	*first;		/* per literal: first output + 1, or 0 */
	size_t		 nlit;
	uint32_t	*mid_lit;	/* literals of PF_MID to PF_LONG-1 bytes */
	uint8_t		*mid_off;	/* per mid literal: its three bytes' */
	size_t		 nmid;
	uint8_t		 mid_lo[PF_MID][16];/* per byte of three: low nibble */
	uint8_t		 mid_hi[PF_MID][16];/* and high: -> buckets (bits) */
	uint32_t	 mid_start[9];	/* per bucket: first of mid_by (CSR) */
	uint32_t	*mid_by;	/* mid literals, by bucket */
	uint32_t	*short_lit;	/* literals under PF_MID bytes */
	size_t		 nshort;
	uint32_t	*outnext;	/* outputs chained: next index + 1, or 0 */
	uint32_t	*outtarget;	/* output -> target */
	size_t		 nout;
	bool		 built;		/* there is a literal to find */
	bool		 avx2;		/* probe thirty-two positions at a time */
	uint16_t	*seen;		/* per hash: words of input seen, learning */
	size_t		 learnt;	/* bytes of input learnt from */
};

/* Hits of a scan: where a literal starts, and which literal. */
struct pf_hit {
	uint32_t	 pos;		/* offset of the literal's first byte */
	uint32_t	 lit;		/* index among pf->lit */
};
struct pf_list {
	struct pf_hit	*v;
	size_t		 n;
	size_t		 cap;
};
struct pf_hits {
	struct pf_list	 all;		/* the scan's hits, in order */
	struct pf_list	 tmp;		/* scratch: the other literals' hits */
	struct pf_list	 tmp2;
};

/*
 * What peeling a line's prefixes came to, remembered by the line's first
 * bytes with its digits masked (see ingest_peel): the prefixes that matched,
 * in order, after which none did.
 */
#define PEEL_MEMO_KEY	64		/* bytes of a line the memo keys on */
#define PEEL_MEMO_HASHED 32		/* of them, hashed for the slot */
#define PEEL_MEMO_SLOTS	256
#define PEEL_MEMO_WAYS	4		/* entries a key may be in */
#define PEEL_MEMO_STEPS	8
#define PEEL_CAPS	4		/* local rank, rank, pid, host */
struct peel_step {
	uint16_t	 attrib;	/* index in the ruleset */
	uint8_t		 pat;		/* which of its patterns */
	uint8_t		 len;		/* bytes it peeled */
	uint8_t		 cap[PEEL_CAPS][2];/* where each capture was in what
					   it peeled, or UINT8_MAX */
};
struct peel_raw;

struct peel_memo {
	bool		 used;
	uint32_t	 stamp;		/* when last used, for replacing */
	uint8_t		 klen;		/* bytes keyed: the line's, up to the key */
	bool		 whole;		/* they were the whole line */
	uint8_t		 nstep;
	uint8_t		 key[PEEL_MEMO_KEY];/* the bytes, digits as '0' */
	struct peel_step step[PEEL_MEMO_STEPS];
	uint8_t		 rawlen;	/* bytes the last line's prefixes took, or 0 */
	uint8_t		 rawidle;	/* prefixes copied into raw since a
					   line last took the one there */
	uint8_t		 raw[PEEL_MEMO_KEY];/* those bytes as they were */
	int		 local_rank;	/* and what they named */
	int		 rank;
	int		 pid;
	char		 host[64];
};

struct ruleset {
	struct rl_rule	**rules;	/* owned, in load order */
	size_t		 nrules;
	struct rl_attrib **attribs;	/* owned */
	size_t		 nattribs;
	struct rl_knob	**knobs;	/* owned */
	size_t		 nknobs;
	struct rl_pack	*packs;		/* owned: the packs loaded, in order */
	size_t		 npacks;
	size_t		 packs_cap;
	uint32_t	*always;	/* targets with no literal: always tried */
	size_t		 nalways;
	struct prefilter pf;
	bool		 finished;	/* the prefilter is built */
	pcre2_match_data *md;		/* one, reused: the engine is one thread */
	pcre2_match_context *mctx;	/* match and depth limits */
	pcre2_jit_stack	*jit;		/* bounded JIT stack */
	uint32_t	*stamp;		/* per target: last scan that found it */
	uint32_t	 gen;		/* current scan number */
	const uint32_t	*cand;		/* candidates of the current scan: cand_buf,
					   or a kept shape's (rules-shape.c) */
	uint32_t	*cand_buf;	/* owned: what a scan fills */
	size_t		 ncand;
	bool		 cand_esc;	/* the scanned bytes hold an escape */
	uint64_t	 limit_hits;	/* matches cut short by a pcre2 limit */
	uint64_t	*limit_by;	/* the same, per rule, then per attrib
					   (target_slot); a clone's its own */
	size_t		 nlimit_by;
	struct errlist	 warns;		/* loading's warnings: an id twice in a
					   pack, each with its file:line */
	struct pf_hits	 line_hits;	/* scratch of a one-line scan */
	struct pf_hits	 block_hits;	/* scratch of a block scan: one per
					   ruleset, not per source */
	struct peel_memo *memo;		/* PEEL_MEMO_SLOTS, or NULL: no memo */
	struct peel_raw	*peel_raw;	/* what exact prefixes named, made on
					   first use (ingest-peel.c), or NULL */
	uint32_t	 memo_clock;	/* stamps memo entries */
	struct shape_memo *shapes;	/* lines named by their shape
					   (rules-shape.c), or NULL */
	char		**dlit;		/* the literals that hold a digit, digits
					   as '0'; a clone's are its parent's */
	size_t		 ndlit;
	bool		 borrowed;	/* a clone: rules, attribs, knobs and the
					   prefilter are its parent's */
};

/* rules.c: compiling */
int		 pattern_compile(struct rl_pattern *, const char *, char **);
void		 pattern_clear(struct rl_pattern *);
size_t		 pattern_literals(const char *, char ***);
void		 rule_free(struct rl_rule *);
void		 attrib_free(struct rl_attrib *);

/* rules-match.c */
void		 ruleset_scan_begin(struct ruleset *);
void		 ruleset_scan_lit(struct ruleset *, uint32_t);
void		 ruleset_scan_block(struct ruleset *, const char *, size_t,
		     struct pf_hits *);
void		 ruleset_scan_line(struct ruleset *, const char *, size_t);
bool		 ruleset_match_cands(struct ruleset *, const char *, size_t,
		     struct rl_match *);
int		 ruleset_match_partial(struct ruleset *,
		     const struct rl_pattern *, const char *, size_t, size_t *);

/* rules-backtrack.c */
bool		 pattern_backtracks(const char *, size_t *, size_t *);

/* rules-shape.c */
void		 digits_mask(const char *, size_t, uint8_t *);
void		 shape_init(struct ruleset *);
void		 shape_free(struct ruleset *);
unsigned	 shape_same_each(const char *, const uint8_t *, size_t, unsigned *);
size_t		 ruleset_shape_scan(struct ruleset *, const char *, size_t);
bool		 ruleset_match_shape(struct ruleset *, const char *, size_t,
		     size_t, struct rl_match *);
bool		 ruleset_shapes(struct ruleset *);
bool		 ruleset_shape_bare(const struct ruleset *);
bool		 ruleset_shape_prefixed(const struct ruleset *);
uint64_t	 ruleset_shape_token(const struct ruleset *);
uint64_t	 ruleset_shape_hits(const struct ruleset *);

/* prefilter.c */
bool		 pattern_digit_blind(const char *);
void		 prefilter_build(struct prefilter *, char **, uint32_t *,
		     size_t);
void		 prefilter_clear(struct prefilter *);
void		 prefilter_learn(struct prefilter *, const uint8_t *, size_t);
void		 prefilter_learnt(struct prefilter *);
void		 prefilter_scan(const struct prefilter *, const uint8_t *,
		     size_t, struct pf_hits *);
void		 pf_hits_clear(struct pf_hits *);

#endif
