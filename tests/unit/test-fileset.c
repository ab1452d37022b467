/*
 * test-fileset.c: the set of (device, inode) pairs (core/base/fileset.c)
 * that the walk and the follow share.
 *
 * A pair is new once; the same inode on another device is another file;
 * an inode of 0 is never held.  Half a million random adds, removals and
 * lookups over a few thousand pairs (so that runs of probes collide,
 * wrap around the table's end and are cut by removals) must agree with a
 * plain table of flags at every step; a set added to and emptied again
 * many times keeps its size; clear leaves it empty and usable.
 */
#include <stdlib.h>

#include "base.h"
#include "tap.h"

#define NDEV	3
#define NINO	3000

/* xorshift64: the same sequence on every run. */
static uint64_t
next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Do the set and the flags agree on every pair, and on the count? */
static bool
same_as(const struct fileset *s, const bool flags[NDEV][NINO + 1])
{
	size_t	dev, ino, n = 0;

	for (dev = 0; dev < NDEV; dev++) {
		for (ino = 1; ino <= NINO; ino++) {
			if (fileset_has(s, dev, ino) != flags[dev][ino])
				return false;
			n += flags[dev][ino];
		}
	}
	return n == s->n;
}

/* Single pairs: new once, kept apart by device, inode 0 never held. */
static void
test_pairs(void)
{
	struct fileset	s = { 0 };

	ok(!fileset_has(&s, 1, 2) && !fileset_del(&s, 1, 2) && s.n == 0,
	    "a zeroed set is empty");
	ok(fileset_add(&s, 1, 2), "a pair is new");
	ok(!fileset_add(&s, 1, 2) && s.n == 1, "and not new the second time");
	ok(fileset_has(&s, 1, 2), "the set has it");
	ok(!fileset_has(&s, 7, 2) && fileset_add(&s, 7, 2) && s.n == 2,
	    "the same inode on another device is another file");
	ok(fileset_add(&s, 1, 0) && fileset_add(&s, 1, 0) &&
	    !fileset_has(&s, 1, 0) && s.n == 2,
	    "an inode of 0 names no file: always new, never held");
	ok(fileset_del(&s, 1, 2) && !fileset_has(&s, 1, 2) &&
	    fileset_has(&s, 7, 2) && s.n == 1,
	    "a removed pair is gone, the other kept");
	ok(!fileset_del(&s, 1, 2), "and cannot be removed twice");
	fileset_clear(&s);
	ok(s.v == NULL && s.n == 0 && s.cap == 0 && !fileset_has(&s, 7, 2),
	    "clear leaves it empty");
	ok(fileset_add(&s, 7, 2) && fileset_has(&s, 7, 2),
	    "and it can be used again");
	fileset_clear(&s);
}

/* Random adds, removals and lookups against a table of flags. */
static void
test_random(void)
{
	static bool	 flags[NDEV][NINO + 1];
	struct fileset	 s = { 0 };
	uint64_t	 x = 0x9e3779b97f4a7c15ULL, r, dev, ino;
	size_t		 i, bad = 0, badn = 0, full = 0;
	bool		 got;

	for (i = 0; i < 500000; i++) {
		r = next_rand(&x);
		dev = (r >> 8) % NDEV;
		ino = 1 + (r >> 16) % NINO;
		switch (r % 4) {
		case 0:
		case 1:
			got = fileset_add(&s, dev, ino);
			bad += got == flags[dev][ino];
			flags[dev][ino] = true;
			break;
		case 2:
			got = fileset_del(&s, dev, ino);
			bad += got != flags[dev][ino];
			flags[dev][ino] = false;
			break;
		default:
			bad += fileset_has(&s, dev, ino) != flags[dev][ino];
			break;
		}
		full += 2 * s.n > s.cap;
		if (i % 50000 == 0)
			badn += !same_as(&s, flags);
	}
	ok(bad == 0, "500,000 random adds, removals and lookups: each says "
	    "what a table of flags says (%zu wrong)", bad);
	ok(badn == 0 && same_as(&s, flags), "every pair is found or not, as "
	    "it should be, and the count is right (%zu %zu)", s.n, s.cap);
	ok(full == 0, "the table is never more than half full");
	fileset_clear(&s);
}

/* Growth, and a set emptied again keeps its size (no tombstones). */
static void
test_size(void)
{
	struct fileset	s = { 0 };
	size_t		i, bad = 0, cap;

	for (i = 1; i <= 100000; i++)
		bad += !fileset_add(&s, 2049, i);
	for (i = 1; i <= 100000; i++)
		bad += !fileset_has(&s, 2049, i);
	ok(bad == 0 && s.n == 100000, "100,000 pairs added are all there");
	ok(s.cap >= 2 * s.n && (s.cap & (s.cap - 1)) == 0,
	    "in a power-of-two table at most half full (%zu slots)", s.cap);
	for (i = 1; i <= 100000; i++)
		bad += !fileset_del(&s, 2049, i);
	ok(bad == 0 && s.n == 0 && !fileset_has(&s, 2049, 5),
	    "and all removed again");
	fileset_clear(&s);
	for (i = 0; i < 1000000; i++) {
		fileset_add(&s, 1, 1 + i % 1000);
		fileset_del(&s, 1, 1 + (i + 500) % 1000);
		bad += s.n > 500;
	}
	cap = s.cap;
	ok(bad == 0 && cap <= 1024, "a million adds and removals of 500 "
	    "pairs at a time: the table is the size 500 need (%zu slots)",
	    cap);
	fileset_clear(&s);
}

int
main(void)
{
	test_pairs();
	test_random();
	test_size();
	return tap_done();
}
