/*
 * source-cmd.c: commands given with --cmd, and a piped standard input, read
 * on a uv loop.
 *
 * A command runs through /bin/sh -c with uv_spawn; its stdout and stderr
 * are two sources, "cmd:COMMAND" and "cmd:COMMAND (stderr)", kept across
 * runs.  A run ends only after both the child's exit and the end of both
 * outputs (tmux job.c): whichever comes last ends it, so no output is lost
 * to an early exit callback.  With --restart a run that ended is started
 * again after a backoff, 1 s doubling to 30 s, back to 1 s after a run
 * that lasted longer than the cap.
 *
 * Ownership: the set owns its jobs and pipes; each embeds its handles and
 * is freed in the close callback of its last one, and the set in the close
 * callback of the last handle of all, after source_cmds_stop.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "core.h"

#define CMD_BACKOFF_MS		1000	/* first wait before a restart */
#define CMD_BACKOFF_MAX_MS	30000	/* the longest */
#define CMD_READ_BYTES		65536

struct cmd_job;

/* One output read into a source: a command's stdout or stderr, or stdin. */
struct cmd_pipe {
	struct source_cmds *set;	/* borrowed: its owner */
	struct cmd_job	*job;		/* borrowed, or NULL for stdin */
	struct rl_source *src;		/* borrowed from the incident */
	uv_pipe_t	 pipe;
	bool		 reading;	/* not yet at its end */
};

/* A command, run once or again and again. */
struct cmd_job {
	struct source_cmds *set;	/* borrowed: its owner */
	char		*command;
	uv_process_t	 proc;
	struct cmd_pipe	 out;
	struct cmd_pipe	 err;
	uv_timer_t	 backoff;
	uint64_t	 delay_ms;	/* the next backoff */
	uint64_t	 started;	/* uv_now of this run's start */
	bool		 exited;	/* this run's exit was seen */
	bool		 killed;	/* rankline stopped this run */
	int64_t		 fail_status;	/* the last failure said: its status */
	int		 fail_sig;	/* and signal; both 0 when none */
	int		 run_handles;	/* this run's open handles */
	int		 nhandles;	/* all open handles; freed at 0 */
	struct cmd_job	*next;
};

struct source_cmds {
	uv_loop_t	*loop;		/* borrowed */
	struct rl_incident *inc;	/* borrowed */
	bool		 restart;
	void		(*activity)(void *, size_t);	/* bytes came */
	void		(*ended)(void *);	/* all ended, none restarts */
	void		*arg;
	struct cmd_job	*jobs;		/* owned */
	struct cmd_pipe	*in;		/* standard input, owned, or NULL */
	int		 live;		/* jobs and pipes not finished for good */
	int		 nhandles;	/* handles of jobs and stdin; freed at 0 */
	bool		 stopping;
	char		 buf[CMD_READ_BYTES];	/* one read at a time */
};

static void	source_cmd_spawn(struct cmd_job *);
static void	source_cmd_backoff_cb(uv_timer_t *);

/* Make the set; the callbacks get arg. */
struct source_cmds *
source_cmds_create(uv_loop_t *loop, struct rl_incident *inc, bool restart,
    void (*activity)(void *, size_t), void (*ended)(void *), void *arg)
{
	struct source_cmds	*set;

	set = xcalloc(1, sizeof *set);
	set->loop = loop;
	set->inc = inc;
	set->restart = restart;
	set->activity = activity;
	set->ended = ended;
	set->arg = arg;
	return set;
}

/* One command or pipe finished for good. */
static void
source_cmd_finished(struct source_cmds *set)
{
	if (--set->live == 0 && !set->stopping && set->ended != NULL)
		set->ended(set->arg);
}

/* A handle closed: the last one of all frees the set. */
static void
source_cmds_release(struct source_cmds *set)
{
	struct cmd_job	*j;

	if (--set->nhandles > 0 || !set->stopping)
		return;
	while ((j = set->jobs) != NULL) {
		set->jobs = j->next;
		free(j->command);
		free(j);
	}
	free(set->in);
	free(set);
}

static void
source_cmd_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
	struct cmd_pipe	*cp = h->data;

	(void)hint;
	b->base = cp->set->buf;
	b->len = sizeof cp->set->buf;
}

static void	source_cmd_pipe_end(struct cmd_pipe *);

static void
source_cmd_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct cmd_pipe		*cp = s->data;
	struct source_cmds	*set = cp->set;

	if (n > 0) {
		source_feed(set->inc, cp->src, source_ingest(set->inc, cp->src,
		    NULL, NULL), b->base, (size_t)n);
		if (set->activity != NULL)
			set->activity(set->arg, (size_t)n);
	} else if (n < 0)
		source_cmd_pipe_end(cp);	/* UV_EOF, or an error: the end */
}

