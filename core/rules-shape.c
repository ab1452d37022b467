/*
 * rules-shape.c: name a line by its shape, as the line before it was named.
 *
 * A training log is a few line shapes written millions of times: the
 * iteration line, the timers line, vLLM's throughput line, each with new
 * numbers.  Scanning each for every literal and confirming its rule with
 * PCRE2 gives the same answer line after line.  A line's shape is the line
 * with every digit masked as '0'.  When no literal that could be there
 * holds a digit, and every rule among its candidates treats all digits
 * alike (pattern_digit_blind), two lines of one shape hold the same
 * literals and the same rule matches both, at the same offsets, since the
 * matcher took the same steps on each: so the first line's candidates and
 * match are kept by its shape, and the next line of that shape takes them
 * once it is found to be of it.  The numbers are read from the new line at
 * the kept offsets (match_int).
 *
 * A line is looked for first among the shapes last met whose lines start
 * as it does (its head: the first 64 bytes, masked and hashed): it is of
 * one if its newline is where that shape ends and a masked compare finds
 * every byte the same.  Only a line not found so is searched for its end,
 * hashed by its head, middle and tail, and looked up in the memo.  Either
 * way the compare decides, so a crafted collision costs a miss.
 *
 * Link and record attributions are not kept: they are run on every line,
 * on the kept candidates.  A line whose answer could depend on its digits,
 * or whose match hit a pcre2 limit, is not kept.  The memo is a small set-
 * associative table, so memory stays bounded whatever the input.
 */
#define _GNU_SOURCE		/* memmem */
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SHAPE_HAVE_AVX2	1
#endif

#include "rules-int.h"

#define SHAPE_SETS	512		/* power of two */
#define SHAPE_WAYS	4
#define SHAPE_MAX	1024		/* longer lines are not kept */
#define SHAPE_ANY	UINT32_MAX	/* its answer holds at any offset */
#define SHAPE_BARE	1		/* a line of it was read: no prefix */
#define SHAPE_PREFIXED	2		/* the message starts after one */
#define SHAPE_PIECE	32		/* bytes of each piece hashed */
#define SHAPE_HEADS	512		/* power of two */
#define SHAPE_HEAD_WAYS	8

/* One kept shape; `block` holds its bytes, candidates and offsets. */
struct shape {
	uint64_t	 hash;
	uint32_t	 len;		/* of the line, 0: empty */
	uint32_t	 off;		/* where its message starts */
	uint32_t	 stamp;		/* last use, for replacement */
	int32_t		 rule;		/* index of the rule matched, or -1 */
	uint16_t	 ncand;
	uint8_t		 pat;		/* which of the rule's patterns */
	uint8_t		 ngroups;
	uint8_t		 bare;		/* SHAPE_BARE: no prefix on its lines */
	uint64_t	 born;		/* its number among the shapes kept */
	void		*block;		/* owned */
	const uint8_t	*bytes;		/* in block, after the candidates */
};

/*
 * The shapes last met whose lines start alike, newest first, each with
 * its birth when put here; a shape and its birth side by side, so that
 * the newest, where most lines are found, is one cache line.
 */
struct shape_head {
	struct {
		struct shape	*e;
		uint64_t	 born;
	} w[SHAPE_HEAD_WAYS];
};

struct shape_memo {
	struct shape	 v[SHAPE_SETS * SHAPE_WAYS];
	uint32_t	 clock;
	uint64_t	 kept;		/* shapes kept so far */
	struct shape	*cur;		/* the scanned line's, if it was kept */
	struct shape	*slot;		/* else where it may be kept, or NULL */
	uint64_t	 hash;		/* and its hash, */
	size_t		 len;		/* its length */
	uint64_t	 limits;	/* and the limit hits before it */
	uint64_t	 hits;		/* lines found among the kept shapes */
	struct shape_head heads[SHAPE_HEADS];
	struct shape_head *head;	/* the scanned line's head, or NULL */
	const char	*next;		/* where the line after it starts, */
	struct shape_head *next_head;	/* and its head, being fetched */
	uint64_t	(*head_fn)(const char *);
	uint64_t	(*hash_fn)(const char *, size_t);
	bool		(*same_fn)(const char *, const uint8_t *, size_t);
	uint8_t		 buf[SHAPE_MAX + 64];	/* the masked line, scratch */
};

