/*
 * cmd-analyze.c: `rankline analyze` and the console's start.  Both read
 * every path, diagnose, and store the incident; analyze prints the answer,
 * the console shows it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "rankline.h"
#include "store/store.h"
#include "tui/tui.h"

/*
 * Run the loop over the paths (watched with --follow) and the commands
 * (batch: to the end of their output), then diagnose.
 */
static struct rl_incident *
analyze_follow(const struct options *o, struct rl_incident *inc, int argc,
    char **argv, ingest_line_cb cb, void *arg, int *bad)
{
	struct follow_config	 cfg = { 0 };
	uv_loop_t		 loop;

	cfg.until_idle_ms = o->until_idle_ms;
	cfg.poll = o->poll;
	cfg.batch = !o->follow;
	cfg.cmds = o->cmds;
	cfg.ncmds = o->ncmds;
	cfg.restart = o->restart;
	cfg.line_cb = cb;
	cfg.line_arg = arg;
	uv_loop_init(&loop);
	uv_disable_stdio_inheritance();
	if (follow_run(&loop, inc, &cfg, argc, argv) != 0)
		*bad = 1;
	if (uv_loop_close(&loop) != 0)
		fatal("handles left open on the loop");
	diagnose(inc);
	return inc;
}

/*
 * Read and diagnose the paths.  *bad is set when a path could not be read
 * (it is named in the incident's errors; the rest were read).
 */
struct rl_incident *
analyze_paths(const struct options *o, struct ruleset *rs, int argc,
    char **argv, ingest_line_cb cb, void *arg, int *bad)
{
	struct rl_incident	*inc;
	size_t			 i;
	int			 k;

	inc = incident_create(rs);
	*bad = 0;
	if (o->follow)
		return analyze_follow(o, inc, argc, argv, cb, arg, bad);
	for (k = 0; k < argc; k++) {
		if (source_add_path(inc, argv[k]) != 0)
			*bad = 1;
	}
	for (i = 0; i < inc->nsources; i++) {
		if (source_file_read(inc, inc->sources[i], cb, arg) != 0)
			*bad = 1;
	}
	if (o->ncmds > 0)
		analyze_follow(o, inc, 0, NULL, cb, arg, bad);
	else
		diagnose(inc);
	return inc;
}

/*
 * Keep the incident and recall its past into h, which the incident then
 * borrows (inc->history) for the report and the console: before anything
 * is printed, so that the report can say "seen before".  The incident is
 * saved first and left out of its own matches.  A store that cannot be
 * opened or written is a warning only.
 */
int
analyze_store(const struct options *o, struct rl_incident *inc,
    struct rl_history *h)
{
	struct store	*st;
	char		*path, *cause = NULL;
	int64_t		 id = 0;
	bool		 updated;
	int		 rv = 0;

	memset(h, 0, sizeof *h);
	if (o->no_store)
		return 0;
	path = o->db != NULL ? xstrdup(o->db) : store_default_path();
	if (path == NULL) {
		fprintf(stderr, "rankline: no place for the incident database "
		    "(set HOME or use --db)\n");
		return -1;
	}
	if (store_open(path, &st, &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		free(path);
		return -1;
	}
	if (store_save(st, inc, &id, &updated, &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		cause = NULL;
		rv = -1;
		/* Not saved: an older row of the same logs is still not a match. */
		if (store_find(st, inc, &id, &cause) != 0) {
			free(cause);
			cause = NULL;
		}
	}
	if (store_recall(st, inc, id, h, &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		rv = -1;
	} else
		inc->history = h;
	store_close(st);
	free(path);
	return rv;
}

/* Print each unreadable path on stderr. */
static void
analyze_warn(const struct rl_incident *inc)
{
	struct buf	b = { 0 };
	size_t		i;

	for (i = 0; i < inc->errors.n; i++) {
		buf_reset(&b);
		sanitize_terminal(&b, inc->errors.v[i], strlen(inc->errors.v[i]));
		fprintf(stderr, "rankline: %s\n", b.p);
	}
	buf_free(&b);
}

int
cmd_analyze(const struct options *o, int argc, char **argv)
{
	struct ruleset		*rs;
	struct rl_incident	*inc;
	struct rl_history	 h;
	struct buf		 b = { 0 };
	int			 bad;

	if (argc == 0 && o->ncmds == 0) {
		fprintf(stderr, "usage: rankline %s\n", commands[0].usage);
		return EXIT_USAGE;
	}
	rs = rules_load_or_warn();
	inc = analyze_paths(o, rs, argc, argv, NULL, NULL, &bad);
	analyze_warn(inc);
	analyze_store(o, inc, &h);
	if (o->json)
		report_json(inc, &b);
	else
		report_text(inc, &b);
	fwrite(b.p, 1, b.len, stdout);
	fflush(stdout);
	buf_free(&b);
	incident_free(inc);
	history_free(&h);
	ruleset_free(rs);
	return 0;
}

/* The console: read, diagnose, store, then show it until the user quits. */
int
cmd_console(const struct options *o, int argc, char **argv)
{
	struct tui_config	 cfg = { 0 };
	struct ruleset		*rs;
	struct rl_incident	*inc;
	struct rl_history	 h;
	uv_loop_t		 loop;
	char			*cause = NULL;
	int			 bad, rv;

	rs = rules_load_or_warn();
	inc = analyze_paths(o, rs, argc, argv, NULL, NULL, &bad);
	analyze_warn(inc);
	analyze_store(o, inc, &h);
	cfg.theme = o->theme;
	cfg.mono = o->mono;
	cfg.ascii = o->ascii;
	cfg.debug_log = o->debug_log;
	uv_loop_init(&loop);
	uv_disable_stdio_inheritance();
	rv = tui_run(&loop, inc, &cfg, &cause);
	if (uv_loop_close(&loop) != 0)
		fatal("handles left open on the loop");
	if (rv != 0) {
		fprintf(stderr, "rankline: %s\n", cause != NULL ? cause :
		    "the console failed");
		free(cause);
	}
	incident_free(inc);
	history_free(&h);
	ruleset_free(rs);
	return rv == 0 ? 0 : 1;
}