/* A run's handle closed; the run is over when all three are. */
static void
source_cmd_run_closed(struct cmd_job *j)
{
	struct source_cmds	*set = j->set;
	uint64_t		 ran;

	j->nhandles--;
	if (--j->run_handles > 0) {
		source_cmds_release(set);
		return;
	}
	ran = uv_now(set->loop) - j->started;
	if (set->restart && !set->stopping) {
		if (ran > CMD_BACKOFF_MAX_MS)
			j->delay_ms = CMD_BACKOFF_MS;
		uv_timer_start(&j->backoff, source_cmd_backoff_cb,
		    j->delay_ms, 0);
		j->delay_ms = j->delay_ms * 2 > CMD_BACKOFF_MAX_MS ?
		    CMD_BACKOFF_MAX_MS : j->delay_ms * 2;
	} else if (!set->stopping)
		source_cmd_finished(set);
	source_cmds_release(set);
}

static void
source_cmd_proc_close_cb(uv_handle_t *h)
{
	source_cmd_run_closed(h->data);
}

static void
source_cmd_pipe_close_cb(uv_handle_t *h)
{
	struct cmd_pipe	*cp = h->data;

	source_cmd_run_closed(cp->job);
}

/* Close this run's handles. */
static void
source_cmd_run_close(struct cmd_job *j)
{
	uv_close((uv_handle_t *)&j->proc, source_cmd_proc_close_cb);
	uv_close((uv_handle_t *)&j->out.pipe, source_cmd_pipe_close_cb);
	uv_close((uv_handle_t *)&j->err.pipe, source_cmd_pipe_close_cb);
}

/* Exit and both ends seen: close this run's handles. */
static void
source_cmd_run_check(struct cmd_job *j)
{
	if (!j->exited || j->out.reading || j->err.reading)
		return;
	source_cmd_run_close(j);
}

/* Standard input's pipe closed. */
static void
source_cmd_stdin_close_cb(uv_handle_t *h)
{
	struct cmd_pipe	*cp = h->data;

	source_cmds_release(cp->set);
}

/* An output reached its end: its partial line is complete. */
static void
source_cmd_pipe_end(struct cmd_pipe *cp)
{
	if (!cp->reading)
		return;
	cp->reading = false;
	uv_read_stop((uv_stream_t *)&cp->pipe);
	if (cp->src->ingest != NULL)
		ingest_flush(cp->src->ingest);
	if (cp->job != NULL) {
		source_cmd_run_check(cp->job);
		return;
	}
	uv_close((uv_handle_t *)&cp->pipe, source_cmd_stdin_close_cb);
	source_cmd_finished(cp->set);
}

/*
 * Say that a run failed, in the incident's errors, as an unreadable path
 * is: a command that is not there (the shell's 127) or that failed gave
 * lines, or none, that are not the log the user wanted.  A restarting
 * command says each new way it failed once, not every run.
 */
static void
source_cmd_failed(struct cmd_job *j, int64_t status, int sig)
{
	struct rl_incident	*inc = j->set->inc;
	const char		*why = "";

	j->out.src->failed = true;
	if (status == j->fail_status && sig == j->fail_sig)
		return;
	j->fail_status = status;
	j->fail_sig = sig;
	if (sig != 0) {
		errlist_add(&inc->errors, "cmd:%s: killed by signal %d (%s)",
		    j->command, sig, strsignal(sig));
		return;
	}
	if (status == 127)
		why = " (the shell found no such command)";
	else if (status == 126)
		why = " (the shell could not run it)";
	errlist_add(&inc->errors, "cmd:%s: exited with status %lld%s",
	    j->command, (long long)status, why);
}

static void
source_cmd_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct cmd_job	*j = p->data;

	if (!j->killed && (status != 0 || sig != 0))
		source_cmd_failed(j, status, sig);
	j->exited = true;
	source_cmd_run_check(j);
}

/* Start reading an output pipe of a run. */
static void
source_cmd_pipe_init(struct cmd_job *j, struct cmd_pipe *cp)
{
	uv_pipe_init(j->set->loop, &cp->pipe, 0);
	cp->pipe.data = cp;
	cp->reading = true;
}

