/*
 * sanitize.c: log text is hostile input.  A line may carry escape sequences
 * that retitle or clear the terminal, bytes that are not UTF-8, or markup.
 * Each destination gets its own escaping here, and nothing else in rankline
 * writes log text anywhere without going through one of these.
 */
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base.h"

/*
 * Where plain ASCII that JSON takes as it is (no control byte, DEL, quote,
 * backslash or byte past 0x7f) stops in p[i, n), sixteen bytes at a time;
 * it may stop early, within the last sixteen.
 */
static size_t
json_plain(const unsigned char *p, size_t i, size_t n)
{
#if defined(__SSE2__)
	const __m128i	sp = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"');
	const __m128i	bs = _mm_set1_epi8('\\'), del = _mm_set1_epi8(0x7f);
	__m128i		c, bad;

	for (; i + 16 <= n; i += 16) {
		c = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		/* Signed: a byte past 0x7f is negative, so below the blank. */
		bad = _mm_or_si128(_mm_cmpgt_epi8(sp, c), _mm_or_si128(
		    _mm_cmpeq_epi8(c, quote), _mm_or_si128(_mm_cmpeq_epi8(c,
		    bs), _mm_cmpeq_epi8(c, del))));
		if (_mm_movemask_epi8(bad) != 0)
			break;
	}
#endif
	return i;
}

/* Length of the valid UTF-8 sequence at p (1 to 4), or 0 if invalid. */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	unsigned	c = p[0];
	size_t		len, i;
	uint32_t	cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and the C1 controls are refused. */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 ||
	    cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

/* Length of an escape sequence starting at p[0] == ESC, 1 if unknown. */
static size_t
escape_len(const unsigned char *p, size_t n)
{
	size_t	i;

	if (n < 2)
		return 1;
	if (p[1] == '[') {		/* CSI: parameters, then a final byte */
		for (i = 2; i < n && i < 64; i++) {
			if (p[i] >= 0x40 && p[i] <= 0x7e)
				return i + 1;
		}
		return i;
	}
	if (p[1] == ']' || p[1] == 'P' || p[1] == '_' || p[1] == '^') {
		/* OSC, DCS, APC, PM: up to BEL or ESC \ */
		for (i = 2; i < n && i < 4096; i++) {
			if (p[i] == 0x07)
				return i + 1;
			if (p[i] == 0x1b && i + 1 < n && p[i + 1] == '\\')
				return i + 2;
		}
		return i;
	}
	return 2;			/* ESC and one more byte */
}

/*
 * Remove ANSI escape sequences in place (colour codes wrap line prefixes
 * in real logs); returns the new length.
 */
size_t
strip_ansi(char *s, size_t n)
{
	unsigned char	*p = (unsigned char *)s;
	size_t		 i = 0, o = 0, k;

	if (memchr(s, 0x1b, n) == NULL)
		return n;
	while (i < n) {
		if (p[i] == 0x1b) {
			k = escape_len(p + i, n - i);
			i += k;
			continue;
		}
		p[o++] = p[i++];
	}
	return o;
}

/*
 * Is the valid UTF-8 sequence p[0, len) a character that draws nothing but
 * can reorder or hide what is around it: a bidi control (U+202E makes
 * "gpj.exe" read "exe.jpg"), a zero-width one, a byte-order mark, a line
 * or paragraph separator?  Only these: combining accents are text.
 */
static bool
utf8_invisible(const unsigned char *p, size_t len, uint32_t *cp)
{
	if (len == 2 && p[0] == 0xd8 && p[1] == 0x9c) {
		*cp = 0x061c;			/* Arabic letter mark */
		return true;
	}
	if (len != 3 || (p[0] != 0xe2 && p[0] != 0xef))
		return false;
	*cp = ((uint32_t)(p[0] & 0x0f) << 12) | ((uint32_t)(p[1] & 0x3f) << 6) |
	    (p[2] & 0x3f);
	return (*cp >= 0x200b && *cp <= 0x200f) ||
	    (*cp >= 0x2028 && *cp <= 0x202e) ||
	    (*cp >= 0x2060 && *cp <= 0x2069) || *cp == 0xfeff ||
	    (*cp >= 0xfff9 && *cp <= 0xfffb);
}

/*
 * For the terminal: escape sequences are dropped, other control bytes shown
 * as ^X, invalid UTF-8 as \xNN, invisible reordering characters as \uNNNN,
 * tabs as one space.
 */
void
sanitize_terminal(struct buf *b, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, k;
	uint32_t		 cp;

	while (i < n) {
		if (p[i] == 0x1b) {
			i += escape_len(p + i, n - i);
			continue;
		}
		if (p[i] == '\t') {
			buf_addc(b, ' ');
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			buf_addc(b, '^');
			buf_addc(b, p[i] == 0x7f ? '?' : (char)(p[i] + '@'));
			i++;
		} else if ((k = utf8_len(p + i, n - i)) == 0) {
			buf_printf(b, "\\x%02x", p[i]);
			i++;
		} else if (k > 1 && utf8_invisible(p + i, k, &cp)) {
			buf_printf(b, "\\u%04x", (unsigned)cp);
			i += k;
		} else {
			buf_add(b, p + i, k);
			i += k;
		}
	}
}

/* For JSON strings: quotes, backslashes and controls escaped; bad UTF-8 as U+FFFD. */
void
sanitize_json(struct buf *b, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, k;

	while (i < n) {
		/* Plain ASCII goes in runs: most text is nothing else. */
		k = json_plain(p, i, n);
		for (; k < n && p[k] >= 0x20 && p[k] < 0x7f &&
		    p[k] != '"' && p[k] != '\\'; k++)
			;
		if (k > i) {
			buf_add(b, p + i, k - i);
			i = k;
			continue;
		}
		if (p[i] == '"' || p[i] == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, (char)p[i++]);
		} else if (p[i] == '\n') {
			buf_adds(b, "\\n");
			i++;
		} else if (p[i] == '\t') {
			buf_adds(b, "\\t");
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			buf_printf(b, "\\u%04x", p[i]);
			i++;
		} else if ((k = utf8_len(p + i, n - i)) == 0) {
			buf_adds(b, "\xef\xbf\xbd");
			i++;
		} else {
			buf_add(b, p + i, k);
			i += k;
		}
	}
}

/* For HTML text and attributes: markup characters as entities, then as for a terminal. */
void
sanitize_html(struct buf *b, const char *s, size_t n)
{
	struct buf	t = { 0 };
	size_t		i;

	sanitize_terminal(&t, s, n);
	for (i = 0; i < t.len; i++) {
		switch (t.p[i]) {
		case '<':
			buf_adds(b, "&lt;");
			break;
		case '>':
			buf_adds(b, "&gt;");
			break;
		case '&':
			buf_adds(b, "&amp;");
			break;
		case '"':
			buf_adds(b, "&quot;");
			break;
		case '\'':
			buf_adds(b, "&#39;");
			break;
		default:
			buf_addc(b, t.p[i]);
		}
	}
	buf_clear(&t);
}

/* A JSON string literal with its quotes, or null for NULL. */
void
sanitize_json_string(struct buf *b, const char *s)
{
	if (s == NULL) {
		buf_adds(b, "null");
		return;
	}
	buf_addc(b, '"');
	sanitize_json(b, s, strlen(s));
	buf_addc(b, '"');
}
