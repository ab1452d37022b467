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
 * This is a filter instead.  A literal of seven bytes or more has four
 * anchors: the four-byte words at four consecutive offsets in it.  Their
 * hashes are set in a 65,536-bit set of 8 KB that stays in the first-level
 * cache.  Wherever the literal occurs, one of its anchors starts at a
 * multiple of four, so the scan hashes only the word at every fourth
 * position: thirty-two bytes at once where the processor has AVX2, one
 * load, eight hashes and one gather, with no step waiting on the one
 * before.  Only where the set has the bit does it look closer, at the
 * literals with an anchor that hashes alike, compared in full.
 *
 * Literals of three to six bytes ("step", "Error") are too short to have
 * four anchors.  There are few of them, and they are found the way
 * Hyperscan's Teddy finds short literals: three bytes of each put it in one
 * of eight buckets by their nibbles, two table lookups per byte give, at
 * thirty-two positions at once, the buckets whose three bytes may be
 * there, and those are compared in full.  Literals under three bytes (the
 * escape byte) are found with memchr.
 *
 * The anchors decide how often the scan stops for nothing: a literal's
 * first bytes are often a common word ("GPU ", "Work").  So the anchors
 * are first the ones least common by a rough static guess, and once
 * PF_LEARN_BYTES of real input were seen, the ones least common in that
 * input (prefilter_learn).
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
 * Where a long literal's four anchors start: the offset whose four words
 * were seen least often in the input learnt from, or before any was, the
 * least common by the guess.
 */
static uint32_t
pf_anchor(const struct prefilter *pf, const char *s, uint32_t len)
{
	const uint8_t	*u = (const uint8_t *)s;
	uint32_t	 i, k, best = 0;
	uint64_t	 cost, min = UINT64_MAX;

	for (i = 0; i + PF_LONG <= len; i++) {
		cost = 0;
		for (k = i; k < i + PF_STRIDE + 3; k++)
			cost += (uint64_t)pf_byte_cost(u[k]);
		if (pf->seen != NULL) {
			for (k = i; k < i + PF_STRIDE; k++)
				cost += (uint64_t)
				    pf->seen[PF_HASH(pf_word(u + k))] << 8;
		}
		if (cost < min) {
			min = cost;
			best = i;
		}
	}
	return best;
}

/* Where a mid literal's three bytes are taken: its least common three. */
static uint8_t
pf_mid_off(const char *s, uint32_t len)
{
	const uint8_t	*u = (const uint8_t *)s;
	uint32_t	 i, best = 0;
	int		 cost, min = 1 << 20;

	for (i = 0; i + PF_MID <= len; i++) {
		cost = pf_byte_cost(u[i]) + pf_byte_cost(u[i + 1]) +
		    pf_byte_cost(u[i + 2]);
		if (cost < min) {
			min = cost;
			best = i;
		}
	}
	return (uint8_t)best;
}

