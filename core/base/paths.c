/*
 * paths.c: where rankline's data files live.
 *
 * The shipped packs and themes are found, in order, next to the binary in a
 * build tree (so `./rankline` works before `make install`), in the source
 * tree the build came from, and in pkgdatadir; when none exists (one binary
 * copied alone to a head node) the copy compiled into the binary serves.
 * The user's own files come from the XDG folders.
 */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

#ifndef RL_PKGDATADIR
#define RL_PKGDATADIR "/usr/local/share/rankline"
#endif
#ifndef RL_SRCDIR
#define RL_SRCDIR ""
#endif
#ifndef RL_BUILDDIR
#define RL_BUILDDIR ""
#endif

/* Is this a directory? */
static bool
is_dir(const char *p)
{
	struct stat	sb;

	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The folder holding the running binary, or NULL. */
static char *
exe_dir(void)
{
	char	buf[PATH_MAX];
	ssize_t	n;
	char	*slash;

	if ((n = readlink("/proc/self/exe", buf, sizeof buf - 1)) <= 0)
		return NULL;
	buf[n] = '\0';
	if ((slash = strrchr(buf, '/')) == NULL)
		return NULL;
	*slash = '\0';
	return xstrdup(buf);
}

/*
 * The shipped folder `what` ("rules" or "themes"), or NULL when only the
 * embedded copy is there.  RANKLINE_DATADIR overrides, for tests.
 */
char *
paths_datadir(const char *what)
{
	const char	*env;
	char		*dir, *p;

	if ((env = getenv("RANKLINE_DATADIR")) != NULL && *env != '\0') {
		xasprintf(&p, "%s/%s", env, what);
		if (is_dir(p))
			return p;
		free(p);
		return NULL;
	}
	if ((dir = exe_dir()) != NULL) {
		xasprintf(&p, "%s/%s", dir, what);
		if (is_dir(p)) {
			free(dir);
			return p;
		}
		free(p);
		/* A build tree apart from its sources (make distcheck). */
		if (RL_SRCDIR[0] == '/' && strcmp(dir, RL_BUILDDIR) == 0) {
			xasprintf(&p, "%s/%s", RL_SRCDIR, what);
			if (is_dir(p)) {
				free(dir);
				return p;
			}
			free(p);
		}
		free(dir);
	}
	xasprintf(&p, "%s/%s", RL_PKGDATADIR, what);
	if (is_dir(p))
		return p;
	free(p);
	return NULL;
}

/* $XDG_CONFIG_HOME/rankline/what, else ~/.config/rankline/what. */
char *
paths_user_config(const char *what)
{
	const char	*x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char		*p;

	if (x != NULL && *x == '/')
		xasprintf(&p, "%s/rankline/%s", x, what);
	else if (home != NULL && *home != '\0')
		xasprintf(&p, "%s/.config/rankline/%s", home, what);
	else
		return NULL;
	return p;
}

/* $XDG_DATA_HOME/rankline/what, else ~/.local/share/rankline/what. */
char *
paths_user_data(const char *what)
{
	const char	*x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	char		*p;

	if (x != NULL && *x == '/')
		xasprintf(&p, "%s/rankline/%s", x, what);
	else if (home != NULL && *home != '\0')
		xasprintf(&p, "%s/.local/share/rankline/%s", home, what);
	else
		return NULL;
	return p;
}

/* Sort names for a stable order. */
static int
paths_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names in a folder that end in suffix (NULL: every name), in name
 * order, without "." and hidden files, so walks and loads are repeatable.
 * Returns NULL with errno set when the folder cannot be read; the caller
 * frees each name and the array.
 */
char **
paths_list(const char *dir, const char *suffix, size_t *np)
{
	DIR		*d;
	struct dirent	*de;
	char		**names;
	size_t		  n = 0, len, slen = suffix ? strlen(suffix) : 0;

	*np = 0;
	if ((d = opendir(dir)) == NULL)
		return NULL;
	names = xmalloc(sizeof *names);
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len <= slen || (suffix != NULL &&
		    strcmp(de->d_name + len - slen, suffix) != 0))
			continue;
		names = xreallocarray(names, n + 1, sizeof *names);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, paths_name_cmp);
	*np = n;
	return names;
}
