/*
 * test-follow.c: the follow as an object on a caller's loop, the way the
 * console and analyze --follow use it.  Each case runs a real libuv loop
 * against real files in a temporary folder: the first read happens inside
 * follow_start, an append and a new file in the folder reach data_cb, the
 * stats say what is followed, end_cb comes for --until-idle and for a
 * batch with nothing to run (never from inside follow_start), a data_cb
 * that stops the follow is safe, and every case ends with every handle
 * closed and uv_loop_close() == 0.  Steps are driven by the follow's own
 * callbacks; a deadline timer fails a case that hangs, nothing sleeps.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "engine.h"
#include "follow.h"
#include "tap.h"

#define DEADLINE_MS	10000	/* a case that takes longer has failed */

static const char *PACK =
	"[attrib path.rankfile]\nkind = path\n"
	"pattern = (?:^|/)rank(?<rank>\\d+)\\.log$\n"
	"[rule py.exc]\npattern = ^(?<exc>\\w+Error): \nliteral = Error: \n"
	"role = root\ndomain = code\n"
	"[rule t.step]\npattern = step (?<step>\\d+)\nrole = progress\nmark = step\n";

/* One case's state, shared by its callbacks. */
struct fcase {
	uv_loop_t	*loop;
	struct rl_incident *inc;
	struct follow	*f;		/* until stopped */
	char		 dir[64];	/* the temporary folder */
	int		 step;		/* where the case is */
	int		 data;		/* data_cb calls */
	int		 ends;		/* end_cb calls */
	bool		 in_start;	/* follow_start is running */
	bool		 end_in_start;	/* end_cb came from inside it */
	bool		 timed_out;
	bool		 stop_in_data;	/* data_cb stops the follow */
	bool		 walk;		/* data_cb walks the live case's steps */
	uv_timer_t	 deadline;
	uv_timer_t	 kick;		/* the first write, on the loop */
};

/* A ruleset from the inline pack. */
static struct ruleset *
pack(void)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };

	if (ruleset_load(rs, "inline", PACK, strlen(PACK), &e) != 0)
		fatal("pack: %s", e.n > 0 ? e.v[0] : "?");
	ruleset_finish(rs);
	return rs;
}

/* Write (mode "w") or append ("a") text to dir/name. */
static void
put(const struct fcase *c, const char *name, const char *mode,
    const char *text)
{
	char	 path[128];
	FILE	*fp;

	snprintf(path, sizeof path, "%s/%s", c->dir, name);
	if ((fp = fopen(path, mode)) == NULL)
		fatal("%s: cannot write", path);
	fputs(text, fp);
	fclose(fp);
}

/* Has the incident an event whose text holds s?  (Gathered from the keeps.) */
static bool
has_event(struct rl_incident *inc, const char *s)
{
	size_t	 i;

	incident_gather(inc);
	for (i = 0; i < inc->nevents; i++) {
		if (inc->events[i]->text != NULL &&
		    strstr(inc->events[i]->text, s) != NULL)
			return true;
	}
	return false;
}

/* End the case: stop the follow and the case's own timers. */
static void
fcase_end(struct fcase *c)
{
	if (c->f != NULL)
		follow_stop(c->f);
	c->f = NULL;
	if (!uv_is_closing((uv_handle_t *)&c->deadline))
		uv_close((uv_handle_t *)&c->deadline, NULL);
	if (!uv_is_closing((uv_handle_t *)&c->kick))
		uv_close((uv_handle_t *)&c->kick, NULL);
}

static void
deadline_cb(uv_timer_t *h)
{
	struct fcase	*c = h->data;

	c->timed_out = true;
	fcase_end(c);
}

/* Bytes came: move the case on, one step per thing it waits for. */
static void
data_cb(void *arg)
{
	struct fcase		*c = arg;
	struct follow_stats	 st;

	c->data++;
	if (c->in_start || c->f == NULL)
		return;
	if (c->stop_in_data) {
		fcase_end(c);
		return;
	}
	if (!c->walk)
		return;
	if (c->step == 1 && has_event(c->inc, "IndexError")) {
		c->step = 2;
		put(c, "rank1.log", "w", "ValueError: new rank\n");
	} else if (c->step == 2 && has_event(c->inc, "ValueError")) {
		follow_stats(c->f, &st);
		is_int(st.files, 2, "the new file is followed: 2 files");
		is_int(st.dirs, 1, "one folder is watched for new files");
		c->step = 3;
		fcase_end(c);
	}
}

static void
end_cb(void *arg)
{
	struct fcase	*c = arg;

	c->ends++;
	if (c->in_start)
		c->end_in_start = true;
	fcase_end(c);
}

/* The first append, from the loop: the watches are set by now. */
static void
kick_cb(uv_timer_t *h)
{
	struct fcase	*c = h->data;

	c->step = 1;
	put(c, "rank0.log", "a", "IndexError: appended\n");
}

