/*
 * cmd-analyze.c: `rankline analyze` and the console's start.  Both read
 * every path, diagnose, and store the incident; analyze prints the answer,
 * the console shows it while it follows the sources for new lines.
 */
#include <sys/stat.h>

#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "follow.h"
#include "report.h"
#include "rankline.h"
#include "store/store.h"
#include "tui/tui.h"

/* analyze --follow and cat --follow: a follow, and what ends it. */
struct analyze_run {
	struct follow	*follow;	/* until stopped, then NULL */
	uv_signal_t	 sig[2];	/* SIGINT, SIGTERM */
	uv_timer_t	 warn;		/* with --follow: errors said as they
					   come */
	bool		 warning;	/* warn was started */
	struct rl_incident *inc;	/* borrowed */
	bool		 signalled;	/* ended by one of them */
};

/* The incident's errors said on stderr so far (analyze_warn). */
static size_t	analyze_said;

/* Stop following and close the signal watchers; the loop then ends. */
static void
analyze_run_end(struct analyze_run *r)
{
	if (r->follow == NULL)
		return;
	follow_stop(r->follow);
	r->follow = NULL;
	uv_close((uv_handle_t *)&r->sig[0], NULL);
	uv_close((uv_handle_t *)&r->sig[1], NULL);
	if (r->warning)
		uv_close((uv_handle_t *)&r->warn, NULL);
	/*
	 * timeout(1) and process-group kills deliver SIGTERM twice; closing
	 * the watcher restored the default action, and the second one must
	 * not cut the report we are about to print.
	 */
	if (r->signalled)
		signal(SIGTERM, SIG_IGN);
}

/* SIGINT or SIGTERM: diagnose what was read. */
static void
analyze_signal_cb(uv_signal_t *h, int signum)
{
	struct analyze_run	*r = h->data;

	(void)signum;
	r->signalled = true;
	analyze_run_end(r);
}

/*
 * A follow may last hours: what goes wrong meanwhile (a command failed, a
 * spill at its cap, a full disk) is said within a second, not at the end.
 */
static void
analyze_warn_cb(uv_timer_t *h)
{
	struct analyze_run	*r = h->data;

	analyze_warn(r->inc);
}

/* --until-idle passed, or a batch's commands all ended. */
static void
analyze_ended_cb(void *arg)
{
	analyze_run_end(arg);
}

/*
 * Run the loop over the paths (watched with --follow) and the commands
 * (batch: to the end of their output), then diagnose.
 */
static struct rl_incident *
analyze_follow(const struct options *o, struct rl_incident *inc, int argc,
    char **argv, ingest_line_cb cb, void *arg, int *bad)
{
	struct follow_config	 cfg = { 0 };
	struct analyze_run	 r = { 0 };
	uv_loop_t		 loop;
	int			 i;

	cfg.until_idle_ms = o->until_idle_ms;
	cfg.poll = o->poll;
	cfg.batch = !o->follow;
	cfg.cmds = o->cmds;
	cfg.ncmds = o->ncmds;
	cfg.restart = o->restart;
	cfg.line_cb = cb;
	cfg.line_arg = arg;
	cfg.end_cb = analyze_ended_cb;
	cfg.cb_arg = &r;
	uv_loop_init(&loop);
	uv_disable_stdio_inheritance();
	for (i = 0; i < 2; i++) {
		uv_signal_init(&loop, &r.sig[i]);
		r.sig[i].data = &r;
		uv_signal_start(&r.sig[i], analyze_signal_cb,
		    i == 0 ? SIGINT : SIGTERM);
	}
	r.follow = follow_start(&loop, inc, &cfg, argc, argv, bad);
	r.inc = inc;
	if (o->follow && r.follow != NULL) {
		uv_timer_init(&loop, &r.warn);
		r.warn.data = &r;
		uv_timer_start(&r.warn, analyze_warn_cb, 1000, 1000);
		r.warning = true;
	}
	if (o->follow) {
		/* Say so: the engineer (and a test) knows the watches are set. */
		fprintf(stderr, "rankline: following %zu sources; SIGINT or "
		    "SIGTERM stops%s\n", inc->nsources,
		    o->until_idle_ms > 0 ? ", as does a quiet spell" : "");
		fflush(stderr);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&loop) != 0)
		fatal("handles left open on the loop");
	pipeline_diagnose(inc);
	return inc;
}

