/*
 * tui.c: the console's life: start, the loop's hooks, views, and shutdown.
 *
 * The order matters and is the one the house style sets out:
 *  1. libuv's signal watchers for SIGWINCH, SIGINT, SIGTERM and SIGHUP are
 *     started before curses, so ncurses sees the handlers are taken and
 *     installs none of its own; SIGPIPE is ignored;
 *  2. curses runs through newterm on its own open of /dev/tty for reading,
 *     because uv_poll sets O_NONBLOCK on the fd it watches and that flag
 *     belongs to the open file description: set on the shell's stdin it
 *     would also make the terminal's output non-blocking (and outlive us).
 *     Output goes to stdout when it is a tty, else to /dev/tty, so main.c
 *     may have read stdin as a log source;
 *  3. the keyboard is a uv_poll on that fd, drained in nodelay mode;
 *  4. one uv_prepare hook draws what is dirty once per loop turn, with one
 *     doupdate(); other changes (the status line's rate) are capped at one
 *     frame per TUI_REDRAW_MS by a timer, keys and diagnoses are drawn at
 *     once (live.c caps diagnoses themselves);
 *  5. the follow that reads the sources runs on the same loop, and its
 *     new lines reach the screen through tui_changed() and live.c.
 * Shutdown ends curses first, then closes every handle; the struct that
 * embeds them is freed by the last close callback.
 */

#include <sys/ioctl.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "tui.h"

#define TUI_REDRAW_MS	50	/* at most one model-driven frame this often */

static struct tui	*tui_current;		/* the running console, or NULL */
static int		 tui_last_signal;	/* what ended the last run */
static void		(*tui_saved_hook)(void);	/* fatal_hook before us */

/* Every view, by enum view_id: a new view is a new file and a line here. */
static const struct view_type *const view_types[VIEW_NVIEWS] = {
	[VIEW_TIMELINE] = &view_timeline_type,
	[VIEW_DETAIL] = &view_detail_type,
	[VIEW_HELP] = &view_help_type,
	[VIEW_DIAGNOSIS] = &view_diagnosis_type,
	[VIEW_HISTORY] = &view_history_type,
	[VIEW_MERGED] = &view_merged_type,
	[VIEW_MARKS] = &view_marks_type,
	[VIEW_TEXT] = &view_text_type,
};

static const int tui_signums[] = { SIGWINCH, SIGINT, SIGTERM, SIGHUP };

static void	tui_free(struct tui *);

/* fatal() runs this first, so the terminal is usable for its message. */
static void
tui_fatal_hook(void)
{
	if (tui_current != NULL && tui_current->curses) {
		crash_disarm();
		endwin();
		tui_current->curses = false;
	}
}

/* One handle has closed; the last one frees the console. */
static void
tui_close_cb(uv_handle_t *h)
{
	struct tui	*t = h->data;

	if (--t->nhandles == 0)
		tui_free(t);
}

