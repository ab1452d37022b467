/*
 * test-sanitize.c: log text made safe for JSON, byte by byte and sixteen
 * at a time.  Every hostile byte is tried at every offset of a line long
 * enough to cross the wide scan's steps, and each result is held to a
 * byte-at-a-time escaper and to what a JSON reader reads back.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "tap.h"

/* The escaping, one byte at a time, as the JSON report promises it. */
static void
reference(struct buf *b, const unsigned char *p, size_t n)
{
	size_t	i, k;

	for (i = 0; i < n; i++) {
		if (p[i] == '"' || p[i] == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, (char)p[i]);
		} else if (p[i] == '\n')
			buf_adds(b, "\\n");
		else if (p[i] == '\t')
			buf_adds(b, "\\t");
		else if (p[i] < 0x20 || p[i] == 0x7f)
			buf_printf(b, "\\u%04x", p[i]);
		else if (p[i] < 0x80)
			buf_addc(b, (char)p[i]);
		else {
			/* Only the UTF-8 sequences this test writes. */
			k = (p[i] == 0xe2 && i + 2 < n && p[i + 1] == 0x96 &&
			    p[i + 2] == 0x88) ? 3 : 0;
			if (k == 0)
				buf_adds(b, "\xef\xbf\xbd");
			else {
				buf_add(b, p + i, k);
				i += k - 1;
			}
		}
	}
}

static void
test_every_offset(void)
{
	static const char *hostile[] = { "\"", "\\", "\n", "\t", "\x1b", "\x7f",
	    "\x01", "\xff", "\xc3", "\xe2\x96\x88", "\x1f" };
	unsigned char	 line[80];
	struct buf	 got = { 0 }, want = { 0 };
	size_t		 h, at, len, bad = 0, tried = 0;

	for (h = 0; h < sizeof hostile / sizeof hostile[0]; h++) {
		for (at = 0; at + strlen(hostile[h]) <= 70; at++) {
			memset(line, 'a' + (int)(at % 26), sizeof line);
			len = 70;
			memcpy(line + at, hostile[h], strlen(hostile[h]));
			buf_reset(&got);
			buf_reset(&want);
			sanitize_json(&got, (const char *)line, len);
			reference(&want, line, len);
			tried++;
			if (got.len != want.len ||
			    memcmp(got.p, want.p, got.len) != 0)
				bad++;
		}
	}
	is_int((int)bad, 0, "each hostile byte at each of 70 offsets is escaped "
	    "as byte by byte (%zu lines)", tried);
	buf_clear(&got);
	buf_clear(&want);
}

/*
 * Read a JSON string's body back as RFC 8259 does, for the escapes
 * sanitize_json writes; false on a raw control byte or another escape.
 */
static bool
unescape(const char *p, size_t n, struct buf *out)
{
	size_t		i;
	unsigned	u;

	for (i = 0; i < n; i++) {
		if ((unsigned char)p[i] < 0x20 || p[i] == '"')
			return false;
		if (p[i] != '\\') {
			buf_addc(out, p[i]);
			continue;
		}
		if (++i == n)
			return false;
		if (p[i] == '"' || p[i] == '\\')
			buf_addc(out, p[i]);
		else if (p[i] == 'n')
			buf_addc(out, '\n');
		else if (p[i] == 't')
			buf_addc(out, '\t');
		else if (p[i] == 'u' && i + 4 < n &&
		    sscanf(p + i + 1, "%4x", &u) == 1 && u < 0x80) {
			buf_addc(out, (char)u);
			i += 4;
		} else
			return false;
	}
	return true;
}