/*
 * Did a source fail: a file that could not be read, a command that
 * failed?  Each is named in the incident's errors.
 */
bool
analyze_partial(const struct rl_incident *inc)
{
	size_t	i;

	for (i = 0; i < inc->nsources; i++) {
		if (inc->sources[i]->error != NULL || inc->sources[i]->failed)
			return true;
	}
	return false;
}

/*
 * Read and diagnose the paths.  *bad is set when a path could not be read
 * or a command failed (it is named in the incident's errors; the rest were
 * read).
 */
struct rl_incident *
analyze_paths(const struct options *o, struct ruleset *rs, int argc,
    char **argv, ingest_line_cb cb, void *arg, int *bad)
{
	struct rl_incident	*inc;

	inc = incident_create(rs);
	/*
	 * Its readers (the reports, the store) ask event_text; the console
	 * (--no-follow, the history's incidents) reads texts itself, and
	 * commands and line callbacks read on past the files.
	 */
	inc->lean = !o->no_follow && o->ncmds == 0 && cb == NULL;
	*bad = 0;
	if (o->follow) {
		analyze_follow(o, inc, argc, argv, cb, arg, bad);
		if (analyze_partial(inc))
			*bad = 1;
		return inc;
	}
	if (pipeline_read(inc, argc, argv, cb, arg, o->jobs) != 0)
		*bad = 1;
	if (o->ncmds > 0)
		analyze_follow(o, inc, 0, NULL, cb, arg, bad);
	else
		pipeline_diagnose(inc);
	if (analyze_partial(inc))
		*bad = 1;
	return inc;
}

/*
 * Recall an incident's past into h, which the incident then borrows
 * (inc->history) for the report and the console: before anything is
 * printed, so that the report can say "seen before".  With save, the
 * incident is kept first; either way its own row, if the same logs were
 * stored before, is left out of its matches.  A store that cannot be
 * opened or written does not stop the report, but is said, and returns
 * -1 so that the command exits 1: a cron job must learn that nothing was
 * kept (a full disk said "database or disk is full" and exited 0).
 */
static int
analyze_history(const struct options *o, struct rl_incident *inc,
    struct rl_history *h, bool save)
{
	struct store	*st;
	char		*cause = NULL;
	int64_t		 id = 0;
	bool		 updated;
	int		 rv = 0, rc;

