/*
 * bench/store.c: how fast the history answers once it is large.
 *
 * Fills a fresh database, through store_save and store_note like analyze
 * and `rankline note` do, with synthetic incidents (default 100,000) of a
 * few thousand distinct failures spread over hundreds of hosts, a tenth of
 * them with a diagnosis; then times, on that database:
 *  - recall for a new incident (store_recall: exact count and matches,
 *    near matches through FTS5, offenders), for a failure seen before and
 *    for one never seen;
 *  - `history QUERY` (store_list with a query, 200 rows at most) for a
 *    word, a host, a note's ticket and a query holding LIKE's own '%'.
 * Prints the median and the 99th percentile of each in milliseconds.
 * With --rankline PATH, it also times, as processes, `rankline history
 * QUERY` on that database beside `grep -i -F -c QUERY` over the same
 * history exported to JSON (the peer an engineer without the store would
 * use), and prints the ratio.  "bench-store: ok" at the end.  `make bench-store` runs it; make check
 * runs it small, as a smoke test of the program itself.
 *
 * usage: bench/store [--incidents N] [--lookups N] [--db PATH [--no-fill]]
 *     [--rankline PATH]
 * (--no-fill times a database an earlier run filled with N incidents.)
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "engine.h"	/* the incidents made by hand */

static const char *const words[] = {
	"shape", "tensor", "allocate", "gradient", "bucket", "collective",
	"timeout", "watchdog", "dataloader", "checkpoint", "optimizer",
	"embedding", "attention", "kernel", "stream", "device", "launch",
	"memory", "fragment", "rendezvous", "barrier", "reduce", "scatter",
	"gather", "broadcast", "socket", "transport", "shard", "layer",
	"precision", "overflow", "scheduler", "sampler", "worker", "index",
};
static const char *const errors[] = {
	"RuntimeError", "ValueError", "IndexError", "KeyError", "OSError",
	"AssertionError", "TypeError", "torch.OutOfMemoryError",
};
static struct rl_rule rule = {
	.id = "python.exception", .role = ROLE_ROOT, .domain = DOMAIN_CODE
};

/* A small deterministic generator, so every run fills the same database. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The root line of failure kind k, with this run's own numbers. */
static void
root_line(char *buf, size_t len, unsigned k, uint64_t *s)
{
	/* Common words, and names as rare as a module or a key in a trace. */
	snprintf(buf, len, "[rank%u]: %s: %s %s %s in encoder.%c%c%c%c.%s "
	    "failed at step %u on /data/run%u/shard_%u.bin: %u %s %s",
	    (unsigned)(rnd(s) % 512), errors[k % 8], words[k % 35],
	    words[(k / 35) % 35], words[(k / 1225 + k) % 35],
	    'a' + (k % 997) % 26, 'a' + (k % 997) / 26 % 26, 'a' + k % 7,
	    'a' + (k % 997) / 676,
	    words[(k * 3) % 35], (unsigned)(rnd(s) % 100000),
	    (unsigned)(rnd(s) % 1000), (unsigned)(rnd(s) % 64),
	    (unsigned)(rnd(s) % 4096), words[(k * 7) % 35],
	    words[(k * 13 + 5) % 35]);
}

/* A diagnosed incident of failure kind k, on a host, from its own path. */
static struct rl_incident *
make(unsigned n, unsigned k, uint64_t *s)
{
	struct rl_incident	*inc;
	struct rl_source	*src;
	struct rl_event		*ev;
	char			 path[64], host[32], line[512];

	inc = incident_create(NULL);
	snprintf(path, sizeof path, "/bench/job%u/rank0.log", n);
	snprintf(host, sizeof host, "gpu-node-%03u", (unsigned)(rnd(s) % 400));
	src = incident_add_source(inc, path, SOURCE_FILE);
	src->host = xstrdup(host);
	src->rank = 0;
	root_line(line, sizeof line, k, s);
	ev = incident_add_event(inc);
	ev->source = 0;
	ev->process = RL_NONE;
	ev->rank = (int)(rnd(s) % 512);
	ev->rule = &rule;
	ev->role = ROLE_ROOT;
	ev->time.flags = RL_TIME_VALID;
	ev->time.ms = INT64_C(1767225600000) + (int64_t)n * 60000;
	ev->text = xstrdup(line);
	inc->answer.first = 0;
	inc->answer.first_role = ROLE_ROOT;
	inc->answer.domain = DOMAIN_CODE;
	inc->answer.group = GROUP_OTHER;
	inc->answer.scope = SCOPE_ONE;
	xasprintf(&inc->answer.summary, "rank %d failed first: %s", ev->rank,
	    errors[k % 8]);
	return inc;
}

