/*
 * screen.c: the only place text reaches the terminal.
 *
 * Every string the console draws, whether from the model, from a log file
 * read for context or from a format of our own, goes through screen_put,
 * which is the console's last line of defence against hostile log text:
 * core already sanitizes event text, but a byte below 0x20, DEL, a C1
 * control, a bidi override or an invalid UTF-8 sequence is drawn as '?'
 * here too, and in a non-UTF-8 locale every byte >= 0x80 is.  Widths are
 * counted in columns (wcwidth), so a wide character never spills past the
 * space it was given.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <curses.h>

#include "tui.h"

static bool	screen_utf8;		/* the locale and config allow UTF-8 */

/* Glyphs of the timeline: UTF-8 and the ASCII fallback. */
static const struct {
	const char	*utf8;
	const char	*ascii;
} screen_glyphs[GLYPH_NGLYPHS] = {
	[GLYPH_EMPTY] =		{ " ", " " },
	[GLYPH_EVIDENCE] =	{ "\xe2\x88\x98", "o" },	/* ∘ */
	[GLYPH_PROGRESS] =	{ "\xc2\xb7", "." },		/* · */
	[GLYPH_CKPT_BEGIN] =	{ "\xe2\x97\x87", "c" },	/* ◇ */
	[GLYPH_CKPT] =		{ "\xe2\x97\x86", "C" },	/* ◆ */
	[GLYPH_WRAPPER] =	{ "\xe2\x86\x91", "^" },	/* ↑ */
	[GLYPH_COLLATERAL] =	{ "\xe2\x96\xb2", "!" },	/* ▲ */
	[GLYPH_HANG] =		{ "\xe2\x80\x96", "H" },	/* ‖ */
	[GLYPH_FAIL] =		{ "\xc3\x97", "x" },		/* × */
	[GLYPH_FIRST] =		{ "\xe2\x9c\x96", "X" },	/* ✖ */
};

/* Remember whether UTF-8 may be drawn. */
void
screen_init(struct tui *t)
{
	screen_utf8 = t->utf8;
}

/*
 * Clear the whole screen before a frame, in the theme's normal colours so a
 * theme with its own background fills the screen; curses sends only the
 * changes.
 */
void
screen_erase(void)
{
	attrset(A_NORMAL);
	bkgdset(' ' | (chtype)theme_attr(TR_NORMAL));
	erase();
}

/*
 * Decode one UTF-8 character of s[0..len), strictly: no overlong forms, no
 * surrogates, nothing past U+10FFFF.  Returns its length, or 0 if invalid.
 */
static size_t
screen_decode(const unsigned char *s, size_t len, wchar_t *wc)
{
	size_t		 n, i;
	uint32_t	 cp, min;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2; cp = s[0] & 0x1f; min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3; cp = s[0] & 0x0f; min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4; cp = s[0] & 0x07; min = 0x10000;
	} else
		return (0);
	if (n > len)
		return (0);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return (0);
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return (0);
	*wc = (wchar_t)cp;
	return (n);
}

/*
 * Measure the next character of s as it will be drawn: its bytes in *n, its
 * columns as the return value, and *safe false when it must be drawn as '?'.
 * A character of width 0 or less (controls, combining marks, bidi controls)
 * is replaced: it could hide or reorder what is around it.
 */
static int
screen_next(const char *s, size_t len, size_t *n, bool *safe)
{
	const unsigned char	*u = (const unsigned char *)s;
	wchar_t			 wc;
	int			 w;

	*n = 1;
	*safe = false;
	if (u[0] < 0x20 || u[0] == 0x7f)
		return (1);
	if (u[0] < 0x80) {
		*safe = true;
		return (1);
	}
	if (!screen_utf8)
		return (1);
	if ((*n = screen_decode(u, len, &wc)) == 0) {
		*n = 1;
		return (1);
	}
	w = wcwidth(wc);
	if (w <= 0 || (wc >= 0x202a && wc <= 0x202e) ||
	    (wc >= 0x2066 && wc <= 0x2069))
		return (1);
	*safe = true;
	return (w);
}

