/*
 * test-pipeline.c: the pipeline fills every part of the model.
 *
 * A run's folder (a launcher's console and two ranks' logs, written in a
 * temporary folder) is read with the shipped packs through pipeline_read
 * and pipeline_diagnose, as analyze reads it; then each part a reader
 * needs must be there without a log being read again: the job's facts
 * with where each was read, the root's context lines, each process's last
 * line, the root's signature; and diagnose runs once per call.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

/* Does s end with suffix? */
static bool
ends_with(const char *s, const char *suffix)
{
	size_t	n, k = strlen(suffix);

	return s != NULL && (n = strlen(s)) >= k &&
	    strcmp(s + n - k, suffix) == 0;
}

/* The bytes of a file at an offset, as a string. */
static char *
pread_str(const char *path, uint64_t off, size_t len)
{
	char	*s = xcalloc(1, len + 1);
	int	 fd;

	if ((fd = open(path, O_RDONLY)) == -1 ||
	    pread(fd, s, len, (off_t)off) < 0)
		fatal("cannot read %s", path);
	close(fd);
	return s;
}

static const char *
fact(const struct rl_incident *inc, enum job_fact f, int from)
{
	return from ? inc->job.fact[f].from : inc->job.fact[f].value;
}

static void
test_job(struct ruleset *rs)
{
	struct rl_incident	*inc;
	struct buf		 b = { 0 };
	char			*console, *want;
	size_t			 i;

	console = xstrdup(tree_put("node0/torchrun.log",
	    "SLURM_JOB_NAME=pretrain-7b\n"
	    "SLURM_JOB_ID=4242\n"
	    "+ srun torchrun --nnodes=1 train.py\n"
	    "[2026-12-01 10:00:00,000] torch.distributed.run: starting\n"));
	tree_put("node0/logs/job301_pgi76c4f/attempt_0/0/stderr.log",
	    "[2026-12-01 10:00:01,000] step 1\n"
	    "[2026-12-01 10:00:02,000] step 2\n"
	    "Traceback (most recent call last):\n"
	    "  File \"/job/train.py\", line 10, in <module>\n"
	    "RuntimeError: shard 7 is missing\n"
	    "[2026-12-01 10:00:03,000] exiting\n");
	tree_put("node0/logs/job301_pgi76c4f/attempt_0/1/stderr.log",
	    "[2026-12-01 10:00:01,500] step 1\n"
	    "[2026-12-01 10:00:04,000] RuntimeError: [./gloo/transport/tcp/"
	    "pair.cc:598] Connection closed by peer [127.0.0.1]:38042\n");
	inc = tree_analyze(rs);
	is_int(inc->diagnoses, 1, "diagnose ran once for one pipeline call");

	is_str(fact(inc, JOB_NAME, 0), "pretrain-7b", "the job's name");
	xasprintf(&want, "%s:1", console);
	is_str(fact(inc, JOB_NAME, 1), want, "read at the console's line 1");
	free(want);
	is_str(fact(inc, JOB_ID, 0), "4242", "the job's id");
	xasprintf(&want, "%s:2", console);
	is_str(fact(inc, JOB_ID, 1), want, "from line 2");
	free(want);
	is_str(fact(inc, JOB_COMMAND, 0), "srun torchrun --nnodes=1 train.py",
	    "the launch command");
	is_str(fact(inc, JOB_RUN, 0), "job301", "the run, from the log folder");
	ok(fact(inc, JOB_RUN, 1) != NULL && strstr(fact(inc, JOB_RUN, 1),
	    "job301_pgi76c4f/attempt_0/") != NULL &&
	    ends_with(fact(inc, JOB_RUN, 1), " (its name)"),
	    "said to come from a path's name");
	is_str(fact(inc, JOB_WORLD, 0), "2", "no line said the world size: "
	    "the two ranks seen");
	is_str(fact(inc, JOB_WORLD, 1), "ranks seen", "and said so");
	for (i = 0; i < inc->nprocs; i++) {
		if (inc->procs[i]->host != NULL && strstr(b.p == NULL ? "" :
		    b.p, inc->procs[i]->host) == NULL)
			buf_printf(&b, "%s%s", b.len > 0 ? "," : "",
			    inc->procs[i]->host);
	}
	is_str(fact(inc, JOB_HOSTS, 0), b.p, "the hosts of the processes");
	buf_clear(&b);
	free(console);

	/* The other parts. */
	ok(inc->answer.first != RL_NONE, "a first failure was found");
	if (inc->answer.first != RL_NONE) {
		const struct rl_event	*e = inc->events[inc->answer.first];
		const char		*ctx;
		int64_t			 first = 0;

		ctx = event_context(inc, e, &first);
		ok(ctx != NULL && strstr(ctx, e->text) != NULL &&
		    strstr(ctx, "Traceback") != NULL, "the root has its "
		    "context lines, the traceback's start among them");
		ok(first >= 1 && (uint64_t)first < e->line,
		    "numbered from a line before it");
	}
	ok(inc->fingerprint != NULL && inc->sig.fingerprint != NULL &&
	    strcmp(inc->fingerprint, inc->sig.fingerprint) == 0 &&
	    inc->sig.rule != NULL && inc->sig.template != NULL,
	    "the signature is in the model, with its parts");
	{
		struct rl_signature	sig;

		fingerprint_signature(inc, &sig);
		is_str(inc->sig.template, sig.template,
		    "the model's template is the one recomputed");
		fingerprint_signature_clear(&sig);
	}
	for (i = 0; i < inc->nprocs; i++) {
		const struct rl_process	*p = inc->procs[i];
		char			*raw;

		if (p->last_source == RL_NONE)
			continue;
		raw = pread_str(inc->sources[p->last_source]->path,
		    p->last_offset, p->last_len);
		is_str(p->last_text, raw, "process %zu's last line was copied "
		    "as it was read", i);
		free(raw);
	}
	pipeline_diagnose(inc);
	is_int(inc->diagnoses, 2, "and once more for a second call");
	incident_free(inc);
	tree_remove();
}

