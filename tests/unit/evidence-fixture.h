/*
 * evidence-fixture.h: what test-evidence.c and test-hang.c share: logs
 * written into a temporary folder (removed by clean), read with the
 * shipped rule packs and diagnosed as `rankline analyze` does, and the
 * checks on the evidence the answers give.
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
#include "tap.h"

static struct ruleset	*rules;
static char		 root[] = "/tmp/rl-test-evidence-XXXXXX";
static char		*made[256];	/* files and folders made, to remove */
static size_t		 nmade;

/* Make the folders above a path under the root. */
static inline void
mkdirs(const char *rel)
{
	char	path[1024], *p;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(path, 0700) == 0 && nmade < 256)
			made[nmade++] = xstrdup(path);
		else if (errno != EEXIST)
			fatal("mkdir %s", path);
		*p = '/';
	}
}

/* Write a file under the root: the text, or n raw bytes when n > 0. */
static inline void
put(const char *rel, const char *text, size_t n)
{
	char	 path[1024];
	FILE	*f;

	mkdirs(rel);
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if ((f = fopen(path, "w")) == NULL)
		fatal("cannot write %s", path);
	fwrite(text, 1, n > 0 ? n : strlen(text), f);
	fclose(f);
	if (nmade < 256)
		made[nmade++] = xstrdup(path);
}

/* Remove what put and mkdirs made, files before their folders. */
static inline void
clean(void)
{
	while (nmade > 0) {
		nmade--;
		if (unlink(made[nmade]) != 0)
			rmdir(made[nmade]);
		free(made[nmade]);
	}
}

/* Analyze the root folder as a whole. */
static inline struct rl_incident *
analyze(void)
{
	struct rl_incident	*inc = incident_create(rules);
	size_t			 i;

	source_add_path(inc, root);
	for (i = 0; i < inc->nsources; i++)
		source_file_read(inc, inc->sources[i], NULL, NULL);
	pipeline_diagnose(inc);
	return inc;
}

/* The first failure's event, or NULL. */
static inline const struct rl_event *
first(const struct rl_incident *inc)
{
	return inc->answer.first == RL_NONE ? NULL :
	    inc->events[inc->answer.first];
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