/* What a JSON reader reads back is the text, where it was ASCII. */
static void
test_round_trip(void)
{
	unsigned char	 s[300];
	struct buf	 b = { 0 }, back = { 0 };
	unsigned	 seed = 11;
	size_t		 i, n, same = 0, read = 0;
	int		 round;

	for (round = 0; round < 200; round++) {
		n = 1 + (size_t)rand_r(&seed) % (sizeof s - 1);
		for (i = 0; i < n; i++) {
			/* Mostly text, some of every byte JSON must escape. */
			s[i] = (unsigned char)(rand_r(&seed) % 8 == 0 ?
			    rand_r(&seed) % 0x80 : 'A' + rand_r(&seed) % 58);
		}
		buf_reset(&b);
		buf_reset(&back);
		sanitize_json(&b, (const char *)s, n);
		if (!unescape(b.p, b.len, &back))
			continue;
		read++;
		same += back.len == n && memcmp(back.p, s, n) == 0;
	}
	is_int((int)read, 200, "every escaped line is a JSON string's body");
	is_int((int)same, 200, "and reads back as the line");
	buf_clear(&b);
	buf_clear(&back);
}

/*
 * The buffer the escapers write to: formatted text lands after what is
 * there, whether or not it fits the room left, and integers are written
 * as printf writes them.
 */
static void
test_buf(void)
{
	static const long long	 ints[] = { 0, 7, -1, 10, -10, 1234567890,
	    LLONG_MAX, LLONG_MIN };
	struct buf		 b = { 0 };
	char			 want[4096], fill[2000], s[32];
	size_t			 i, k, bad = 0;

	memset(fill, 'x', sizeof fill - 1);
	fill[sizeof fill - 1] = '\0';
	/* Every length of text before, against every width formatted. */
	for (i = 0; i < 200; i++) {
		for (k = 0; k < 1500; k += 37) {
			buf_reset(&b);
			buf_add(&b, fill, i);
			buf_printf(&b, "<%.*s|%zu>", (int)k, fill, k);
			snprintf(want, sizeof want, "%.*s<%.*s|%zu>", (int)i,
			    fill, (int)k, fill, k);
			bad += b.len != strlen(want) || strcmp(b.p, want) != 0;
		}
	}
	is_int((int)bad, 0, "buf_printf: the formatted text follows what was "
	    "there, whatever room was left");
	for (i = 0, bad = 0; i < sizeof ints / sizeof ints[0]; i++) {
		buf_reset(&b);
		buf_add_int(&b, ints[i]);
		snprintf(s, sizeof s, "%lld", ints[i]);
		bad += strcmp(b.p, s) != 0;
	}
	is_int((int)bad, 0, "buf_add_int writes integers as %%lld does, the "
	    "extremes too");
	buf_clear(&b);
}

/* For the terminal: what could reorder or hide text is shown, not obeyed. */
static void
test_terminal(void)
{
	static const struct {
		const char	*in, *out, *what;
	} t[] = {
		{ "a\xe2\x80\xaegpj.exe", "a\\u202egpj.exe", "right-to-left override" },
		{ "x\xe2\x81\xa6y\xe2\x81\xa9", "x\\u2066y\\u2069", "isolates" },
		{ "to\xe2\x80\x8bken", "to\\u200bken", "zero-width space" },
		{ "\xef\xbb\xbfline", "\\ufeffline", "byte-order mark" },
		{ "a\xd8\x9c" "b", "a\\u061cb", "Arabic letter mark" },
		{ "caf\xc3\xa9 e\xcc\x81", "caf\xc3\xa9 e\xcc\x81", "accents stay" },
		{ "\xe2\x96\x88 \xe2\x80\x94", "\xe2\x96\x88 \xe2\x80\x94", "a block and a dash stay" },
		{ "\x1b]0;pwned\x07ok\x1b[2J", "ok", "escape sequences dropped" },
		{ "a\x01" "b\xff" "c", "a^Ab\\xffc", "controls and bad bytes shown" },
	};
	struct buf	b = { 0 };
	size_t		i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		b.len = 0;
		sanitize_terminal(&b, t[i].in, strlen(t[i].in));
		ok(b.len == strlen(t[i].out) && memcmp(b.p, t[i].out, b.len) == 0,
		    "terminal: %s (%.*s)", t[i].what, (int)b.len, b.p);
	}
	buf_clear(&b);
}

int
main(void)
{
	test_every_offset();
	test_round_trip();
	test_buf();
	test_terminal();
	return tap_done();
}
