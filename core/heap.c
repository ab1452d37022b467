/*
 * heap.c: the model's heap on transparent huge pages, where the system
 * lets a program ask for them.
 *
 * A wide job's model is small things spread over a large heap: at 10,000
 * ranks some 300 MB of events, texts, keeps and contexts, which the
 * diagnosis walks in time order, each somewhere else.  In 4 KB pages that
 * was 77,000 page faults (a third of the system time) and a TLB miss on
 * most of the walk; in 2 MB pages, 4,000 faults and 25 to 45% less user
 * time (1.8 to 2.0 s against 2.5 to 4.0 s a run, the same RSS).  glibc
 * does the same when GLIBC_TUNABLES holds glibc.malloc.hugetlb=1, which
 * no user sets: here the main heap is grown 32 MB at a time and the part
 * grown since the last call is advised (MADV_HUGEPAGE) as each chunk is
 * fed, the first call advising the free top before anything is read.  The
 * pages a chunk touched before the advice stay small; the rest of the
 * growth comes huge.  Where madvise or THP is missing (another libc, THP
 * set to never), nothing changes.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "engine.h"

#if defined(__GLIBC__) && defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

/*
 * glibc's malloc, not a sanitizer's: a thread's arena below is grown by
 * blocks of some 30 MB, which ASan would keep in its quarantine.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HEAP_SANITIZED
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEAP_SANITIZED
#endif

#define HEAP_HUGE	(2u << 20)	/* a huge page */
#define HEAP_PAD	(32u << 20)	/* the main heap grows by this at least */
#define HEAP_MMAP	(32u << 20)	/* smaller blocks come from the heap */

#if defined(__GLIBC__) && defined(__linux__) && defined(MADV_HUGEPAGE)
#define HEAP_GLIBC
#endif

#ifdef HEAP_GLIBC
#define HEAP_ARENA	(64u << 20)	/* glibc's heap of a thread's arena */

extern char	end;	/* the program's data ends here, its break above */

/*
 * The large arrays (the keeps' table, the gathered events, the
 * diagnosis's) from the heap too, not mappings of their own in small
 * pages: a quarter of the faults left.  The pad is also what a thread's
 * arena keeps when it is trimmed, so this comes before a worker grows it.
 */
static void
heap_pad(void)
{
	static atomic_flag	padded = ATOMIC_FLAG_INIT;

	if (!atomic_flag_test_and_set(&padded)) {
		mallopt(M_TOP_PAD, (int)HEAP_PAD);
		mallopt(M_MMAP_THRESHOLD, (int)HEAP_MMAP);
	}
}

#ifndef HEAP_SANITIZED
/*
 * The glibc heap this thread's arena now grows, from one of its blocks, or
 * 0 in the main arena (between the program's data and the break).
 */
static uintptr_t
heap_of(const void *v)
{
	uintptr_t	p = (uintptr_t)v;

	if (v == NULL || (p >= (uintptr_t)&end && p < (uintptr_t)sbrk(0)))
		return 0;
	return p & ~(uintptr_t)(HEAP_ARENA - 1);
}
#endif

/*
 * A thread's arena lives in 64 MB heaps, each aligned to its size.  glibc
 * grows one past its top by what each malloc lacks, an mprotect each time
 * (8,800 system calls when 1,024 ranks are read on two cores), and each
 * growth faults in 4 KB pages, for a huge page needs its 2 MB inside what
 * is writable: the reading's faults on two cores were five times those on
 * one (40,000 against 8,000 at 10,000 ranks).  So a new heap is grown at
 * once and given back: it keeps its mapping writable (glibc returns the
 * pages, not the address space), the reading's own growth up to that needs
 * no system call, and, advised whole, faults a huge page at a time.  The
 * pieces are under the mmap threshold, so that they come from the heap;
 * only their headers are touched.
 */