/* Copy n bytes with every digit as '0'. */
void
digits_mask(const char *s, size_t n, uint8_t *dst)
{
	size_t	i = 0;

#if defined(__SSE2__)
	const __m128i	zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
	__m128i		c, t;

	for (; i + 16 <= n; i += 16) {
		c = _mm_loadu_si128((const __m128i *)(s + i));
		t = _mm_sub_epi8(c, zero);
		/* A digit is c - '0' <= 9 unsigned; it becomes '0'. */
		t = _mm_and_si128(t, _mm_cmpeq_epi8(_mm_min_epu8(t, nine), t));
		_mm_storeu_si128((__m128i *)(dst + i), _mm_sub_epi8(c, t));
	}
#endif
	for (; i < n; i++)
		dst[i] = s[i] >= '0' && s[i] <= '9' ? '0' : (uint8_t)s[i];
}

/*
 * A line is found among the kept shapes in two steps: a hash of a few
 * of its pieces picks a set, and an exact compare of the whole line,
 * masked as it is read, against each kept line of that set names it.
 * The hash need only spread the shapes of one log over the sets; the
 * compare decides.  A crafted line that collides costs a miss and a scan,
 * never a wrong answer.
 */

/* Mix the masked pieces (each zero-padded to SHAPE_PIECE) and a length. */
static uint64_t
shape_mix(const uint8_t *p, size_t npieces, size_t n)
{
	uint64_t	h = 0x9e3779b97f4a7c15ULL ^ n, w;
	size_t		i;

	for (i = 0; i < npieces * SHAPE_PIECE; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xc2b2ae3d27d4eb4fULL;
		h ^= h >> 29;
	}
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

/*
 * The hash of the line s[0, n): its length, and its head, middle and tail
 * with every digit masked.  Shapes of one logger share their head (the
 * time, the level, the logger's name), so the middle and tail count too.
 */
static uint64_t
shape_hash_scalar(const char *s, size_t n)
{
	uint8_t	piece[3 * SHAPE_PIECE];
	size_t	k = n < SHAPE_PIECE ? n : SHAPE_PIECE;

	memset(piece, 0, sizeof piece);
	digits_mask(s, k, piece);
	if (n > SHAPE_PIECE) {
		digits_mask(s + n - k, k, piece + SHAPE_PIECE);
		digits_mask(s + (n - k) / 2, k, piece + 2 * SHAPE_PIECE);
	}
	return shape_mix(piece, 3, n);
}

/* Are the n bytes at s, with every digit masked, the kept bytes k? */
static bool
shape_same_scalar(const char *s, const uint8_t *k, size_t n)
{
	size_t	i;
	uint8_t	c;

	for (i = 0; i < n; i++) {
		c = (uint8_t)s[i];
		if ((c >= '0' && c <= '9' ? '0' : c) != k[i])
			return false;
	}
	return true;
}

/*
 * The hash of a line's first 64 bytes, masked (64 are there to read): a
 * logger's lines share their first 32 (the time, the level), and differ
 * soon after.
 */
static uint64_t
shape_head_scalar(const char *s)
{
	uint8_t	piece[2 * SHAPE_PIECE];

	digits_mask(s, 2 * SHAPE_PIECE, piece);
	return shape_mix(piece, 2, 0);
}

#ifdef SHAPE_HAVE_AVX2
/* 32 bytes at s, every digit as '0'. */
__attribute__((target("avx2")))
static inline __m256i
shape_mask32(const char *s)
{
	const __m256i	zero = _mm256_set1_epi8('0');
	const __m256i	nine = _mm256_set1_epi8(9);
	__m256i		c, t;

	c = _mm256_loadu_si256((const __m256i *)(const void *)s);
	t = _mm256_sub_epi8(c, zero);
	/* A digit is c - '0' <= 9 unsigned; it becomes '0'. */
	t = _mm256_and_si256(t, _mm256_cmpeq_epi8(_mm256_min_epu8(t, nine), t));
	return _mm256_sub_epi8(c, t);
}

__attribute__((target("avx2")))
static uint64_t
shape_head_avx2(const char *s)
{
	__m256i		a, b;
	uint64_t	l[4], h;

	a = _mm256_xor_si256(shape_mask32(s), _mm256_set_epi64x(
	    0x3c6ef372fe94f82bLL, 0x1b873593cc9e2d51LL,
	    0x7feb352d85ebca6bLL, 0x2545f4914f6cdd1dLL));
	b = _mm256_xor_si256(shape_mask32(s + SHAPE_PIECE), _mm256_set_epi64x(
	    0x165667b19e3779f9LL, 0x6a09e667f3bcc909LL,
	    0x27d4eb2f165667c5LL, 0x61c8864e7a143579LL));
	a = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a,
	    _mm256_srli_epi64(a, 32)), _mm256_shuffle_epi32(b, 0x4e)),
	    _mm256_mul_epu32(b, _mm256_srli_epi64(b, 32)));
	_mm256_storeu_si256((__m256i *)(void *)l, a);
	h = (l[0] ^ (l[1] * 0xc2b2ae3d27d4eb4fULL)) +
	    (l[2] ^ (l[3] * 0x165667b19e3779f9ULL));
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