/* Follow a resize: the size from the tty, then curses, then the views. */
void
tui_resize(struct tui *t)
{
	struct winsize	 ws;
	int		 i;

	if (!t->curses)
		return;
	if (ioctl(t->out_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0 && is_term_resized(ws.ws_row, ws.ws_col)) {
		resizeterm(ws.ws_row, ws.ws_col);
		clearok(curscr, TRUE);
	}
	t->sx = COLS;
	t->sy = LINES;
	for (i = 0; i < t->nviews; i++) {
		if (t->views[i]->type->resize != NULL)
			t->views[i]->type->resize(t->views[i], t->sx, t->sy);
	}
	t->dirty = t->urgent = true;
}

/* Signals, all through libuv: a resize, or the end. */
static void
tui_signal_cb(uv_signal_t *h, int signum)
{
	struct tui	*t = h->data;

	if (signum == SIGWINCH) {
		tui_resize(t);
		input_drain(t, false);
		return;
	}
	tui_quit(t, signum);
}

/* The tty is readable, or gone. */
static void
tui_poll_cb(uv_poll_t *h, int status, int events)
{
	struct tui	*t = h->data;

	(void)events;
	if (status < 0) {
		tui_quit(t, SIGHUP);
		return;
	}
	input_drain(t, true);
}

/* The redraw cap has passed; waking the loop is all this is for. */
static void
tui_timer_cb(uv_timer_t *h)
{
	(void)h;
}

/* The model was diagnosed again: rebuild the index, tell every view. */
void
tui_rebuild(struct tui *t)
{
	int	 i;

	model_build(t);
	for (i = 0; i < t->nviews; i++) {
		if (t->views[i]->type->update != NULL)
			t->views[i]->type->update(t->views[i]);
	}
	t->dirty = true;
}

/* Draw one frame of the top view. */
void
tui_frame(struct tui *t)
{
	struct view	*v = t->views[t->nviews - 1];

	screen_erase();
	if (t->sx < 40 || t->sy < 10)
		screen_too_small(t->sx, t->sy);
	else
		v->type->draw(v, t->sx, t->sy);
	wnoutrefresh(stdscr);
	doupdate();
	t->dirty = t->urgent = false;
	t->last_draw = uv_now(t->loop);
	tui_log(t, "frame");
}

/* Once per loop turn: draw if something is dirty and the cap allows. */
static void
tui_prepare_cb(uv_prepare_t *h)
{
	struct tui	*t = h->data;
	uint64_t	 since;

	if (!t->dirty || t->quitting)
		return;
	since = uv_now(t->loop) - t->last_draw;
	if (!t->urgent && t->last_draw != 0 && since < TUI_REDRAW_MS) {
		if (!uv_is_active((uv_handle_t *)&t->timer))
			uv_timer_start(&t->timer, tui_timer_cb,
			    TUI_REDRAW_MS - since, 0);
		return;
	}
	tui_frame(t);
}

/* Start the signal watchers; this must come before curses. */
static void
tui_signals_start(struct tui *t)
{
	size_t	 i;

	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < nitems(tui_signums); i++) {
		uv_signal_init(t->loop, &t->sig[i]);
		t->sig[i].data = t;
		t->nhandles++;
		uv_signal_start(&t->sig[i], tui_signal_cb, tui_signums[i]);
	}
}

/* Open the terminal: our own fd to read and poll, and one to write. */
static int
tui_tty_open(struct tui *t, char **cause)
{
	int	 fd;

	if ((t->in_fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC)) ==
	    -1) {
		xasprintf(cause, "no terminal for the console: /dev/tty: %s",
		    strerror(errno));
		return (-1);
	}
	t->in_flags = fcntl(t->in_fd, F_GETFL);
	if ((t->in_fp = fdopen(t->in_fd, "r")) == NULL) {
		xasprintf(cause, "/dev/tty: %s", strerror(errno));
		return (-1);
	}
	if (isatty(STDOUT_FILENO)) {
		t->out_fd = STDOUT_FILENO;
		fflush(stdout);
		return (0);
	}
	fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd == -1 || (t->out_fp = fdopen(fd, "w")) == NULL) {
		xasprintf(cause, "/dev/tty: %s", strerror(errno));
		if (fd != -1)
			close(fd);
		return (-1);
	}
	t->out_fd = fd;
	return (0);
}

/* Start curses on the tty; refuse a terminal that cannot address the cursor. */
static int
tui_curses_start(struct tui *t, char **cause)
{
	const char	*term = getenv("TERM");
	char		*cup, *kmous;

	/*
	 * On the Linux console ncurses loads libgpm for its mouse as keypad()
	 * starts, and libgpm leaks: leave it out unless the user asked for it
	 * (the mouse is taken only where the terminal reports it itself).
	 */
	setenv("NCURSES_GPM_TERMS", "", 0);
	t->screen = newterm(NULL, t->out_fp != NULL ? t->out_fp : stdout,
	    t->in_fp);
	if (t->screen == NULL) {
		xasprintf(cause, "cannot start the console on TERM=%s",
		    term != NULL ? term : "(unset)");
		return (-1);
	}
	set_term(t->screen);
	t->curses = true;
	crash_arm(t->out_fd);
	cup = tigetstr("cup");
	if (cup == NULL || cup == (char *)-1) {
		xasprintf(cause, "TERM=%s cannot move the cursor: the console "
		    "needs a real terminal", term != NULL ? term : "(unset)");
		return (-1);
	}
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	leaveok(stdscr, TRUE);
	curs_set(0);
	/*
	 * Clicks and the wheel, as htop and tmux take them; the terminal's own
	 * selection is then Shift and drag.  Presses, not clicks: a click is a
	 * press and a release within mouseinterval, which would delay each.
	 * Only where the terminal reports the mouse itself (kmous, xterm's
	 * protocol): on the Linux console ncurses would load libgpm instead,
	 * which a console reached over SSH never has use for.
	 */
	kmous = tigetstr("kmous");
	if (!t->cfg->no_mouse && kmous != NULL && kmous != (char *)-1 &&
	    mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED,
	    NULL) != 0) {
		mouseinterval(0);
		crash_mouse();
	}
	t->sx = COLS;
	t->sy = LINES;
	return (0);
}

