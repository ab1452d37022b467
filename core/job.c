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
 * Each fact keeps where it was read: "PATH:LINE" for a log line, "PATH
 * (its name)" for a path, "ranks seen" for what the ranks imply.  The
 * first JOB_HEAD bytes of each log are scanned as ingestion reads them
 * (job_head_feed), so that nothing opens a log again for its job.
 */
#define _GNU_SOURCE		/* memmem */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define JOB_FIELD_MAX	512	/* bytes kept of a command */

/* A key that precedes a value on a line, and where the value goes. */
struct job_key {
	const char	*key;		/* literal text before the value */
	size_t		 len;		/* its length */
	enum job_fact	 fact;
	bool		 digits;	/* the value is a number */
	unsigned	 anchor;	/* a byte of it (job_anchors) */
};

/* Bytes the keys hold, one per key: most lines have none of them. */
static const char job_anchors[] = { '=', '*', '-', '#' };

#define JOB_KEY(k, f, d, a)	{ k, sizeof k - 1, f, d, a }
static const struct job_key job_keys[] = {
	JOB_KEY("SLURM_JOB_ID=", JOB_ID, true, 0),
	JOB_KEY("SLURM_JOBID=", JOB_ID, true, 0),
	JOB_KEY("*** JOB ", JOB_ID, true, 1),
	JOB_KEY("*** STEP ", JOB_ID, true, 1),
	JOB_KEY("StepId=", JOB_ID, true, 0),
	JOB_KEY("TORCHELASTIC_RUN_ID=", JOB_RUN, false, 0),
	JOB_KEY("--rdzv_id=", JOB_RUN, false, 0),
	JOB_KEY("--rdzv-id=", JOB_RUN, false, 0),
	JOB_KEY("rdzv_id=", JOB_RUN, false, 0),
	JOB_KEY("run_id=", JOB_RUN, false, 0),
	JOB_KEY("SLURM_JOB_NAME=", JOB_NAME, false, 0),
	JOB_KEY("--job-name=", JOB_NAME, false, 0),
	JOB_KEY("--job-name ", JOB_NAME, false, 2),
	JOB_KEY("#SBATCH -J ", JOB_NAME, false, 3),
	JOB_KEY("WORLD_SIZE=", JOB_WORLD, true, 0),
	JOB_KEY("world_size=", JOB_WORLD, true, 0),
};

/* How a line that launches a job begins (after blanks). */
static const char *const job_commands[] = {
	"+ srun ", "+ torchrun ", "+ python -m torch.distributed.run ",
	"+ mpirun ", "+ deepspeed ", "+ vllm serve ", "srun ", "torchrun ",
	"python -m torch.distributed.run ", "python3 -m torch.distributed.run ",
	"vllm serve ", "non-default args: ",
};

/* Where a fact of a line was read: its path and line number. */
struct job_at {
	const char	*path;		/* or NULL: nothing to say */
	uint64_t	 line;		/* 1-based, or 0: the path itself */
};

/* Can a key that ends in '=' have c before it? */
static inline bool
job_key_end(char c)
{
	return c == 'D' || c == 'd' || c == 'E' || c == 'e';
}