/* The head, middle and tail, each masked, folded with keys; then n. */
__attribute__((target("avx2")))
static uint64_t
shape_hash_avx2(const char *s, size_t n)
{
	__m256i		a, b, c, acc;
	uint64_t	l[4], h;

	if (n < SHAPE_PIECE)
		return shape_hash_scalar(s, n);
	a = _mm256_xor_si256(shape_mask32(s), _mm256_set_epi64x(
	    0x3c6ef372fe94f82bLL, 0x1b873593cc9e2d51LL,
	    0x7feb352d85ebca6bLL, 0x2545f4914f6cdd1dLL));
	b = _mm256_xor_si256(shape_mask32(s + (n - SHAPE_PIECE) / 2),
	    _mm256_set_epi64x(0x165667b19e3779f9LL, 0x6a09e667f3bcc909LL,
	    0x27d4eb2f165667c5LL, 0x61c8864e7a143579LL));
	c = _mm256_xor_si256(shape_mask32(s + n - SHAPE_PIECE),
	    _mm256_set_epi64x(0x510e527fade682d1LL, 0x9b05688c2b3e6c1fLL,
	    0x1f83d9abfb41bd6bLL, 0x5be0cd19137e2179LL));
	/* xxh3's step: each word times its own other half, plus a word. */
	acc = _mm256_add_epi64(_mm256_mul_epu32(a, _mm256_srli_epi64(a, 32)),
	    _mm256_shuffle_epi32(b, 0x4e));
	acc = _mm256_add_epi64(acc, _mm256_mul_epu32(b,
	    _mm256_srli_epi64(b, 32)));
	acc = _mm256_add_epi64(acc, _mm256_shuffle_epi32(c, 0x4e));
	acc = _mm256_add_epi64(acc, _mm256_mul_epu32(c,
	    _mm256_srli_epi64(c, 32)));
	acc = _mm256_add_epi64(acc, _mm256_shuffle_epi32(a, 0x4e));
	_mm256_storeu_si256((__m256i *)(void *)l, acc);
	h = (l[0] ^ (l[1] * 0xc2b2ae3d27d4eb4fULL)) +
	    (l[2] ^ (l[3] * 0x165667b19e3779f9ULL)) + n;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

/*
 * Sixty-four bytes at a time, then thirty-two; the last piece is the
 * line's last 32 bytes, overlapping the one before, so that nothing past
 * either end is read.
 */
__attribute__((target("avx2")))
static inline bool
shape_same32(const char *s, const uint8_t *k)
{
	return (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
	    shape_mask32(s), _mm256_loadu_si256((const __m256i *)(const void *)
	    k))) == UINT32_MAX;
}

