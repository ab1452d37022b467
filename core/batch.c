/*
 * batch.c: read the files named on the command line once, to their end,
 * on every core.
 *
 * A job's logs are many files, and reading one is work for one core: the
 * sources are cut into runs, large first and smaller towards the end, and
 * each core's worker takes the next run not yet taken, so that a core
 * whose runs cost more (more events per byte) does fewer of them.  Each
 * run is read into an incident of its own, with the worker's clone of the
 * ruleset (the rules are shared, the scratch of matching is not).  The
 * runs are then taken into the whole in order (incident_absorb), which
 * makes the very incident that reading the files one after another makes:
 * the same processes in the same order, the same arrival numbers.
 *
 * Before that, the prefilter learns from the first 256 KB of the files
 * which bytes of each literal are rare, so that every run scans with the
 * same anchors.  Few or small files, a line callback (`cat`), or
 * RANKLINE_JOBS=1 (--jobs 1) read on this thread alone.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "engine.h"

#define BATCH_MIN_BYTES		(16 * 1024 * 1024)	/* less is read on one core */
#define BATCH_LEARN_BYTES	(256 * 1024)	/* input the prefilter learns from */
#define BATCH_LEARN_EACH	(64 * 1024)	/* of it from one file at most */
#define BATCH_FIRST		4	/* a run takes 1/(this * workers) of
					   what is left */
#define BATCH_LAST		128	/* and 1/(this * workers) of all at
					   least */

/* A run of sources, read on one of the pool's threads. */
struct batch_run {
	struct rl_incident *part;	/* what the run read; owned until absorbed */
	size_t		 from;		/* its sources: [from, to) */
	size_t		 to;
	int		 bad;		/* a source could not be read */
};

/* What the workers share. */
struct batch {
	struct rl_incident *whole;	/* borrowed: its sources */
	struct batch_run *runs;
	size_t		 nruns;
	atomic_size_t	 next;		/* the next run not yet taken */
};

/* One core's worker, with its clone of the ruleset. */
struct batch_worker {
	uv_work_t	 req;
	struct batch	*b;
	struct ruleset	*rs;		/* owned */
};

/* How many workers: RANKLINE_JOBS, else the cores this process may use. */
static int
batch_jobs(int jobs)
{
	const char	*s = getenv("RANKLINE_JOBS");

	if (jobs <= 0 && s != NULL)
		jobs = atoi(s);
	if (jobs <= 0)
		jobs = (int)uv_available_parallelism();
	return jobs < 1 ? 1 : jobs > 256 ? 256 : jobs;
}

/* Bytes below which one thread reads; RANKLINE_BATCH_MIN for tests. */
static uint64_t
batch_min(void)
{
	const char	*s = getenv("RANKLINE_BATCH_MIN");

	return s != NULL ? strtoull(s, NULL, 10) : BATCH_MIN_BYTES;
}

/*
 * A regular file's size as its path's walk saw it (no second stat, which
 * on NFS or Lustre is a trip to the server), else by stat; or 0.  It only
 * balances the runs, so a file grown since is no matter.
 */
