/*
 * evidence-fixture.h: what test-evidence.c and test-hang.c share: logs
 * written into a temporary tree (fixture.h's), read with the shipped rule
 * packs and diagnosed as `rankline analyze` does, and the checks on the
 * evidence the answers give.
 */
#ifndef RL_EVIDENCE_FIXTURE_H
#define RL_EVIDENCE_FIXTURE_H

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "fixture.h"

static struct ruleset	*rules;	/* the shipped packs */

/* Write a file under the tree: the text, or n raw bytes when n > 0. */
static inline void
put(const char *rel, const char *text, size_t n)
{
	tree_put_bytes(rel, text, n > 0 ? n : strlen(text));
}

/* Analyze the root folder as a whole. */
static inline struct rl_incident *
analyze(void)
{
	struct rl_incident	*inc = incident_create(rules);
	size_t			 i;

	source_add_path(inc, tree_root);
	for (i = 0; i < inc->nsources; i++)
		source_file_read(inc, inc->sources[i], NULL, NULL);
	pipeline_diagnose(inc);
	return inc;
}

/* Does an evidence list hold an item whose "shows" has s, of a stance? */
static inline bool
has_ev(const struct rl_evlist *l, const char *s, enum rl_stance st)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].stance == st && strstr(l->v[i].shows, s) != NULL)
			return true;
	}
	return false;
}

/* Is a string there and does it hold s? */
static inline bool
says(const char *text, const char *s)
{
	return text != NULL && strstr(text, s) != NULL;
}

/* A Megatron-style iteration line of a rank, at hh:mm:ss,mmm. */
static inline void
step_line(struct buf *b, const char *hms, int rank, int step)
{
	buf_printf(b, "2026-12-02 %s INFO     [rank%d] train: iteration %6d/"
	    "    30 | lm loss: 9.9E-01 | grad norm: 0.4 | elapsed time per "
	    "iteration (ms): 90.1\n", hms, rank, step);
}

#endif
