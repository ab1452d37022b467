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
#define _GNU_SOURCE		/* memmem, memrchr */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define JOB_HAVE_AVX2
#endif

#include "engine.h"

#define JOB_FIELD_MAX	512	/* bytes kept of a command */

/* A key that precedes a value on a line, and where the value goes. */
struct job_key {
	const char	*key;		/* literal text before the value */
	size_t		 len;		/* its length */
	enum job_fact	 fact;
	bool		 digits;	/* the value is a number */
	unsigned	 anchor;	/* 0: found by its '='; else 1 + the
					   index of its rarest byte, looked for
					   with memchr */
};

#define JOB_KEY(k, f, d, a)	{ k, sizeof k - 1, f, d, a }
static const struct job_key job_keys[] = {
	JOB_KEY("SLURM_JOB_ID=", JOB_ID, true, 0),
	JOB_KEY("SLURM_JOBID=", JOB_ID, true, 0),
	JOB_KEY("*** JOB ", JOB_ID, true, 5),
	JOB_KEY("*** STEP ", JOB_ID, true, 1),
	JOB_KEY("StepId=", JOB_ID, true, 0),
	JOB_KEY("TORCHELASTIC_RUN_ID=", JOB_RUN, false, 0),
	JOB_KEY("--rdzv_id=", JOB_RUN, false, 0),
	JOB_KEY("--rdzv-id=", JOB_RUN, false, 0),
	JOB_KEY("rdzv_id=", JOB_RUN, false, 0),
	JOB_KEY("run_id=", JOB_RUN, false, 0),
	JOB_KEY("SLURM_JOB_NAME=", JOB_NAME, false, 0),
	JOB_KEY("--job-name=", JOB_NAME, false, 0),
	JOB_KEY("--job-name ", JOB_NAME, false, 3),
	JOB_KEY("#SBATCH -J ", JOB_NAME, false, 1),
	JOB_KEY("WORLD_SIZE=", JOB_WORLD, true, 0),
	JOB_KEY("world_size=", JOB_WORLD, true, 0),
};

/*
 * How a line that launches a job begins (after blanks), with its length:
 * every event line is tried against each, and a strlen per try was a
 * fifth of the job's cost at 57,000 events.
 */
struct job_command {
	const char	*s;
	size_t		 len;
};
#define JOB_COMMAND(s)	{ s, sizeof s - 1 }
static const struct job_command job_commands[] = {
	JOB_COMMAND("+ srun "), JOB_COMMAND("+ torchrun "),
	JOB_COMMAND("+ python -m torch.distributed.run "),
	JOB_COMMAND("+ mpirun "), JOB_COMMAND("+ deepspeed "),
	JOB_COMMAND("+ vllm serve "), JOB_COMMAND("srun "),
	JOB_COMMAND("torchrun "), JOB_COMMAND("python -m torch.distributed.run "),
	JOB_COMMAND("python3 -m torch.distributed.run "),
	JOB_COMMAND("vllm serve "), JOB_COMMAND("non-default args: "),
};

/* Where a fact of a line was read: its path and line number. */
struct job_at {
	const char	*path;		/* or NULL: nothing to say */
	uint64_t	 line;		/* 1-based, or 0: the path itself */
};