static uint64_t
batch_size(const struct rl_source *src)
{
	struct stat	sb;

	if (src->kind != SOURCE_FILE)
		return 0;
	if (src->walk_size != 0)
		return src->walk_size;
	if (stat(src->path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0;
	return (uint64_t)sb.st_size;
}

/*
 * Let the prefilter learn from the head of the files, a little of each,
 * skipping what is compressed or binary.
 */
static void
batch_learn(struct rl_incident *inc)
{
	struct ruleset	*rs = (struct ruleset *)inc->rules;
	char		*buf;
	ssize_t		 n;
	size_t		 i, got = 0, want;
	int		 fd;

	if (rs == NULL || !ruleset_learning(rs))
		return;
	buf = xmalloc(BATCH_LEARN_EACH);
	for (i = 0; i < inc->nsources && got < BATCH_LEARN_BYTES; i++) {
		if (batch_size(inc->sources[i]) == 0 ||
		    (fd = open(inc->sources[i]->path, O_RDONLY | O_NONBLOCK |
		    O_CLOEXEC)) == -1)
			continue;
		want = BATCH_LEARN_BYTES - got;
		if (want > BATCH_LEARN_EACH)
			want = BATCH_LEARN_EACH;
		n = pread(fd, buf, want, 0);
		/* Kept for the reading, so that a file is opened once. */
		inc->sources[i]->early_fd = fd;
		if (n < 4 || memchr(buf, '\0', (size_t)n) != NULL ||
		    ((uint8_t)buf[0] == 0x1f && (uint8_t)buf[1] == 0x8b) ||
		    ((uint8_t)buf[0] == 0x28 && (uint8_t)buf[1] == 0xb5))
			continue;
		ruleset_learn(rs, buf, (size_t)n);
		got += (size_t)n;
	}
	free(buf);
	ruleset_learnt(rs);
}

/* A worker: read the next run not yet taken, until none is left. */
static void
batch_work_cb(uv_work_t *req)
{
	struct batch_worker	*w = req->data;
	struct batch		*b = w->b;
	struct batch_run	*r;
	struct rl_source	*src;
	size_t			 i, k;

	heap_arena();
	while ((k = atomic_fetch_add(&b->next, 1)) < b->nruns) {
		r = &b->runs[k];
		r->part = incident_create(w->rs);
		r->part->width = b->whole->nsources;
		r->part->lean = b->whole->lean;
		for (i = r->from; i < r->to; i++) {
			src = b->whole->sources[i];
			if (source_file_read(r->part, src, NULL, NULL) != 0)
				r->bad = 1;
			/*
			 * Its reading state is done with: kept for every
			 * source until the end, it was 4 MB of the peak at
			 * 1,024 sources.
			 */
			ingest_free(src->ingest);
			src->ingest = NULL;
		}
	}
	/*
	 * One read buffer for all of the worker's runs (its thread's): one
	 * each would be kept until the runs are absorbed, 16 MB at 64 runs.
	 */
	source_readbuf_free();
}

static void
batch_after_cb(uv_work_t *req, int status)
{
	(void)req;
	(void)status;
}

/* Read the sources one after another, on this thread. */
static int
batch_serial(struct rl_incident *inc, ingest_line_cb cb, void *arg)
{
	size_t	i;
	int	bad = 0;

	for (i = 0; i < inc->nsources; i++) {
		if (source_file_read(inc, inc->sources[i], cb, arg) != 0)
			bad = 1;
		/* Its reading state is done with, as after a threaded read. */
		if (cb == NULL) {
			ingest_free(inc->sources[i]->ingest);
			inc->sources[i]->ingest = NULL;
		}
	}
	return bad;
}

/*
 * Read every source of the incident to its end; jobs is how many runs at
 * most (0: as many as cores).  Returns 1 when a source could not be read
 * (named in the incident's errors), else 0.
 */
int
batch_read(struct rl_incident *inc, ingest_line_cb cb, void *arg, int jobs)
{
	struct batch		 b;
	struct batch_worker	*w;
	uv_loop_t		 loop;
	uint64_t		*size, total = 0, acc = 0, want, got;
	size_t			 i, k, nruns;
	int			 bad = 0;

	batch_learn(inc);
	jobs = batch_jobs(jobs);
	size = xcalloc(inc->nsources + 1, sizeof *size);
	for (i = 0; i < inc->nsources; i++)
		total += size[i] = batch_size(inc->sources[i]);
	/* Every line is read here: the diagnosis may use the keeps' events. */
	inc->settled = true;
	incident_lean(inc);
	if (cb != NULL || jobs == 1 || inc->nsources < 2 ||
	    total < batch_min()) {
		free(size);
		return batch_serial(inc, cb, arg);
	}
	if ((size_t)jobs > inc->nsources)
		jobs = (int)inc->nsources;

	/*
	 * Runs in the sources' order, each a share of what is left, so that
	 * they shrink as the reading nears its end: the workers take them in
	 * turn, and the last ones, small, end within a little of each other
	 * (with runs of one size, one core sat idle for half of one at the
	 * end).  Fewer runs are fewer parts to absorb, too.
	 */
	memset(&b, 0, sizeof b);
	b.whole = inc;
	b.runs = xcalloc(inc->nsources, sizeof *b.runs);
	for (i = nruns = 0; i < inc->nsources; nruns++) {
		want = (total - acc) / ((uint64_t)jobs * BATCH_FIRST);
		if (want < total / ((uint64_t)jobs * BATCH_LAST))
			want = total / ((uint64_t)jobs * BATCH_LAST);
		b.runs[nruns].from = i;
		for (got = 0; i < inc->nsources && (got == 0 || got +
		    size[i] / 2 <= want); i++)
			got += size[i];
		acc += got;
		b.runs[nruns].to = i;
	}
	free(size);
	b.nruns = nruns;
	atomic_init(&b.next, 0);

	/* The pool has four threads unless told: as many as the workers. */
	if (jobs > 4 && getenv("UV_THREADPOOL_SIZE") == NULL) {
		char	n[16];

		snprintf(n, sizeof n, "%d", jobs);
		setenv("UV_THREADPOOL_SIZE", n, 0);
	}
	ingest_warmup();	/* its setting, read once here */
	tzset();		/* and the zone, before threads use mktime */
	uv_loop_init(&loop);
	w = xcalloc((size_t)jobs, sizeof *w);
	for (k = 0; k < (size_t)jobs; k++) {
		w[k].b = &b;
		w[k].rs = ruleset_clone((struct ruleset *)inc->rules);
		w[k].req.data = &w[k];
		uv_queue_work(&loop, &w[k].req, batch_work_cb, batch_after_cb);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&loop) != 0)
		fatal("handles left open on the batch loop");

	/* Every run was taken: the workers stop only when none is left. */
	for (k = 0; k < nruns; k++) {
		incident_absorb(inc, b.runs[k].part);
		bad |= b.runs[k].bad;
		incident_free(b.runs[k].part);
	}
	for (k = 0; k < (size_t)jobs; k++) {
		ruleset_absorb((struct ruleset *)inc->rules, w[k].rs);
		ruleset_free(w[k].rs);
	}
	free(w);
	free(b.runs);
	return bad;
}
