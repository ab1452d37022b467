/*
 * test-heap.c: the heap a wide read grows is advised as huge pages.
 *
 * heap_advise (core/heap.c) is called as each chunk is read; what it
 * must leave is the main heap's growth since the first call, and its pad
 * past what was in use at the first call, marked for
 * transparent huge pages, which the kernel shows in /proc/self/smaps as
 * the "hg" flag of the heap's mappings.  Skipped where the system has no
 * such file, the C library is not glibc (the call then does nothing) or
 * the heap is not grown by brk (a sanitizer's allocator).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "tap.h"

/* Bytes of the main heap's mappings with the "hg" flag, or -1. */
static long long
heap_huge_bytes(void)
{
	FILE		*f = fopen("/proc/self/smaps", "r");
	char		 line[512], perms[5];
	unsigned long	 lo = 0, hi = 0, a, b;
	long long	 n = 0;
	int		 heap = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		/* A mapping's first line: lo-hi rwxp offset dev inode [path] */
		if (sscanf(line, "%lx-%lx %4s %*x %*s %*u", &a, &b,
		    perms) == 3 && strchr("r-", perms[0]) != NULL &&
		    strchr("ps", perms[3]) != NULL && a < b) {
			lo = a;
			hi = b;
			heap = strstr(line, "[heap]") != NULL;
			continue;
		}
		if (heap && strncmp(line, "VmFlags:", 8) == 0 &&
		    strstr(line, " hg") != NULL)
			n += (long long)(hi - lo);
	}
	fclose(f);
	return n;
}

int
main(void)
{
	enum { N = 200000 };
	static void	*v[N];
	long long	 before, after;
	char		*top;
	size_t		 i;
	bool		 glibc = false;

#if defined(__GLIBC__) && defined(__linux__)
	glibc = true;
#endif
	heap_advise();
	before = heap_huge_bytes();
	top = sbrk(0);
	/* Some 40 MB in blocks the heap gives, as a read's events are. */
	for (i = 0; i < N; i++)
		v[i] = xmalloc(200);
	if (!glibc || before < 0 || (char *)sbrk(0) - top < (16L << 20)) {
		/* A sanitizer's allocator, or no /proc: nothing to see. */
		printf("1..0 # SKIP the heap is not glibc's, grown by brk\n");
		for (i = 0; i < N; i++)
			free(v[i]);
		return 0;
	}
	/*
	 * The first call advised the heap past what was in use: one source
	 * read at once (a console of many ranks) grows into it.
	 */
	ok(before >= (16LL << 20), "the first call advises %lld MB of the "
	    "heap before they are used", before >> 20);
	heap_advise();
	after = heap_huge_bytes();
	ok(after >= before + (16LL << 20), "40 MB of small blocks later, "
	    "%lld MB of the heap more are advised as huge pages",
	    (after - before) >> 20);
	for (i = 0; i < N; i++)
		free(v[i]);
	return tap_done();
}
