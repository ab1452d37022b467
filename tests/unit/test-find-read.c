/*
 * test-find-read.c: the console's search of every line (find-read.c).
 *
 * A run's folder (a launcher's console that tees two ranks' lines, and the
 * two ranks' own logs) is analyzed as the console does, then searched
 * again line by line in small steps: every matching line is handed on,
 * events or not, with its source, line number, byte offset (find_read_line
 * reads the same text back), time and the analysis's process (so its
 * final rank); a step's budget bounds what one call reads; a source that
 * is gone is searched by its events only; a pattern the match limits stop
 * is counted, never a hit.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "find.h"
#include "fixture.h"

/* The hits a search handed on. */
struct got {
	struct find_hit	 v[64];
	size_t		 n;
};

static void
got_cb(void *arg, const struct find_hit *h)
{
	struct got	*g = arg;

	if (g->n < nitems(g->v))
		g->v[g->n++] = *h;
}

/* The index of the source whose path ends with name. */
static unsigned
source_named(const struct rl_incident *inc, const char *name)
{
	size_t	i, n, k = strlen(name);

	for (i = 0; i < inc->nsources; i++) {
		n = strlen(inc->sources[i]->path);
		if (n >= k && strcmp(inc->sources[i]->path + n - k, name) == 0)
			return (unsigned)i;
	}
	return UINT32_MAX;
}

/*
 * Search inc for pattern, steps of budget bytes; how many steps it took.
 * With out, the reading and its pattern (*fp) are the caller's to free.
 */
static int
search(struct rl_incident *inc, const char *pattern, size_t budget,
    struct got *g, struct find_read **out, struct find **fp)
{
	struct find	*f;
	struct find_read *fr;
	char		*cause = NULL;
	int		 steps = 0;

	f = find_compile(pattern, &cause);
	ok(f != NULL, "/%s compiles", pattern);
	memset(g, 0, sizeof *g);
	fr = find_read_create(inc, f, false, got_cb, g);
	while (find_read_step(fr, budget) && steps < 10000)
		steps++;
	if (out != NULL) {
		*out = fr;
		*fp = f;
		return steps;
	}
	find_read_free(fr);
	find_free(f);
	return steps;
}

static const char console[] =
    "WARNING:torch.distributed.run:\n"
    "[default0]:2026-12-01 10:00:00,100 INFO [rank0] train: initialized "
    "process group rank=0\n"
    "[default1]:2026-12-01 10:00:00,200 INFO [rank1] train: initialized "
    "process group rank=1\n"
    "[default1]:Traceback (most recent call last):\n"
    "[default1]:RuntimeError: shard 7 is missing\n";
static const char rank0[] =
    "2026-12-01 10:00:00,100 INFO [rank0] train: initialized process "
    "group rank=0\n"
    "2026-12-01 10:00:01,000 INFO [rank0] train: iteration 1\n"
    "2026-12-01 10:00:02,000 INFO [rank0] train: healthy heartbeat ok\n";
static const char rank1[] =
    "2026-12-01 10:00:00,200 INFO [rank1] train: initialized process "
    "group rank=1\n"
    "Traceback (most recent call last):\n"
    "RuntimeError: shard 7 is missing\n";

