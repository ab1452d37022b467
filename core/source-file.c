/*
 * source-file.c: files and folders named on the command line.
 *
 * A folder is walked recursively (in name order, so runs are repeatable); a
 * path that does not exist but holds glob characters is expanded.  A file
 * that looks binary (a NUL byte near its start, as checkpoint shards have)
 * is listed and skipped; gzip-compressed logs are read through zlib.  A
 * path that cannot be read is named in the incident's errors and the rest
 * are still read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core.h"

#define READ_CHUNK	(1024 * 1024)
#define SNIFF_BYTES	4096		/* how far to look for NUL bytes */
#define WALK_DEPTH	32		/* folders deeper than this are skipped */

/* Sort names for a stable walk. */
static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int source_walk(struct rl_incident *, const char *, int);

/* Add every entry of a folder. */
static int
source_walk_dir(struct rl_incident *inc, const char *dir, int depth)
{
	DIR		*d;
	struct dirent	*de;
	char		**names = NULL, *p;
	size_t		  n = 0, i;
	int		  rv = 0;

	if ((d = opendir(dir)) == NULL) {
		errlist_add(&inc->errors, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;	/* ".", ".." and hidden files */
		names = xreallocarray(names, n + 1, sizeof *names);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, name_cmp);
	for (i = 0; i < n; i++) {
		if (strcmp(dir, ".") == 0)
			p = xstrdup(names[i]);
		else
			xasprintf(&p, "%s%s%s", dir,
			    dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
		if (source_walk(inc, p, depth + 1) != 0)
			rv = -1;
		free(p);
		free(names[i]);
	}
	free(names);
	return rv;
}

/* Add a file, or the files under a folder. */
static int
source_walk(struct rl_incident *inc, const char *path, int depth)
{
	struct stat	sb;

	if (stat(path, &sb) != 0) {
		errlist_add(&inc->errors, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(sb.st_mode)) {
		if (depth >= WALK_DEPTH) {
			errlist_add(&inc->errors, "%s: deeper than %d folders, "
			    "skipped", path, WALK_DEPTH);
			return -1;
		}
		return source_walk_dir(inc, path, depth);
	}
	if (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode) &&
	    !S_ISCHR(sb.st_mode)) {
		errlist_add(&inc->errors, "%s: not a file or folder", path);
		return -1;
	}
	incident_add_source(inc, path, SOURCE_FILE);
	return 0;
}

/*
 * Add the sources a command-line path names.  Returns 0, or -1 when the
 * path (or part of a folder) could not be read; the reason is in
 * inc->errors and the rest is still added.
 */
int
source_add_path(struct rl_incident *inc, const char *path)
{
	glob_t	g;
	size_t	i;
	int	rv = 0;

	if (access(path, F_OK) != 0 && strpbrk(path, "*?[") != NULL) {
		if (glob(path, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
			errlist_add(&inc->errors, "%s: no file matches", path);
			return -1;
		}
		for (i = 0; i < g.gl_pathc; i++) {
			if (source_walk(inc, g.gl_pathv[i], 0) != 0)
				rv = -1;
		}
		globfree(&g);
		return rv;
	}
	return source_walk(inc, path, 0);
}

/* Does this first chunk look like a binary file rather than a log? */
static bool
looks_binary(const char *p, size_t n)
{
	return memchr(p, '\0', n < SNIFF_BYTES ? n : SNIFF_BYTES) != NULL;
}

/* Read a gzip-compressed file through zlib. */
static int
source_read_gzip(struct ingest *in, struct rl_source *src, int fd, char *chunk)
{
	gzFile	gz;
	int	n, err;

	if ((gz = gzdopen(fd, "rb")) == NULL) {
		xasprintf(&src->error, "%s: cannot open as gzip", src->path);
		close(fd);
		return -1;
	}
	gzbuffer(gz, 256 * 1024);
	while ((n = gzread(gz, chunk, READ_CHUNK)) > 0)
		ingest_feed(in, chunk, (size_t)n);
	if (n < 0) {
		xasprintf(&src->error, "%s: %s", src->path, gzerror(gz, &err));
		gzclose(gz);
		return -1;
	}
	gzclose(gz);
	return 0;
}

/* Read a file to its end through the line pipeline. */
int
source_file_read(struct rl_incident *inc, struct rl_source *src,
    ingest_line_cb cb, void *arg)
{
	struct ingest	*in;
	struct stat	 sb;
	char		*chunk;
	ssize_t		 n;
	int		 fd, rv = 0;
	bool		 first = true;

	attrib_path(inc->rules, src);
	if ((fd = open(src->path, O_RDONLY | O_CLOEXEC)) == -1) {
		xasprintf(&src->error, "%s: %s", src->path, strerror(errno));
		errlist_add(&inc->errors, "%s", src->error);
		return -1;
	}
	clock_init(&src->clock, fstat(fd, &sb) == 0 ? (int64_t)sb.st_mtime :
	    (int64_t)time(NULL));
	in = ingest_create(inc, src);
	ingest_set_line_cb(in, cb, arg);
	chunk = xmalloc(READ_CHUNK);
	for (;;) {
		if ((n = read(fd, chunk, READ_CHUNK)) == -1) {
			if (errno == EINTR)
				continue;
			xasprintf(&src->error, "%s: %s", src->path,
			    strerror(errno));
			rv = -1;
			break;
		}
		if (n == 0)
			break;
		if (first) {
			first = false;
			if (n >= 2 && (uint8_t)chunk[0] == 0x1f &&
			    (uint8_t)chunk[1] == 0x8b) {
				lseek(fd, 0, SEEK_SET);
				rv = source_read_gzip(in, src, fd, chunk);
				fd = -1;
				break;
			}
			if (looks_binary(chunk, (size_t)n)) {
				src->binary = true;
				break;
			}
		}
		ingest_feed(in, chunk, (size_t)n);
	}
	if (fd != -1)
		close(fd);
	ingest_flush(in);
	ingest_free(in);
	free(chunk);
	if (rv != 0)
		errlist_add(&inc->errors, "%s", src->error);
	return rv;
}