__attribute__((target("avx2")))
static bool
shape_same_avx2(const char *s, const uint8_t *k, size_t n)
{
	__m256i	e;
	size_t	i;

	if (n < SHAPE_PIECE)
		return shape_same_scalar(s, k, n);
	for (i = 0; i + 2 * SHAPE_PIECE <= n; i += 2 * SHAPE_PIECE) {
		e = _mm256_and_si256(_mm256_cmpeq_epi8(shape_mask32(s + i),
		    _mm256_loadu_si256((const __m256i *)(const void *)(k + i))),
		    _mm256_cmpeq_epi8(shape_mask32(s + i + SHAPE_PIECE),
		    _mm256_loadu_si256((const __m256i *)(const void *)
		    (k + i + SHAPE_PIECE))));
		if ((uint32_t)_mm256_movemask_epi8(e) != UINT32_MAX)
			return false;
	}
	if (i + SHAPE_PIECE <= n) {
		if (!shape_same32(s + i, k + i))
			return false;
		i += SHAPE_PIECE;
	}
	return i == n || shape_same32(s + n - SHAPE_PIECE, k + n - SHAPE_PIECE);
}
#endif

/*
 * For tests: is s[0, n), masked, the kept k[0, n), by each compare this
 * machine has (scalar, AVX2)?  Bit i is the i-th one's answer; *nimpl is
 * how many ran.
 */
unsigned
shape_same_each(const char *s, const uint8_t *k, size_t n, unsigned *nimpl)
{
	unsigned	bits = shape_same_scalar(s, k, n);

	*nimpl = 1;
#ifdef SHAPE_HAVE_AVX2
	if (__builtin_cpu_supports("avx2"))
		bits |= (unsigned)shape_same_avx2(s, k, n) << (*nimpl)++;
#endif
	return bits;
}

/*
 * Set up the memo for a finished ruleset, if the set allows one: the
 * prefix patterns must treat digits alike (the peel memo says so), since
 * the message's offset is kept.
 */
void
shape_init(struct ruleset *rs)
{
	shape_free(rs);
	if (rs->memo == NULL || rs->nrules + rs->nattribs >= UINT16_MAX ||
	    getenv("RANKLINE_NO_SHAPES") != NULL)
		return;
	rs->shapes = xcalloc(1, sizeof *rs->shapes);
	rs->shapes->head_fn = shape_head_scalar;
	rs->shapes->hash_fn = shape_hash_scalar;
	rs->shapes->same_fn = shape_same_scalar;
#ifdef SHAPE_HAVE_AVX2
	if (__builtin_cpu_supports("avx2") &&
	    getenv("RANKLINE_NO_SIMD") == NULL) {
		rs->shapes->head_fn = shape_head_avx2;
		rs->shapes->hash_fn = shape_hash_avx2;
		rs->shapes->same_fn = shape_same_avx2;
	}
#endif
}

void
shape_free(struct ruleset *rs)
{
	size_t	i;

	if (rs->shapes == NULL)
		return;
	for (i = 0; i < SHAPE_SETS * SHAPE_WAYS; i++)
		free(rs->shapes->v[i].block);
	free(rs->shapes);
	rs->shapes = NULL;
}

/*
 * Could a line of this shape hold a literal with a digit in it (and so
 * have candidates another line of its shape has not)?
 */
static bool
shape_digit_lits(const struct ruleset *rs, const uint8_t *m, size_t n)
{
	size_t	i;

	for (i = 0; i < rs->ndlit; i++) {
		if (memmem(m, n, rs->dlit[i], strlen(rs->dlit[i])) != NULL)
			return true;
	}
	return false;
}

/* Is a rule among the candidates? */
static bool
shape_cands_rules(const struct ruleset *rs)
{
	size_t	i;

	for (i = 0; i < rs->ncand; i++) {
		if ((rs->cand[i] & TARGET_ATTRIB) == 0)
			return true;
	}
	return false;
}

/* Is every rule among the candidates blind to digits? */
static bool
shape_cands_blind(const struct ruleset *rs)
{
	size_t	i;

	for (i = 0; i < rs->ncand; i++) {
		if ((rs->cand[i] & TARGET_ATTRIB) == 0 &&
		    !rs->rules[rs->cand[i]]->blind)
			return false;
	}
	return true;
}

