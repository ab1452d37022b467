/*
 * zoom.c: the timeline's window on time.
 *
 * + (or =) and - zoom in and out around the selected event, { and } (or
 * Shift-Left and Shift-Right) pan by a quarter of the window, 0 shows the
 * whole job again, f focuses on the seconds around the first failure, and
 * T asks a time in the header's clock and goes there.  The window lives in
 * struct tui, not in the index, so that it outlives a diagnosis: the index
 * is rebuilt as lines come, the engineer's window stays.  The timeline
 * buckets its cells again whenever gen changes.  Untimed logs zoom too:
 * their axis is the events' order.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "tui.h"

#define ZOOM_MIN_MS	100	/* the narrowest window, timed */
#define ZOOM_MIN_EVENTS	4	/* and untimed */
#define ZOOM_FOCUS_MIN	2000	/* f's window: a job's eighth, within these */
#define ZOOM_FOCUS_MAX	30000
#define ZOOM_GOTO_MAX	60000	/* T from the whole job: at most a minute */
#define ZOOM_DAY	86400000LL

/* The window: what is zoomed into, or the whole axis. */
void
zoom_window(const struct tui *t, int64_t *a, int64_t *b)
{
	if (t->zoom.on) {
		*a = t->zoom.w0;
		*b = t->zoom.w1;
	} else {
		*a = t->index.t0;
		*b = t->index.t1;
	}
}

/*
 * What ZOOM_COL multiplies by for a window [a, b] of w columns: the
 * columns per unit as a 32.32 fixed-point number, so that the timeline's
 * pass over every event divides nothing.  (p - a) * scale is at most
 * w << 32: no overflow.
 */
int64_t
zoom_scale_factor(int64_t a, int64_t b, int w)
{
	return (((int64_t)w << 32) / (b - a + 1));
}

/* The column of an axis position in w columns, or -1 outside the window. */
int
zoom_col(const struct tui *t, int64_t p, int w)
{
	int64_t	 a, b;

	zoom_window(t, &a, &b);
	if (p < a || p > b || w < 1)
		return (-1);
	return (ZOOM_COL(p, a, zoom_scale_factor(a, b, w), w));
}

/* Set the window to [a, a + span), inside the axis; the whole: no window. */
static void
zoom_set(struct tui *t, int64_t a, int64_t span)
{
	const struct tui_index	*ix = &t->index;
	int64_t			 min = ix->timed ? ZOOM_MIN_MS : ZOOM_MIN_EVENTS;

	t->zoom.gen++;
	if (span < min)
		span = min;
	if (span > ix->t1 - ix->t0) {
		t->zoom.on = false;
		return;
	}
	if (a < ix->t0)
		a = ix->t0;
	if (a + span > ix->t1)
		a = ix->t1 - span;
	t->zoom.on = true;
	t->zoom.w0 = a;
	t->zoom.w1 = a + span;
}

/* What a zoom keeps still: the selected event when it is in view. */
static int64_t
zoom_center(const struct tui *t)
{
	int64_t	 a, b, p;

	zoom_window(t, &a, &b);
	if (t->sel_event != RL_NONE && t->index.pos != NULL &&
	    (size_t)t->sel_event < t->index.nevents) {
		p = t->index.pos[t->sel_event];
		if (p >= a && p <= b)
			return (p);
	}
	return (a + (b - a) / 2);
}

/* Zoom by num/den around the center, keeping it where it is on screen. */
static void
zoom_by(struct tui *t, int64_t num, int64_t den)
{
	int64_t	 a, b, c;

	zoom_window(t, &a, &b);
	c = zoom_center(t);
	zoom_set(t, c - (c - a) * num / den, (b - a) * num / den);
}

/* The keys of the window; the timeline calls this for its actions. */
int
zoom_key(struct tui *t, enum tui_action act, int w)
{
	int64_t	 a, b, d;

	(void)w;
	if (t->index.nevents == 0 && act != ACT_ZOOM_RESET)
		return (REACT_NONE);
	zoom_window(t, &a, &b);
	switch (act) {
	case ACT_ZOOM_IN:
		zoom_by(t, 1, 2);
		break;
	case ACT_ZOOM_OUT:
		zoom_by(t, 2, 1);
		break;
	case ACT_PAN_LEFT:
	case ACT_PAN_RIGHT:
		if (!t->zoom.on) {
			tui_set_message(t, false, "the whole job is shown: "
			    "zoom in (+) to pan");
			return (REACT_REDRAW);
		}
		d = (b - a) / 4 > 0 ? (b - a) / 4 : 1;
		zoom_set(t, act == ACT_PAN_LEFT ? a - d : a + d, b - a);
		break;
	case ACT_ZOOM_RESET:
		t->zoom.on = false;
		t->zoom.gen++;
		break;
	case ACT_GOTO_TIME:
		if (!t->index.timed) {
			tui_set_message(t, false, "no timestamps: the axis is "
			    "the order of the events");
			return (REACT_REDRAW);
		}
		zoom_clear(t);
		t->zoom.ask = xcalloc(1, sizeof *t->zoom.ask);
		buf_addc(t->zoom.ask, '\0');
		t->zoom.ask->len = 0;
		tui_set_message(t, false, "go to time (HH:MM:SS[.mmm] or "
		    "YYYY-MM-DDTHH:MM:SS): _");
		break;
	default:
		return (REACT_NONE);
	}
	return (REACT_REDRAW);
}

