/*
 * test-keymap.c: the map from (tag, string) to a pointer
 * (core/base/keymap.c) by which the follow finds the file a folder's
 * entry or event names.
 *
 * A key's value is what was put last, and putting returns the one before
 * (the follow chains the files that share a path from it); the same string
 * under another tag, or a longer or shorter string, is another key; the
 * string is compared, not its pointer.  20,000 keys, put in an order that
 * makes the table grow many times, are all found with their values.
 */
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "tap.h"

#define NKEYS	20000

static char	keys[NKEYS][16];
static int	vals[NKEYS];

/* Single keys: values, what a put returns, tags and strings kept apart. */
static void
test_keys(void)
{
	struct keymap	m = { 0 };
	int		a, b, c, tag1, tag2;
	char		copy[16];

	ok(keymap_get(&m, NULL, "x") == NULL && m.n == 0,
	    "a zeroed map is empty");
	ok(keymap_put(&m, NULL, "rank0.log", &a) == NULL, "a new key");
	ok(keymap_get(&m, NULL, "rank0.log") == &a, "its value");
	strcpy(copy, "rank0.log");
	ok(keymap_get(&m, NULL, copy) == &a, "found by its text, not pointer");
	ok(keymap_put(&m, NULL, copy, &b) == &a && m.n == 1 &&
	    keymap_get(&m, NULL, "rank0.log") == &b,
	    "a put on a key returns its value before and replaces it");
	ok(keymap_get(&m, NULL, "rank0.lo") == NULL &&
	    keymap_get(&m, NULL, "rank0.log1") == NULL &&
	    keymap_get(&m, NULL, "") == NULL, "a prefix or a longer string "
	    "is another key");
	ok(keymap_put(&m, &tag1, "rank0.log", &c) == NULL &&
	    keymap_get(&m, &tag1, "rank0.log") == &c &&
	    keymap_get(&m, &tag2, "rank0.log") == NULL &&
	    keymap_get(&m, NULL, "rank0.log") == &b && m.n == 2,
	    "the same string under another tag is another key");
	keymap_clear(&m);
	ok(m.v == NULL && m.n == 0 && m.cap == 0 &&
	    keymap_get(&m, NULL, "rank0.log") == NULL, "clear empties it");
	ok(keymap_put(&m, NULL, "a", &a) == NULL &&
	    keymap_get(&m, NULL, "a") == &a, "and it is usable again");
	keymap_clear(&m);
}

/* Many keys, the table grown many times: each found, none made up. */
static void
test_many(void)
{
	struct keymap	m = { 0 };
	size_t		i, bad = 0;
	int		tag;

	for (i = 0; i < NKEYS; i++) {
		snprintf(keys[i], sizeof keys[i], "rank%zu.log", i);
		bad += keymap_put(&m, i % 2 ? &tag : NULL, keys[i], &vals[i])
		    != NULL;
	}
	ok(bad == 0 && m.n == NKEYS && m.cap >= 2 * NKEYS, "%d keys put, "
	    "each new; the table is at most half full (%zu slots)", NKEYS,
	    m.cap);
	for (i = 0; i < NKEYS; i++) {
		bad += keymap_get(&m, i % 2 ? &tag : NULL, keys[i]) !=
		    &vals[i];
		bad += keymap_get(&m, i % 2 ? NULL : &tag, keys[i]) != NULL;
	}
	ok(bad == 0, "each found with its value, and not under the other tag");
	ok(keymap_get(&m, NULL, "rank20000.log") == NULL, "a key never put is "
	    "not found");
	keymap_clear(&m);
}

int
main(void)
{
	test_keys();
	test_many();
	return tap_done();
}
