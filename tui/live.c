/*
 * live.c: the console while its sources are followed.
 *
 * Lines keep coming while the engineer reads.  The follow (core/follow.c)
 * reads them into the incident on the console's own loop and calls
 * tui_changed(), which only sets a flag; this file decides when to
 * diagnose again and rebuild the index, and says in the status line what
 * is followed and how fast lines come.
 *
 * A diagnosis costs O(events log events) (about 120 ms for 550,000 events
 * here), and under a flood new bytes come on every loop turn, so it is
 * capped, never run per line or per read: the first change after a quiet
 * spell is diagnosed on the next loop turn (an appended failure is on
 * screen within milliseconds), later ones at most every LIVE_MIN_MS, or
 * every twice what the last diagnosis cost when that is longer, so the
 * keyboard keeps two thirds of the loop whatever the incident's size and a
 * line waits at most about three diagnoses' time.
 *
 * The index is rebuilt here only, right after diagnose(): a diagnosis
 * re-sorts the events and remakes the ranks the index points into, so the
 * two must never be apart when a key or a frame reads them.  Between
 * diagnoses ingestion only appends, which the index ignores.
 *
 * Paused (p), the screen holds still: lines are still read, because a
 * command's pipe must not fill (pdsh and ssh stall behind a full pipe), and
 * they are diagnosed and shown on resume.
 */

#include <inttypes.h>
#include <stdio.h>

#include "follow.h"
#include "tui.h"

#define LIVE_MIN_MS	150	/* diagnoses at most this often under a flood */
#define LIVE_MAX_MS	2000	/* and at least this often, whatever they cost */
#define LIVE_COST_X	2	/* the gap is at least this many times the cost */
#define LIVE_TICK_MS	1000	/* the line rate's window */

/* The gap to keep after a diagnosis that cost ms. */
static uint64_t
live_interval(uint64_t ms)
{
	uint64_t	 gap = ms * LIVE_COST_X;

	if (gap < LIVE_MIN_MS)
		return (LIVE_MIN_MS);
	return (gap > LIVE_MAX_MS ? LIVE_MAX_MS : gap);
}

/* The capped diagnosis is due. */
static void
live_timer_cb(uv_timer_t *h)
{
	live_refresh(h->data);
}

/* Once a second: lines per second, and a redraw if the status changed. */
static void
live_tick_cb(uv_timer_t *h)
{
	struct tui	*t = h->data;
	struct tui_live	*l = &t->live;
	uint64_t	 rate = t->inc->lines - l->tick_lines;

	l->tick_lines = t->inc->lines;
	if (rate != l->rate || l->paused)
		t->dirty = true;
	l->rate = rate;
}

/* Start following, if there is something to follow. */
void
live_start(struct tui *t)
{
	struct tui_live	*l = &t->live;

	l->follow = t->cfg->follow;
	l->shown_lines = l->tick_lines = t->inc->lines;
	/* A path that could not be read is said on the first screen. */
	if (t->inc->errors.n > 0)
		tui_set_message(t, true, "%s", t->inc->errors.v[
		    t->inc->errors.n - 1]);
	l->errors_shown = t->inc->errors.n;
	if (l->follow == NULL)
		return;
	uv_timer_init(t->loop, &l->timer);
	l->timer.data = t;
	t->nhandles++;
	uv_timer_init(t->loop, &l->tick);
	l->tick.data = t;
	t->nhandles++;
	uv_timer_start(&l->tick, live_tick_cb, LIVE_TICK_MS, LIVE_TICK_MS);
}

/* Lines came: diagnose on the next turn, or when the cap allows. */
void
live_changed(struct tui *t)
{
	struct tui_live	*l = &t->live;
	uint64_t	 now, due;

	l->stale = true;
	if (l->paused)
		t->dirty = true;	/* the count of lines held back, capped */
	if (l->paused || l->follow == NULL || t->quitting ||
	    uv_is_active((uv_handle_t *)&l->timer))
		return;
	now = uv_now(t->loop);
	due = l->diag_at + live_interval(l->diag_ms);
	uv_timer_start(&l->timer, live_timer_cb, l->diag_at == 0 || due <= now ?
	    0 : due - now, 0);
}

