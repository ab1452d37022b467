/*
 * test-hang.c: the reasons behind a hang's answer, on real-format logs
 * written into a temporary folder and read with the shipped rule packs:
 * a silent rank, a lagging "last enqueued", frozen processes, the dump
 * signal's origin, the hang's start.  Split from test-evidence.c, whose
 * section 2 it was.
 */
#include "evidence-fixture.h"

/* --- section 2: hangs ------------------------------------------------ */

/* A c10 watchdog timeout of a rank in PG 0, written at 13:50:MM. */
static void
watchdog_line(struct buf *b, int rank, const char *hms, int seq)
{
	buf_printf(b, "[rank%d]:[E1202 %s.123456789 ProcessGroupNCCL.cpp:616] "
	    "[PG ID 0 PG GUID 0(default_pg) Rank %d] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=%d, OpType="
	    "ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
	    "600012 milliseconds before timing out.\n", rank, hms, rank, seq);
}

/* A desync line: where a rank was when the watchdog fired. */
static void
desync_line(struct buf *b, int rank, int pg, int pgrank, int seq, int enq)
{
	buf_printf(b, "[rank%d]:[E1202 13:50:00.223456789 ProcessGroupNCCL.cpp:"
	    "1785] [PG ID %d PG GUID %d Rank %d] Exception (either an error or "
	    "timeout) detected by watchdog at work: %d, last enqueued NCCL "
	    "work: %d, last completed NCCL work: %d.\n", rank, pg, pg, pgrank,
	    seq, enq, enq - 1);
}

/* Four ranks' files: steps, then what each adds. */
static void
hang_files(struct buf *b, const char *last_step_hms[4])
{
	int	r;

	for (r = 0; r < 4; r++) {
		step_line(&b[r], "13:39:59,000", r, 10);
		if (last_step_hms[r] != NULL)
			step_line(&b[r], last_step_hms[r], r, 11);
	}
}

/* Write the four rank files. */
static void
hang_write(struct buf *b)
{
	char	name[64];
	int	r;

	for (r = 0; r < 4; r++) {
		snprintf(name, sizeof name, "logs/rank%d.log", r);
		put(name, b[r].p, 0);
		buf_clear(&b[r]);
	}
}

/* Rank 3 printed nothing after step 10; ranks 0-2 time out at 13:50:00. */
static void
test_hang_silent(void)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	const char		*steps[4] = { "13:40:00,000", "13:40:00,001",
				    "13:40:00,002", NULL };
	struct buf		 b[4] = { { 0 } };
	char			 t[64];
	int			 r;

	hang_files(b, steps);
	for (r = 0; r < 3; r++)
		watchdog_line(&b[r], r, "13:50:00", 12);
	hang_write(b);
	inc = analyze();
	e = first(inc);
	ok(e != NULL && e->rank == 3 && e->role == ROLE_HANG,
	    "2: the silent rank is the culprit, with role hang");
	is_str(inc->answer.hang.basis, "silent", "2: named because it was "
	    "silent and went quiet first");
	is_int(inc->answer.hang.reporters, 3, "2: three ranks reported the "
	    "timeout");
	clock_format(&inc->answer.hang.began, t, sizeof t);
	ok(strncmp(t, "2026-12-02T13:40:00", 19) == 0 ||
	    strstr(t, "-12-02T13:40:00") != NULL,
	    "2: the hang began at the timeout's time minus 600000 ms (%s)", t);
	is_int(inc->answer.domain, DOMAIN_INFRA, "4: a hang: infrastructure");
	is_int(inc->answer.group, GROUP_COMMUNICATION, "4: group communication");
	ok(has_ev(&inc->answer.first_evidence, "hang began",
	    STANCE_SUPPORTS), "2: the timeout that dates the hang is evidence");
	incident_free(inc);
	tree_empty();
}

/*
 * Every reporting rank printed its progress: rank 2's last enqueued
 * collective (7) is behind the others' (8).  Rank 3 printed nothing at all
 * and its last line is the earliest, but the lag is the stronger evidence.
 * A sub-group's line from the launcher, whose [Rank 1] is a group rank,
 * must not count for global rank 1.
 */