/* f: the seconds around the first failure, a third of them before it. */
int
zoom_focus_first(struct tui *t)
{
	const struct tui_index	*ix = &t->index;
	int			 first = t->inc->answer.first;
	int64_t			 span = (ix->t1 - ix->t0) / 8;

	if (first < 0 || (size_t)first >= ix->nevents || ix->pos == NULL)
		return (REACT_NONE);
	if (ix->timed)
		span = span < ZOOM_FOCUS_MIN ? ZOOM_FOCUS_MIN :
		    span > ZOOM_FOCUS_MAX ? ZOOM_FOCUS_MAX : span;
	zoom_set(t, ix->pos[first] - span * 2 / 3, span);
	return (REACT_REDRAW);
}

/* Read n digits at *p into *v; false if they are not there. */
static bool
zoom_digits(const char **p, int n, int *v)
{
	*v = 0;
	while (n-- > 0) {
		if (!isdigit((unsigned char)**p))
			return (false);
		*v = *v * 10 + (*(*p)++ - '0');
	}
	return (true);
}

/*
 * A time as the engineer types it, in the header's clock (the logs' own,
 * as the axis labels it): HH:MM:SS, HH:MM:SS.mmm, or a whole ISO 8601
 * date-time (a trailing Z or +hh:mm names its zone).  A time of day is
 * the job's: the first day on which it falls inside the job, else its
 * first day.  0 and the axis position (UTC ms) in *out, or -1.
 */
int
zoom_parse(const struct tui *t, const char *s, int64_t *out)
{
	const struct tui_index	*ix = &t->index;
	const char		*p = s;
	int64_t			 off = ix->shown0 - ix->t0, day, v, base;
	int			 y = 0, mo = 0, d = 0, h, mi, se, ms = 0, k;
	int			 zh, zm, sign;
	bool			 date = false, zoned = false;

	while (*p == ' ')
		p++;
	if (strlen(p) >= 10 && p[4] == '-') {
		if (!zoom_digits(&p, 4, &y) || *p++ != '-' ||
		    !zoom_digits(&p, 2, &mo) || *p++ != '-' ||
		    !zoom_digits(&p, 2, &d) || (*p != 'T' && *p != ' ') ||
		    mo < 1 || mo > 12 || d < 1 || d > 31)
			return (-1);
		p++;
		date = true;
	}
	if (!zoom_digits(&p, 2, &h) || *p++ != ':' ||
	    !zoom_digits(&p, 2, &mi) || *p++ != ':' ||
	    !zoom_digits(&p, 2, &se) || h > 23 || mi > 59 || se > 60)
		return (-1);
	if (*p == '.' || *p == ',') {
		p++;
		for (k = 0; k < 3 && isdigit((unsigned char)*p); k++)
			ms = ms * 10 + (*p++ - '0');
		for (; k < 3; k++)
			ms *= 10;
		while (isdigit((unsigned char)*p))
			p++;
	}
	v = ((int64_t)h * 3600 + mi * 60 + se) * 1000 + ms;
	if (date && (*p == 'Z' || *p == 'z')) {
		p++;
		zoned = true;
	} else if (date && (*p == '+' || *p == '-')) {
		sign = *p++ == '-' ? -1 : 1;
		if (!zoom_digits(&p, 2, &zh))
			return (-1);
		if (*p == ':')
			p++;
		if (!zoom_digits(&p, 2, &zm))
			return (-1);
		v -= sign * ((int64_t)zh * 60 + zm) * 60000;
		zoned = true;
	}
	while (*p == ' ')
		p++;
	if (*p != '\0')
		return (-1);
	if (date) {
		v += clock_days(y, mo, d) * ZOOM_DAY;
		*out = zoned ? v : v - off;
		return (0);
	}
	base = (ix->shown0 >= 0 ? ix->shown0 : ix->shown0 - ZOOM_DAY + 1) /
	    ZOOM_DAY * ZOOM_DAY;
	for (day = 0; day <= (ix->t1 - ix->t0) / ZOOM_DAY + 1; day++) {
		*out = base + day * ZOOM_DAY + v - off;
		if (*out >= ix->t0 && *out <= ix->t1)
			return (0);
	}
	*out = base + v - off;
	return (0);
}