/* Can a key that ends in '=' end with c1 c2 before it? */
static inline bool
job_key_end(char c1, char c2)
{
	switch (c1) {
	case 'I': case 'i':
		return c2 == 'D' || c2 == 'd';
	case 'M': case 'm': case 'Z': case 'z':
		return c2 == 'E' || c2 == 'e';
	default:
		return false;
	}
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

/*
 * The first occurrence of a key that is not found by its '=', or NULL:
 * each of its rarest byte (at r) is tried, where memmem cost ten times
 * more, and a '-' of every date would have been tried for "--job-name".
 */
static const char *
job_find(const char *p, size_t n, const struct job_key *jk)
{
	const char	*q, *end = p + n;
	size_t		 r = jk->anchor - 1;

	if (n < jk->len)
		return NULL;
	for (q = memchr(p + r, jk->key[r], n - r); q != NULL &&
	    (size_t)(end - q) >= jk->len - r; q = memchr(q + 1, jk->key[r],
	    (size_t)(end - q - 1))) {
		if (memcmp(q - r, jk->key, jk->len) == 0)
			return q - r;
	}
	return NULL;
}

/*
 * Where in [p, end) job_line may find something next, or end: an '=' after
 * two bytes a key can end with, the text of a key found by its text, or
 * (while the command is unknown) a line that begins with a command's first
 * byte.  A head is 64 KB of every log, 10,000 logs at once, and nearly all
 * of it holds no fact: looking for these over the whole chunk, rather than
 * through job_line's keys line by line, cut the head's cost sevenfold.
 */
struct job_seek {
	const char	*at[4];		/* next '=' key, "*** ", "#SBATCH -J ",
					   "--job-name ", each or end */
};

/* Does a key found by its '=' end at q (its '='), not before start? */
static bool
job_key_before(const char *start, const char *q)
{
	const struct job_key	*jk;
	size_t			 i;

	if (q - start < 2 || !job_key_end(q[-2], q[-1]))
		return false;
	/* "size=", "name=", "pid=" are common: the last four bytes first. */
	for (i = 0; i < nitems(job_keys); i++) {
		jk = &job_keys[i];
		if (!jk->anchor && (size_t)(q + 1 - start) >= jk->len &&
		    memcmp(q - 3, jk->key + jk->len - 4, 4) == 0 &&
		    memcmp(q + 1 - jk->len, jk->key, jk->len) == 0)
			return true;
	}
	return false;
}

/*
 * The next candidate of kind k in [p, end), or end.  The keys found by
 * their text are looked for by a rare byte of theirs (memmem cost twice
 * the rest of the head); one that may begin before p is a candidate.
 */
static const char *
job_seek_one(int k, const char *p, const char *end)
{
	static const struct {
		const char	*s;
		size_t		 len, at;	/* the byte looked for */
	} lit[] = {
		{ NULL, 0, 0 }, { "*** ", 4, 0 }, { "#SBATCH -J ", 11, 0 },
		{ "--job-name ", 11, 2 },
	};
	const char	*q, *from = p;
	size_t		 r;

	if (k == 0) {
		for (; p < end && (q = memchr(p, '=', (size_t)(end - p))) !=
		    NULL; p = q + 1) {
			if (job_key_before(from, q))
				return q;
		}
		return end;
	}
	r = lit[k].at;
	for (; p < end && (q = memchr(p, lit[k].s[r], (size_t)(end - p))) !=
	    NULL; p = q + 1) {
		if ((size_t)(q - from) < r)
			return q;
		if ((size_t)(end - q) >= lit[k].len - r &&
		    memcmp(q - r, lit[k].s, lit[k].len) == 0)
			return q;
	}
	return end;
}

/* Is there a candidate in the line [p, nl)?  Moves past those before nl. */
static bool
job_seek_line(struct job_seek *s, const char *p, const char *nl,
    const char *end)
{
	bool	hit = false;
	int	k;

	for (k = 0; k < 4; k++) {
		if (s->at[k] < p)
			s->at[k] = job_seek_one(k, p, end);
		if (s->at[k] < nl) {
			hit = true;
			s->at[k] = job_seek_one(k, nl, end);
		}
	}
	return hit;
}

/* Can a line that begins with c begin with a command? */
static inline bool
job_command_byte(char c)
{
	switch (c) {
	case ' ': case '\t': case '+': case 's': case 'p': case 't':
	case 'v': case 'n':
		return true;
	default:
		return false;
	}
}

/* Does the line [p, nl) begin with a command (after blanks)? */
static bool
job_command_start(const char *p, const char *nl)
{
	size_t	i, k;

	while (p < nl && (*p == ' ' || *p == '\t'))
		p++;
	/* The commands' first bytes: most lines begin with none. */
	if (p == nl || memchr("+sptvn", *p, 6) == NULL)
		return false;
	for (i = 0; i < nitems(job_commands); i++) {
		k = job_commands[i].len;
		if ((size_t)(nl - p) > k && p[0] == job_commands[i].s[0] &&
		    memcmp(p, job_commands[i].s, k) == 0)
			return true;
	}
	return false;
}

#ifdef JOB_HAVE_AVX2

static void	job_line(struct rl_job *, const struct job_at *, const char *,
		    size_t);

/*
 * Is the byte at q ('=', '*', '#' or 'j'), in a line that begins at ls,
 * part of a key?  The line ends anywhere before end: no key holds a
 * newline.
 */
static bool
job_stop_key(const char *ls, const char *q, const char *end)
{
	switch (*q) {
	case '=':
		return job_key_before(ls, q);
	case '*':
		return end - q >= 4 && memcmp(q, "*** ", 4) == 0;
	case '#':
		return end - q >= 11 && memcmp(q, "#SBATCH -J ", 11) == 0;
	case 'j':
		return q - ls >= 2 && end - q >= 9 &&
		    memcmp(q - 2, "--job-name ", 11) == 0;
	default:
		return false;
	}
}

/*
 * The stop bytes of [p, p + 32 * n) as a mask for each 32 bytes: a newline
 * and the bytes keys are found by ('=', "*** ", "#SBATCH -J ",
 * "--job-name ").  Apart from the lines' work, whose calls would have the
 * compiler make the constants again for every 32 bytes.
 */
__attribute__((target("avx2")))
static void
job_stops_avx2(const char *p, size_t n, uint32_t *mask)
{
	const __m256i	nl = _mm256_set1_epi8('\n'), eq = _mm256_set1_epi8('=');
	const __m256i	st = _mm256_set1_epi8('*'), hs = _mm256_set1_epi8('#');
	const __m256i	jj = _mm256_set1_epi8('j');
	__m256i		v, m;
	size_t		i;

	for (i = 0; i < n; i++, p += 32) {
		v = _mm256_loadu_si256((const __m256i *)(const void *)p);
		m = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, nl),
		    _mm256_cmpeq_epi8(v, eq)), _mm256_or_si256(_mm256_or_si256(
		    _mm256_cmpeq_epi8(v, st), _mm256_cmpeq_epi8(v, hs)),
		    _mm256_cmpeq_epi8(v, jj)));
		mask[i] = (uint32_t)_mm256_movemask_epi8(m);
	}
}