	memset(h, 0, sizeof *h);
	/* --no-store writes nothing, but what is stored is still recalled. */
	if (o->no_store && save)
		return 0;
	if ((rc = store_open_at(o->db, o->no_store ? STORE_EXISTING |
	    STORE_READ : 0, &st, &cause)) != 0) {
		/* Without a place for it, only a save is missed. */
		if ((rc != STORE_NOWHERE && rc != STORE_ABSENT) || save)
			fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		return -1;
	}
	if (save && store_save(st, inc, &id, &updated, &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		cause = NULL;
		rv = -1;
		save = false;
	}
	/* Not saved: an older row of the same logs is still not a match. */
	if (!save && store_find(st, inc, &id, &cause) != 0) {
		free(cause);
		cause = NULL;
	}
	if (store_recall(st, inc, id, h, &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		rv = -1;
	} else
		inc->history = h;
	store_close(st);
	return rv;
}

/* Keep the incident, then recall its past (see analyze_history). */
int
analyze_store(const struct options *o, struct rl_incident *inc,
    struct rl_history *h)
{
	return analyze_history(o, inc, h, true);
}

/*
 * What the history says of an incident that is not stored yet (a console
 * that follows stores it when it ends).
 */
static int
analyze_recall(const struct options *o, struct rl_incident *inc,
    struct rl_history *h)
{
	return analyze_history(o, inc, h, false);
}

/* Print each unreadable path, and the like, on stderr, once. */
void
analyze_warn(const struct rl_incident *inc)
{
	struct buf	b = { 0 };
	size_t		i;

	for (i = analyze_said; i < inc->errors.n; i++) {
		buf_reset(&b);
		sanitize_terminal(&b, inc->errors.v[i], strlen(inc->errors.v[i]));
		fprintf(stderr, "rankline: %s\n", b.p);
	}
	analyze_said = inc->errors.n;
	buf_clear(&b);
}

#if defined(__SANITIZE_ADDRESS__)
#define RL_ASAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RL_ASAN	1
#endif
#endif
#ifndef RL_ASAN
#define RL_ASAN	0
#endif

/*
 * Should a batch command free what it made before it exits?  Its output is
 * written by then, and the exit gives the memory back at once: freeing an
 * analysis of 1,024 ranks allocation by allocation (some 150,000) took 12
 * to 25 ms, 3 to 6% of the run; clang's driver skips its teardown so
 * (-disable-free).  A build with AddressSanitizer, and
 * RANKLINE_FREE_AT_EXIT=1 (CI's valgrind run), free everything, so that
 * the teardown stays checked.
 */
static bool
free_at_exit(void)
{
	const char	*s;

	if (RL_ASAN)
		return true;
	s = getenv("RANKLINE_FREE_AT_EXIT");
	return s != NULL && strcmp(s, "1") == 0;
}

/*
 * What an analysis leaves at exit, reachable from here so that no checker
 * calls it lost; volatile, as stores nothing reads would be dropped.
 */
static struct rl_history	analyze_left_h;
static void *volatile		analyze_left[4];

/*
 * What a batch command is doing, for a signal that ends it: an engineer
 * who stops a long run, or a scheduler's SIGTERM, is told what was cut
 * short and whether anything was stored.  SQLite's journal keeps the
 * database whole either way; this is only the telling.
 */
static const char *const *stop_words;	/* a sentence per phase */
static size_t		  stop_nwords;
static volatile sig_atomic_t stop_at;	/* the phase now */

/* Say what a terminating signal interrupted, then die of it. */
static void
stop_cb(int sig)
{
	const char	*name = sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ?
			    "SIGHUP" : "SIGINT";
	const char	*w;
	ssize_t		 n;

	w = stop_words[(size_t)stop_at < stop_nwords ? (size_t)stop_at :
	    stop_nwords - 1];
	n = write(STDERR_FILENO, "rankline: stopped by ", 21);
	n = write(STDERR_FILENO, name, strlen(name));
	n = write(STDERR_FILENO, w, strlen(w));
	(void)n;
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * From now on a SIGTERM, SIGHUP or SIGINT says words[phase] (each starts
 * with a blank and ends with a newline) before it ends the process; a
 * follow's own watchers take SIGINT and SIGTERM over while it runs, so it
 * is called again after one.
 */
void
stop_trap(const char *const *words, size_t nwords)
{
	static const int	 sigs[] = { SIGTERM, SIGHUP, SIGINT };
	struct sigaction	 sa, old;
	size_t			 i;

	assert(nwords > 0);
	stop_words = words;
	stop_nwords = nwords;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = stop_cb;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		/* A signal ignored by the caller (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* The phase whose words a signal would say now. */
void
stop_phase(int phase)
{
	stop_at = phase;
}

/* What analyze says when stopped: reading, storing, stored. */
static const char *const analyze_stop_words[] = {
	" while reading the logs: nothing was stored\n",
	" while storing the incident: the database keeps what it held "
	    "before\n",
	" after the incident was stored\n"
};

int
cmd_analyze(const struct options *o, int argc, char **argv)
{
	struct ruleset		*rs;
	struct rl_incident	*inc;
	struct rl_history	 h;
	struct buf		 b = { 0 };
	int			 bad, rv = 0;

	if (argc == 0 && o->ncmds == 0) {
		fprintf(stderr, "usage: rankline %s\n", commands[0].usage);
		return EXIT_USAGE;
	}
	stop_trap(analyze_stop_words, nitems(analyze_stop_words));
	rs = rules_load_or_warn();
	inc = analyze_paths(o, rs, argc, argv, NULL, NULL, &bad);
	/* A follow's watchers gave their signals back to the default. */
	stop_trap(analyze_stop_words, nitems(analyze_stop_words));
	analyze_warn(inc);
	/* The report still comes: the failure to keep it was said. */
	stop_phase(1);
	if (analyze_store(o, inc, &h) != 0)
		rv = 1;
	stop_phase(2);
	if (o->json)
		report_json(inc, &b, stdout);
	else
		report_text(inc, &b);
	fwrite(b.p, 1, b.len, stdout);
	fflush(stdout);
	/* An incident not kept outweighs a source not read in full. */
	if (rv == 0 && bad)
		rv = EXIT_PARTIAL;
	if (!free_at_exit()) {
		analyze_left[0] = inc;
		analyze_left[1] = rs;
		analyze_left[2] = b.p;
		analyze_left_h = h;
		analyze_left[3] = &analyze_left_h;
		return rv;
	}
	buf_clear(&b);
	incident_free(inc);
	history_clear(&h);
	ruleset_free(rs);
	return rv;
}

/* The console's follow read new lines: diagnose again soon (live.c). */
static void
console_data_cb(void *arg)
{
	(void)arg;
	tui_changed();
}

/*
 * Start following the paths and commands on the loop: what is there now
 * is read before this returns, and diagnosed.
 */
static struct follow *
console_follow(const struct options *o, uv_loop_t *loop,
    struct rl_incident *inc, int argc, char **argv)
{
	struct follow_config	 cfg = { 0 };
	struct follow		*f;
	int			 bad = 0;

	cfg.poll = o->poll;
	cfg.cmds = o->cmds;
	cfg.ncmds = o->ncmds;
	cfg.restart = o->restart;
	cfg.renew = true;
	cfg.data_cb = console_data_cb;
	f = follow_start(loop, inc, &cfg, argc, argv, &bad);
	analyze_warn(inc);
	pipeline_diagnose(inc);
	return f;
}

/*
 * The console's history view reads and writes the store through these, so
 * that tui/ never speaks SQL.  Each call opens the database and closes it
 * again: the console may stay open for hours beside another one, and a
 * store held open would hold its WAL with it.
 */
#define CONSOLE_HISTORY_ROWS	500

static struct store *
console_store(const struct options *o, char **cause, bool *absent)
{
	struct store	*st;
	int		 rc;

	/* --no-store: the history is read, and nothing is made or written. */
	rc = store_open_at(o->db, o->no_store ? STORE_EXISTING | STORE_READ :
	    0, &st, cause);
	*absent = rc == STORE_ABSENT;
	return rc == 0 ? st : NULL;
}

static int
console_history_list(void *arg, const char *query, struct tui_past **out,
    size_t *n, char **cause)
{
	struct store		*st;
	struct store_list	 l;
	struct tui_past		*v;
	const struct store_row	*r;
	size_t			 i;
	bool			 absent;

	*out = NULL;
	*n = 0;
	if ((st = console_store(arg, cause, &absent)) == NULL) {
		if (!absent)
			return -1;
		/* --no-store where nothing was ever stored: no rows. */
		free(*cause);
		*cause = NULL;
		*out = xcalloc(1, sizeof **out);
		return 0;
	}
	if (store_list(st, query, CONSOLE_HISTORY_ROWS, &l, cause) != 0) {
		store_close(st);
		return -1;
	}
	store_close(st);
	v = xcalloc(l.n + 1, sizeof *v);
	for (i = 0; i < l.n; i++) {
		r = &l.rows[i];
		v[i].id = r->id;
		v[i].when = xstrdup(r->occurred != NULL ? r->occurred :
		    r->created != NULL ? r->created : "");
		v[i].signature = r->signature != NULL ?
		    xstrdup(r->signature) : NULL;
		if (r->rank != RL_NONE && r->host != NULL)
			xasprintf(&v[i].where, "rank %d on %s", r->rank,
			    r->host);
		else if (r->rank != RL_NONE)
			xasprintf(&v[i].where, "rank %d", r->rank);
		else if (r->host != NULL)
			v[i].where = xstrdup(r->host);
		v[i].summary = r->summary != NULL ? xstrdup(r->summary) : NULL;
		/* Past its time and prefixes, as the console's events read. */
		if (r->signature != NULL && r->text != NULL)
			v[i].message = xstrdup(r->text + clock_message(r->text,
			    strlen(r->text)));
		v[i].diagnosis = r->diagnosis != NULL ?
		    xstrdup(r->diagnosis) : NULL;
		v[i].resolution = r->resolution != NULL ?
		    xstrdup(r->resolution) : NULL;
	}
	*out = v;
	*n = l.n;
	store_list_clear(&l);
	return 0;
}

static int
console_history_note(void *arg, int64_t id, bool resolution,
    const char *text, char **cause)
{
	struct store	*st;
	int		 rv;
	bool		 absent;

	if ((st = console_store(arg, cause, &absent)) == NULL)
		return -1;
	rv = store_note(st, id, resolution ? NOTE_RESOLUTION :
	    NOTE_DIAGNOSIS, text, cause);
	store_close(st);
	return rv;
}

/* The notes of an incident, for the report the console's e writes. */
static int
console_history_notes(void *arg, int64_t id, struct report_note **v,
    size_t *n, char **cause)
{
	return report_notes_read(arg, id, v, n, cause);
}

/* The console's rules, for an incident its history opens. */
static struct ruleset	*console_rules;

/*
 * An incident of the history, for the console to show in its views: its
 * logs read again, since the store keeps the answers and a share of the
 * events, not every line the views draw.  Logs that are gone, or that were
 * a pipe or a command, are said, with where the stored answers are.
 */
static int
console_history_open(void *arg, int64_t id, struct rl_incident **out,
    char **cause)
{
	const struct options	*o = arg;
	struct options		 ro = *o;
	struct store		*st;
	struct stat		 sb;
	char			**paths;
	size_t			 n, i;
	int			 bad, rv;
	bool			 absent;

	*out = NULL;
	if ((st = console_store(o, cause, &absent)) == NULL)
		return -1;
	rv = store_source_paths(st, id, &paths, &n, cause);
	store_close(st);
	if (rv != 0)
		return -1;
	if (n == 0)
		xasprintf(cause, "incident #%lld lists no log", (long long)id);
	for (i = 0; i < n && *cause == NULL; i++) {
		if (paths[i][0] == '/' && stat(paths[i], &sb) == 0)
			continue;
		xasprintf(cause, "the logs of #%lld cannot be read again: "
		    "rankline report --incident %lld has what the store kept "
		    "(%s: %s)", (long long)id, (long long)id, paths[i],
		    paths[i][0] != '/' ? "a pipe or a command" :
		    strerror(errno));
	}
	if (*cause == NULL) {
		ro.follow = false;
		ro.no_follow = true;
		ro.ncmds = 0;
		*out = analyze_paths(&ro, console_rules, (int)n, paths, NULL,
		    NULL, &bad);
	}
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return *out != NULL ? 0 : -1;
}

/* A stored incident's report from the store alone, for the console. */
static int
console_history_report(void *arg, int64_t id, char **text, char **cause)
{
	struct buf	 b = { 0 };

	*text = NULL;
	if (report_stored_text(arg, id, REPORT_MD, &b, cause) != 0) {
		buf_clear(&b);
		return -1;
	}
	*text = b.p != NULL ? b.p : xstrdup("");
	return 0;
}

/* Whether a path is "-" with a terminal on it: a log to be pasted. */
static bool
console_pasted(int argc, char **argv)
{
	int	i;

	if (!isatty(STDIN_FILENO))
		return (false);
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-") == 0)
			return (true);
	}
	return (false);
}

/*
 * The console: read the paths, then show the incident until the engineer
 * quits, following the sources on the same loop (unless --no-follow read
 * them once).  A followed incident is stored when the console ends, by q or
 * by a signal, with the diagnosis of everything read; tui_run returns with
 * curses ended and SIGTERM and SIGHUP ignored, so that nothing cuts that.
 */
int
cmd_console(const struct options *o, int argc, char **argv)
{
	struct tui_config	 cfg = { 0 };
	struct tui_history	 hist = { console_history_list,
				     console_history_note, console_history_notes,
				     console_history_open,
				     console_history_report, NULL };
	struct ruleset		*rs;
	struct rl_incident	*inc;
	struct rl_history	 h, last;
	struct follow		*f = NULL;
	struct options		 po;
	uv_loop_t		 loop;
	char			*cause = NULL;
	int			 bad, rv;
	bool			 store_failed = false, nothing = false;
	bool			 start_history = argc == 0 && o->ncmds == 0;

	if (console_pasted(argc, argv)) {
		/*
		 * The "paste the log" habit: the terminal is read to its end
		 * first; following it would mean keys and log on one tty.
		 */
		po = *o;
		po.no_follow = true;
		o = &po;
		fprintf(stderr, "rankline: paste the log, then press Ctrl-D "
		    "on a line of its own (Ctrl-C gives up)\n");
	}
	rs = rules_load_or_warn();
	console_rules = rs;
	memset(&last, 0, sizeof last);
	memset(&h, 0, sizeof h);
	if (start_history)
		inc = incident_create(rs);	/* nothing read, nothing stored */
	else if (o->no_follow) {
		inc = analyze_paths(o, rs, argc, argv, NULL, NULL, &bad);
		analyze_warn(inc);
		if (inc->lines > 0 && !o->no_store)
			store_failed = analyze_store(o, inc, &h) != 0;
		else
			analyze_recall(o, inc, &h);
	} else
		inc = incident_create(rs);
	uv_loop_init(&loop);
	uv_disable_stdio_inheritance();
	if (!o->no_follow && !start_history) {
		f = console_follow(o, &loop, inc, argc, argv);
		analyze_recall(o, inc, &h);
	}
	cfg.theme = o->theme;
	cfg.mono = o->mono;
	cfg.ascii = o->ascii;
	cfg.debug_log = o->debug_log;
	cfg.follow = f;
	cfg.start_history = start_history;
	cfg.no_mouse = o->no_mouse;
	hist.arg = (void *)o;
	if (o->no_store)
		hist.note = NULL;	/* read only */
	cfg.history = &hist;
	rv = tui_run(&loop, inc, &cfg, &cause);
	if (rv != 0) {
		fprintf(stderr, "rankline: %s\n", cause != NULL ? cause :
		    "the console failed");
		free(cause);
	}
	if (f != NULL) {
		/* A last read of every file, then the commands are stopped. */
		follow_stop(f);
		uv_run(&loop, UV_RUN_DEFAULT);
		pipeline_diagnose(inc);
		/* Nothing read (a mistyped path) is not an incident to keep. */
		if (inc->lines > 0 && analyze_store(o, inc, &last) != 0)
			rv = -1;
	}
	/* Said on stderr before the console began, and on its first screen. */
	nothing = inc->lines == 0 && inc->errors.n > 0;
	if (uv_loop_close(&loop) != 0)
		fatal("handles left open on the loop");
	incident_free(inc);
	history_clear(&h);
	history_clear(&last);
	ruleset_free(rs);
	if (nothing && rv == 0 && !store_failed)
		return EXIT_PARTIAL;
	return rv == 0 && !store_failed ? 0 : 1;
}