/* Diagnose what has come, rebuild the index and draw at once. */
void
live_refresh(struct tui *t)
{
	struct tui_live	*l = &t->live;
	uint64_t	 t0, t1, t2;

	/* A stored incident is open: this one is diagnosed when it is back. */
	if (!l->stale || l->paused || t->quitting || t->home != NULL)
		return;
	/* The cap counts from the start of this diagnosis, not of the turn. */
	uv_update_time(t->loop);
	l->diag_at = uv_now(t->loop);
	t0 = uv_hrtime();
	model_keep(t);
	pipeline_diagnose(t->inc);
	t1 = uv_hrtime();
	tui_rebuild(t);
	t2 = uv_hrtime();
	l->diag_ms = (t2 - t0) / 1000000;
	l->diagnoses++;
	l->stale = false;
	l->shown_lines = t->inc->lines;
	/* What went wrong while following (a spill at its cap, a full disk,
	   a command that failed): the newest, in the status line. */
	if (t->inc->errors.n > l->errors_shown) {
		tui_set_message(t, true, "%s", t->inc->errors.v[
		    t->inc->errors.n - 1]);
		l->errors_shown = t->inc->errors.n;
	}
	t->dirty = t->urgent = true;
	tui_log(t, "diagnosis %" PRIu64 ": %zu events, %" PRIu64 " lines, "
	    "%" PRIu64 " ms (index %" PRIu64 " ms)", l->diagnoses,
	    t->inc->nevents, t->inc->lines, l->diag_ms, (t2 - t1) / 1000000);
}

/* The pause key: hold the screen still, or catch up and follow again. */
int
live_pause(struct tui *t)
{
	struct tui_live	*l = &t->live;

	if (l->follow == NULL) {
		tui_set_message(t, false, "not following: --no-follow read "
		    "the logs once");
		return (REACT_REDRAW);
	}
	l->paused = !l->paused;
	if (!l->paused)
		live_refresh(t);
	return (REACT_REDRAW);
}

/* Count and noun: "1 file", "12 files"; after a comma when not the first. */
static void
live_count(struct buf *b, uint64_t n, const char *noun)
{
	buf_printf(b, "%s%" PRIu64 " %s%s", b->len > 0 ? ", " : "", n, noun,
	    n == 1 ? "" : "s");
}

/*
 * The status line's word on following: "following 12 files · 3 new
 * lines/s", "following 1 command, stdin · idle", "paused · 40 new lines",
 * or NULL when the logs were read once.
 */
const char *
live_status(struct tui *t, char *out, size_t len)
{
	struct tui_live		*l = &t->live;
	struct follow_stats	 st;
	struct buf		 b = { 0 };
	const char		*sep = screen_sym(" \xc2\xb7 ", " - ");

	if (l->follow == NULL)
		return (NULL);
	if (l->paused) {
		live_count(&b, t->inc->lines - l->shown_lines, "new line");
		snprintf(out, len, "paused%s%s", sep, b.p);
		buf_clear(&b);
		return (out);
	}
	follow_stats(l->follow, &st);
	if (st.files > 0)
		live_count(&b, st.files, "file");
	if (st.cmds > 0)
		live_count(&b, (uint64_t)st.cmds, "command");
	if (st.in)
		buf_printf(&b, "%sstdin", b.len > 0 ? ", " : "");
	if (b.len == 0)
		snprintf(out, len, "every source ended");
	else if (l->rate > 0)
		snprintf(out, len, "following %s%s%" PRIu64 " new line%s/s",
		    b.p, sep, l->rate, l->rate == 1 ? "" : "s");
	else
		snprintf(out, len, "following %s%sidle", b.p, sep);
	buf_clear(&b);
	return (out);
}