/* Draw s[0..len) at y,x in at most maxw columns; returns the columns used. */
int
screen_put(int y, int x, int maxw, enum tui_role role, const char *s,
    size_t len)
{
	char	 out[512];
	size_t	 o = 0, n, i = 0;
	int	 used = 0, w;
	bool	 safe;

	if (maxw <= 0 || y < 0 || y >= LINES || x >= COLS)
		return (0);
	if (x + maxw > COLS)
		maxw = COLS - x;
	attrset(theme_attr(role));
	move(y, x);
	while (i < len && s[i] != '\0') {
		w = screen_next(s + i, len - i, &n, &safe);
		if (used + w > maxw)
			break;
		if (o + n >= sizeof out) {
			addnstr(out, (int)o);
			o = 0;
		}
		if (safe)
			memcpy(out + o, s + i, n);
		else
			out[o] = '?';
		o += safe ? n : 1;
		used += w;
		i += n;
	}
	if (o > 0)
		addnstr(out, (int)o);
	return (used);
}

/* Draw a NUL-terminated string. */
int
screen_puts(int y, int x, int maxw, enum tui_role role, const char *s)
{
	return (screen_put(y, x, maxw, role, s, strlen(s)));
}

/* Draw formatted text; the result is sanitized like any other string. */
int
screen_printf(int y, int x, int maxw, enum tui_role role, const char *fmt,
    ...)
{
	va_list	 ap;
	char	*s;
	int	 used;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	used = screen_puts(y, x, maxw, role, s);
	free(s);
	return (used);
}

/* Columns s[0..len) takes when drawn. */
int
screen_width(const char *s, size_t len)
{
	size_t	 i = 0, n;
	int	 w = 0;
	bool	 safe;

	while (i < len && s[i] != '\0') {
		w += screen_next(s + i, len - i, &n, &safe);
		i += n;
	}
	return (w);
}

/* How many bytes of s[0..len) fit in cols columns. */
size_t
screen_fit(const char *s, size_t len, int cols)
{
	size_t	 i = 0, n;
	int	 w = 0, cw;
	bool	 safe;

	while (i < len && s[i] != '\0') {
		cw = screen_next(s + i, len - i, &n, &safe);
		if (w + cw > cols)
			break;
		w += cw;
		i += n;
	}
	return (i);
}

/*
 * How many bytes of s[0..len) go on a line of cols columns when text is
 * wrapped: up to the last blank in the second half of what fits, else all
 * that fits, and at least one byte.
 */
size_t
screen_wrap(const char *s, size_t len, int cols)
{
	size_t	fit = screen_fit(s, len, cols), cut = fit;

	if (fit < len) {
		while (cut > fit / 2 && s[cut] != ' ')
			cut--;
		if (cut <= fit / 2)
			cut = fit;
	}
	return (cut == 0 ? 1 : cut);
}

/* Draw s, ending with an ellipsis when it does not fit in maxw. */
int
screen_cut(int y, int x, int maxw, enum tui_role role, const char *s)
{
	size_t	 len = strlen(s);
	int	 used;

	if (maxw <= 0)
		return (0);
	if (screen_width(s, len) <= maxw)
		return (screen_put(y, x, maxw, role, s, len));
	used = screen_put(y, x, maxw - 1, role, s, len);
	return (used + screen_puts(y, x + used, 1, role,
	    screen_sym("\xe2\x80\xa6", ">")));
}

/* Draw s, dropping its start behind an ellipsis when it does not fit. */
int
screen_cut_left(int y, int x, int maxw, enum tui_role role, const char *s)
{
	size_t	 len = strlen(s), i = 0, n;
	int	 w;
	bool	 safe;

	if (maxw <= 0)
		return (0);
	if ((w = screen_width(s, len)) <= maxw)
		return (screen_put(y, x, maxw, role, s, len));
	while (i < len && w > maxw - 1) {
		w -= screen_next(s + i, len - i, &n, &safe);
		i += n;
	}
	screen_puts(y, x, 1, role, screen_sym("\xe2\x80\xa6", "<"));
	return (1 + screen_put(y, x + 1, maxw - 1, role, s + i, len - i));
}

