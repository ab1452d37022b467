/*
 * prefilter.c: find every rule's required literal in one pass.
 *
 * Running each rule's regex on each line would cost (rules x bytes); most
 * lines of a training log match nothing.  The prefilter reads a block of
 * lines once and names, for each place a literal occurs, the rules worth
 * trying there.
 *
 * An Aho-Corasick automaton over 300 literals is a table of megabytes whose
 * every step waits on the load before it; it ran at a few hundred MB/s.
 * This is a filter instead.  Four bytes of every literal, its anchor, are
 * hashed into a 65,536-bit set of 8 KB that stays in the first-level cache
 * (a literal of three bytes sets the hash of each possible fourth byte).
 * The scan hashes the four bytes at every position, eight positions at a
 * time where the processor has AVX2, with no step waiting on the one
 * before; only where the set has the bit does it look closer, at the
 * literals whose anchors hash alike, compared in full.  Literals shorter
 * than three bytes (the escape byte) are found with memchr on their own.
 *
 * The anchor decides how often the scan stops for nothing: a literal's
 * first four bytes are often a common word ("GPU ", "Work").  So anchors
 * are first the four bytes least common by a rough static guess, and once
 * PF_LEARN_BYTES of real input were seen, the four bytes least common in
 * that input (prefilter_learn).
 */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PF_HAVE_AVX2	1
#endif

#include "rules-int.h"

#define PF_MULT		0x2c1b3c6du
/* Mix the high byte down first, so that every byte moves the bits kept. */
#define PF_HASH(w)	((((w) ^ ((w) >> 15)) * PF_MULT) >> (32 - PF_BITS))

/* Four bytes as one word, in the byte order the machine has. */
static inline uint32_t
pf_word(const uint8_t *p)
{
	uint32_t	w;

	memcpy(&w, p, sizeof w);
	return w;
}

/* Is a hash in the set? */
static inline uint32_t
pf_test(const uint32_t *bits, uint32_t h)
{
	return (bits[h >> 5] >> (h & 31)) & 1;
}

/*
 * How common each byte is in logs, as a cost: the rough guess an anchor is
 * chosen by until real input has been seen.  The blank, lower-case
 * letters, digits and the punctuation of timestamps are everywhere;
 * capitals and other punctuation much less so.
 */
static int
pf_byte_cost(uint8_t c)
{
	if (c == ' ')
		return 12;
	if (c != '\0' && strchr("etaoinsr", c) != NULL)
		return 10;
	if (c >= '0' && c <= '9')
		return 9;
	if (c >= 'a' && c <= 'z')
		return 8;
	if (c != '\0' && strchr(".:,-_/=", c) != NULL)
		return 8;
	if ((c >= 'A' && c <= 'Z') ||
	    (c != '\0' && strchr("[]()'\"|", c) != NULL))
		return 5;
	return 2;
}

/*
 * Where a literal's anchor starts: the four bytes seen least often in the
 * input learnt from, or before any was, the least common by the guess.
 */
static uint32_t
pf_anchor(const struct prefilter *pf, const char *s, uint32_t len)
{
	const uint8_t	*u = (const uint8_t *)s;
	uint32_t	 i, best = 0;
	uint64_t	 cost, min = UINT64_MAX;

	for (i = 0; i + 4 <= len; i++) {
		cost = (uint64_t)(pf_byte_cost(u[i]) + pf_byte_cost(u[i + 1]) +
		    pf_byte_cost(u[i + 2]) + pf_byte_cost(u[i + 3]));
		if (pf->seen != NULL)
			cost += (uint64_t)pf->seen[PF_HASH(pf_word(u + i))] << 8;
		if (cost < min) {
			min = cost;
			best = i;
		}
	}
	return best;
}

/* Index of a literal among the distinct ones, adding it if new. */
static uint32_t
prefilter_intern(struct prefilter *pf, const char *s)
{
	size_t	i;

	for (i = 0; i < pf->nlit; i++) {
		if (strcmp(pf->lit[i], s) == 0)
			return (uint32_t)i;
	}
	pf->lit = xreallocarray(pf->lit, pf->nlit + 1, sizeof *pf->lit);
	pf->len = xreallocarray(pf->len, pf->nlit + 1, sizeof *pf->len);
	pf->anchor = xreallocarray(pf->anchor, pf->nlit + 1,
	    sizeof *pf->anchor);
	pf->first = xreallocarray(pf->first, pf->nlit + 1, sizeof *pf->first);
	pf->head = xreallocarray(pf->head, pf->nlit + 1, sizeof *pf->head);
	pf->lit[pf->nlit] = xstrdup(s);
	pf->len[pf->nlit] = (uint32_t)strlen(s);
	pf->head[pf->nlit] = pf->len[pf->nlit] >= 4 ?
	    pf_word((const uint8_t *)s) : 0;
	pf->anchor[pf->nlit] = 0;
	pf->first[pf->nlit] = 0;
	return (uint32_t)pf->nlit++;
}