/* Set up a case: a folder with rank0.log, a loop, the timers. */
static void
fcase_init(struct fcase *c, uv_loop_t *loop, struct ruleset *rs)
{
	memset(c, 0, sizeof *c);
	c->loop = loop;
	snprintf(c->dir, sizeof c->dir, "/tmp/rl-follow.XXXXXX");
	if (mkdtemp(c->dir) == NULL)
		fatal("mkdtemp failed");
	put(c, "rank0.log", "w", "2026-12-02 13:00:01,000 INFO step 1\n"
	    "2026-12-02 13:00:02,000 INFO step 2\n");
	c->inc = incident_create(rs);
	uv_loop_init(loop);
	uv_timer_init(loop, &c->deadline);
	uv_timer_init(loop, &c->kick);
	c->deadline.data = c->kick.data = c;
	uv_timer_start(&c->deadline, deadline_cb, DEADLINE_MS, 0);
}

/* Run the case's loop to its end; every handle must be closed. */
static void
fcase_run(struct fcase *c, const char *what)
{
	uv_run(c->loop, UV_RUN_DEFAULT);
	ok(!c->timed_out, "%s: done before the deadline", what);
	is_int(uv_loop_close(c->loop), 0, "%s: every handle closed", what);
}

/* Free the case's incident and remove its folder. */
static void
fcase_free(struct fcase *c)
{
	char	 cmd[128];

	incident_free(c->inc);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", c->dir);
	if (system(cmd) != 0)
		fatal("%s: cannot remove", c->dir);
}

/* Start the follow on the case's folder. */
static void
fcase_start(struct fcase *c, struct follow_config *cfg)
{
	char	*argv[1] = { c->dir };
	int	 bad = 0;

	cfg->data_cb = data_cb;
	cfg->end_cb = end_cb;
	cfg->cb_arg = c;
	c->in_start = true;
	c->f = follow_start(c->loop, c->inc, cfg, 1, argv, &bad);
	c->in_start = false;
	is_int(bad, 0, "the folder is read");
}

/* An append and a new rank file reach data_cb, then the stats say so. */
static void
test_live(struct ruleset *rs)
{
	struct follow_config	 cfg = { 0 };
	struct follow_stats	 st;
	struct fcase		 c;
	uv_loop_t		 loop;

	fcase_init(&c, &loop, rs);
	fcase_start(&c, &cfg);
	is_int(c.inc->lines, 2, "follow_start read what the file held");
	ok(c.data > 0, "data_cb was told of the first read");
	follow_stats(c.f, &st);
	is_int(st.files, 1, "one file is followed");
	is_int(st.cmds, 0, "no command");
	ok(!st.in, "no standard input");
	c.walk = true;
	uv_timer_start(&c.kick, kick_cb, 0, 0);
	fcase_run(&c, "live");
	is_int(c.step, 3, "the append and the new file were both seen");
	is_int(c.ends, 0, "end_cb never came: the console's follow runs on");
	fcase_free(&c);
}

/* --until-idle: end_cb after a quiet spell, and the append was read. */
static void
test_idle(struct ruleset *rs)
{
	struct follow_config	 cfg = { 0 };
	struct fcase		 c;
	uv_loop_t		 loop;

	fcase_init(&c, &loop, rs);
	cfg.until_idle_ms = 300;
	fcase_start(&c, &cfg);
	uv_timer_start(&c.kick, kick_cb, 0, 0);
	fcase_run(&c, "until-idle");
	is_int(c.ends, 1, "end_cb came once, after the quiet spell");
	is_int(c.inc->lines, 3, "the appended line was read before it");
	fcase_free(&c);
}

/* A batch with nothing to run ends on the loop, not inside the start. */
static void
test_batch(struct ruleset *rs)
{
	struct follow_config	 cfg = { 0 };
	struct fcase		 c;
	uv_loop_t		 loop;

	fcase_init(&c, &loop, rs);
	cfg.batch = true;
	fcase_start(&c, &cfg);
	fcase_run(&c, "batch");
	is_int(c.ends, 1, "end_cb came once");
	ok(!c.end_in_start, "and not from inside follow_start");
	fcase_free(&c);
}

/* A batch command: its lines are read, end_cb comes when it ends. */
static void
test_cmd(struct ruleset *rs)
{
	struct follow_config	 cfg = { 0 };
	struct fcase		 c;
	uv_loop_t		 loop;
	char			*cmds[1] = { "echo 'KeyError: from a command'" };

	fcase_init(&c, &loop, rs);
	cfg.batch = true;
	cfg.cmds = cmds;
	cfg.ncmds = 1;
	fcase_start(&c, &cfg);
	fcase_run(&c, "command");
	is_int(c.ends, 1, "end_cb came when the command ended");
	ok(has_event(c.inc, "KeyError"), "the command's line was read");
	fcase_free(&c);
}

/* A data_cb that stops the follow, even during its last reads, is safe. */
static void
test_stop_in_data(struct ruleset *rs)
{
	struct follow_config	 cfg = { 0 };
	struct fcase		 c;
	uv_loop_t		 loop;

	fcase_init(&c, &loop, rs);
	fcase_start(&c, &cfg);
	c.stop_in_data = true;
	uv_timer_start(&c.kick, kick_cb, 0, 0);
	fcase_run(&c, "stop in data_cb");
	ok(has_event(c.inc, "IndexError"), "the append was read");
	fcase_free(&c);
}

int
main(void)
{
	struct ruleset	*rs = pack();

	uv_disable_stdio_inheritance();
	test_live(rs);
	test_idle(rs);
	test_batch(rs);
	test_cmd(rs);
	test_stop_in_data(rs);
	ruleset_free(rs);
	return tap_done();
}
