/*
 * rules-int.h: the inside of a ruleset, shared by rules.c (compile and
 * match), rules-parse.c (the pack format) and rules-check.c (validation).
 * Nothing outside those three files includes it.
 */
#ifndef RANKLINE_RULES_INT_H
#define RANKLINE_RULES_INT_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "core.h"

/* What a literal found by the prefilter points at. */
#define TARGET_ATTRIB	0x80000000u	/* else a rule index */

#define PF_OUT	0x80000000u	/* in delta: the state ends a literal */

/* The multi-literal prefilter: an Aho-Corasick automaton as a dense DFA. */
struct prefilter {
	uint8_t		 cls[256];	/* byte -> equivalence class */
	unsigned	 ncls;		/* classes, 0 is "not in any literal" */
	uint32_t	*delta;		/* nstates x ncls: next row offset | PF_OUT */
	uint32_t	*out;		/* per state: first output index + 1, or 0 */
	uint32_t	*outnext;	/* outputs chained: next index + 1, or 0 */
	uint32_t	*outtarget;	/* output -> target */
	size_t		 nstates;
	size_t		 nout;
};

struct ruleset {
	struct rl_rule	**rules;	/* owned, in load order */
	size_t		 nrules;
	struct rl_attrib **attribs;	/* owned */
	size_t		 nattribs;
	struct rl_knob	**knobs;	/* owned */
	size_t		 nknobs;
	uint32_t	*always;	/* targets with no literal: always tried */
	size_t		 nalways;
	struct prefilter pf;
	bool		 finished;	/* the prefilter is built */
	pcre2_match_data *md;		/* one, reused: the engine is one thread */
	pcre2_match_context *mctx;	/* match and depth limits */
	pcre2_jit_stack	*jit;		/* bounded JIT stack */
	uint32_t	*stamp;		/* per target: last scan that found it */
	uint32_t	 gen;		/* current scan number */
	uint32_t	*cand;		/* candidates of the current scan */
	size_t		 ncand;
	uint64_t	 limit_hits;	/* matches cut short by a pcre2 limit */
};

/* rules.c */
int		 pattern_compile(struct rl_pattern *, const char *, char **);
void		 pattern_free(struct rl_pattern *);
size_t		 pattern_literals(const char *, char ***);
void		 rule_free(struct rl_rule *);
void		 attrib_free(struct rl_attrib *);

/* prefilter.c */
void		 prefilter_build(struct prefilter *, char **, uint32_t *,
		     size_t);
void		 prefilter_free(struct prefilter *);

#endif