/* Set a fact once, from n bytes; control bytes become spaces. */
static void
job_set(struct rl_job_fact *f, const struct job_at *at, const char *p,
    size_t n)
{
	size_t	i;

	if (f->value != NULL || n == 0)
		return;
	if (n > JOB_FIELD_MAX)
		n = JOB_FIELD_MAX;
	f->value = xstrndup(p, n);
	for (i = 0; f->value[i] != '\0'; i++) {
		if ((unsigned char)f->value[i] < 0x20)
			f->value[i] = ' ';
	}
	if (at == NULL || at->path == NULL)
		return;
	if (at->line == 0)
		xasprintf(&f->from, "%s (its name)", at->path);
	else
		xasprintf(&f->from, "%s:%llu", at->path,
		    (unsigned long long)at->line);
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
job_line(struct rl_job *job, const struct job_at *from, const char *p,
    size_t n)
{
	const struct job_key	*jk;
	const char		*at, *q, *end = p + n;
	const char		*first[nitems(job_keys)];
	size_t			 i, k, v;

	/*
	 * The first occurrence of each key whose fact is still unknown, set
	 * in the keys' order: every event line and a log's head are scanned
	 * whether the incident is stored or not, so a line is passed over
	 * once for the keys that end in '=' (most), each found where it ends;
	 * the others are searched for only in a line that has their byte.
	 */
	memset(first, 0, sizeof first);
	for (q = memchr(p, '=', n); q != NULL; q = q + 1 < end ?
	    memchr(q + 1, '=', (size_t)(end - q - 1)) : NULL) {
		/* "loss=", "lr=": no key ends so. */
		if (q == p || !job_key_end(q[-1]))
			continue;
		for (i = 0; i < nitems(job_keys); i++) {
			jk = &job_keys[i];
			if (jk->anchor != 0 || first[i] != NULL ||
			    job->fact[jk->fact].value != NULL ||
			    (size_t)(q + 1 - p) < jk->len ||
			    q[-1] != jk->key[jk->len - 2] ||
			    memcmp(q + 1 - jk->len, jk->key, jk->len) != 0)
				continue;
			first[i] = q + 1 - jk->len;
		}
	}
	for (i = 0; i < nitems(job_keys); i++) {
		jk = &job_keys[i];
		if (job->fact[jk->fact].value != NULL)
			continue;
		if (jk->anchor != 0 && memchr(p, job_anchors[jk->anchor], n) !=
		    NULL)
			first[i] = memmem(p, n, jk->key, jk->len);
		if ((at = first[i]) == NULL)
			continue;
		k = jk->len;
		v = job_value(at + k, (size_t)(end - at - k), jk->digits);
		job_set(&job->fact[jk->fact], from, at + k, v);
	}
	if (job->fact[JOB_COMMAND].value != NULL)
		return;
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
			job_set(&job->fact[JOB_COMMAND], from, p,
			    (size_t)(end - p));
			break;
		}
	}
}

/* Scan a buffer of log text, line by line; lines are not numbered. */
void
job_scan(struct rl_job *job, const char *buf, size_t len)
{
	const char	*p = buf, *nl, *end = buf + len;

	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		job_line(job, NULL, p, (size_t)(nl - p));
		p = nl + 1;
	}
}

/*
 * The first JOB_HEAD bytes of a log as ingestion reads them, in chunks of
 * any size: whole lines are scanned as they complete, the last one of the
 * head when it ends (job_head_end), so that the facts are those of a scan
 * of the head in one piece.
 */
void
job_head_feed(struct job_head *h, struct rl_job *job, const char *path,
    const char *p, size_t n)
{
	struct job_at	 at = { path, 0 };
	const char	*nl, *end;

	if (h->fed >= JOB_HEAD)
		return;
	if (n > JOB_HEAD - h->fed)
		n = (size_t)(JOB_HEAD - h->fed);
	h->fed += n;
	end = p + n;
	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			buf_add(&h->line, p, (size_t)(end - p));
			break;
		}
		at.line = ++h->lines;
		if (h->line.len > 0) {
			buf_add(&h->line, p, (size_t)(nl - p));
			job_line(job, &at, h->line.p, h->line.len);
			buf_reset(&h->line);
		} else
			job_line(job, &at, p, (size_t)(nl - p));
		p = nl + 1;
	}
	if (h->fed == JOB_HEAD)
		job_head_end(h, job, path);
}

/* The head's last line, cut where the head or the source ended. */
void
job_head_end(struct job_head *h, struct rl_job *job, const char *path)
{
	struct job_at	at = { path, h->lines + 1 };

	if (h->line.len > 0)
		job_line(job, &at, h->line.p, h->line.len);
	buf_clear(&h->line);
}

/*
 * Fill what job lacks from another's facts: each fact is the first found,
 * in the order the jobs are merged.
 */
void
job_merge(struct rl_job *job, const struct rl_job *from)
{
	int	i;

	for (i = 0; i < JOB_NFACTS; i++) {
		if (job->fact[i].value != NULL || from->fact[i].value == NULL)
			continue;
		job->fact[i].value = xstrdup(from->fact[i].value);
		if (from->fact[i].from != NULL)
			job->fact[i].from = xstrdup(from->fact[i].from);
	}
}