/* The hashes a literal of three or more bytes sets, sorted. */
static size_t
prefilter_hashes(const struct prefilter *pf, uint32_t li, uint32_t *h)
{
	const uint8_t	*s = (const uint8_t *)pf->lit[li];
	uint8_t		 w[4];
	size_t		 n = 0, a, b;
	unsigned	 c;
	uint32_t	 x;

	if (pf->len[li] >= 4) {
		h[n++] = PF_HASH(pf_word(s + pf->anchor[li]));
		return n;
	}
	memcpy(w, s, 3);
	for (c = 0; c < 256; c++) {
		w[3] = (uint8_t)c;
		h[n++] = PF_HASH(pf_word(w));
	}
	for (a = 1; a < n; a++) {
		x = h[a];
		for (b = a; b > 0 && h[b - 1] > x; b--)
			h[b] = h[b - 1];
		h[b] = x;
	}
	return n;
}

/* Bucket the literals by their anchors' hashes and set the filter's bits. */
static void
prefilter_index(struct prefilter *pf)
{
	uint32_t	 h[256];
	size_t		 i, k, nh, *count;

	memset(pf->bits, 0, sizeof pf->bits);
	free(pf->start);
	free(pf->items);
	count = xcalloc(PF_SLOTS + 1, sizeof *count);
	for (i = 0; i < pf->nlit; i++) {
		if (pf->len[i] < 3)
			continue;
		pf->anchor[i] = pf->len[i] >= 4 ?
		    pf_anchor(pf, pf->lit[i], pf->len[i]) : 0;
		nh = prefilter_hashes(pf, (uint32_t)i, h);
		for (k = 0; k < nh; k++) {
			if (k == 0 || h[k] != h[k - 1])
				count[h[k] + 1]++;
		}
	}
	pf->start = xcalloc(PF_SLOTS + 1, sizeof *pf->start);
	for (i = 1; i <= PF_SLOTS; i++)
		pf->start[i] = pf->start[i - 1] + (uint32_t)count[i];
	pf->items = xcalloc(pf->start[PF_SLOTS] + 1, sizeof *pf->items);
	memset(count, 0, (PF_SLOTS + 1) * sizeof *count);
	for (i = 0; i < pf->nlit; i++) {
		if (pf->len[i] < 3)
			continue;
		nh = prefilter_hashes(pf, (uint32_t)i, h);
		for (k = 0; k < nh; k++) {
			if (k > 0 && h[k] == h[k - 1])
				continue;
			pf->items[pf->start[h[k]] + count[h[k]]++] = (uint32_t)i;
			pf->bits[h[k] >> 5] |= 1u << (h[k] & 31);
		}
	}
	free(count);
}

/*
 * Build the filter: lit[i] leads to target[i].  A literal may lead to
 * several targets, which are chained as outputs.
 */
void
prefilter_build(struct prefilter *pf, char **lit, uint32_t *target, size_t n)
{
	uint32_t	li;
	size_t		i;

	prefilter_free(pf);
	pf->outnext = xcalloc(n + 1, sizeof *pf->outnext);
	pf->outtarget = xcalloc(n + 1, sizeof *pf->outtarget);
	pf->nout = n;
	for (i = 0; i < n; i++) {
		li = prefilter_intern(pf, lit[i]);
		pf->outtarget[i] = target[i];
		pf->outnext[i] = pf->first[li];
		pf->first[li] = (uint32_t)i + 1;
	}
	for (i = 0; i < pf->nlit; i++) {
		if (pf->len[i] < 3) {
			pf->short_lit = xreallocarray(pf->short_lit,
			    pf->nshort + 1, sizeof *pf->short_lit);
			pf->short_lit[pf->nshort++] = (uint32_t)i;
		}
	}
	prefilter_index(pf);
	pf->built = pf->nlit > 0;
#ifdef PF_HAVE_AVX2
	pf->avx2 = __builtin_cpu_supports("avx2") &&
	    getenv("RANKLINE_NO_SIMD") == NULL;
#endif
}

/*
 * Count the four-byte words of real input (saturating), and once enough
 * was seen, move every literal's anchor to its least common four bytes.
 */