/* Decide between UTF-8 and ASCII; curses needs LC_CTYPE from the user. */
static void
tui_locale(struct tui *t)
{
	const char	*cur = setlocale(LC_CTYPE, NULL);

	if (cur == NULL || strcmp(cur, "C") == 0)
		setlocale(LC_CTYPE, "");
	t->utf8 = !t->cfg->ascii && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

/* Start the keyboard, the draw hook and the cap timer. */
static void
tui_handles_start(struct tui *t)
{
	uv_poll_init(t->loop, &t->poll, t->in_fd);
	t->poll.data = t;
	t->nhandles++;
	uv_poll_start(&t->poll, UV_READABLE, tui_poll_cb);
	uv_prepare_init(t->loop, &t->prepare);
	t->prepare.data = t;
	t->nhandles++;
	uv_prepare_start(&t->prepare, tui_prepare_cb);
	uv_timer_init(t->loop, &t->timer);
	t->timer.data = t;
	t->nhandles++;
	uv_idle_init(t->loop, &t->search_idle);
	t->search_idle.data = t;
	t->nhandles++;
	uv_idle_init(t->loop, &t->group_idle);
	t->group_idle.data = t;
	t->nhandles++;
	live_start(t);
}

/* Put a view on top of the stack. */
static void
tui_push(struct tui *t, enum view_id id)
{
	struct view	*v;

	if (id >= VIEW_NVIEWS || t->nviews == (int)nitems(t->views))
		return;
	if (t->nviews > 0 && t->views[t->nviews - 1]->id == id)
		return;
	v = xcalloc(1, sizeof *v);
	v->type = view_types[id];
	v->id = id;
	v->tui = t;
	t->views[t->nviews++] = v;
	v->type->init(v);
	if (v->type->resize != NULL)
		v->type->resize(v, t->sx, t->sy);
}

/* Take the top view off the stack and free it. */
static void
tui_pop(struct tui *t)
{
	struct view	*v = t->views[--t->nviews];

	v->type->free(v);
	free(v);
}

/* Open the -v log; the console never writes to stdout or stderr. */
static void
tui_log_open(struct tui *t)
{
	int	 fd;

	if (t->cfg->debug_log == NULL)
		return;
	fd = open(t->cfg->debug_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0600);
	if (fd != -1 && (t->log_fp = fdopen(fd, "a")) == NULL)
		close(fd);
	if (t->log_fp != NULL)
		setvbuf(t->log_fp, NULL, _IOLBF, 0);
}

/* Everything up to the first frame. */
static int
tui_start(struct tui *t, char **cause)
{
	tui_log_open(t);
	tui_signals_start(t);
	if (tui_tty_open(t, cause) != 0)
		return (-1);
	tui_locale(t);
	crash_save_tty(t->in_fd);
	tui_saved_hook = fatal_hook;
	fatal_hook = tui_fatal_hook;
	if (tui_curses_start(t, cause) != 0)
		return (-1);
	screen_init(t);
	theme_load(t, t->cfg->theme);
	tui_handles_start(t);
	t->sel_auto = true;
	model_build(t);
	tui_push(t, VIEW_TIMELINE);
	if (t->cfg->start_history)
		tui_push(t, VIEW_HISTORY);
	t->dirty = t->urgent = true;
	tui_log(t, "started: %zu sources, %zu events, %" PRIu64 " lines%s",
	    t->inc->nsources, t->inc->nevents, t->inc->lines,
	    t->cfg->follow != NULL ? ", following" : "");
	tui_bench(t);
	return (0);
}

/* End curses and close every handle; the last close frees the console. */
static void
tui_stop(struct tui *t)
{
	uv_handle_t	*hs[nitems(t->sig) + 7];
	sigset_t	 block, saved;
	size_t		 i, n = 0;

	while (t->nviews > 0)
		tui_pop(t);
	if (t->curses) {
		crash_disarm();
		endwin();
	}
	t->curses = false;
	if (t->screen != NULL)
		delscreen(t->screen);
	t->screen = NULL;
	fatal_hook = tui_saved_hook;
	for (i = 0; i < nitems(t->sig); i++)
		hs[n++] = (uv_handle_t *)&t->sig[i];
	hs[n++] = (uv_handle_t *)&t->poll;
	hs[n++] = (uv_handle_t *)&t->prepare;
	hs[n++] = (uv_handle_t *)&t->timer;
	hs[n++] = (uv_handle_t *)&t->search_idle;
	hs[n++] = (uv_handle_t *)&t->group_idle;
	hs[n++] = (uv_handle_t *)&t->live.timer;
	hs[n++] = (uv_handle_t *)&t->live.tick;
	tui_log(t, "stopped%s", t->signal != 0 ? " by a signal" : "");
	/*
	 * Closing the watchers gives SIGTERM and SIGHUP back their default,
	 * deadly action, but the caller still has to store the incident, and
	 * timeout(1) and process-group kills send SIGTERM twice: they are
	 * blocked across the close and ignored after it, so one that comes in
	 * between is dropped.  Curses has ended, so whatever comes, the
	 * terminal is left sane.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &saved);
	/* A handle never initialized still has type 0 from xcalloc. */
	for (i = 0; i < n; i++) {
		if (hs[i]->type != UV_UNKNOWN_HANDLE && !uv_is_closing(hs[i]))
			uv_close(hs[i], tui_close_cb);
	}
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	if (t->nhandles == 0)
		tui_free(t);
}

/* Free the console once no handle refers to it; closes the tty fds. */
static void
tui_free(struct tui *t)
{
	if (t->in_fp != NULL) {
		if (t->in_flags != -1)
			fcntl(t->in_fd, F_SETFL, t->in_flags);
		fclose(t->in_fp);
	} else if (t->in_fd > 0)
		close(t->in_fd);
	if (t->out_fp != NULL)
		fclose(t->out_fp);
	if (t->log_fp != NULL)
		fclose(t->log_fp);
	if (t->home != NULL)
		incident_free(t->inc);
	model_clear(&t->index);
	free(t->sel_key.host);
	theme_free();
	tui_export_clear(t);
	zoom_clear(t);
	lines_free(t);
	free(t->text);
	free(t->text_title);
	free(t->message);
	free(t->theme);
	if (tui_current == t)
		tui_current = NULL;
	free(t);
}

/* Run the console on the caller's loop until the engineer quits. */
int
tui_run(uv_loop_t *loop, struct rl_incident *inc,
    const struct tui_config *cfg, char **cause)
{
	struct tui	*t;
	int		 rc;

	if (tui_current != NULL) {
		xasprintf(cause, "the console is already running");
		return (-1);
	}
	t = xcalloc(1, sizeof *t);
	t->loop = loop;
	t->inc = inc;
	t->cfg = cfg;
	t->in_fd = t->out_fd = -1;
	t->in_flags = -1;
	t->sel_event = RL_NONE;
	tui_current = t;
	tui_last_signal = 0;

	if ((rc = tui_start(t, cause)) == 0) {
		while (!t->quitting)
			uv_run(loop, UV_RUN_ONCE);
	}
	tui_last_signal = t->signal;
	tui_stop(t);
	while (tui_current != NULL)
		uv_run(loop, UV_RUN_NOWAIT);
	tui_bench_report();
	return (rc);
}

/* Lines came into the incident: diagnose again and redraw, capped. */
void
tui_changed(void)
{
	if (tui_current != NULL && !tui_current->quitting)
		live_changed(tui_current);
}

/* A line in the -v log, stamped with the wall clock to the millisecond. */
void
tui_log(struct tui *t, const char *fmt, ...)
{
	struct timespec	 ts;
	va_list		 ap;

	if (t->log_fp == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(t->log_fp, "%lld.%03ld ", (long long)ts.tv_sec,
	    ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(t->log_fp, fmt, ap);
	va_end(ap);
	fputc('\n', t->log_fp);
}

/* The signal that ended the last run (SIGTERM, SIGHUP, SIGINT), or 0. */
int
tui_signal(void)
{
	return (tui_last_signal);
}

/* Leave the loop at the end of this turn. */
void
tui_quit(struct tui *t, int signum)
{
	if (t->quitting)
		return;
	t->quitting = true;
	t->signal = signum;
}

/* Act on what a view's key handler asked for. */
void
tui_react(struct tui *t, int r)
{
	if (r & REACT_QUIT)
		tui_quit(t, 0);
	if ((r & REACT_CLOSE) && t->nviews > 1)
		tui_pop(t);
	if (r & REACT_OPEN)
		tui_push(t, (enum view_id)REACT_VIEW_ID(r));
	if (r & (REACT_REDRAW | REACT_CLOSE | REACT_OPEN))
		t->dirty = t->urgent = true;
}

/* Set the status line's message; the next key clears it. */
void
tui_set_message(struct tui *t, bool error, const char *fmt, ...)
{
	va_list	 ap;

	free(t->message);
	va_start(ap, fmt);
	xvasprintf(&t->message, fmt, ap);
	va_end(ap);
	t->message_error = error;
	t->dirty = true;
}

/* Select an event, and the row it is on. */
void
tui_select_event(struct tui *t, int ev)
{
	int	 row;

	if (ev < 0 || (size_t)ev >= t->index.nevents) {
		t->sel_event = RL_NONE;
		return;
	}
	/* A tee'd copy is listed as the line it copies. */
	if (t->index.copy_of != NULL && t->index.copy_of[ev] >= 0)
		ev = t->index.copy_of[ev];
	/* A line the filter hides cannot be selected. */
	if (t->index.row_of_event[ev] < 0) {
		t->sel_event = RL_NONE;
		return;
	}
	t->sel_event = ev;
	t->sel_seq = t->inc->events[ev]->seq;
	if ((row = t->index.row_of_event[ev]) >= 0)
		t->sel_row = row;
}

/* Select a row, and the event on it most worth reading. */
void
tui_select_row(struct tui *t, int row)
{
	if (t->index.nrows == 0) {
		t->sel_row = 0;
		t->sel_event = RL_NONE;
		return;
	}
	if (row < 0)
		row = 0;
	if ((size_t)row >= t->index.nrows)
		row = (int)t->index.nrows - 1;
	t->sel_row = row;
	t->sel_event = RL_NONE;
	tui_select_event(t, model_row_default(t, row));
	t->sel_row = row;
}

/*
 * Show a stored incident, read again (history's Enter), in the views the
 * console's own one has; its own stays followed, undiagnosed meanwhile,
 * and comes back with tui_open_close.  inc is ours now.
 */
int
tui_open(struct tui *t, struct rl_incident *inc, int64_t id)
{
	if (t->home == NULL)
		t->home = t->inc;
	else
		incident_free(t->inc);
	t->inc = inc;
	t->open_id = id;
	/* Another job: its own whole window. */
	t->zoom.on = false;
	t->zoom.gen++;
	t->sel_row = 0;
	t->sel_event = RL_NONE;
	t->sel_auto = true;
	tui_rebuild(t);
	tui_set_message(t, false, "incident #%lld, its logs read again: Esc "
	    "goes back", (long long)id);
	return (REACT_REDRAW);
}

/*
 * Back to the console's own incident, with what came meanwhile, and to the
 * history the stored one was opened from.
 */
int
tui_open_close(struct tui *t)
{
	if (t->home == NULL)
		return (REACT_NONE);
	incident_free(t->inc);
	t->inc = t->home;
	t->home = NULL;
	t->open_id = 0;
	t->zoom.on = false;
	t->zoom.gen++;
	t->sel_auto = true;
	tui_rebuild(t);
	live_refresh(t);
	return (REACT_VIEW(VIEW_HISTORY));
}