/*
 * What a path says: slurm-1234.out (or slurm-1234_7.out) names the job;
 * torchrun's "<run id>_<8 characters>/attempt_N" names the run.
 */
void
job_path(struct rl_job *job, const char *path)
{
	struct job_at	 from = { path, 0 };
	const char	*base, *at, *prev, *p;
	size_t		 n;

	base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	if (strncmp(base, "slurm-", 6) == 0 && (n = job_value(base + 6,
	    strlen(base + 6), true)) > 0)
		job_set(&job->fact[JOB_ID], &from, base + 6, n);
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
				job_set(&job->fact[JOB_RUN], &from, prev,
				    n - 9);
		}
		break;
	}
}

static int
job_host_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The hosts of the sources and processes, sorted, once each. */
static void
job_hosts(const struct rl_incident *inc, struct rl_job *job)
{
	const char	**v;
	struct buf	  b = { 0 };
	size_t		  n = 0, i;

	v = xcalloc(inc->nsources + inc->nprocs + 1, sizeof *v);
	for (i = 0; i < inc->nsources; i++) {
		if (inc->sources[i]->host != NULL)
			v[n++] = inc->sources[i]->host;
	}
	for (i = 0; i < inc->nprocs; i++) {
		if (inc->procs[i]->host != NULL)
			v[n++] = inc->procs[i]->host;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, job_host_cmp);
	for (i = 0; i < n; i++) {
		if (i > 0 && strcmp(v[i], v[i - 1]) == 0)
			continue;
		if (b.len > 0)
			buf_addc(&b, ',');
		buf_adds(&b, v[i]);
	}
	free(v);
	if (b.len > 0) {
		job->fact[JOB_HOSTS].value = buf_steal(&b);
		job->fact[JOB_HOSTS].from = xstrdup("ranks seen");
	}
	buf_clear(&b);
}

/* The world size the ranks imply: the distinct global ranks seen. */
static void
job_world(const struct rl_incident *inc, struct rl_job *job)
{
	struct idhash	seen = { 0 };
	size_t		i;

	if (job->fact[JOB_WORLD].value != NULL)
		return;
	for (i = 0; i < inc->nprocs; i++) {
		if (inc->procs[i]->rank != RL_NONE)
			idhash_add(&seen, (uint64_t)inc->procs[i]->rank);
	}
	if (seen.n > 0) {
		xasprintf(&job->fact[JOB_WORLD].value, "%zu", seen.n);
		job->fact[JOB_WORLD].from = xstrdup("ranks seen");
	}
	idhash_clear(&seen);
}

/*
 * The job of an incident: its paths, its matched lines, then the head of
 * each log in order (what ingestion scanned), the first found of each
 * fact winning, as the store found them by reading the logs again; then
 * the hosts and, when no line said it, the world size the ranks imply.
 */
void
job_identity(const struct rl_incident *inc, struct rl_job *job)
{
	const struct rl_event	*e;
	const struct rl_source	*src;
	struct rl_job		 part;
	struct job_at		 at;
	size_t			 i;

	for (i = 0; i < inc->nsources; i++)
		job_path(job, inc->sources[i]->path);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->text == NULL)
			continue;
		at.path = e->source < inc->nsources ?
		    inc->sources[e->source]->path : NULL;
		at.line = e->line;
		job_line(job, &at, e->text, strlen(e->text));
	}
	for (i = 0; i < inc->nsources; i++) {
		src = inc->sources[i];
		if (src->head.line.len == 0) {
			job_merge(job, &src->job);
			continue;
		}
		/* A followed log's head is still open: its last line too. */
		memset(&part, 0, sizeof part);
		job_merge(&part, &src->job);
		at.path = src->path;
		at.line = src->head.lines + 1;
		job_line(&part, &at, src->head.line.p, src->head.line.len);
		job_merge(job, &part);
		job_free(&part);
	}
	job_hosts(inc, job);
	job_world(inc, job);
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