void
prefilter_learn(struct prefilter *pf, const uint8_t *p, size_t n)
{
	size_t	i;
	uint32_t h;

	if (!pf->built || pf->learnt >= PF_LEARN_BYTES)
		return;
	if (n == 0)
		return;
	if (pf->seen == NULL)
		pf->seen = xcalloc(PF_SLOTS, sizeof *pf->seen);
	if (n > PF_LEARN_BYTES - pf->learnt)
		n = PF_LEARN_BYTES - pf->learnt;
	for (i = 0; i + 4 <= n; i++) {
		h = PF_HASH(pf_word(p + i));
		if (pf->seen[h] != UINT16_MAX)
			pf->seen[h]++;
	}
	pf->learnt += n;
	if (pf->learnt >= PF_LEARN_BYTES)
		prefilter_learnt(pf);
}

/* Enough was seen (or all there is): anchor the literals by it. */
void
prefilter_learnt(struct prefilter *pf)
{
	if (pf->seen == NULL)
		return;
	prefilter_index(pf);
	free(pf->seen);
	pf->seen = NULL;
	pf->learnt = PF_LEARN_BYTES;
}

void
prefilter_free(struct prefilter *pf)
{
	size_t	i;

	for (i = 0; i < pf->nlit; i++)
		free(pf->lit[i]);
	free(pf->lit);
	free(pf->len);
	free(pf->anchor);
	free(pf->head);
	free(pf->first);
	free(pf->start);
	free(pf->items);
	free(pf->short_lit);
	free(pf->outnext);
	free(pf->outtarget);
	free(pf->seen);
	memset(pf, 0, sizeof *pf);
}

/* Append a hit. */
static inline void
hits_add(struct pf_list *h, uint32_t pos, uint32_t lit)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 1024;
		h->v = xreallocarray(h->v, h->cap, sizeof *h->v);
	}
	h->v[h->n].pos = pos;
	h->v[h->n].lit = lit;
	h->n++;
}

/*
 * Which literals really are at p[i], of the ones whose anchor hashes like
 * the four bytes there: each literal starts its anchor's offset before.
 */
static void
prefilter_verify(const struct prefilter *pf, const uint8_t *p, size_t i,
    size_t n, uint32_t hash, struct pf_list *h)
{
	uint32_t	k, li;
	size_t		at;

	for (k = pf->start[hash]; k < pf->start[hash + 1]; k++) {
		li = pf->items[k];
		if (pf->anchor[li] > i)
			continue;
		at = i - pf->anchor[li];
		if (pf->len[li] > n - at)
			continue;
		/* Most stops are for nothing: four bytes tell before memcmp. */
		if (pf->len[li] >= 4 && pf_word(p + at) != pf->head[li])
			continue;
		if (memcmp(p + at, pf->lit[li], pf->len[li]) == 0)
			hits_add(h, (uint32_t)at, li);
	}
}

/* The short literals, found on their own, merged into the hits in order. */
static void
prefilter_short(const struct prefilter *pf, const uint8_t *p, size_t n,
    struct pf_hits *h)
{
	struct pf_list	*all = &h->all, *tmp = &h->tmp;
	const uint8_t	*q;
	size_t		 k, a, b, at;
	uint32_t	 li;

	tmp->n = 0;
	for (k = 0; k < pf->nshort; k++) {
		li = pf->short_lit[k];
		for (at = 0; at + pf->len[li] <= n; at = (size_t)(q - p) + 1) {
			q = memchr(p + at, pf->lit[li][0], n - at);
			if (q == NULL)
				break;
			if ((size_t)(q - p) + pf->len[li] <= n &&
			    memcmp(q, pf->lit[li], pf->len[li]) == 0)
				hits_add(tmp, (uint32_t)(q - p), li);
		}
	}
	if (tmp->n == 0)
		return;
	/* Short hits of several literals come literal by literal: sort. */
	for (a = 1; a < tmp->n; a++) {
		struct pf_hit	x = tmp->v[a];

		for (b = a; b > 0 && tmp->v[b - 1].pos > x.pos; b--)
			tmp->v[b] = tmp->v[b - 1];
		tmp->v[b] = x;
	}
	/* Merge from the back, in place. */
	k = all->n;
	for (a = 0; a < tmp->n; a++)
		hits_add(all, 0, 0);
	a = k;
	b = tmp->n;
	at = all->n;
	while (b > 0) {
		if (a > 0 && all->v[a - 1].pos > tmp->v[b - 1].pos)
			all->v[--at] = all->v[--a];
		else
			all->v[--at] = tmp->v[--b];
	}
}