/*
 * The whole lines of a head in [p, end) (end just after a newline), as
 * job_head_feed's lines and seeks take them, in one pass over the stop
 * bytes: only the lines that hold a key or may begin with a command go to
 * job_line.  The head's 64 KB make at most JOB_HEAD / 32 masks.
 */
static void
job_head_avx2(struct job_head *h, struct rl_job *job, struct job_at *at,
    const char *p, const char *end)
{
	uint32_t	 mask[JOB_HEAD / 32 + 1], bits;
	const char	*ls = p, *q, *blk;
	size_t		 n = (size_t)(end - p) / 32, i;
	bool		 hit = false;

	job_stops_avx2(p, n, mask);
	mask[n] = 0;
	for (q = p + 32 * n; q < end; q++) {
		if (*q == '\n' || *q == '=' || *q == '*' || *q == '#' ||
		    *q == 'j')
			mask[n] |= 1u << (q - (p + 32 * n));
	}
	for (i = 0, blk = p; i <= n; i++, blk += 32) {
		for (bits = mask[i]; bits != 0; bits &= bits - 1) {
			q = blk + __builtin_ctz(bits);
			if (*q != '\n') {
				hit = hit || job_stop_key(ls, q, end);
				continue;
			}
			at->line = ++h->lines;
			if (hit || (job->fact[JOB_COMMAND].value == NULL &&
			    job_command_byte(*ls) && job_command_start(ls, q)))
				job_line(job, at, ls, (size_t)(q - ls));
			hit = false;
			ls = q + 1;
		}
	}
}
#endif