static void
test_hang_lagging(void)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	const char		*steps[4] = { "13:40:00,000", "13:40:00,001",
				    "13:40:00,002", NULL };
	struct buf		 b[4] = { { 0 } };
	int			 r;

	hang_files(b, steps);
	for (r = 0; r < 3; r++) {
		watchdog_line(&b[r], r, "13:50:00", r == 2 ? 7 : 8);
		desync_line(&b[r], r, 0, r, r == 2 ? 7 : 8, r == 2 ? 7 : 8);
	}
	hang_write(b);
	put("launcher.log", "[E1202 13:50:00.223456789 ProcessGroupNCCL.cpp:"
	    "1785] [PG ID 3 PG GUID 3 Rank 1] Exception (either an error or "
	    "timeout) detected by watchdog at work: 1, last enqueued NCCL "
	    "work: -1, last completed NCCL work: -1.\n", 0);
	inc = analyze();
	e = first(inc);
	ok(e != NULL && e->rank == 2 && e->role == ROLE_HANG,
	    "2: the rank whose last enqueued collective lags is the culprit");
	is_str(inc->answer.hang.basis, "lagging", "2: named for its lag");
	ok(inc->answer.hang.lag_enqueued == 7 &&
	    inc->answer.hang.peers_enqueued == 8, "2: 7 against 8");
	is_int(inc->answer.hang.desync_ranks, 3, "2: the sub-group's [Rank 1] "
	    "from an unranked line counts for no global rank");
	ok(!inc->answer.hang.frozen, "2: not frozen");
	ok(has_ev(&inc->answer.first_evidence, "never entered",
	    STANCE_SUPPORTS), "2: the lagging line is evidence");
	incident_free(inc);
	tree_empty();
}

/* Every rank shows last enqueued -1: frozen, not stuck in a collective. */
static void
test_hang_frozen(void)
{
	struct rl_incident	*inc;
	const char		*steps[4] = { "13:40:00,000", "13:40:00,001",
				    "13:40:00,002", NULL };
	struct buf		 b[4] = { { 0 } };
	int			 r;

	hang_files(b, steps);
	for (r = 0; r < 3; r++) {
		watchdog_line(&b[r], r, "13:50:00", 0);
		buf_printf(&b[r], "[rank%d]:[E1202 13:50:00.323456789 "
		    "ProcessGroupNCCL.cpp:1681] [PG ID 0 PG GUID 0(default_pg) "
		    "Rank %d]  failure detected by watchdog at work sequence id: "
		    "0 PG status: last enqueued work: -1, last completed work: "
		    "-1\n", r, r);
	}
	hang_write(b);
	inc = analyze();
	ok(inc->answer.hang.frozen, "2: every rank's -1 means frozen processes");
	is_int(inc->answer.domain, DOMAIN_UNKNOWN, "4: frozen: not a "
	    "communication failure");
	ok(says(inc->answer.explanation, "frozen"), "2: the explanation says "
	    "the processes were frozen");
	incident_free(inc);
	tree_empty();
}

/* Every rank reported; the dump signals name rank 1 as the first detector. */
static void
test_hang_dump(void)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	const char		*steps[4] = { "13:40:00,000", "13:40:00,001",
				    "13:40:00,002", "13:40:00,003" };
	struct buf		 b[4] = { { 0 } };
	int			 r;

	hang_files(b, steps);
	for (r = 0; r < 4; r++) {
		watchdog_line(&b[r], r, "13:50:00", 8);
		if (r != 1)
			buf_printf(&b[r], "[rank%d]:[E1202 13:50:01.658350320 "
			    "ProcessGroupNCCL.cpp:1858] [PG ID 0 PG GUID "
			    "0(default_pg) Rank %d] Received a dump signal due "
			    "to a collective timeout from rank 1 and we will "
			    "try our best to dump the debug info. Last enqueued "
			    "NCCL work: 8, last completed NCCL work: 7.This is "
			    "most likely caused by incorrect usages of "
			    "collectives.\n", r, r);
	}
	hang_write(b);
	inc = analyze();
	e = first(inc);
	ok(e != NULL && e->rank == 1 && e->role == ROLE_HANG,
	    "2: with every rank reporting and no lag, the dump signals' origin "
	    "is named");
	is_str(inc->answer.hang.basis, "dump", "2: named for the dump signal");
	is_int(inc->answer.hang.dump_origin, 1, "2: origin rank 1");
	incident_free(inc);
	tree_empty();
}

/* gloo: victims time out on recv; the silent rank is the culprit. */
static void
test_hang_gloo(void)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	const char		*steps[4] = { "13:40:00,000", NULL,
				    "13:40:00,002", "13:40:00,003" };
	struct buf		 b[4] = { { 0 } };
	int			 r;

	hang_files(b, steps);
	for (r = 0; r < 4; r++) {
		if (r == 1)
			continue;
		buf_adds(&b[r], "Traceback (most recent call last):\n"
		    "  File \"train.py\", line 240, in main\n"
		    "RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:81] "
		    "Timed out waiting 20000ms for recv operation to complete\n");
	}
	hang_write(b);
	inc = analyze();
	e = first(inc);
	ok(e != NULL && e->rank == 1 && e->role == ROLE_HANG,
	    "2: gloo's recv timeouts are victims; the silent rank is the "
	    "culprit");
	incident_free(inc);
	tree_empty();
}

int
main(void)
{
	tree_create();
	rules = rules_shipped();
	test_hang_silent();
	test_hang_lagging();
	test_hang_frozen();
	test_hang_dump();
	test_hang_gloo();
	ruleset_free(rules);
	tree_remove();
	return tap_done();
}