/* Scan positions [i, n - 3) one by one; returns where it stopped. */
static size_t
prefilter_scan_scalar(const struct prefilter *pf, const uint8_t *p, size_t i,
    size_t n, struct pf_list *h)
{
	const uint32_t	*bits = pf->bits;
	uint32_t	 a, b, c, d;

	for (; i + 8 <= n; i += 4) {
		a = PF_HASH(pf_word(p + i));
		b = PF_HASH(pf_word(p + i + 1));
		c = PF_HASH(pf_word(p + i + 2));
		d = PF_HASH(pf_word(p + i + 3));
		if ((pf_test(bits, a) | pf_test(bits, b) | pf_test(bits, c) |
		    pf_test(bits, d)) == 0)
			continue;
		if (pf_test(bits, a))
			prefilter_verify(pf, p, i, n, a, h);
		if (pf_test(bits, b))
			prefilter_verify(pf, p, i + 1, n, b, h);
		if (pf_test(bits, c))
			prefilter_verify(pf, p, i + 2, n, c, h);
		if (pf_test(bits, d))
			prefilter_verify(pf, p, i + 3, n, d, h);
	}
	for (; i + 4 <= n; i++) {
		a = PF_HASH(pf_word(p + i));
		if (pf_test(bits, a))
			prefilter_verify(pf, p, i, n, a, h);
	}
	return i;
}

#ifdef PF_HAVE_AVX2
/*
 * Eight positions at once: the sixteen bytes at p + i, in both halves of
 * a register, are shuffled into the eight overlapping words at i .. i + 7,
 * hashed, and their bits gathered from the set.
 */
__attribute__((target("avx2")))
static size_t
prefilter_scan_avx2(const struct prefilter *pf, const uint8_t *p, size_t i,
    size_t n, struct pf_list *h)
{
	const __m256i	 shuf = _mm256_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4,
			     2, 3, 4, 5, 3, 4, 5, 6, 4, 5, 6, 7, 5, 6, 7, 8,
			     6, 7, 8, 9, 7, 8, 9, 10);
	const __m256i	 mult = _mm256_set1_epi32((int)PF_MULT);
	const __m256i	 low5 = _mm256_set1_epi32(31);
	const int	*bits = (const int *)pf->bits;
	__m256i		 w, x, g;
	uint32_t	 hv[8];
	unsigned	 m, k;

	for (; i + 16 <= n; i += 8) {
		w = _mm256_broadcastsi128_si256(
		    _mm_loadu_si128((const __m128i *)(p + i)));
		w = _mm256_shuffle_epi8(w, shuf);
		x = _mm256_xor_si256(w, _mm256_srli_epi32(w, 15));
		x = _mm256_srli_epi32(_mm256_mullo_epi32(x, mult),
		    32 - PF_BITS);
		g = _mm256_i32gather_epi32(bits, _mm256_srli_epi32(x, 5), 4);
		g = _mm256_srlv_epi32(g, _mm256_and_si256(x, low5));
		m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(
		    _mm256_slli_epi32(g, 31)));
		if (m == 0)
			continue;
		_mm256_storeu_si256((__m256i *)hv, x);
		for (k = 0; k < 8; k++) {
			if (m & (1u << k))
				prefilter_verify(pf, p, i + k, n, hv[k], h);
		}
	}
	return i;
}
#endif

/*
 * Find every literal in p[0, n): each hit is where a literal starts and
 * which one it is.  Literals hold no newline, so in a block of whole lines
 * each hit lies within one line, and hits come in the order of their lines
 * (within a line, anchors at different offsets may reorder them).  Four
 * bytes are read at every position, so the last three positions are read
 * from a padded copy.
 */
void
prefilter_scan(const struct prefilter *pf, const uint8_t *p, size_t n,
    struct pf_hits *h)
{
	uint8_t		 tail[8];
	uint32_t	 x;
	size_t		 i = 0, k;

	h->all.n = 0;
	if (!pf->built || n == 0)
		return;
#ifdef PF_HAVE_AVX2
	if (pf->avx2)
		i = prefilter_scan_avx2(pf, p, i, n, &h->all);
#endif
	i = prefilter_scan_scalar(pf, p, i, n, &h->all);
	/* The last positions: their missing bytes are NUL, in no literal. */
	for (; i < n; i++) {
		memset(tail, 0, sizeof tail);
		for (k = 0; k < 4 && i + k < n; k++)
			tail[k] = p[i + k];
		x = PF_HASH(pf_word(tail));
		if (pf_test(pf->bits, x))
			prefilter_verify(pf, p, i, n, x, &h->all);
	}
	if (pf->nshort > 0)
		prefilter_short(pf, p, n, h);
}

/* Free a hit list. */
void
pf_hits_free(struct pf_hits *h)
{
	free(h->all.v);
	free(h->tmp.v);
	memset(h, 0, sizeof *h);
}