/* Look for the keys and commands in one line of n bytes. */
static void
job_line(struct rl_job *job, const struct job_at *from, const char *p,
    size_t n)
{
	const struct job_key	*jk;
	const char		*at, *q, *end = p + n;
	const char		*first[nitems(job_keys)];
	size_t			 i, k, v, found = 0;

	/*
	 * The first occurrence of each key whose fact is still unknown, set
	 * in the keys' order: every event line and a log's head are scanned
	 * whether the incident is stored or not, so a line is passed over
	 * once for the keys that end in '=' (most), each found where it ends;
	 * the others are searched for only in a line that has their byte.
	 */
	/* Most lines hold nothing: the cheap look first. */
	for (i = 0; i < 4 && job_seek_one((int)i, p, end) == end; i++)
		;
	if (i == 4 && (job->fact[JOB_COMMAND].value != NULL ||
	    !job_command_start(p, end)))
		return;
	memset(first, 0, sizeof first);
	/* Every fact a key with '=' gives is known: no '=' to look at. */
	for (i = 0; i < nitems(job_keys) && (job_keys[i].anchor ||
	    job->fact[job_keys[i].fact].value != NULL); i++)
		;
	for (q = i < nitems(job_keys) ? memchr(p, '=', n) : NULL; q != NULL; q = q + 1 < end ?
	    memchr(q + 1, '=', (size_t)(end - q - 1)) : NULL) {
		/* "loss=", "lr=": no key ends so. */
		if (q - p < 2 || !job_key_end(q[-2], q[-1]))
			continue;
		for (i = 0; i < nitems(job_keys); i++) {
			jk = &job_keys[i];
			if (jk->anchor || first[i] != NULL ||
			    job->fact[jk->fact].value != NULL ||
			    (size_t)(q + 1 - p) < jk->len ||
			    q[-1] != jk->key[jk->len - 2] ||
			    memcmp(q + 1 - jk->len, jk->key, jk->len) != 0)
				continue;
			first[i] = q + 1 - jk->len;
			found++;
		}
	}
	for (i = 0; i < nitems(job_keys); i++) {
		jk = &job_keys[i];
		if (jk->anchor && job->fact[jk->fact].value == NULL &&
		    (first[i] = job_find(p, n, jk)) != NULL)
			found++;
	}
	/*
	 * Most lines hold no key: the head of each of 10,000 logs is
	 * scanned, and going over the keys again for each line was a third
	 * of the job's cost.  The first key found of a fact, in the keys'
	 * order, sets it.
	 */
	for (i = 0; found > 0 && i < nitems(job_keys); i++) {
		jk = &job_keys[i];
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
	/* The commands' first bytes: most lines begin with none. */
	if (p == end || memchr("+sptvn", *p, 6) == NULL)
		return;
	for (i = 0; i < nitems(job_commands); i++) {
		k = job_commands[i].len;
		if ((size_t)(end - p) > k && p[0] == job_commands[i].s[0] &&
		    memcmp(p, job_commands[i].s, k) == 0) {
			/* vLLM's args line is the command's meaning. */
			if (p[0] == 'n')
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
 * of the head in one piece.  Only the lines that can hold a fact are given
 * to job_line.
 */
void
job_head_feed(struct job_head *h, struct rl_job *job, const char *path,
    const char *p, size_t n)
{
	struct job_at	 at = { path, 0 };
	struct job_seek	 s;
	const char	*nl, *end, *last;
	int		 k;

	if (h->fed >= JOB_HEAD)
		return;
	if (n > JOB_HEAD - h->fed)
		n = (size_t)(JOB_HEAD - h->fed);
	h->fed += n;
	end = p + n;
	/* A line begun in the chunk before ends here: it is scanned whole. */
	if (h->line.len > 0 && (nl = memchr(p, '\n', n)) != NULL) {
		buf_add(&h->line, p, (size_t)(nl - p));
		at.line = ++h->lines;
		job_line(job, &at, h->line.p, h->line.len);
		buf_reset(&h->line);
		p = nl + 1;
	}
	last = memrchr(p, '\n', (size_t)(end - p));
#ifdef JOB_HAVE_AVX2
	if (last != NULL && __builtin_cpu_supports("avx2") &&
	    getenv("RANKLINE_NO_SIMD") == NULL) {
		job_head_avx2(h, job, &at, p, last + 1);
		p = last + 1;
		last = NULL;
	}
#endif
	if (last != NULL) {
		for (k = 0; k < 4; k++)
			s.at[k] = p - 1;
		for (; p <= last; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(last + 1 - p));
			at.line = ++h->lines;
			if (job_seek_line(&s, p, nl, last) ||
			    (job->fact[JOB_COMMAND].value == NULL &&
			    job_command_start(p, nl)))
				job_line(job, &at, p, (size_t)(nl - p));
		}
	}
	if (p < end && h->fed == JOB_HEAD && h->line.len == 0) {
		/* The head ends inside this line: read where it stands. */
		at.line = h->lines + 1;
		job_line(job, &at, p, (size_t)(end - p));
	} else if (p < end)
		buf_add(&h->line, p, (size_t)(end - p));
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
 * Is an event's line one job_identity reads?  A line of a head was
 * scanned as it was read (62,000 events at 1,000 ranks, all in their
 * heads, were a third of the job's cost).  Past the head, the job is
 * named by how it ended (Slurm's "*** JOB 1234 ON node07 CANCELLED",
 * "StepId=1234.0" in an OOM kill), never by progress or evidence: 25 M
 * instructions on a 512-rank console, all of them lines of steps and INFO.
 */
static bool
job_reads(const struct rl_incident *inc, const struct rl_event *e)
{
	const struct rl_source	*src;

	if (e->source >= inc->nsources)
		return false;
	src = inc->sources[e->source];
	return (e->line > src->head.lines || src->head.reread) &&
	    event_failing_role(e->role);
}

/* Is it one of those, its text let go? */
static bool
job_text_away(const struct rl_incident *inc, const struct rl_event *e)
{
	return e->text == NULL && (e->tform & EVENT_TEXT_AWAY) &&
	    job_reads(inc, e);
}

/*
 * The job of an incident: its paths, its failures' lines past the heads
 * (a slurmstepd "*** JOB 1234 ... CANCELLED" comes last), then the head of
 * each log in order (what ingestion scanned), the first found of each
 * fact winning; then the hosts and, when no line said it, the world size
 * the ranks imply.
 */
void
job_identity(const struct rl_incident *inc, struct rl_job *job)
{
	const struct rl_event	*e;
	const struct rl_source	*src;
	const char		*text;
	struct rl_job		 part;
	struct job_at		 at;
	size_t			 i, n;
	size_t			*idx;

	for (i = 0; i < inc->nsources; i++)
		job_path(job, inc->sources[i]->path);
	/*
	 * The texts a lean reading let go are read back in bulk first: one
	 * at a time, the 7,000 failures of a 512-rank console were as many
	 * opens and reads (a fifth of its analysis).
	 */
	for (i = n = 0; i < inc->nevents; i++)
		n += job_text_away(inc, inc->events[i]);
	idx = xcalloc(n + 1, sizeof *idx);
	for (i = n = 0; i < inc->nevents; i++) {
		if (job_text_away(inc, inc->events[i]))
			idx[n++] = i;
	}
	event_texts_hold(inc, idx, n);
	free(idx);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (!job_reads(inc, e) || (text = event_text(inc, e)) == NULL)
			continue;
		src = inc->sources[e->source];
		at.path = src->path;
		at.line = e->line;
		job_line(job, &at, text, strlen(text));
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
		job_clear(&part);
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
job_clear(struct rl_job *job)
{
	int	i;

	for (i = 0; i < JOB_NFACTS; i++) {
		free(job->fact[i].value);
		free(job->fact[i].from);
	}
	memset(job, 0, sizeof *job);
}
