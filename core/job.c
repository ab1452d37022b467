/*
 * job.c: which job an incident belongs to, from what the logs say of it.
 *
 * The history is searched by failure, but the engineer also asks "is this
 * the job that died on Tuesday?".  Three things name a job and each comes
 * from somewhere else: the scheduler's id (SLURM_JOB_ID in an environment
 * dump, "*** JOB 1234 ON", "StepId=1234.0", a slurm-1234.out file), the
 * launcher's run id (TORCHELASTIC_RUN_ID, rdzv_id, or torchrun's --log-dir
 * folder "<run id>_<8 random characters>/attempt_N"), and the command that
 * launched it (a shell trace "+ srun ...", a torchrun line, vLLM's
 * "non-default args").  The first of each found is kept.
 *
 * Pure text work: the store hands in paths, event lines and the first
 * bytes of each log it can read again.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define JOB_FIELD_MAX	512	/* bytes kept of a command */

/* A key that precedes a value on a line, and where the value goes. */
struct job_key {
	const char	*key;		/* literal text before the value */
	int		 field;		/* 0 scheduler, 1 run id */
	bool		 digits;	/* the value is a number */
};

static const struct job_key job_keys[] = {
	{ "SLURM_JOB_ID=", 0, true },
	{ "SLURM_JOBID=", 0, true },
	{ "*** JOB ", 0, true },
	{ "*** STEP ", 0, true },
	{ "StepId=", 0, true },
	{ "TORCHELASTIC_RUN_ID=", 1, false },
	{ "--rdzv_id=", 1, false },
	{ "--rdzv-id=", 1, false },
	{ "rdzv_id=", 1, false },
	{ "run_id=", 1, false },
};

/* How a line that launches a job begins (after blanks). */
static const char *const job_commands[] = {
	"+ srun ", "+ torchrun ", "+ python -m torch.distributed.run ",
	"+ mpirun ", "+ deepspeed ", "+ vllm serve ", "srun ", "torchrun ",
	"python -m torch.distributed.run ", "python3 -m torch.distributed.run ",
	"vllm serve ", "non-default args: ",
};

/* Set a field once, from n bytes; control bytes become spaces. */
static void
job_set(char **field, const char *p, size_t n)
{
	size_t	i;

	if (*field != NULL || n == 0)
		return;
	if (n > JOB_FIELD_MAX)
		n = JOB_FIELD_MAX;
	*field = xstrndup(p, n);
	for (i = 0; i < n; i++) {
		if ((unsigned char)(*field)[i] < 0x20)
			(*field)[i] = ' ';
	}
}

/* The value after a key: digits, or a word without quotes or commas. */
static size_t
job_value(const char *p, size_t len, bool digits)
{
	size_t	n = 0;

	if (digits) {
		while (n < len && isdigit((unsigned char)p[n]))
			n++;
		return n;
	}
	if (n < len && (p[n] == '\'' || p[n] == '"'))
		return 0;
	while (n < len && !isspace((unsigned char)p[n]) && p[n] != ',' &&
	    p[n] != '\'' && p[n] != '"' && p[n] != ')')
		n++;
	return n;
}

/* Look for the keys and commands in one line of n bytes. */
static void
job_line(struct rl_job *job, const char *p, size_t n)
{
	const char	*at, *end = p + n;
	size_t		 i, k, v;

	for (i = 0; i < sizeof job_keys / sizeof *job_keys; i++) {
		k = strlen(job_keys[i].key);
		for (at = p; at + k <= end; at++) {
			if (memcmp(at, job_keys[i].key, k) != 0)
				continue;
			v = job_value(at + k, (size_t)(end - at - k),
			    job_keys[i].digits);
			job_set(&job->fact[job_keys[i].field == 0 ? JOB_ID :
			    JOB_RUN].value, at + k, v);
			break;
		}
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (i = 0; i < sizeof job_commands / sizeof *job_commands; i++) {
		k = strlen(job_commands[i]);
		if ((size_t)(end - p) > k && memcmp(p, job_commands[i], k) == 0) {
			/* vLLM's args line is the command's meaning. */
			if (strcmp(job_commands[i], "non-default args: ") == 0)
				p += k;
			else if (p[0] == '+')
				p += 2;
			job_set(&job->fact[JOB_COMMAND].value, p, (size_t)(end - p));
			break;
		}
	}
}

/* Scan a buffer of log text, line by line. */
void
job_scan(struct rl_job *job, const char *buf, size_t len)
{
	const char	*p = buf, *nl, *end = buf + len;

	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		job_line(job, p, (size_t)(nl - p));
		p = nl + 1;
	}
}

/*
 * What a path says: slurm-1234.out (or slurm-1234_7.out) names the job;
 * torchrun's "<run id>_<8 characters>/attempt_N" names the run.
 */
void
job_path(struct rl_job *job, const char *path)
{
	const char	*base, *at, *prev, *p;
	size_t		 n;

	base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	if (strncmp(base, "slurm-", 6) == 0 && (n = job_value(base + 6,
	    strlen(base + 6), true)) > 0)
		job_set(&job->fact[JOB_ID].value, base + 6, n);
	for (at = path; (at = strstr(at, "/attempt_")) != NULL; at++) {
		for (prev = at; prev > path && prev[-1] != '/'; prev--)
			;
		/* The folder before attempt_N: run id, '_', 8 characters. */
		n = (size_t)(at - prev);
		if (n > 9 && prev[n - 9] == '_') {
			for (p = prev + n - 8; p < at && (isalnum((unsigned
			    char)*p) || *p == '_'); p++)
				;
			if (p == at)
				job_set(&job->fact[JOB_RUN].value, prev, n - 9);
		}
		break;
	}
}

/* The job of an incident from its paths and its matched lines. */
void
job_identity(const struct rl_incident *inc, struct rl_job *job)
{
	size_t	i;

	for (i = 0; i < inc->nsources; i++)
		job_path(job, inc->sources[i]->path);
	for (i = 0; i < inc->nevents; i++) {
		if (inc->events[i]->text != NULL)
			job_line(job, inc->events[i]->text,
			    strlen(inc->events[i]->text));
	}
}

static const char *const job_fact_names[JOB_NFACTS] = {
	"name", "id", "run", "command", "hosts", "world_size"
};

/* A fact's name in JSON and the console. */
const char *
job_fact_name(enum job_fact f)
{
	return (unsigned)f < JOB_NFACTS ? job_fact_names[f] : "?";
}

/* Free a job's fields. */
void
job_free(struct rl_job *job)
{
	int	i;

	for (i = 0; i < JOB_NFACTS; i++) {
		free(job->fact[i].value);
		free(job->fact[i].from);
	}
	memset(job, 0, sizeof *job);
}