static void
heap_advise_arena(void)
{
#ifndef HEAP_SANITIZED
	static _Thread_local uintptr_t	 advised;
	/* volatile: a malloc freed unused is one the compiler drops */
	void *volatile			 a = malloc(64), *volatile b;
	uintptr_t			 h = heap_of(a), room;

	/*
	 * To the heap's end but a margin for glibc's headers: what is in use
	 * is mostly below a block just had.  In two, each under the mmap
	 * threshold.
	 */
	room = h + HEAP_ARENA - (uintptr_t)a;
	free(a);
	if (h == 0 || h == advised)
		return;
	advised = h;
	if (room > HEAP_HUGE) {
		a = malloc((room - HEAP_HUGE / 2) / 2);
		b = malloc((room - HEAP_HUGE / 2) / 2);
		free(b);
		free(a);
	}
	(void)madvise((void *)h, HEAP_ARENA, MADV_HUGEPAGE);
#endif
}
#endif /* HEAP_GLIBC */

/* Before a worker reads: its arena's heap grown and advised at once. */
void
heap_arena(void)
{
#ifdef HEAP_GLIBC
	heap_pad();
	heap_advise_arena();
#endif
}

#ifdef HEAP_GLIBC
/*
 * Where the main heap's free top begins, with the heap grown past there by
 * its pad: a block had there and given back, after which glibc trims the
 * heap to the pad and no lower.  0 if this thread's blocks are not the
 * main heap's.
 */
static uintptr_t
heap_grow_ahead(void)
{
#ifndef HEAP_SANITIZED
	/* volatile: a malloc freed unused is one the compiler drops */
	void *volatile	a = malloc(64);
	uintptr_t	p = 0;

	/* Not from a worker, whose arena a large block would grow anew. */
	if (a != NULL && heap_of(a) == 0) {
		free(a);
		a = malloc(HEAP_PAD / 2);
		p = a != NULL && heap_of(a) == 0 ? (uintptr_t)a : 0;
	}
	free(a);
	return p;
#else
	return 0;
#endif
}
#endif

/* Advise the main heap's growth since the last call as huge pages. */
void
heap_advise(void)
{
#ifdef HEAP_GLIBC
	static atomic_uintptr_t	 advised;	/* the top last seen */
	static atomic_uintptr_t	 base;		/* the first huge page above the
						   top first seen: the heap's */
	uintptr_t		 top, from, low;

	heap_pad();
	heap_advise_arena();
	top = (uintptr_t)sbrk(0);
	from = atomic_load(&advised);
	/*
	 * A heap that did not grow since: no madvise of the huge page it
	 * ends in again (one system call per source, 10,000 at 10,000 ranks).
	 */
	if (from == top ||
	    !atomic_compare_exchange_strong(&advised, &from, top))
		return;
	if (from == 0) {
		/*
		 * The first source's reading is advised before it starts,
		 * not after: a `srun --label` console is one source, read in
		 * small pages to its end (10,500 faults, a third of its
		 * time, against 2,900).  What is above the heap's free top
		 * is untouched, and advised now.
		 */
		low = heap_grow_ahead();
		if (low == 0)
			low = top;
		low = (low + HEAP_HUGE - 1) & ~(uintptr_t)(HEAP_HUGE - 1);
		atomic_store(&base, low);
		from = top;
		if ((top = (uintptr_t)sbrk(0)) > low &&
		    atomic_compare_exchange_strong(&advised, &from, top))
			(void)madvise((void *)low, top - low, MADV_HUGEPAGE);
		return;
	}
	/*
	 * From the huge page that holds the last top (advised up to there
	 * already) to the new one: never below the heap, which may share a
	 * huge page with the program's own data.
	 */
	from &= ~(uintptr_t)(HEAP_HUGE - 1);
	if (from < (low = atomic_load(&base)))
		from = low;
	if (from < top)
		(void)madvise((void *)from, top - from, MADV_HUGEPAGE);
#endif
}