/* Start a run of the command. */
static void
source_cmd_spawn(struct cmd_job *j)
{
	struct source_cmds		*set = j->set;
	uv_process_options_t		 o;
	uv_stdio_container_t		 io[3];
	char				*args[] = { "sh", "-c", j->command, NULL };
	int				 r;

	source_cmd_pipe_init(j, &j->out);
	source_cmd_pipe_init(j, &j->err);
	j->proc.data = j;
	j->exited = false;
	j->killed = false;
	j->run_handles = 3;
	j->nhandles += 3;
	set->nhandles += 3;
	j->started = uv_now(set->loop);
	memset(&o, 0, sizeof o);
	memset(io, 0, sizeof io);
	io[0].flags = UV_IGNORE;
	io[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[1].data.stream = (uv_stream_t *)&j->out.pipe;
	io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[2].data.stream = (uv_stream_t *)&j->err.pipe;
	o.file = "/bin/sh";
	o.args = args;
	o.stdio = io;
	o.stdio_count = 3;
	o.exit_cb = source_cmd_exit_cb;
	if ((r = uv_spawn(set->loop, &j->proc, &o)) != 0) {
		errlist_add(&set->inc->errors, "cmd:%s: %s", j->command,
		    uv_strerror(r));
		j->out.src->failed = true;
		j->exited = true;
		j->out.reading = j->err.reading = false;
		source_cmd_run_check(j);
		return;
	}
	uv_read_start((uv_stream_t *)&j->out.pipe, source_cmd_alloc_cb,
	    source_cmd_read_cb);
	uv_read_start((uv_stream_t *)&j->err.pipe, source_cmd_alloc_cb,
	    source_cmd_read_cb);
}

/* The backoff passed: run the command again. */
static void
source_cmd_backoff_cb(uv_timer_t *h)
{
	source_cmd_spawn(h->data);
}

/* Add a command and start its first run. */
void
source_cmds_add(struct source_cmds *set, const char *command)
{
	struct cmd_job	*j;
	char		*name;

	j = xcalloc(1, sizeof *j);
	j->set = set;
	j->command = xstrdup(command);
	j->delay_ms = CMD_BACKOFF_MS;
	j->out.set = j->err.set = set;
	j->out.job = j->err.job = j;
	xasprintf(&name, "cmd:%s", command);
	j->out.src = incident_add_source(set->inc, name, SOURCE_CMD);
	free(name);
	xasprintf(&name, "cmd:%s (stderr)", command);
	j->err.src = incident_add_source(set->inc, name, SOURCE_CMD);
	free(name);
	clock_init(&j->out.src->clock, (int64_t)time(NULL));
	clock_init(&j->err.src->clock, (int64_t)time(NULL));
	uv_timer_init(set->loop, &j->backoff);
	j->backoff.data = j;
	j->nhandles = 1;
	set->nhandles++;
	set->live++;
	j->next = set->jobs;
	set->jobs = j;
	source_cmd_spawn(j);
}

/*
 * Read standard input on the loop when it is a pipe (a regular file or a
 * terminal is read to its end at once, as analyze without --follow does).
 */
void
source_cmds_add_stdin(struct source_cmds *set, struct rl_source *src)
{
	struct cmd_pipe	*cp;

	if (set->in != NULL || uv_guess_handle(STDIN_FILENO) != UV_NAMED_PIPE) {
		source_file_read(set->inc, src, NULL, NULL);
		return;
	}
	cp = set->in = xcalloc(1, sizeof *cp);
	cp->set = set;
	cp->src = src;
	clock_init(&src->clock, (int64_t)time(NULL));
	uv_pipe_init(set->loop, &cp->pipe, 0);
	cp->pipe.data = cp;
	set->nhandles++;
	set->live++;
	if (uv_pipe_open(&cp->pipe, STDIN_FILENO) != 0) {
		cp->reading = true;
		source_cmd_pipe_end(cp);
		return;
	}
	cp->reading = true;
	uv_read_start((uv_stream_t *)&cp->pipe, source_cmd_alloc_cb,
	    source_cmd_read_cb);
}

/*
 * Commands not finished for good (a restarting one never is); *in says
 * whether standard input is still being read.
 */
int
source_cmds_live(const struct source_cmds *set, bool *in)
{
	*in = !set->stopping && set->in != NULL && set->in->reading;
	return set->stopping ? 0 : set->live - (*in ? 1 : 0);
}

/* A job's backoff timer closed. */
static void
source_cmd_job_close_cb(uv_handle_t *h)
{
	struct cmd_job	*j = h->data;

	j->nhandles--;
	source_cmds_release(j->set);
}

/* End a run now: the child is asked to stop, its outputs closed. */
static void
source_cmd_job_stop(struct cmd_job *j)
{
	if (j->run_handles > 0 && !uv_is_closing((uv_handle_t *)&j->proc)) {
		if (!j->exited) {
			j->killed = true;
			uv_process_kill(&j->proc, SIGTERM);
		}
		if (j->out.src->ingest != NULL)
			ingest_flush(j->out.src->ingest);
		if (j->err.src->ingest != NULL)
			ingest_flush(j->err.src->ingest);
		source_cmd_run_close(j);
	}
	uv_close((uv_handle_t *)&j->backoff, source_cmd_job_close_cb);
}

/* Stop every command and pipe; the set frees itself when all are closed. */
void
source_cmds_stop(struct source_cmds *set)
{
	struct cmd_job	*j;

	if (set->stopping)
		return;
	set->stopping = true;
	for (j = set->jobs; j != NULL; j = j->next)
		source_cmd_job_stop(j);
	if (set->in != NULL && set->in->reading) {
		set->in->reading = false;
		if (set->in->src->ingest != NULL)
			ingest_flush(set->in->src->ingest);
		uv_close((uv_handle_t *)&set->in->pipe,
		    source_cmd_stdin_close_cb);
	}
	set->nhandles++;	/* so that a set with no handles is freed too */
	source_cmds_release(set);
}
