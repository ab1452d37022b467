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
 * grown since the last call is advised (MADV_HUGEPAGE), once a source is
 * read.  The pages a source touched before the advice stay small; the
 * rest of its 8 MB come huge.  Where madvise or THP is missing (another
 * libc, THP set to never), nothing changes.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "engine.h"

#if defined(__GLIBC__) && defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#define HEAP_HUGE	(2u << 20)	/* a huge page */
#define HEAP_PAD	(32u << 20)	/* the main heap grows by this at least */
#define HEAP_MMAP	(32u << 20)	/* smaller blocks come from the heap */

/* Advise the main heap's growth since the last call as huge pages. */
void
heap_advise(void)
{
#if defined(__GLIBC__) && defined(__linux__) && defined(MADV_HUGEPAGE)
	static atomic_uintptr_t	 advised;	/* the top last seen */
	static atomic_uintptr_t	 base;		/* the first huge page above the
						   top first seen: the heap's */
	static atomic_flag	 padded = ATOMIC_FLAG_INIT;
	uintptr_t		 top, from, low;

	/*
	 * The large arrays (the keeps' table, the gathered events, the
	 * diagnosis's) from the heap too, not mappings of their own in small
	 * pages: a quarter of the faults left.
	 */
	if (!atomic_flag_test_and_set(&padded)) {
		mallopt(M_TOP_PAD, (int)HEAP_PAD);
		mallopt(M_MMAP_THRESHOLD, (int)HEAP_MMAP);
	}
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
		atomic_store(&base, (top + HEAP_HUGE - 1) &
		    ~(uintptr_t)(HEAP_HUGE - 1));
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
