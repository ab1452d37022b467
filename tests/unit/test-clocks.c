/*
 * test-clocks.c: a host in local time beside a host in UTC
 * (diag-clocks.c).  The clustering of the matched lines' differences
 * alone, then two real-format rank logs through the whole pipeline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "fixture.h"

#define H	(3600 * 1000LL)

/* The zone n differences agree on, and how many agree. */
static int64_t
cluster(const int64_t *d, size_t n, size_t *agree)
{
	int64_t	v[16];

	memcpy(v, d, n * sizeof *v);
	return clocks_cluster(v, n, agree);
}

static void
test_cluster(void)
{
	const int64_t	 eight[] = { 8 * H + 12, 8 * H - 300, 8 * H + 900 };
	const int64_t	 two[] = { 8 * H, 8 * H + 5 };
	const int64_t	 skew[] = { 3600, 3700, 3500, 3650 };
	const int64_t	 far[] = { 8 * H + 120000, 8 * H + 121000,
	    8 * H + 119000 };
	const int64_t	 noise[] = { 8 * H, 8 * H + 40, 8 * H - 40, 1 * H };
	const int64_t	 split[] = { 8 * H, 8 * H, 1 * H, 1 * H };
	const int64_t	 west[] = { -7 * H, -7 * H + 10, -7 * H - 10 };
	const int64_t	 half[] = { 5 * H + H / 2, 5 * H + H / 2 + 4000,
	    5 * H + H / 2 + 3990 };
	const int64_t	 beyond[] = { 15 * H, 15 * H, 15 * H };
	size_t		 k;

	is_int(cluster(eight, 3, &k) / 60000, 480, "three lines 8 h on: +08:00");
	is_int((int)k, 3, "all three agree");
	is_int(cluster(two, 2, &k), 0, "two lines are too few, however alike");
	is_int(cluster(skew, 4, &k), 0, "3.6 s is a skew: no zone");
	is_int(cluster(far, 3, &k), 0, "8 h 2 min is no quarter hour");
	is_int(cluster(noise, 4, &k) / 60000, 480,
	    "one line of four elsewhere (a rule's first, late) is outvoted");
	is_int(cluster(split, 4, &k), 0, "two against two: no zone");
	is_int(cluster(west, 3, &k) / 60000, -420, "west of UTC: -07:00");
	is_int(cluster(half, 3, &k) / 60000, 330, "a half-hour zone, with skew");
	is_int(cluster(beyond, 3, &k), 0, "15 h is no zone of this world");
}

/* Write a rank log to a temporary file; its path is returned, owned. */
static char *
write_log(const char *text)
{
	char	*path = xstrdup("/tmp/rl-test-zone-XXXXXX");
	int	 fd;

	if ((fd = mkstemp(path)) == -1 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fatal("cannot write %s", path);
	close(fd);
	return path;
}

/* A rank's log: steps from 1 to n, then (rank 1) an error. */
static char *
rank_log(int rank, int n, int hours, bool zoned)
{
	struct buf	 b = { 0 };
	int		 i;

	for (i = 1; i <= n; i++)
		buf_printf(&b, "2026-12-02%c%02d:49:%02d%c%03d%s INFO     [rank%d] "
		    "train: iteration %6d/    30 | lm loss: 1.0E+00\n",
		    zoned ? 'T' : ' ', 13 + hours, 10 + i, zoned ? '.' : ',',
		    100 + rank, zoned ? "Z" : "", rank, i);
	if (rank == 1)
		buf_printf(&b, "2026-12-02 %02d:49:%02d,500 ERROR    [rank1] "
		    "RuntimeError: CUDA error: an illegal memory access was "
		    "encountered\n", 13 + hours, 11 + n);
	return buf_steal(&b);
}

/* Analyze rank 0's log in UTC and rank 1's in local time, hours ahead. */
static struct rl_incident *
run_skewed(struct ruleset *rs, int steps, int hours)
{
	struct rl_incident	*inc = incident_create(rs);
	char			*text[2], *path[2];
	size_t			 i;

	text[0] = rank_log(0, steps, 0, true);
	text[1] = rank_log(1, steps, hours, false);
	for (i = 0; i < 2; i++) {
		path[i] = write_log(text[i]);
		source_add_path(inc, path[i]);
		source_file_read(inc, inc->sources[i], NULL, NULL);
	}
	pipeline_diagnose(inc);
	for (i = 0; i < 2; i++) {
		unlink(path[i]);
		free(path[i]);
		free(text[i]);
	}
	return inc;
}

static void
test_pipeline(struct ruleset *rs)
{
	struct rl_incident	*inc = run_skewed(rs, 6, 8);
	const struct rl_answer	*a = &inc->answer;

	is_int((int)a->nzones, 1, "the local log gets a zone");
	ok(a->nzones == 1 && a->zones[0].source == 1 &&
	    a->zones[0].tz_min == 480 && a->zones[0].matched >= 3,
	    "UTC+08:00, from 3 or more matched lines");
	ok(clock_utc_ms(&inc->end) - clock_utc_ms(&inc->start) < 60000,
	    "the window spans seconds, not hours");
	incident_free(inc);

	inc = run_skewed(rs, 2, 8);
	is_int((int)inc->answer.nzones, 0, "two steps alike are too few");
	incident_free(inc);

	inc = run_skewed(rs, 6, 0);
	is_int((int)inc->answer.nzones, 0, "one clock in two forms: no zone");
	incident_free(inc);
}

int
main(void)
{
	struct ruleset	*rs;

	setenv("RANKLINE_NO_USER_RULES", "1", 1);
	setenv("TZ", "UTC", 1);
	rs = rules_shipped();
	test_cluster();
	test_pipeline(rs);
	ruleset_free(rs);
	return tap_done();
}