/* Keep what the line just named came to, in the slot e: true if kept. */
static bool
shape_keep(struct ruleset *rs, struct shape *e, uint64_t h, size_t n,
    size_t off, bool matched, const struct rl_match *m)
{
	struct shape_memo	*sm = rs->shapes;
	size_t			 ng = matched ? (size_t)m->ngroups : 0;
	char			*p;

	/* What the entry's small fields could not hold is not kept. */
	if (matched && (m->ngroups > RL_MAXGROUPS ||
	    m->pat - m->rule->pat > UINT8_MAX))
		return false;
	free(e->block);
	e->block = p = xmalloc(n + rs->ncand * sizeof *rs->cand +
	    2 * ng * sizeof *m->ovec + sizeof(size_t));
	/* Offsets first, where they are aligned; then candidates, bytes. */
	if (ng > 0)
		memcpy(p, m->ovec, 2 * ng * sizeof *m->ovec);
	p += 2 * ng * sizeof *m->ovec;
	memcpy(p, rs->cand, rs->ncand * sizeof *rs->cand);
	p += rs->ncand * sizeof *rs->cand;
	memcpy(p, sm->buf, n);
	e->bytes = (const uint8_t *)p;
	e->hash = h;
	e->len = (uint32_t)n;
	e->off = (uint32_t)off;
	e->stamp = ++sm->clock;
	e->born = ++sm->kept;
	e->ncand = (uint16_t)rs->ncand;
	e->rule = matched ? (int32_t)m->rule->index : -1;
	e->pat = matched ? (uint8_t)(m->pat - m->rule->pat) : 0;
	e->ngroups = (uint8_t)ng;
	e->bare = 0;
	return true;
}

/*
 * Where a kept shape's bytes are, and its candidates just before them:
 * found from one pointer, as every line looked up asks.
 */
static inline const uint8_t *
shape_bytes(const struct shape *e)
{
	return e->bytes;
}

static inline const uint32_t *
shape_cand(const struct shape *e)
{
	return (const uint32_t *)(const void *)e->bytes - e->ncand;
}

/* The line scanned is of a kept shape: its candidates become the line's. */
static inline void
shape_hit(struct ruleset *rs, struct shape *e)
{
	struct shape_memo	*sm = rs->shapes;

	e->stamp = ++sm->clock;
	sm->hits++;
	/*
	 * Lent, not copied: the kept entry is replaced only on a line of a
	 * new shape, whose scan gives rs->cand its own buffer back first.
	 */
	rs->cand = shape_cand(e);
	rs->ncand = e->ncand;
	rs->cand_esc = false;
	sm->cur = e;
}

/* Take a kept shape's answer for the line s, its message at s + off. */
static bool
shape_take(struct ruleset *rs, const struct shape *e, const char *s,
    size_t off, struct rl_match *m)
{
	const char	*p = e->block;
	size_t		 ng = e->ngroups;

	if (e->ngroups > 0)
		memcpy(m->ovec, p, 2 * ng * sizeof *m->ovec);
	if (e->rule < 0)
		return false;
	m->rule = rs->rules[e->rule];
	m->pat = &m->rule->pat[e->pat];
	m->subject = s + off;
	m->ngroups = (int)ng;
	return true;
}

/* Put a shape first among its head's, from place j (or from the last). */
static inline void
shape_head_front(struct shape_head *hd, size_t j, struct shape *e)
{
	for (; j > 0; j--) {
		hd->w[j] = hd->w[j - 1];
	}
	hd->w[0].e = e;
	hd->w[0].born = e->born;
}

/* Put a shape first among its head's, once. */
static void
shape_head_add(struct shape_head *hd, struct shape *e)
{
	size_t	j;

	for (j = 0; j < SHAPE_HEAD_WAYS - 1; j++) {
		if (hd->w[j].e == e && hd->w[j].born == e->born)
			break;
	}
	shape_head_front(hd, j, e);
}