/*
 * Free what make() made: its event's text is ours (the model frees the
 * texts ingestion kept, and this event was made by hand).
 */
static void
unmake(struct rl_incident *inc)
{
	size_t	i;

	for (i = 0; i < inc->nevents; i++) {
		free(inc->events[i]->text);
		inc->events[i]->text = NULL;
	}
	incident_free(inc);
}

/* Milliseconds of a monotonic clock. */
static double
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Order doubles. */
static int
dcmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Print the median and the 99th percentile of n timings. */
static void
report(const char *what, double *t, size_t n)
{
	qsort(t, n, sizeof *t, dcmp);
	printf("%-44s median %7.3f ms   p99 %7.3f ms   (%zu runs)\n", what,
	    t[n / 2], t[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1], n);
}

/*
 * Milliseconds a command takes, its output written to the file out (not
 * /dev/null: GNU grep sees that and stops at the first match); -1 if it
 * failed.
 */
static double
run_ms(char *const *argv, const char *out)
{
	double	t0 = now_ms();
	pid_t	pid;
	int	status, fd;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		if ((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600)) !=
		    -1) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > 1)	/* grep -c: 1 is "none found" */
		return -1;
	return now_ms() - t0;
}

/* Fail with a cause. */
static void
die(const char *what, char *cause)
{
	fprintf(stderr, "bench-store: %s: %s\n", what, cause);
	exit(1);
}

