/*
 * fileset.c: a set of file identities, (device, inode) pairs.
 *
 * Two parts of the engine must know whether they have met a file before,
 * by what it is rather than by its name: the walk of the paths given (a
 * folder reached again through a link to a parent is walked once, and a
 * log named twice is read once) and the follow (a rotated file that
 * appears under a new name is not read again, and a deleted file's inode,
 * which the next file made may reuse, is forgotten).  A follow of a folder
 * that grows to 10,000 files asks once per new file, so the set is hashed:
 * open addressing with linear probing, at most half full, and a removal
 * shifts the entries after it back rather than leaving a tombstone, so a
 * set that is added to and removed from for days never fills with them.
 *
 * Zeroed, a set is empty; fileset_clear frees what it holds and leaves it
 * empty.  An inode number of 0 names no file (Linux gives none): it is
 * never held, so it marks an empty slot.
 */
#include <stdlib.h>

#include "base.h"

#define FILESET_MIN	64		/* slots of a new table */

/* The slot a pair's probe starts at. */
static size_t
fileset_home(const struct fileset *s, uint64_t dev, uint64_t ino)
{
	uint64_t	h = HASH_FNV_OFFSET;

	h = hash_bytes(h, &dev, sizeof dev);
	h = hash_bytes(h, &ino, sizeof ino);
	return (size_t)h & (s->cap - 1);
}

/* The slot that holds the pair, or the empty one where it would go. */
static size_t
fileset_slot(const struct fileset *s, uint64_t dev, uint64_t ino)
{
	size_t	i;

	for (i = fileset_home(s, dev, ino); s->v[i].ino != 0 &&
	    (s->v[i].dev != dev || s->v[i].ino != ino);
	    i = (i + 1) & (s->cap - 1))
		;
	return i;
}

/* Double the table (or make it), each pair moved to its slot. */
static void
fileset_grow(struct fileset *s)
{
	struct fileid	*old = s->v;
	size_t		 ocap = s->cap, i;

	s->cap = ocap == 0 ? FILESET_MIN : 2 * ocap;
	s->v = xcalloc(s->cap, sizeof *s->v);
	for (i = 0; i < ocap; i++) {
		if (old[i].ino != 0)
			s->v[fileset_slot(s, old[i].dev, old[i].ino)] = old[i];
	}
	free(old);
}

/* Add a pair; false when it was there already. */
bool
fileset_add(struct fileset *s, uint64_t dev, uint64_t ino)
{
	size_t	i;

	if (ino == 0)
		return true;
	if (fileset_has(s, dev, ino))
		return false;
	if (2 * (s->n + 1) > s->cap)
		fileset_grow(s);
	i = fileset_slot(s, dev, ino);
	s->v[i].dev = dev;
	s->v[i].ino = ino;
	s->n++;
	return true;
}

/* Is the pair in the set? */
bool
fileset_has(const struct fileset *s, uint64_t dev, uint64_t ino)
{
	if (ino == 0 || s->n == 0)
		return false;
	return s->v[fileset_slot(s, dev, ino)].ino != 0;
}

/*
 * Remove a pair; false when it was not there.  The pairs after it in its
 * run move back into the hole when their probe passes over it, so that
 * every pair stays reachable from its home without tombstones.
 */
bool
fileset_del(struct fileset *s, uint64_t dev, uint64_t ino)
{
	size_t	hole, j, home, mask = s->cap - 1;

	if (!fileset_has(s, dev, ino))
		return false;
	hole = fileset_slot(s, dev, ino);
	for (j = (hole + 1) & mask; s->v[j].ino != 0; j = (j + 1) & mask) {
		home = fileset_home(s, s->v[j].dev, s->v[j].ino);
		/* It stays when its home lies after the hole, up to j. */
		if (((j - home) & mask) < ((j - hole) & mask))
			continue;
		s->v[hole] = s->v[j];
		hole = j;
	}
	s->v[hole].ino = 0;
	s->v[hole].dev = 0;
	s->n--;
	return true;
}

/* Free what the set holds; it is empty again. */
void
fileset_clear(struct fileset *s)
{
	free(s->v);
	s->v = NULL;
	s->cap = s->n = 0;
}
