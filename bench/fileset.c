/*
 * bench/fileset.c: what follow pays to tell a new file from one it has
 * read, before and after the shared set of (device, inode) pairs.
 *
 * When a followed folder grows, each file that appears is looked up
 * among the files read so far and then added (follow_dir_entry, then
 * follow_file_adopt).  Until the set of core/base/fileset.c, follow.c
 * kept a list grown by one and searched from its start; that list is
 * kept below, as it was, as the "before".  For each count of files
 * (default 1,000, 10,000 and 100,000) both are timed doing that lookup
 * and add per file, with a removal of every tenth as deleted files are;
 * the best of three runs is printed in milliseconds.  A measurement, not
 * a test: make check builds it, nothing runs it.
 *
 * usage: bench/fileset [N...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base.h"

/* The list follow.c kept before the set. */
struct list {
	struct { uint64_t dev, ino; } *v;	/* in the order added */
	size_t		 n;			/* pairs held */
};

static bool
list_known(const struct list *l, uint64_t dev, uint64_t ino)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].dev == dev && l->v[i].ino == ino)
			return true;
	}
	return false;
}

static void
list_add(struct list *l, uint64_t dev, uint64_t ino)
{
	if (list_known(l, dev, ino))
		return;
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	l->v[l->n].dev = dev;
	l->v[l->n++].ino = ino;
}

static void
list_forget(struct list *l, uint64_t dev, uint64_t ino)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].dev == dev && l->v[i].ino == ino) {
			l->v[i] = l->v[--l->n];
			return;
		}
	}
}

/* Seconds on a monotonic clock. */
static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* n files appear on one device, inodes as ext4 hands them out. */
static double
run_list(size_t n, size_t *found)
{
	struct list	l = { 0 };
	double		t = now();
	size_t		i;

	for (i = 0; i < n; i++) {
		*found += list_known(&l, 2049, 1000 + 7 * i);
		list_add(&l, 2049, 1000 + 7 * i);
		if (i % 10 == 9)
			list_forget(&l, 2049, 1000 + 7 * (i - 5));
	}
	t = now() - t;
	free(l.v);
	return t;
}

static double
run_set(size_t n, size_t *found)
{
	struct fileset	s = { 0 };
	double		t = now();
	size_t		i;

	for (i = 0; i < n; i++) {
		*found += fileset_has(&s, 2049, 1000 + 7 * i);
		fileset_add(&s, 2049, 1000 + 7 * i);
		if (i % 10 == 9)
			fileset_del(&s, 2049, 1000 + 7 * (i - 5));
	}
	t = now() - t;
	fileset_clear(&s);
	return t;
}

int
main(int argc, char **argv)
{
	static const size_t	 def[] = { 1000, 10000, 100000 };
	size_t			 n, k, nn = argc > 1 ? (size_t)argc - 1 : 3;
	size_t			 found = 0;
	double			 tl, ts, best_l, best_s;
	int			 r;

	printf("%10s %14s %14s\n", "files", "list ms", "set ms");
	for (k = 0; k < nn; k++) {
		n = argc > 1 ? strtoul(argv[k + 1], NULL, 10) : def[k];
		best_l = best_s = 1e9;
		for (r = 0; r < 3; r++) {
			if ((tl = run_list(n, &found)) < best_l)
				best_l = tl;
			if ((ts = run_set(n, &found)) < best_s)
				best_s = ts;
		}
		printf("%10zu %14.3f %14.3f\n", n, best_l * 1e3, best_s * 1e3);
	}
	/* No new file was known: both agree, and the loops are not idle. */
	return found == 0 ? 0 : 1;
}