/* Paint w blank columns in a role: the background of a bar. */
void
screen_fill(int y, int x, int w, enum tui_role role)
{
	if (y < 0 || y >= LINES || w <= 0)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attrset(theme_attr(role));
	mvhline(y, x, ' ', w);
}

/* The text of a timeline glyph in the current mode. */
const char *
screen_glyph_text(enum tui_glyph g)
{
	return (screen_utf8 ? screen_glyphs[g].utf8 : screen_glyphs[g].ascii);
}

/* Draw one timeline glyph. */
void
screen_glyph(int y, int x, enum tui_glyph g, enum tui_role role)
{
	screen_puts(y, x, 1, role, screen_glyph_text(g));
}

/* Pick the UTF-8 or the ASCII form of a symbol. */
const char *
screen_sym(const char *utf8, const char *ascii)
{
	return (screen_utf8 ? utf8 : ascii);
}

/* Say the terminal is too small instead of drawing a broken layout. */
void
screen_too_small(int sx, int sy)
{
	char	 msg[64];
	int	 len;

	len = snprintf(msg, sizeof msg,
	    "terminal too small (%dx%d, need 40x10)", sx, sy);
	if (len > sx)
		len = snprintf(msg, sizeof msg, "terminal too small");
	screen_erase();
	screen_puts(sy / 2, len < sx ? (sx - len) / 2 : 0, sx, TR_ERROR, msg);
}

/* Width of a string as drawn, 0 for NULL. */
static int
screen_swidth(const char *s)
{
	return (s != NULL ? screen_width(s, strlen(s)) : 0);
}

/*
 * What the right of the status line says: what is followed ("following 12
 * files · idle", which every view shows) and the view's own right part
 * when both fit in half the line, else the first alone.  A message on the
 * left is worth more: the right part is left out when both do not fit.
 */
static const char *
screen_status_right(struct tui *t, const char *right, char *buf, size_t len)
{
	char		 live[96];
	const char	*r = right;
	int		 room = t->sx / 2;

	if (live_status(t, live, sizeof live) != NULL) {
		if (right != NULL && screen_swidth(live) + screen_swidth(right) +
		    3 <= room)
			snprintf(buf, len, "%s%s%s", live,
			    screen_sym(" \xe2\x94\x82 ", " | "), right);
		else
			snprintf(buf, len, "%s", live);
		r = buf;
	}
	if (t->message != NULL &&
	    screen_swidth(r) > t->sx - 3 - screen_swidth(t->message))
		return (NULL);
	return (r);
}

/*
 * The bottom line: the message if there is one, else key hints written as
 * "key what|key what|...", with the key drawn in its role; right is drawn
 * right-aligned when it fits (see screen_status_right).
 */
void
screen_status(struct tui *t, int y, const char *hints, const char *right)
{
	const char	*p, *sp, *bar;
	char		 both[256];
	int		 x = 0, rw = 0;

	right = screen_status_right(t, right, both, sizeof both);
	screen_fill(y, 0, t->sx, TR_STATUS);
	if (right != NULL)
		rw = screen_width(right, strlen(right)) + 1;
	if (t->message != NULL) {
		screen_cut(y, 1, t->sx - 1 - rw, t->message_error ? TR_ERROR :
		    TR_STATUS, t->message);
		hints = "";
	}
	for (p = hints; *p != '\0' && x < t->sx - rw;
	    p = bar + (*bar != '\0')) {
		if ((bar = strchr(p, '|')) == NULL)
			bar = p + strlen(p);
		if ((sp = memchr(p, ' ', bar - p)) == NULL)
			sp = bar;
		if (x + screen_width(p, bar - p) + 2 > t->sx - rw)
			break;
		x += 1 + screen_put(y, x + 1, t->sx, TR_KEY, p, sp - p);
		if (sp < bar)
			x += screen_put(y, x, t->sx, TR_STATUS, sp, bar - sp);
		x++;
	}
	if (right != NULL && rw < t->sx)
		screen_puts(y, t->sx - rw, rw, TR_STATUS, right);
}