/*
 * A kept shape among those whose lines start as s does, that the line at
 * s is of: its newline where the shape's length ends, and every byte the
 * shape's.  Sets *nl to the newline's offset.  A line found here costs no
 * search for its end and no hash of the whole of it.
 */
static struct shape *
shape_head_find(struct shape_memo *sm, struct shape_head *hd, const char *s,
    size_t max, size_t *nl)
{
	struct shape	*e;
	size_t		 i, n;

	for (i = 0; i < SHAPE_HEAD_WAYS && (e = hd->w[i].e) != NULL; i++) {
		if (e->born != hd->w[i].born || (n = e->len) >= max)
			continue;
		if (s[n] == '\n')
			*nl = n;
		else if (s[n] == '\r' && n + 1 < max && s[n + 1] == '\n')
			*nl = n + 1;
		else
			continue;
		if (!sm->same_fn(s, shape_bytes(e), n))
			continue;
		shape_head_front(hd, i, e);
		return e;
	}
	return NULL;
}

static size_t	shape_scan_more(struct ruleset *, const char *, size_t);

/*
 * The next line's head, while the caller reads this one: its table entry,
 * the newest shape there and that one's first bytes are fetched from
 * memory meanwhile, where the lookup would wait on them one after the
 * other.  Only a guess, kept by the line's address: a line looked up
 * there is still compared with each shape, so a stale one (another
 * block read into the same buffer) costs a miss, never a wrong name.
 */
static inline void
shape_ahead(struct shape_memo *sm, const char *s, size_t max)
{
	struct shape_head	*hd;
	const struct shape	*e;

	if (max < 2 * SHAPE_PIECE) {
		sm->next = NULL;
		return;
	}
	hd = &sm->heads[sm->head_fn(s) & (SHAPE_HEADS - 1)];
	sm->next = s;
	sm->next_head = hd;
	if ((e = hd->w[0].e) != NULL) {
		/* Its match's offsets, at the block's start, then its bytes. */
		__builtin_prefetch(e->block);
		__builtin_prefetch(e->bytes);
	}
	__builtin_prefetch(s + 128);
	__builtin_prefetch(s + 192);
}

/*
 * Find the end of the line at s (a newline is within max bytes: returns
 * its offset) and the candidates of the line, as a scan of it would
 * (rs->cand), from its shape if one like it was kept; ruleset_match_shape
 * then names it.
 */
size_t
ruleset_shape_scan(struct ruleset *rs, const char *s, size_t max)
{
	struct shape_memo	*sm = rs->shapes;
	struct shape		*e;
	size_t			 nl;

	sm->cur = sm->slot = NULL;
	sm->head = NULL;
	if (max >= 2 * SHAPE_PIECE) {
		sm->head = s == sm->next ? sm->next_head :
		    &sm->heads[sm->head_fn(s) & (SHAPE_HEADS - 1)];
		if ((e = shape_head_find(sm, sm->head, s, max, &nl)) != NULL) {
			shape_hit(rs, e);
			shape_ahead(sm, s + nl + 1, max - nl - 1);
			return nl;
		}
	}
	sm->next = NULL;
	return shape_scan_more(rs, s, max);
}

/*
 * The rest of ruleset_shape_scan, for a line not found among its head's
 * shapes: apart, so that the line found there, most lines, costs the
 * registers and the frame of a small function.
 */