/* Go to a time: the window is centred on it, the row's nearest event chosen. */
static void
zoom_goto(struct tui *t, int64_t at)
{
	const struct tui_index	*ix = &t->index;
	const struct tui_row	*row;
	int64_t			 a, b, span, best = INT64_MAX, dist;
	size_t			 i;
	unsigned		 ev;

	zoom_window(t, &a, &b);
	span = b - a;
	if (!t->zoom.on) {
		span = (ix->t1 - ix->t0) / 8;
		span = span < ZOOM_FOCUS_MIN ? ZOOM_FOCUS_MIN :
		    span > ZOOM_GOTO_MAX ? ZOOM_GOTO_MAX : span;
	}
	zoom_set(t, at - span / 2, span);
	if (ix->nrows == 0)
		return;
	row = &ix->rows[t->sel_row];
	for (i = 0; i < row->n; i++) {
		ev = ix->ev[row->first + i];
		dist = ix->pos[ev] > at ? ix->pos[ev] - at : at - ix->pos[ev];
		if (dist < best) {
			best = dist;
			tui_select_event(t, (int)ev);
		}
	}
}

/* T is asking: every key is the time's until Enter or Esc. */
int
zoom_ask_key(struct tui *t, int key)
{
	struct buf	*p = t->zoom.ask;
	char		*s, from[32], to[32];
	struct rl_time	 tm = { 0 };
	int64_t		 at, off = t->index.shown0 - t->index.t0;

	if (key == 27) {
		zoom_clear(t);
		tui_set_message(t, false, "no time given");
		return (REACT_REDRAW);
	}
	if (key == '\n' || key == '\r' || key == (TUI_KEYFN | KEY_ENTER)) {
		s = xstrdup(p->p);
		zoom_clear(t);
		tm.flags = RL_TIME_VALID;
		tm.ms = t->index.t0 + off;
		model_time_short(&tm, from, sizeof from, true);
		tm.ms = t->index.t1 + off;
		model_time_short(&tm, to, sizeof to, true);
		if (zoom_parse(t, s, &at) != 0)
			tui_set_message(t, true, "T: not a time: %s (HH:MM:SS, "
			    "HH:MM:SS.mmm or YYYY-MM-DDTHH:MM:SS)", s);
		else if (at < t->index.t0 || at > t->index.t1)
			tui_set_message(t, true, "T: %s is outside the job "
			    "(%s to %s)", s, from, to);
		else
			zoom_goto(t, at);
		free(s);
		return (REACT_REDRAW);
	}
	if (key == (TUI_KEYFN | KEY_BACKSPACE) || key == 127 || key == 8) {
		if (p->len > 0)
			p->p[--p->len] = '\0';
	} else if (key == TUI_CTRL('u')) {
		p->len = 0;
		p->p[0] = '\0';
	} else if (key >= 0x20 && key < 0x7f && p->len < 64) {
		buf_addc(p, (char)key);
		buf_addc(p, '\0');
		p->len--;
	}
	tui_set_message(t, false, "go to time (HH:MM:SS[.mmm] or "
	    "YYYY-MM-DDTHH:MM:SS): %s_", p->p);
	return (REACT_REDRAW);
}

/* Stop asking, and free what was typed. */
void
zoom_clear(struct tui *t)
{
	if (t->zoom.ask == NULL)
		return;
	buf_clear(t->zoom.ask);
	free(t->zoom.ask);
	t->zoom.ask = NULL;
}

/* What one column holds, for the axis: "1 col = 250 ms". */
const char *
zoom_scale(const struct tui *t, int w, char *buf, size_t len)
{
	int64_t	 a, b, u;

	zoom_window(t, &a, &b);
	u = w > 0 ? (b - a + 1 + w - 1) / w : 0;
	if (!t->index.timed)
		snprintf(buf, len, "1 col = %lld event%s", (long long)u,
		    u == 1 ? "" : "s");
	else if (u < 1000)
		snprintf(buf, len, "1 col = %lld ms", (long long)u);
	else if (u < 60000 && u % 1000 == 0)
		snprintf(buf, len, "1 col = %lld s", (long long)(u / 1000));
	else if (u < 60000)
		snprintf(buf, len, "1 col = %.1f s", (double)u / 1000);
	else if (u < 3600000)
		snprintf(buf, len, "1 col = %.1f min", (double)u / 60000);
	else
		snprintf(buf, len, "1 col = %.1f h", (double)u / 3600000);
	return (buf);
}

