/*
 * keymap.c: a map from (tag, string) to a pointer, hashed.
 *
 * The follow matches each name a folder's event gives, and each entry of
 * a folder it scans, with the files it follows; compared with every file
 * in turn, a folder growing to 2,000 files cost 42 s of CPU in strcmp.
 * The tag is any pointer that splits the keys (the follow's folder: an
 * event names a file in it), or NULL.  Open addressing with linear probing,
 * at most half full; there is no removal, as the follow forgets no file
 * before it ends.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"

#define KEYMAP_MIN	64		/* slots of a new table */

/* The slot that holds the key, or the empty one where it would go. */
static size_t
keymap_slot(const struct keymap *m, const void *tag, const char *s)
{
	uint64_t	h = HASH_FNV_OFFSET;
	size_t		i;

	h = hash_bytes(h, &tag, sizeof tag);
	h = hash_bytes(h, s, strlen(s));
	for (i = (size_t)h & (m->cap - 1); m->v[i].s != NULL &&
	    (m->v[i].tag != tag || strcmp(m->v[i].s, s) != 0);
	    i = (i + 1) & (m->cap - 1))
		;
	return i;
}

/* The value of the key, or NULL. */
void *
keymap_get(const struct keymap *m, const void *tag, const char *s)
{
	if (m->n == 0)
		return NULL;
	return m->v[keymap_slot(m, tag, s)].val;
}

/* Set the key's value; returns the value it had, or NULL. */
void *
keymap_put(struct keymap *m, const void *tag, const char *s, void *val)
{
	struct keyent	*old = m->v;
	size_t		 ocap = m->cap, i;
	void		*was;

	if (2 * (m->n + 1) > m->cap) {
		m->cap = ocap == 0 ? KEYMAP_MIN : 2 * ocap;
		m->v = xcalloc(m->cap, sizeof *m->v);
		for (i = 0; i < ocap; i++) {
			if (old[i].s != NULL)
				m->v[keymap_slot(m, old[i].tag, old[i].s)] =
				    old[i];
		}
		free(old);
	}
	i = keymap_slot(m, tag, s);
	if ((was = m->v[i].val) == NULL) {
		m->v[i].tag = tag;
		m->v[i].s = s;
		m->n++;
	}
	m->v[i].val = val;
	return was;
}

/* Free what the map holds; it is empty again. */
void
keymap_clear(struct keymap *m)
{
	free(m->v);
	m->v = NULL;
	m->cap = m->n = 0;
}