static void
test_all_lines(struct ruleset *rs)
{
	struct rl_incident	*inc;
	struct find_read	*fr;
	struct got		 g;
	struct buf		 b = { 0 };
	const struct rl_process	*p;
	struct find		*f;
	unsigned		 s0, con;
	size_t			 i, total, ranks = 0;
	uint64_t		 limited;
	const char		*log1;
	int			 steps, whole;

	tree_put("node0/torchrun.log", console);
	tree_put("node0/logs/job1_x/attempt_0/0/stdout.log", rank0);
	log1 = tree_put("node0/logs/job1_x/attempt_0/1/stderr.log", rank1);
	inc = tree_analyze(rs);
	s0 = source_named(inc, "0/stdout.log");
	con = source_named(inc, "torchrun.log");
	ok(s0 != UINT32_MAX && con != UINT32_MAX, "the sources are there");

	/* A healthy line no rule names: found, with its place. */
	whole = search(inc, "heartbeat", 1 << 20, &g, NULL, NULL);
	is_int(whole, 0, "one step reads the whole folder at a large budget");
	is_int(g.n, 1, "the heartbeat line is one hit");
	is_int(g.v[0].source, s0, "in rank 0's stdout.log");
	is_int(g.v[0].line, 3, "at its line 3");
	is_int(g.v[0].offset, strlen(rank0) - strlen("2026-12-01 10:00:02,000 "
	    "INFO [rank0] train: healthy heartbeat ok\n"), "at its byte offset");
	ok(g.v[0].time.flags & RL_TIME_VALID, "with its time");
	is_int(g.v[0].time.ms % 86400000, 10 * 3600000 + 2000,
	    "10:00:02.000, as written");
	ok(g.v[0].proc != FIND_NO_PROC && g.v[0].proc < inc->nprocs &&
	    inc->procs[g.v[0].proc]->rank == 0, "on the analysis's rank 0");
	is_int(find_read_line(inc->sources[s0], g.v[0].offset, &b), 0,
	    "its text is read again from its offset");
	is_str(b.p, "2026-12-01 10:00:02,000 INFO [rank0] train: healthy "
	    "heartbeat ok", "the very line, without its newline");

	/* Smart case, every copy, each on its rank; a step is bounded. */
	steps = search(inc, "initialized process", 64, &g, &fr, &f);
	ok(steps > 3, "64-byte steps take several calls (%d)", steps);
	is_int(g.n, 4, "four start-up lines: two ranks' and their tee'd copies");
	for (i = 0; i < g.n; i++) {
		p = g.v[i].proc != FIND_NO_PROC ? inc->procs[g.v[i].proc] :
		    NULL;
		ranks += p != NULL && (p->rank == 0 || p->rank == 1);
	}
	is_int(ranks, 4, "each on rank 0 or 1, the console's by its prefix");
	for (i = 0; i < g.n && g.v[i].source != con; i++)
		;
	ok(i < g.n && find_read_line(inc->sources[con], g.v[i].offset, &b) ==
	    0 && strncmp(b.p, "[default", 8) == 0,
	    "the console's copy reads back with its prefix");
	is_int(find_read_progress(fr, &total), inc->nsources,
	    "every source is read to its end");
	is_int(total, inc->nsources, "of all");
	is_int(find_read_lines(fr, &limited), 11, "its 11 lines were matched");
	find_read_free(fr);
	find_free(f);
	search(inc, "Initialized", 1 << 20, &g, NULL, NULL);
	is_int(g.n, 0, "a capital asks for case");

	/* Events are lines too: the caller tells them from the rest. */
	search(inc, "shard 7", 1 << 20, &g, NULL, NULL);
	is_int(g.n, 2, "the error's line and its copy");

	/* A source gone since the analysis: its events only. */
	unlink(log1);
	f = find_compile("shard", NULL);
	memset(&g, 0, sizeof g);
	fr = find_read_create(inc, f, false, got_cb, &g);
	while (find_read_step(fr, 1 << 20))
		;
	ok(find_read_events_only(fr, source_named(inc, "1/stderr.log")),
	    "a deleted log is searched by its events only");
	ok(!find_read_events_only(fr, s0), "the others are read again");
	is_int(g.n, 1, "its line is found in the console only");
	find_read_free(fr);
	find_free(f);

	/* A pattern too costly for a line: counted, no hit, no hang. */
	tree_put("node0/logs/job1_x/attempt_0/1/stderr.log", "aaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n");
	f = find_compile("(a+)+$", NULL);
	memset(&g, 0, sizeof g);
	fr = find_read_create(inc, f, false, got_cb, &g);
	while (find_read_step(fr, 1 << 20))
		;
	find_read_lines(fr, &limited);
	ok(limited >= 1, "the match limits stop it (%llu)",
	    (unsigned long long)limited);
	find_read_free(fr);
	find_free(f);

	buf_clear(&b);
	incident_free(inc);
}

int
main(void)
{
	struct ruleset	*rs;

	setenv("RANKLINE_NO_USER_RULES", "1", 1);
	rs = rules_shipped();
	tree_create();
	test_all_lines(rs);
	tree_remove();
	ruleset_free(rs);
	return tap_done();
}
