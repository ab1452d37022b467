/*
 * rules-load.c: which packs are read, and in what order.  The shipped packs
 * come first (from disk when present, else the copy compiled into the
 * binary), then the user's, which add rules or replace them by id.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules-int.h"

#define PACK_MAX	(16 * 1024 * 1024)	/* a pack larger than this is a mistake */

/* Read a whole small file; NULL and *cause on failure. */
static char *
slurp(const char *path, size_t *len, char **cause)
{
	struct buf	b = { 0 };
	char		chunk[65536];
	ssize_t		n;
	int		fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return NULL;
	}
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			xasprintf(cause, "%s: %s", path, strerror(errno));
			close(fd);
			buf_clear(&b);
			return NULL;
		}
		buf_add(&b, chunk, (size_t)n);
		if (b.len > PACK_MAX) {
			xasprintf(cause, "%s: larger than %d bytes", path,
			    PACK_MAX);
			close(fd);
			buf_clear(&b);
			return NULL;
		}
	}
	close(fd);
	*len = b.len;
	return buf_steal(&b);
}

/* Load one pack file; returns the number of errors. */
int
ruleset_load_file(struct ruleset *rs, const char *path, struct errlist *errs)
{
	char	*data, *cause = NULL;
	size_t	 len;
	int	 n;

	if ((data = slurp(path, &len, &cause)) == NULL) {
		errlist_add(errs, "%s", cause);
		free(cause);
		return 1;
	}
	n = ruleset_load(rs, path, data, len, errs);
	free(data);
	return n;
}

/*
 * Every *.rules file of a folder, in name order; returns -1 if the folder
 * cannot be read, else the number of errors.
 */
static int
load_dir(struct ruleset *rs, const char *dir, struct errlist *errs)
{
	char		**names, *p;
	size_t		  n, i;
	int		  nerr = 0;

	if ((names = paths_list(dir, ".rules", &n)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		xasprintf(&p, "%s/%s", dir, names[i]);
		nerr += ruleset_load_file(rs, p, errs);
		free(p);
		free(names[i]);
	}
	free(names);
	return nerr;
}

/* The embedded packs, for a binary that runs alone. */
static int
load_embedded(struct ruleset *rs, struct errlist *errs)
{
	size_t	i, len;
	int	nerr = 0;
	char	*name;

	for (i = 0; i < rl_embedded_nfiles; i++) {
		len = strlen(rl_embedded_files[i].name);
		if (len < 6 || strcmp(rl_embedded_files[i].name + len - 6,
		    ".rules") != 0)
			continue;
		xasprintf(&name, "(built in)/%s", rl_embedded_files[i].name);
		nerr += ruleset_load(rs, name, rl_embedded_files[i].data,
		    rl_embedded_files[i].len, errs);
		free(name);
	}
	return nerr;
}

/*
 * The shipped packs, then the user's.  RANKLINE_NO_USER_RULES=1 leaves the
 * user's out, for tests that must not depend on the machine.
 */
int
ruleset_load_defaults(struct ruleset *rs, struct errlist *errs)
{
	char	*dir;
	int	 nerr = 0, n;
	const char *nouser = getenv("RANKLINE_NO_USER_RULES");

	dir = paths_datadir("rules");
	if (dir == NULL || (n = load_dir(rs, dir, errs)) < 0)
		n = load_embedded(rs, errs);
	nerr += n;
	free(dir);
	if (nouser == NULL || strcmp(nouser, "1") != 0) {
		if ((dir = paths_user_config("rules")) != NULL) {
			if ((n = load_dir(rs, dir, errs)) > 0)
				nerr += n;
			free(dir);
		}
	}
	ruleset_finish(rs);
	return nerr;
}