/* Pick a tick interval that leaves room for labels of width lw. */
static int64_t
zoom_tick(int64_t span, int w, int lw)
{
	static const int64_t steps[] = {
		10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000,
		30000, 60000, 120000, 300000, 600000, 900000, 1800000,
		3600000, 7200000, 10800000, 21600000, 43200000, ZOOM_DAY,
		2 * ZOOM_DAY, 7 * ZOOM_DAY, 14 * ZOOM_DAY, 28 * ZOOM_DAY,
		91 * ZOOM_DAY, 182 * ZOOM_DAY, 364 * ZOOM_DAY,
	};
	size_t	 i;

	for (i = 0; i < nitems(steps); i++) {
		if (steps[i] * w / (span + 1) >= lw + 3)
			return (steps[i]);
	}
	return (steps[nitems(steps) - 1]);
}

/*
 * A tick a day or more apart, or at midnight, is labelled by its date,
 * "12-03" (its time of day would say 00:00:00 at every tick of a job that
 * ran for days), and by its year and month, "2024-05", when ticks are
 * half a year apart.
 */
static void
zoom_date(int64_t ms, char *buf, size_t len, bool year)
{
	int64_t	days = ms / ZOOM_DAY - (ms % ZOOM_DAY < 0);
	int	y, m, d;

	clock_civil(days, &y, &m, &d);
	if (year)
		snprintf(buf, len, "%04d-%02d", y, m);
	else
		snprintf(buf, len, "%02d-%02d", m, d);
}

/*
 * The axis' labels over its w columns at x: the window's true times, in
 * the logs' own clock (what the header says), or where in the events'
 * order the window is when nothing is timed.
 */
void
zoom_draw_axis(struct tui *t, int y, int x, int w)
{
	const struct tui_index	*ix = &t->index;
	struct rl_time		 tm;
	int64_t			 step, off, k, a, b;
	char			 buf[96];
	int			 col, end = -1, lw;

	zoom_window(t, &a, &b);
	if (!ix->timed) {
		if (t->zoom.on)
			snprintf(buf, sizeof buf, "events %lld-%lld of %zu (no "
			    "timestamps)", (long long)a + 1, (long long)b + 1,
			    ix->nevents);
		else
			snprintf(buf, sizeof buf, "event order (no timestamps)");
		screen_cut(y, x, w, TR_AXIS, buf);
		return;
	}
	lw = b - a < 10000 ? 12 : 8;
	step = zoom_tick(b - a, w, lw);
	lw = step < 1000 ? 12 : 8;
	off = ix->shown0 - ix->t0;
	memset(&tm, 0, sizeof tm);
	tm.flags = RL_TIME_VALID;
	for (k = ((a + off) / step + 1) * step; k - off <= b; k += step) {
		col = zoom_col(t, k - off, w);
		if (col < 0 || col + lw > w)
			break;
		if (col <= end)
			continue;
		tm.ms = k;
		if (step >= ZOOM_DAY || (step >= 60000 && k % ZOOM_DAY == 0))
			zoom_date(k, buf, sizeof buf, step >= 182 * ZOOM_DAY);
		else
			model_time_short(&tm, buf, sizeof buf, step < 1000);
		screen_puts(y, x + col, lw, TR_AXIS, buf);
		end = col + lw;
	}
}

/*
 * The activity row: what one column holds in the left_w columns of the
 * labels ("1 col = 250 ms", or "250 ms/col" when narrow), then the events
 * per column (all rows, in the window) as bars over w columns at x, eight
 * heights in UTF-8 and four in ASCII, so that bursts show before any
 * rank is read.
 */
void
zoom_draw_activity(struct tui *t, int y, int left_w, int x, int w,
    const unsigned *hist, unsigned max)
{
	static const char *const bars[] = { "\xe2\x96\x81", "\xe2\x96\x82",
		"\xe2\x96\x83", "\xe2\x96\x84", "\xe2\x96\x85",
		"\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };
	static const char *const ascii[] = { ".", ":", "|", "#" };
	char		 scale[48], narrow[48];
	const char	*said = scale;
	unsigned	 levels = t->utf8 ? 8 : 4, v;
	int		 b;

	zoom_scale(t, w, scale, sizeof scale);
	if ((int)strlen(scale) > left_w - 1) {
		snprintf(narrow, sizeof narrow, "%s/col", scale + 8);
		said = narrow;
	}
	screen_cut(y, 1, left_w - 1, TR_DIM, said);
	screen_puts(y, left_w, 1, TR_AXIS, screen_sym("\xe2\x94\x82", "|"));
	for (b = 0; max > 0 && b < w; b++) {
		if (hist[b] == 0)
			continue;
		v = (hist[b] * levels + max - 1) / max;
		v = v < 1 ? 1 : v > levels ? levels : v;
		screen_puts(y, x + b, 1, TR_AXIS, t->utf8 ? bars[v - 1] :
		    ascii[v - 1]);
	}
}
