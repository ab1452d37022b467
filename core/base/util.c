/*
 * util.c: the small things every file needs.  Allocation cannot fail (a
 * console that runs out of memory has nothing better to do than stop, after
 * restoring the terminal), buffers grow, and errors are collected with their
 * file:line rather than printed, so the console can show them in its status
 * line.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

void	(*fatal_hook)(void);

/* Print a message and stop; the hook first restores the terminal. */
void
fatal(const char *fmt, ...)
{
	va_list	ap;

	if (fatal_hook != NULL)
		fatal_hook();
	fputs("rankline: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(70);
}

void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = malloc(n == 0 ? 1 : n)) == NULL)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void	*p;

	if ((p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size)) == NULL)
		fatal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	if ((p = realloc(p, n == 0 ? 1 : n)) == NULL)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

/* Resize an array, refusing sizes that overflow. */
void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		fatal("array too large (%zu x %zu)", n, size);
	return xrealloc(p, n * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char	*p;

	p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* Free an array of n strings and the array. */
void
strv_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int
xvasprintf(char **ret, const char *fmt, va_list ap)
{
	char	small[256];
	va_list	ap2;
	int	n;

	/* Most messages fit: format once into the stack, copy out. */
	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof small, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		fatal("bad format string");
	*ret = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof small)
		memcpy(*ret, small, (size_t)n + 1);
	else
		vsnprintf(*ret, (size_t)n + 1, fmt, ap);
	return n;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = xvasprintf(ret, fmt, ap);
	va_end(ap);
	return n;
}