int
main(int argc, char **argv)
{
	struct store		*st;
	struct rl_incident	*inc;
	struct rl_history	 h;
	struct store_list	 l;
	static const char	*queries[] = {
		"dataloader", "gpu-node-042", "INFRA-77", "100%"
	};
	char			*cause = NULL, dir[] = "/tmp/bench-store.XXXXXX";
	char			 path[256], note[64];
	unsigned		 n = 100000, lookups = 200, kinds, i, q;
	uint64_t		 seed = 88172645463325252ULL;
	int64_t			 id;
	double			*t, t0;
	bool			 updated, fill = true;
	const char		*db = NULL, *rankline = NULL;

	for (i = 1; i < (unsigned)argc; i++) {
		if (strcmp(argv[i], "--no-fill") == 0) {
			fill = false;
			continue;
		}
		if (i + 1 == (unsigned)argc)
			break;
		if (strcmp(argv[i], "--incidents") == 0)
			n = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--lookups") == 0)
			lookups = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--db") == 0)
			db = argv[i + 1];
		else if (strcmp(argv[i], "--rankline") == 0)
			rankline = argv[i + 1];
		i++;
	}
	if (n < 10 || lookups < 1) {
		fprintf(stderr, "usage: bench/store [--incidents N>=10] "
		    "[--lookups N] [--db PATH]\n");
		return 2;
	}
	kinds = n / 20 > 5000 ? 5000 : n / 20;
	if (db == NULL) {
		if (mkdtemp(dir) == NULL)
			return 1;
		snprintf(path, sizeof path, "%s/incidents.db", dir);
		db = path;
	}
	if (store_open(db, &st, &cause) != 0)
		die(db, cause);

	t0 = now_ms();
	for (i = 0; fill && i < n; i++) {
		inc = make(i, (unsigned)(rnd(&seed) % kinds), &seed);
		/* The store saves the fingerprint the pipeline made. */
		fingerprint_incident(inc);
		if (store_save(st, inc, &id, &updated, &cause) != 0)
			die("save", cause);
		if (i % 10 == 0) {
			snprintf(note, sizeof note, "ticket INFRA-%u: bad %s",
			    i, words[i % 35]);
			if (store_note(st, id, NOTE_DIAGNOSIS, note, &cause) !=
			    0)
				die("note", cause);
		}
		unmake(inc);
	}
	if (fill)
		printf("filled %u incidents of %u failures in %.1f s\n", n,
		    kinds, (now_ms() - t0) / 1e3);
	else	/* the same generator, advanced as the fill left it */
		for (i = 0; i < n; i++)
			unmake(make(i, (unsigned)(rnd(&seed) % kinds),
			    &seed));

	t = xcalloc(lookups, sizeof *t);
	for (q = 0; q < 2; q++) {
		for (i = 0; i < lookups; i++) {
			/* Seen before: a known kind; never: a kind past them. */
			inc = make(n + i, q == 0 ? (unsigned)(rnd(&seed) %
			    kinds) : kinds + 1 + i, &seed);
			fingerprint_incident(inc);
			t0 = now_ms();
			if (store_recall(st, inc, 0, &h, &cause) != 0)
				die("recall", cause);
			t[i] = now_ms() - t0;
			if (q == 0 && h.seen_before == 0)
				die("recall", xstrdup("a known failure was "
				    "not found"));
			history_clear(&h);
			unmake(inc);
		}
		report(q == 0 ? "recall, a failure seen before" :
		    "recall, a failure never seen", t, lookups);
	}
	for (q = 0; q < sizeof queries / sizeof *queries; q++) {
		for (i = 0; i < lookups / 10 + 1; i++) {
			t0 = now_ms();
			if (store_list(st, queries[q], 200, &l, &cause) != 0)
				die("list", cause);
			t[i] = now_ms() - t0;
			store_list_clear(&l);
		}
		snprintf(note, sizeof note, "history \"%s\"", queries[q]);
		report(note, t, lookups / 10 + 1);
	}
	if (rankline != NULL) {
		char	 json[300], out[300], *rl[7], *gr[7];
		double	*u = xcalloc(lookups / 10 + 1, sizeof *u);
		unsigned nr = lookups / 10 + 1;

		snprintf(json, sizeof json, "%s.json", db);
		snprintf(out, sizeof out, "%s.out", db);
		if (store_export(st, json, &cause) != 0)
			die("export", cause);
		for (q = 0; q < sizeof queries / sizeof *queries; q++) {
			rl[0] = (char *)rankline;
			rl[1] = (char *)"--db";
			rl[2] = (char *)db;
			rl[3] = (char *)"history";
			rl[4] = (char *)queries[q];
			rl[5] = NULL;
			gr[0] = (char *)"grep";
			gr[1] = (char *)"-i";
			gr[2] = (char *)"-F";
			gr[3] = (char *)"-c";
			gr[4] = (char *)queries[q];
			gr[5] = json;
			gr[6] = NULL;
			for (i = 0; i < nr; i++) {
				if ((t[i] = run_ms(rl, out)) < 0)
					die("rankline history", xstrdup(
					    queries[q]));
				if ((u[i] = run_ms(gr, out)) < 0)
					die("grep", xstrdup(queries[q]));
			}
			qsort(t, nr, sizeof *t, dcmp);
			qsort(u, nr, sizeof *u, dcmp);
			printf("process: rankline history \"%s\" median %7.3f "
			    "ms; grep -i -F -c over the export %7.3f ms: "
			    "%.1fx grep's speed\n", queries[q], t[nr / 2],
			    u[nr / 2], u[nr / 2] / t[nr / 2]);
		}
		unlink(json);
		unlink(out);
		free(u);
	}
	free(t);
	store_close(st);
	if (db == path) {
		snprintf(note, sizeof note, "rm -rf %s", dir);
		if (system(note) != 0)
			fprintf(stderr, "bench-store: could not remove %s\n",
			    dir);
	}
	printf("bench-store: ok\n");
	return 0;
}