static __attribute__((noinline)) size_t
shape_scan_more(struct ruleset *rs, const char *s, size_t max)
{
	struct shape_memo	*sm = rs->shapes;
	struct shape		*set, *e, *old;
	uint64_t		 h;
	size_t			 i, n, nl;

	nl = (size_t)((const char *)memchr(s, '\n', max) - s);
	n = nl > 0 && s[nl - 1] == '\r' ? nl - 1 : nl;
	if (n == 0 || nl > SHAPE_MAX) {
		ruleset_scan_line(rs, s, n);
		return nl;
	}
	h = sm->hash_fn(s, n);
	set = &sm->v[(h & (SHAPE_SETS - 1)) * SHAPE_WAYS];
	old = &set[0];
	for (i = 0; i < SHAPE_WAYS; i++) {
		e = &set[i];
		if (e->hash == h && e->len == n &&
		    sm->same_fn(s, shape_bytes(e), n)) {
			shape_hit(rs, e);
			if (sm->head != NULL)
				shape_head_add(sm->head, e);
			return nl;
		}
		if (e->len == 0 || (old->len != 0 && e->stamp < old->stamp))
			old = e;
	}
	/* A new shape: its masked bytes, to be kept. */
	digits_mask(s, n, sm->buf);
	sm->slot = old;
	sm->hash = h;
	sm->len = n;
	sm->limits = rs->limit_hits;
	ruleset_scan_line(rs, s, n);
	/*
	 * No rule among the candidates: no rule matches, wherever the
	 * message starts.  Kept now, as the line may not be read at all.
	 */
	if (!rs->cand_esc && !shape_cands_rules(rs) &&
	    !shape_digit_lits(rs, sm->buf, n) &&
	    shape_keep(rs, old, h, n, SHAPE_ANY, false, NULL)) {
		sm->cur = old;
		sm->slot = NULL;
		if (sm->head != NULL)
			shape_head_add(sm->head, old);
	}
	return nl;
}

/*
 * The best rule for the line ruleset_shape_scan just scanned, s[0, n),
 * whose message starts at s + off (see ruleset_match_cands); what a line
 * of a new shape comes to is kept, if its digits could not change it.
 */
bool
ruleset_match_shape(struct ruleset *rs, const char *s, size_t n, size_t off,
    struct rl_match *m)
{
	struct shape_memo	*sm = rs->shapes;
	bool			 matched;

	if (sm->cur != NULL && (sm->cur->off == off ||
	    sm->cur->off == SHAPE_ANY)) {
		sm->cur->bare = off == 0 ? SHAPE_BARE : SHAPE_PREFIXED;
		return shape_take(rs, sm->cur, s, off, m);
	}
	matched = ruleset_match_cands(rs, s + off, n - off, m);
	if (sm->slot != NULL && sm->len == n && !rs->cand_esc &&
	    rs->limit_hits == sm->limits && shape_cands_blind(rs) &&
	    !shape_digit_lits(rs, sm->buf, n) &&
	    shape_keep(rs, sm->slot, sm->hash, n, off, matched, m)) {
		sm->slot->bare = off == 0 ? SHAPE_BARE : SHAPE_PREFIXED;
		if (sm->head != NULL)
			shape_head_add(sm->head, sm->slot);
	}
	sm->slot = NULL;
	return matched;
}

/*
 * Was a line of the shape just scanned read, and had it no prefix?  Then
 * this one has none either: the prefix patterns, like the rules, treat
 * digits alike (ruleset_memo), so they decide alike on it.
 */
bool
ruleset_shape_bare(const struct ruleset *rs)
{
	return rs->shapes != NULL && rs->shapes->cur != NULL &&
	    rs->shapes->cur->bare == SHAPE_BARE;
}

/* Was a line of the shape just scanned read, and had it a prefix? */
bool
ruleset_shape_prefixed(const struct ruleset *rs)
{
	return rs->shapes != NULL && rs->shapes->cur != NULL &&
	    rs->shapes->cur->bare == SHAPE_PREFIXED;
}

/*
 * A token for the kept shape of the line just scanned, 0 if none: the same
 * token later means the same shape, as a replaced entry is born anew.
 */
uint64_t
ruleset_shape_token(const struct ruleset *rs)
{
	const struct shape_memo	*sm = rs->shapes;

	return sm == NULL || sm->cur == NULL ? 0 : sm->cur->born;
}

/* How many lines were found among the kept shapes so far. */
uint64_t
ruleset_shape_hits(const struct ruleset *rs)
{
	return rs->shapes != NULL ? rs->shapes->hits : 0;
}

/* Are lines named by their shape? */
bool
ruleset_shapes(struct ruleset *rs)
{
	if (!rs->finished)
		ruleset_finish(rs);
	return rs->shapes != NULL;
}