/* Put the mid literals in eight buckets and fill the nibble tables. */
static void
prefilter_mid_index(struct prefilter *pf)
{
	const uint8_t	*u;
	uint32_t	 count[8] = { 0 }, b, j;
	size_t		 m;

	memset(pf->mid_lo, 0, sizeof pf->mid_lo);
	memset(pf->mid_hi, 0, sizeof pf->mid_hi);
	for (m = 0; m < pf->nmid; m++) {
		b = (uint32_t)(m % 8);
		count[b]++;
		u = (const uint8_t *)pf->lit[pf->mid_lit[m]] + pf->mid_off[m];
		for (j = 0; j < PF_MID; j++) {
			pf->mid_lo[j][u[j] & 15] |= (uint8_t)(1u << b);
			pf->mid_hi[j][u[j] >> 4] |= (uint8_t)(1u << b);
		}
	}
	pf->mid_start[0] = 0;
	for (b = 0; b < 8; b++)
		pf->mid_start[b + 1] = pf->mid_start[b] + count[b];
	pf->mid_by = xcalloc(pf->nmid + 1, sizeof *pf->mid_by);
	memset(count, 0, sizeof count);
	for (m = 0; m < pf->nmid; m++) {
		b = (uint32_t)(m % 8);
		pf->mid_by[pf->mid_start[b] + count[b]++] = (uint32_t)m;
	}
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

/*
 * Bucket the long literals by their anchors' hashes and set the bits.  The
 * buckets' starts are counted in place: each ends up where its bucket
 * ends, and filling backwards moves it to where the bucket begins, the
 * literals in order within it.  A second table of counts was 512 KB to
 * clear, twice at each start (the static anchors, then the learnt ones).
 */
static void
prefilter_index(struct prefilter *pf)
{
	const uint8_t	*u;
	uint32_t	 h, at, *start;
	size_t		 i, k;

	memset(pf->bits, 0, sizeof pf->bits);
	free(pf->start);
	free(pf->items);
	free(pf->item_off);
	start = pf->start = xcalloc(PF_SLOTS + 1, sizeof *pf->start);
	for (i = 0; i < pf->nlit; i++) {
		if (pf->len[i] < PF_LONG)
			continue;
		pf->anchor[i] = pf_anchor(pf, pf->lit[i], pf->len[i]);
		u = (const uint8_t *)pf->lit[i];
		for (k = 0; k < PF_STRIDE; k++)
			start[PF_HASH(pf_word(u + pf->anchor[i] + k))]++;
	}
	for (h = 1; h < PF_SLOTS; h++)
		start[h] += start[h - 1];
	start[PF_SLOTS] = start[PF_SLOTS - 1];
	pf->items = xcalloc(start[PF_SLOTS] + 1, sizeof *pf->items);
	pf->item_off = xcalloc(start[PF_SLOTS] + 1, sizeof *pf->item_off);
	for (i = pf->nlit; i-- > 0;) {
		if (pf->len[i] < PF_LONG)
			continue;
		u = (const uint8_t *)pf->lit[i];
		for (k = PF_STRIDE; k-- > 0;) {
			at = pf->anchor[i] + (uint32_t)k;
			h = PF_HASH(pf_word(u + at));
			pf->items[--start[h]] = (uint32_t)i;
			pf->item_off[start[h]] = at;
			pf->bits[h >> 5] |= 1u << (h & 31);
		}
	}
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

	prefilter_clear(pf);
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
		if (pf->len[i] < PF_MID) {
			pf->short_lit = xreallocarray(pf->short_lit,
			    pf->nshort + 1, sizeof *pf->short_lit);
			pf->short_lit[pf->nshort++] = (uint32_t)i;
		} else if (pf->len[i] < PF_LONG) {
			pf->mid_lit = xreallocarray(pf->mid_lit,
			    pf->nmid + 1, sizeof *pf->mid_lit);
			pf->mid_off = xreallocarray(pf->mid_off,
			    pf->nmid + 1, sizeof *pf->mid_off);
			pf->mid_lit[pf->nmid] = (uint32_t)i;
			pf->mid_off[pf->nmid++] = pf_mid_off(pf->lit[i],
			    pf->len[i]);
		}
	}
	prefilter_mid_index(pf);
	prefilter_index(pf);
	pf->built = pf->nlit > 0;
#ifdef PF_HAVE_AVX2
	pf->avx2 = __builtin_cpu_supports("avx2") &&
	    getenv("RANKLINE_NO_SIMD") == NULL;
#endif
}

/*
 * Count the four-byte words of real input (saturating), and once enough
 * was seen, move every long literal's anchors to its least common words.
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
prefilter_clear(struct prefilter *pf)
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
	free(pf->item_off);
	free(pf->mid_lit);
	free(pf->mid_off);
	free(pf->mid_by);
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
 * Which long literals really are about p[i], of the ones with an anchor
 * that hashes like the four bytes there: each starts its anchor's offset
 * before.
 */
static void
prefilter_verify(const struct prefilter *pf, const uint8_t *p, size_t i,
    size_t n, uint32_t hash, struct pf_list *h)
{
	uint32_t	k, li;
	size_t		at;

	for (k = pf->start[hash]; k < pf->start[hash + 1]; k++) {
		li = pf->items[k];
		if (pf->item_off[k] > i)
			continue;
		at = i - pf->item_off[k];
		if (pf->len[li] > n - at)
			continue;
		/* Most stops are for nothing: four bytes tell before memcmp. */
		if (pf_word(p + at) != pf->head[li])
			continue;
		if (memcmp(p + at, pf->lit[li], pf->len[li]) == 0)
			hits_add(h, (uint32_t)at, li);
	}
}