/* What is past a log's first JOB_HEAD bytes is not the job's. */
static void
test_head(struct ruleset *rs)
{
	struct rl_incident	*inc;
	struct buf		 b = { 0 };
	char			*want;
	size_t			 n;

	tree_create();
	while (b.len < JOB_HEAD + 100)
		buf_adds(&b, "filler line with nothing of the job in it\n");
	buf_adds(&b, "SLURM_JOB_NAME=too-late\n");
	buf_adds(&b, "WORLD_SIZE=8\n");
	tree_put("slurm-77.out", b.p);
	buf_clear(&b);
	inc = tree_analyze(rs);
	is_str(fact(inc, JOB_NAME, 0), NULL, "a name past the head is not read");
	is_str(fact(inc, JOB_ID, 0), "77", "the id from the file's name");
	ok(ends_with(fact(inc, JOB_ID, 1), "/slurm-77.out (its name)"),
	    "said so");
	incident_free(inc);
	tree_remove();

	tree_create();
	tree_put("slurm-78.out", "x\r\nWORLD_SIZE=8\r\n#SBATCH -J tiny\r\n");
	inc = tree_analyze(rs);
	is_str(fact(inc, JOB_WORLD, 0), "8", "a world size a line says");
	ok(ends_with(fact(inc, JOB_WORLD, 1), "/slurm-78.out:2"),
	    "from its line");
	is_str(fact(inc, JOB_NAME, 0), "tiny", "sbatch's -J, the CR not kept");
	incident_free(inc);
	tree_remove();

	/* A matched line past the head still says what it knows. */
	tree_create();
	for (n = 1; b.len < JOB_HEAD + 100; n++)
		buf_adds(&b, "filler line with nothing of the job in it\n");
	xasprintf(&want, "/train.log:%zu", n);
	buf_adds(&b, "slurmstepd: error: *** JOB 4321 ON node07 CANCELLED AT "
	    "2025-05-12T10:31:02 DUE TO TIME LIMIT ***\n");
	tree_put("train.log", b.p);
	buf_clear(&b);
	inc = tree_analyze(rs);
	is_str(fact(inc, JOB_ID, 0), "4321", "slurmstepd's cancel past the head");
	ok(ends_with(fact(inc, JOB_ID, 1), want), "from its line, %s", want);
	free(want);
	incident_free(inc);
	tree_remove();

	/* Colour in the head: the matched line is read again without it. */
	tree_create();
	tree_put("color.log", "\x1b[31mslurmstepd: error: *** JOB\x1b[0m 55 ON n1 "
	    "CANCELLED AT 2025-05-12T10:31:02 DUE TO TIME LIMIT ***\n");
	inc = tree_analyze(rs);
	is_str(fact(inc, JOB_ID, 0), "55", "a head with escape sequences");
	incident_free(inc);
	tree_remove();
}

int
main(void)
{
	struct ruleset	*rs;

	setenv("RANKLINE_NO_USER_RULES", "1", 1);
	rs = rules_shipped();
	tree_create();
	test_job(rs);
	test_head(rs);
	ruleset_free(rs);
	return tap_done();
}
