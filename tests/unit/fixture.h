/*
 * fixture.h: what many unit tests share, so that none keeps a copy of it.
 *
 * A temporary tree of files (tree_*): logs written under one folder,
 * their folders made on the way, and all of it removed again, files
 * before their folders.  The rule packs a test reads (the shipped ones or
 * an inline one), loaded with the check that they load.  One log held in
 * a string, read from a file of its own and diagnosed (alone, or through
 * the pipeline as analyze reads its arguments), and the first failure it
 * gives.  And the context a read of the whole text would
 * cut around a line, which the model's contexts must equal.
 *
 * Header-only, as tap.h is, whose check counters its checks share.
 */
#ifndef RL_FIXTURE_H
#define RL_FIXTURE_H

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "tap.h"

static char	  tree_root[] = "/tmp/rl-test-tree-XXXXXX"; /* its folder */
static char	**tree_made;	/* files and folders made, to remove */
static size_t	  tree_nmade;	/* how many */
static size_t	  tree_cmade;	/* tree_made's room */

/* Make a new temporary folder for the tree. */
static inline void
tree_create(void)
{
	/* mkdtemp wrote the last one's name over the template. */
	memcpy(tree_root + strlen(tree_root) - 6, "XXXXXX", 6);
	if (mkdtemp(tree_root) == NULL)
		fatal("mkdtemp: %s", strerror(errno));
}

/* Remember a path to remove. */
static inline void
tree_made_add(const char *path)
{
	tree_made = array_grow(tree_made, tree_nmade, &tree_cmade,
	    sizeof *tree_made);
	tree_made[tree_nmade++] = xstrdup(path);
}

/* Write n bytes to a file under the tree, making its folders; its path. */
static inline const char *
tree_put_bytes(const char *rel, const void *p, size_t n)
{
	char	 path[1024], *s;
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", tree_root, rel);
	for (s = path + strlen(tree_root) + 1; (s = strchr(s, '/')) != NULL;
	    s++) {
		*s = '\0';
		if (mkdir(path, 0700) == 0)
			tree_made_add(path);
		else if (errno != EEXIST)
			fatal("mkdir %s", path);
		*s = '/';
	}
	if ((f = fopen(path, "w")) == NULL)
		fatal("cannot write %s", path);
	fwrite(p, 1, n, f);
	fclose(f);
	tree_made_add(path);
	return tree_made[tree_nmade - 1];
}

/* Write a text to a file under the tree, making its folders; its path. */
static inline const char *
tree_put(const char *rel, const char *text)
{
	return tree_put_bytes(rel, text, strlen(text));
}

/* Remove what was put, files before their folders; keep the folder. */
static inline void
tree_empty(void)
{
	while (tree_nmade > 0) {
		tree_nmade--;
		if (unlink(tree_made[tree_nmade]) != 0)
			rmdir(tree_made[tree_nmade]);
		free(tree_made[tree_nmade]);
	}
}

/* Remove what was put and the folder; tree_create makes another. */
static inline void
tree_remove(void)
{
	tree_empty();
	rmdir(tree_root);
	free(tree_made);
	tree_made = NULL;
	tree_cmade = 0;
}

/* Read the tree as analyze reads a folder, checked, and diagnose it. */
static inline struct rl_incident *
tree_analyze(struct ruleset *rs)
{
	struct rl_incident	*inc = incident_create(rs);
	char			*argv[] = { tree_root };

	is_int(pipeline_read(inc, 1, argv, NULL, NULL, 1), 0,
	    "the folder is read");
	pipeline_diagnose(inc);
	return inc;
}

/* The shipped packs, checked to load. */
static inline struct ruleset *
rules_shipped(void)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };

	is_int(ruleset_load_defaults(rs, &e), 0, "the shipped packs load");
	ruleset_finish(rs);
	errlist_clear(&e);
	return rs;
}

/* A pack held in a string, checked to load. */
static inline struct ruleset *
rules_inline(const char *pack)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };

	is_int(ruleset_load(rs, "inline", pack, strlen(pack), &e), 0,
	    "the inline pack loads");
	ruleset_finish(rs);
	errlist_clear(&e);
	return rs;
}

/* Write a log held in a string to a file of its own; its path. */
static inline void
text_file(char *path, const char *text)
{
	int	fd;

	if ((fd = mkstemp(path)) == -1 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fatal("cannot write %s", path);
	close(fd);
}

/* Read and diagnose one log held in a string, as a file read alone. */
static inline struct rl_incident *
run(struct ruleset *rs, const char *text)
{
	struct rl_incident	*inc = incident_create(rs);
	char			 path[] = "/tmp/rl-test-log-XXXXXX";

	/* A real file, since a hang's culprit line is read back from it. */
	text_file(path, text);
	source_add_path(inc, path);
	source_file_read(inc, inc->sources[0], NULL, NULL);
	pipeline_diagnose(inc);
	unlink(path);
	return inc;
}

/* Read and diagnose one log held in a string, as analyze reads it. */
static inline struct rl_incident *
run_pipeline(struct ruleset *rs, const char *text)
{
	struct rl_incident	*inc = incident_create(rs);
	char			 path[] = "/tmp/rl-test-log-XXXXXX";
	char			*argv[] = { path };

	text_file(path, text);
	pipeline_read(inc, 1, argv, NULL, NULL, 1);
	pipeline_diagnose(inc);
	unlink(path);
	return inc;
}

/* The first failure's event, or NULL. */
static inline const struct rl_event *
first(const struct rl_incident *inc)
{
	return inc->answer.first == RL_NONE ? NULL :
	    inc->events[inc->answer.first];
}

/* The rule of the first failure, or "(none)". */
static inline const char *
first_rule(const struct rl_incident *inc)
{
	const struct rl_event	*e = first(inc);

	return e != NULL && e->rule != NULL ? e->rule->id : "(none)";
}

/* The cut of the whole text around the line at offset, number line. */
static inline char *
cut_whole(const char *text, size_t off, uint64_t line, int64_t *firstp)
{
	size_t	before = off < CONTEXT_BYTES ? off : CONTEXT_BYTES;
	size_t	n = strlen(text) - (off - before);
	char	*out;

	if (n > 2 * CONTEXT_BYTES)
		n = 2 * CONTEXT_BYTES;
	if (context_cut(text + off - before, n, before, off - before > 0,
	    line, &out, firstp) != 0)
		return NULL;
	return out;
}

#endif