/*
 * Which mid literals of the buckets in bits have their three bytes at
 * p[i]: each starts its offset before, and is compared in full.
 */
static inline void
prefilter_mid_at(const struct prefilter *pf, const uint8_t *p, size_t i,
    size_t n, unsigned bits, struct pf_list *h)
{
	uint32_t	li, k, b;
	size_t		at, m;

	for (; bits != 0; bits &= bits - 1) {
		b = (uint32_t)__builtin_ctz(bits);
		for (k = pf->mid_start[b]; k < pf->mid_start[b + 1]; k++) {
			m = pf->mid_by[k];
			li = pf->mid_lit[m];
			if (pf->mid_off[m] > i)
				continue;
			at = i - pf->mid_off[m];
			if (pf->len[li] <= n - at &&
			    memcmp(p + at, pf->lit[li], pf->len[li]) == 0)
				hits_add(h, (uint32_t)at, li);
		}
	}
}

/* Mid literals whose three bytes start in [i, n - 2), one at a time. */
static void
prefilter_mid_scalar(const struct prefilter *pf, const uint8_t *p, size_t i,
    size_t n, struct pf_list *h)
{
	unsigned	bits;
	size_t		j;

	for (; i + PF_MID <= n; i++) {
		bits = 0xff;
		for (j = 0; j < PF_MID; j++)
			bits &= (unsigned)(pf->mid_lo[j][p[i + j] & 15] &
			    pf->mid_hi[j][p[i + j] >> 4]);
		if (bits != 0)
			prefilter_mid_at(pf, p, i, n, bits, h);
	}
}

#ifdef PF_HAVE_AVX2
/*
 * Thirty-two positions at a time: for each of the three bytes, the
 * buckets its low nibble allows and its high nibble allows, all ANDed.
 * Hits come in line order: one found later may start up to two bytes
 * earlier, but then inside the same literal, so on the same line.
 */
__attribute__((target("avx2")))
static size_t
prefilter_mid_avx2(const struct prefilter *pf, const uint8_t *p, size_t n,
    struct pf_list *h)
{
	const __m256i	 low4 = _mm256_set1_epi8(15);
	__m256i		 lo[PF_MID], hi[PF_MID], v, r;
	uint8_t		 rb[32];
	uint32_t	 nz;
	size_t		 i, j;

	for (j = 0; j < PF_MID; j++) {
		lo[j] = _mm256_broadcastsi128_si256(
		    _mm_loadu_si128((const __m128i *)pf->mid_lo[j]));
		hi[j] = _mm256_broadcastsi128_si256(
		    _mm_loadu_si128((const __m128i *)pf->mid_hi[j]));
	}
	for (i = 0; i + 32 + PF_MID - 1 <= n; i += 32) {
		r = _mm256_set1_epi8(-1);
		for (j = 0; j < PF_MID; j++) {
			v = _mm256_loadu_si256((const __m256i *)(p + i + j));
			r = _mm256_and_si256(r, _mm256_and_si256(
			    _mm256_shuffle_epi8(lo[j],
			    _mm256_and_si256(v, low4)),
			    _mm256_shuffle_epi8(hi[j], _mm256_and_si256(
			    _mm256_srli_epi16(v, 4), low4))));
		}
		nz = ~(uint32_t)_mm256_movemask_epi8(
		    _mm256_cmpeq_epi8(r, _mm256_setzero_si256()));
		if (nz == 0)
			continue;
		_mm256_storeu_si256((__m256i *)rb, r);
		for (; nz != 0; nz &= nz - 1) {
			j = (size_t)__builtin_ctz(nz);
			prefilter_mid_at(pf, p, i + j, n, rb[j], h);
		}
	}
	return i;
}
#endif

