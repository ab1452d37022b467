/*
 * test-base.c: the base library alone (core/base/, librlbase.a).  It is
 * compiled with the base library's own flags and linked with librlbase.a
 * only, so it also proves the base needs nothing of rankline's: a symbol
 * of core/ used from core/base/ would fail this program's link.  It checks
 * the one hash against FNV-1a's published values, the one doubling growth,
 * and that each _clear frees what a struct holds and leaves it usable.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "tap.h"

/* FNV-1a 64 of a string without its NUL, from the offset basis. */
static uint64_t
fnv(const char *s)
{
	return hash_bytes(HASH_FNV_OFFSET, s, strlen(s));
}

/* hash_bytes is FNV-1a 64: stored fingerprints depend on its values. */
static void
test_hash(void)
{
	ok(fnv("") == 0xcbf29ce484222325ULL, "FNV-1a of nothing is the basis");
	ok(fnv("a") == 0xaf63dc4c8601ec8cULL, "FNV-1a 64 of \"a\"");
	ok(fnv("foobar") == 0x85944171f73967e8ULL, "FNV-1a 64 of \"foobar\"");
	ok(hash_bytes(hash_bytes(HASH_FNV_OFFSET, "foo", 3), "bar", 3) ==
	    fnv("foobar"), "a hash goes on from where it stopped");
	ok(str_hash(STR_HASH_SEED, "foobar") ==
	    hash_bytes(STR_HASH_SEED, "foobar", 6),
	    "str_hash is the same FNV-1a, to the NUL");
}

/* array_grow doubles, from 8, and leaves an array with room alone. */
static void
test_grow(void)
{
	int	*v = NULL, *w;
	size_t	 cap = 0, was, n, grew = 0;

	for (n = 0; n < 1000; n++) {
		was = cap;
		v = array_grow(v, n, &cap, sizeof *v);
		grew += cap != was;
		v[n] = (int)n;
	}
	is_int((long long)cap, 1024, "1,000 elements: room for 1,024");
	is_int((long long)grew, 8, "grown 8 times, 8 to 1,024 by doubling");
	ok(v[999] == 999 && v[0] == 0, "the elements are kept");
	w = array_grow(v, 1000, &cap, sizeof *v);
	ok(w == v && cap == 1024, "room left: nothing moves");
	free(v);
}

/* _clear frees what each holds; the struct stays, empty and usable. */
static void
test_clear(void)
{
	struct buf	 b = { 0 };
	struct errlist	 e = { 0 };
	struct idhash	 h = { 0 };
	uint64_t	 i;
	size_t		 cap;

	buf_adds(&b, "hello");
	cap = b.cap;
	buf_reset(&b);
	ok(b.len == 0 && b.cap == cap && b.p[0] == '\0',
	    "buf_reset empties a buffer and keeps its memory");
	buf_adds(&b, "hello");
	buf_clear(&b);
	ok(b.p == NULL && b.len == 0 && b.cap == 0,
	    "buf_clear frees a buffer's bytes");
	buf_adds(&b, "again");
	is_str(b.p, "again", "a cleared buffer is used again");
	buf_clear(&b);

	errlist_add(&e, "%s:%u: %s", "a.rules", 3u, "bad");
	errlist_add(&e, "%s:%u: %s", "a.rules", 4u, "worse");
	is_str(e.v[1], "a.rules:4: worse", "an error names its file:line");
	errlist_clear(&e);
	ok(e.v == NULL && e.n == 0, "errlist_clear frees the messages");
	errlist_add(&e, "once more");
	ok(e.n == 1, "a cleared list is used again");
	errlist_clear(&e);

	for (i = 0; i < 100; i++)
		idhash_add(&h, i * 7919);
	ok(!idhash_add(&h, 7919) && h.n == 100, "a set holds its 100 ids");
	idhash_clear(&h);
	ok(h.v == NULL && h.n == 0 && h.cap == 0, "idhash_clear frees slots");
	ok(idhash_add(&h, 7919) && h.n == 1, "a cleared set is used again");
	idhash_clear(&h);
}

/* idhash_get reads a map without adding the keys it is asked for. */
static void
test_idhash_get(void)
{
	struct idhash	 h = { 0 };
	const uint64_t	*v;
	uint64_t	 i;
	bool		 all = true;

	ok(idhash_get(&h, 5) == NULL, "an empty map has no key");
	for (i = 0; i < 1000; i++)
		*idhash_put(&h, i * 7919) = i + 1;
	for (i = 0; i < 1000; i++) {
		v = idhash_get(&h, i * 7919);
		all = all && v != NULL && *v == i + 1;
	}
	ok(all, "each of 1,000 keys has its value, past the table's growth");
	ok(idhash_get(&h, 7) == NULL && h.n == 1000,
	    "a key not there is not found, nor added");
	idhash_clear(&h);
	idhash_add(&h, 3);
	ok(idhash_get(&h, 3) == NULL, "a set has no values to get");
	idhash_clear(&h);
}

int
main(void)
{
	test_hash();
	test_grow();
	test_clear();
	test_idhash_get();
	return tap_done();
}
