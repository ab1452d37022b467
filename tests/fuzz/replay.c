/*
 * replay.c: a harness without libFuzzer.  Each file named on the command
 * line (each file of a folder named) is given to LLVMFuzzerTestOneInput
 * once, in the order named (a folder's files sorted), so that the seeds
 * and every crash input kept under tests/fuzz/regress run in make check,
 * under the ordinary compiler and under CI's ASan build alike.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Read a whole file; NULL if it cannot be. */
static uint8_t *
replay_read(const char *path, size_t *len)
{
	FILE	*f;
	uint8_t	*p = NULL;
	size_t	 cap = 0, n = 0, got;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap * 2 + 65536;
			p = xrealloc(p, cap);
		}
		got = fread(p + n, 1, cap - n, f);
		n += got;
	} while (got != 0);
	if (ferror(f)) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*len = n;
	return p;
}

/* Run one file; -1 if it cannot be read. */
static int
replay_file(const char *path)
{
	uint8_t	*p, *q;
	size_t	 n;

	if ((q = replay_read(path, &n)) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	p = xmalloc(n);
	memcpy(p, q, n);
	free(q);
	/* Named first: the input that aborts is the last one named. */
	fprintf(stderr, "replay: %s\n", path);
	/* An exact copy: a read past the input's end is then ASan's to see. */
	LLVMFuzzerTestOneInput(p, n);
	free(p);
	return 0;
}

static int
replay_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run every file of a folder, in name order; returns how many. */
static int
replay_dir(const char *dir, int *bad)
{
	struct dirent	 *d;
	DIR		 *dp;
	char		**v = NULL;
	size_t		  n = 0, i;

	if ((dp = opendir(dir)) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		(*bad)++;
		return 0;
	}
	while ((d = readdir(dp)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		v = xreallocarray(v, n + 1, sizeof *v);
		xasprintf(&v[n++], "%s/%s", dir, d->d_name);
	}
	closedir(dp);
	qsort(v, n, sizeof *v, replay_cmp);
	for (i = 0; i < n; i++) {
		if (replay_file(v[i]) != 0)
			(*bad)++;
	}
	strv_free(v, n);
	return (int)n;
}

__attribute__((weak)) int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int
main(int argc, char **argv)
{
	struct stat	sb;
	int		i, n = 0, bad = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			n += replay_dir(argv[i], &bad);
		else if (replay_file(argv[i]) != 0)
			bad++;
		else
			n++;
	}
	printf("replayed %d inputs, %d unreadable\n", n, bad);
	return bad != 0;
}