/* Merge a list sorted by position into the hits, from the back, in place. */
static void
hits_merge(struct pf_list *all, const struct pf_list *tmp)
{
	size_t	a, b, at, k;

	if (tmp->n == 0)
		return;
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

static int
hit_cmp(const void *x, const void *y)
{
	const struct pf_hit	*a = x, *b = y;

	if (a->pos != b->pos)
		return a->pos < b->pos ? -1 : 1;
	return a->lit < b->lit ? -1 : a->lit > b->lit;
}

/* The mid literals' hits, in order, merged into the others. */
static void
prefilter_mid(const struct prefilter *pf, const uint8_t *p, size_t n,
    struct pf_hits *h)
{
	struct pf_list	*tmp = &h->tmp;
	size_t		 i = 0;

	tmp->n = 0;
#ifdef PF_HAVE_AVX2
	if (pf->avx2)
		i = prefilter_mid_avx2(pf, p, n, tmp);
#endif
	prefilter_mid_scalar(pf, p, i, n, tmp);
	hits_merge(&h->all, tmp);
}

/* The short literals, found on their own, merged into the hits in order. */
static void
prefilter_short(const struct prefilter *pf, const uint8_t *p, size_t n,
    struct pf_hits *h)
{
	struct pf_list	*tmp = &h->tmp2;
	const uint8_t	*q;
	size_t		 k, at;
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
	/* Hits of several literals come literal by literal: sort. */
	if (pf->nshort > 1 && tmp->n > 1)
		qsort(tmp->v, tmp->n, sizeof *tmp->v, hit_cmp);
	hits_merge(&h->all, tmp);
}

/* Probe the words at every fourth position from i; returns where it stopped. */
static size_t
prefilter_scan_scalar(const struct prefilter *pf, const uint8_t *p, size_t i,
    size_t n, struct pf_list *h)
{
	const uint32_t	*bits = pf->bits;
	uint32_t	 a;

	for (; i + 4 <= n; i += PF_STRIDE) {
		a = PF_HASH(pf_word(p + i));
		if (pf_test(bits, a))
			prefilter_verify(pf, p, i, n, a, h);
	}
	return i;
}

#ifdef PF_HAVE_AVX2
/*
 * Eight words at once: the thirty-two bytes at p + i are the words at
 * i, i + 4, ..., i + 28, hashed, and their bits gathered from the set.
 */
__attribute__((target("avx2")))
static size_t
prefilter_scan_avx2(const struct prefilter *pf, const uint8_t *p, size_t i,
    size_t n, struct pf_list *h)
{
	const __m256i	 mult = _mm256_set1_epi32((int)PF_MULT);
	const __m256i	 low5 = _mm256_set1_epi32(31);
	const int	*bits = (const int *)pf->bits;
	__m256i		 w, x, g;
	uint32_t	 hv[8];
	unsigned	 m, k;

	for (; i + 32 <= n; i += 32) {
		w = _mm256_loadu_si256((const __m256i *)(p + i));
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
				prefilter_verify(pf, p, i + 4 * k, n, hv[k],
				    h);
		}
	}
	return i;
}
#endif

/*
 * Find every literal in p[0, n): each hit is where a literal starts and
 * which one it is.  Literals hold no newline, so in a block of whole lines
 * each hit lies within one line, and hits come in the order of their lines
 * (within a line, anchors at different offsets may reorder them).
 */
void
prefilter_scan(const struct prefilter *pf, const uint8_t *p, size_t n,
    struct pf_hits *h)
{
	size_t		 i = 0;

	h->all.n = 0;
	if (!pf->built || n == 0)
		return;
#ifdef PF_HAVE_AVX2
	if (pf->avx2)
		i = prefilter_scan_avx2(pf, p, i, n, &h->all);
#endif
	prefilter_scan_scalar(pf, p, i, n, &h->all);
	if (pf->nmid > 0)
		prefilter_mid(pf, p, n, h);
	if (pf->nshort > 0)
		prefilter_short(pf, p, n, h);
}

/* Free a hit list. */
void
pf_hits_clear(struct pf_hits *h)
{
	free(h->all.v);
	free(h->tmp.v);
	free(h->tmp2.v);
	memset(h, 0, sizeof *h);
}