/* Make room for n more bytes and the terminating NUL. */
void
buf_grow(struct buf *b, size_t n)
{
	size_t	want;

	if (n >= SIZE_MAX - b->len - 1)
		fatal("buffer too large");
	want = b->len + n + 1;
	if (want <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 64;
	while (b->cap < want)
		b->cap = b->cap > SIZE_MAX / 2 ? want : b->cap * 2;
	b->p = xrealloc(b->p, b->cap);
}

/*
 * Formatted straight into the buffer's room, grown and formatted again
 * when it does not fit: a report prints tens of thousands of small
 * fields, and a copy and a malloc each cost more than the formatting.
 * No argument may point into the buffer itself.
 */
void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	ap;
	size_t	room;
	int	n;

	buf_grow(b, 64);
	room = b->cap - b->len;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("bad format string");
	if ((size_t)n >= room) {
		buf_grow(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* A decimal integer: the common field, without a format's parsing. */
void
buf_add_int(struct buf *b, long long v)
{
	char			 s[24], *p = s + sizeof s;
	unsigned long long	 u = v < 0 ? 0ULL - (unsigned long long)v :
				     (unsigned long long)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		*--p = '-';
	buf_add(b, p, (size_t)(s + sizeof s - p));
}

/* Empty the buffer but keep its memory for the next use. */
void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p != NULL)
		b->p[0] = '\0';
}

/* Free the bytes; the buffer stays, empty and ready for use. */
void
buf_clear(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Hand the bytes to the caller; the buffer is left empty. */
char *
buf_steal(struct buf *b)
{
	char	*p;

	p = b->p != NULL ? b->p : xstrdup("");
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

void
errlist_add(struct errlist *e, const char *fmt, ...)
{
	va_list	ap;

	e->v = xreallocarray(e->v, e->n + 1, sizeof *e->v);
	va_start(ap, fmt);
	xvasprintf(&e->v[e->n], fmt, ap);
	va_end(ap);
	e->n++;
}

/* Free the messages; the list stays, empty. */
void
errlist_clear(struct errlist *e)
{
	size_t	i;

	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

/*
 * FNV-1a of a string, on from h (STR_HASH_SEED to begin with): the slot of
 * a key in the tables that find processes, writers and ties.
 */
uint64_t
str_hash(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * HASH_FNV_PRIME;
	return h;
}

/*
 * FNV-1a of n bytes, on from h (HASH_FNV_OFFSET to begin with).  The one
 * hash of rankline: fingerprints and incident keys are stored, so what it
 * gives for given bytes never changes.
 */
uint64_t
hash_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t	*b = p;

	while (n-- > 0)
		h = (h ^ *b++) * HASH_FNV_PRIME;
	return h;
}

/*
 * Room for one more in an array of n elements of size bytes with room for
 * *cap, grown by doubling: one realloc an element is quadratic where
 * realloc copies, as AddressSanitizer's does.
 */
void *
array_grow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap == 0 ? 8 : 2 * *cap;
	return xreallocarray(v, *cap, size);
}

/* The first slot to look at for a key. */
static size_t
idhash_slot(uint64_t key, size_t cap)
{
	return ((key * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* Double the table (or make it), each key and value moved to its slot. */
static void
idhash_grow(struct idhash *h)
{
	uint64_t	*old = h->v, *oval = h->val;
	size_t		 ocap = h->cap, i, k;

	h->cap = h->cap == 0 ? 256 : 2 * h->cap;
	h->v = xcalloc(h->cap, sizeof *h->v);
	h->val = oval != NULL ? xcalloc(h->cap, sizeof *h->val) : NULL;
	for (i = 0; i < ocap; i++) {
		if (old[i] == 0)
			continue;
		for (k = idhash_slot(old[i] - 1, h->cap); h->v[k] != 0;
		    k = (k + 1) & (h->cap - 1))
			;
		h->v[k] = old[i];
		if (oval != NULL)
			h->val[k] = oval[i];
	}
	free(old);
	free(oval);
}

/* The slot of a key, added if it was not there (*added then true). */
static size_t
idhash_find(struct idhash *h, uint64_t key, bool *added)
{
	size_t	k;

	if (2 * (h->n + 1) > h->cap)
		idhash_grow(h);
	for (k = idhash_slot(key, h->cap); h->v[k] != 0;
	    k = (k + 1) & (h->cap - 1)) {
		if (h->v[k] == key + 1) {
			*added = false;
			return k;
		}
	}
	h->v[k] = key + 1;
	h->n++;
	*added = true;
	return k;
}

/* Add a key to a set: false if it was there. */
bool
idhash_add(struct idhash *h, uint64_t key)
{
	bool	added;

	idhash_find(h, key, &added);
	return added;
}

/*
 * A key's value, the key added with value 0 if it was not there; the
 * pointer lasts until the next key is added.
 */
uint64_t *
idhash_put(struct idhash *h, uint64_t key)
{
	bool	added;
	size_t	k;

	if (h->val == NULL) {
		assert(h->n == 0);	/* a set does not become a map */
		if (h->cap == 0)
			idhash_grow(h);
		h->val = xcalloc(h->cap, sizeof *h->val);
	}
	k = idhash_find(h, key, &added);
	return &h->val[k];
}

/* A key's value in a map, or NULL if the key is not there. */
const uint64_t *
idhash_get(const struct idhash *h, uint64_t key)
{
	size_t	k;

	if (h->cap == 0 || h->val == NULL)
		return NULL;
	for (k = idhash_slot(key, h->cap); h->v[k] != 0;
	    k = (k + 1) & (h->cap - 1)) {
		if (h->v[k] == key + 1)
			return &h->val[k];
	}
	return NULL;
}

/* Free the slots; the table stays, empty. */
void
idhash_clear(struct idhash *h)
{
	free(h->v);
	free(h->val);
	memset(h, 0, sizeof *h);
}

/*
 * Count the newlines in n bytes.  Skipping lines without reading them is
 * the point of ingestion's fast path, so this runs at memory speed: SSE2
 * compares 16 bytes at once and keeps up to 255 per-byte counts before
 * summing them with psadbw.
 */
#if defined(__SSE2__)
#include <emmintrin.h>

size_t
mem_count_nl(const char *s, size_t n)
{
	const __m128i	 nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	__m128i		 acc, sum = _mm_setzero_si128();
	size_t		 i = 0, k, count = 0;

	while (n - i >= 16) {
		acc = _mm_setzero_si128();
		for (k = 0; k < 255 && n - i >= 16; k++, i += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(nl,
			    _mm_loadu_si128((const __m128i *)(s + i))));
		sum = _mm_add_epi64(sum, _mm_sad_epu8(acc, zero));
	}
	count = (size_t)_mm_cvtsi128_si64(sum) +
	    (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sum, sum));
	for (; i < n; i++)
		count += s[i] == '\n';
	return count;
}
#else
size_t
mem_count_nl(const char *s, size_t n)
{
	size_t	i, count = 0;

	for (i = 0; i < n; i++)
		count += s[i] == '\n';
	return count;
}
#endif
