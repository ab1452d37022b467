/*
 * test-diagnose.c: the three answers on small real-format logs.  Each
 * scenario is a tee'd torchrun console (the [defaultN]: layout) with a
 * pack written inline, so the test states every rule it depends on.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "fixture.h"

#include <jansson.h>

static const char *PACK =
	"[attrib prefix.default]\nkind = prefix\n"
	"pattern = ^\\[default(?<local_rank>\\d+)\\]:\n"
	"[rule py.exc]\npattern = ^(?<exc>\\w+Error): \nliteral = Error: \n"
	"role = root\ndomain = code\npriority = 10\n"
	"[rule gloo.closed]\npattern = Connection closed by peer\n"
	"role = collateral\ndomain = infrastructure\ngroup = communication\n"
	"priority = 80\n"
	"[rule watchdog]\npattern = Watchdog caught collective operation timeout: "
	"WorkNCCL\\(SeqNum=(?<seq>\\d+)\nrole = collateral\n"
	"domain = infrastructure\ngroup = communication\n"
	"[rule elastic.exit]\npattern = failed \\(exitcode: (?<exitcode>-?\\d+)\\) "
	"local_rank: (?<local_rank>\\d+) \\(pid: (?<pid>\\d+)\\)\n"
	"role = symptom\nmark = exit\ndomain = unknown\n"
	"[rule ckpt.begin]\npattern = saving checkpoint at iteration +(?<step>\\d+)\n"
	"role = progress\nmark = ckpt-begin\n"
	"[rule ckpt.end]\npattern = successfully saved checkpoint from iteration "
	"+(?<step>\\d+)\nrole = progress\nmark = ckpt-end\n"
	"[rule save.dir]\npattern = Parent directory \\S+ does not exist\n"
	"role = root\ndomain = infrastructure\nckpt = write\npriority = 70\n";

#define T(n, s)	"[default" #n "]:2026-12-02 13:20:" s " INFO "

static void
test_exception(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    T(0, "01,000") "step 1\n" T(1, "01,000") "step 1\n" T(2, "01,000") "step 1\n"
	    "[default1]:Traceback (most recent call last):\n"
	    "[default1]:IndexError: list index out of range\n"
	    "[default0]:RuntimeError: [../gloo/pair.cc:598] Connection closed by peer\n"
	    "[default2]:RuntimeError: [../gloo/pair.cc:598] Connection closed by peer\n"
	    "failed (exitcode: 1) local_rank: 0 (pid: 100) of binary: python\n");
	const struct rl_event	*e = first(inc);

	ok(e != NULL && e->rank == 1, "an exception on rank 1 is the first failure, "
	    "not the peers' connection errors printed after it");
	ok(e != NULL && strcmp(e->rule->id, "py.exc") == 0, "named by its exception");
	is_int(inc->answer.domain, DOMAIN_CODE, "domain code");
	is_int(inc->answer.scope, SCOPE_ONE, "scope one");
	ok(inc->nranks == 3 && inc->ranks[0].state == RANK_COLLATERAL &&
	    inc->ranks[2].state == RANK_COLLATERAL, "the others are collateral");
	incident_free(inc);
}

/* Collateral printed earlier than the root (a skewed clock) is still collateral. */
static void
test_collateral_first(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    T(0, "01,000") "x\n"
	    "[default0]:RuntimeError: Connection closed by peer\n"
	    T(1, "05,000") "y\n"
	    "[default1]:ValueError: bad shape\n");
	const struct rl_event	*e = first(inc);

	ok(e != NULL && e->rank == 1, "a root after collateral in time still wins");
	incident_free(inc);
}

static void
test_killed(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    T(0, "01,000") "step 1\n" T(1, "01,000") "step 1\n"
	    T(1, "02,000") "step 2\n"
	    T(0, "03,000") "step 3\n"
	    "[default0]:RuntimeError: Connection closed by peer\n"
	    "failed (exitcode: 1) local_rank: 0 (pid: 100) of binary: python\n"
	    "failed (exitcode: -9) local_rank: 1 (pid: 101) of binary: python\n");
	const struct rl_event	*e = first(inc);

	ok(e != NULL && e->rank == 1, "a rank killed by a signal with no traceback "
	    "is found");
	is_int(inc->answer.domain, DOMAIN_INFRA, "SIGKILL points at infrastructure");
	is_int(inc->answer.group, GROUP_WORKER_DEATH, "group worker-death");
	incident_free(inc);
}

static void
test_hang(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    T(0, "01,000") "step 1\n" T(1, "01,000") "step 1\n" T(2, "01,000") "step 1\n"
	    T(0, "02,000") "step 2\n" T(1, "02,000") "step 2\n"
	    T(0, "03,000") "step 3\n"
	    T(1, "03,000") "step 3\n"
	    "[default0]:[E1202 13:30:03.1 ProcessGroupNCCL.cpp:1] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)\n"
	    "[default1]:[E1202 13:30:03.1 ProcessGroupNCCL.cpp:1] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)\n");
	const struct rl_event	*e = first(inc);

	ok(e != NULL && e->rank == 2, "the rank that went quiet first is the culprit");
	ok(e != NULL && e->role == ROLE_HANG, "reported with role hang");
	ok(e != NULL && strstr(e->text, "step 1") != NULL,
	    "its event is its last line");
	is_int(e != NULL ? (long long)e->line : 0, 3, "at the line it was written");
	incident_free(inc);

	/*
	 * Every rank in the logs timed out and none lags: the rank they
	 * waited for printed nothing here, and no reporter is named for it.
	 */
	inc = run(rs,
	    T(0, "01,000") "step 1\n" T(1, "01,000") "step 1\n"
	    T(0, "02,000") "step 2\n" T(1, "02,500") "step 2\n"
	    "[default0]:[E1202 13:30:03.1 ProcessGroupNCCL.cpp:1] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)\n"
	    "[default1]:[E1202 13:30:03.1 ProcessGroupNCCL.cpp:1] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)\n");
	e = first(inc);
	ok(e != NULL && e->role == ROLE_COLLATERAL &&
	    inc->answer.hang.culprit == RL_NONE, "all timed out, none silent: "
	    "no rank is said to have gone quiet (%s)", inc->answer.summary);
	is_int(inc->answer.scope, SCOPE_ALL, "the timeout stands for all");
	incident_free(inc);
}

static void
test_common(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    T(0, "01,000") "x\n" T(1, "01,000") "x\n" T(2, "01,000") "x\n"
	    "[default0]:FileNotFoundError: [Errno 2] No such file: '/d/x.bin'\n"
	    "[default1]:FileNotFoundError: [Errno 2] No such file: '/d/x.bin'\n"
	    "[default2]:FileNotFoundError: [Errno 2] No such file: '/d/x.bin'\n");

	ok(first(inc) != NULL, "a failure common to all is still a failure");
	is_int(inc->answer.scope, SCOPE_ALL, "scope all");
	ok(strstr(inc->answer.summary, "common to all ranks") != NULL,
	    "the summary says it is common to all ranks");
	incident_free(inc);
}

static void
test_checkpoint(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    T(0, "01,000") "saving checkpoint at iteration 10 to c\n"
	    T(1, "01,000") "saving checkpoint at iteration 10 to c\n"
	    T(0, "01,100") "successfully saved checkpoint from iteration 10 to c\n"
	    T(1, "01,100") "successfully saved checkpoint from iteration 10 to c\n"
	    T(0, "02,000") "saving checkpoint at iteration 20 to c\n"
	    T(1, "02,000") "saving checkpoint at iteration 20 to c\n"
	    T(0, "02,100") "successfully saved checkpoint from iteration 20 to c\n"
	    "[default1]:OSError: [Errno 28] No space left on device\n");

	is_int(inc->answer.last_safe_step, 10, "the last step every saver completed");
	ok(inc->answer.nunsafe == 1 && inc->answer.unsafe_steps[0] == 20,
	    "step 20 was begun and not completed by rank 1");
	is_int(inc->answer.ckpt, CKPT_UNSAFE, "a save was under way: unsafe");
	incident_free(inc);

	inc = run(rs, T(0, "01,000") "saving checkpoint at iteration 5 to c\n"
	    T(0, "01,100") "successfully saved checkpoint from iteration 5 to c\n");
	ok(first(inc) == NULL, "a healthy run has no failure");
	is_int(inc->answer.ckpt, CKPT_NONE, "status none without a failure");
	is_int(inc->answer.last_safe_step, 5, "but the last safe step is known");
	incident_free(inc);

	inc = run(rs, T(0, "01,000") "x\n[default0]:ValueError: y\n");
	is_int(inc->answer.ckpt, CKPT_UNKNOWN, "no checkpoint lines: unknown");
	incident_free(inc);

	/* None logged, but the failure is in writing one: that one is partial. */
	inc = run(rs, T(0, "01,000") "x\n[default0]:RuntimeError: Parent "
	    "directory c/iter_20 does not exist.\n");
	is_int(inc->answer.ckpt, CKPT_UNSAFE, "a failure writing a checkpoint, "
	    "no save logged: unsafe");
	ok(inc->answer.ckpt_explanation != NULL &&
	    strstr(inc->answer.ckpt_explanation, "partial") != NULL,
	    "and the words say its files are partial: %s",
	    inc->answer.ckpt_explanation);
	incident_free(inc);

	/*
	 * A save completed only after the failure: no step is safe and none
	 * is unsafe, and the words must not read an unsafe step that is not
	 * there (it crashed analyze, cat and the console).
	 */
	inc = run(rs, "RuntimeError: boom\n"
	    T(0, "20,000") "successfully saved checkpoint from iteration 10 to c\n");
	ok(first(inc) != NULL, "a late save: the error is the failure");
	is_int(inc->answer.ckpt, CKPT_UNSAFE, "a late save: unsafe");
	is_int((int)inc->answer.nunsafe, 0, "a late save: no unsafe step");
	ok(inc->answer.ckpt_explanation != NULL && strstr(
	    inc->answer.ckpt_explanation, "only after the first failure") != NULL,
	    "a late save: the words say the save came after the failure");
	incident_free(inc);
}

/* Feed text to a source that keeps its ingest, as a followed one does. */
static void
feed(struct rl_incident *inc, const char *text)
{
	struct rl_source	*src;

	src = inc->nsources > 0 ? inc->sources[0] :
	    incident_add_source(inc, "cmd:test", SOURCE_CMD);
	ingest_feed(source_ingest(inc, src, NULL, NULL), text, strlen(text));
}

/* What a diagnosis says, in a form two diagnoses can be compared by. */
static void
answer_key(const struct rl_incident *inc, char *buf, size_t sz)
{
	const struct rl_event	*e = first(inc);
	size_t			 i, n = 0, hangs = 0;

	for (i = 0; i < inc->nevents; i++)
		hangs += inc->events[i]->role == ROLE_HANG;
	n = (size_t)snprintf(buf, sz, "%d/%s/%d/%d/%d/%zu/%zu/%zu/%s",
	    e != NULL ? e->rank : -9, e != NULL && e->rule != NULL ?
	    e->rule->id : "-", (int)inc->answer.domain, (int)inc->answer.scope,
	    inc->answer.last_safe_step, inc->nranks, inc->nevents, hangs,
	    inc->answer.summary);
	for (i = 0; i < inc->nranks && n < sz; i++)
		n += (size_t)snprintf(buf + n, sz - n, " r%d=%d", inc->ranks[i].rank,
		    (int)inc->ranks[i].state);
}

/*
 * analyze --follow diagnoses again as lines come: a second diagnosis of the
 * same lines changes nothing, and a diagnosis after more lines equals one
 * made of all the lines at once (a hang that becomes an exception, too).
 */
static void
test_rediagnose(struct ruleset *rs)
{
	const char *part1 =
	    T(0, "01,000") "step 1\n" T(1, "01,000") "step 1\n" T(2, "01,000") "step 1\n"
	    T(0, "02,000") "step 2\n" T(1, "02,000") "step 2\n"
	    "[default0]:[E1202 13:30:03.1 ProcessGroupNCCL.cpp:1] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)\n"
	    "[default1]:[E1202 13:30:03.1 ProcessGroupNCCL.cpp:1] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)\n";
	const char *part2 =
	    "[default2]:Traceback (most recent call last):\n"
	    "[default2]:ValueError: bad shape\n" T(2, "01,500") "x\n";
	struct rl_incident	*inc = incident_create(rs), *all;
	char			 a[512], b[512];

	feed(inc, part1);
	pipeline_diagnose(inc);
	answer_key(inc, a, sizeof a);
	ok(first(inc) != NULL && first(inc)->role == ROLE_HANG &&
	    first(inc)->rank == 2, "before more lines: a hang, rank 2 went quiet");
	pipeline_diagnose(inc);
	answer_key(inc, b, sizeof b);
	ok(strcmp(a, b) == 0, "diagnosing twice changes nothing (%s | %s)", a, b);

	feed(inc, part2);
	pipeline_diagnose(inc);
	answer_key(inc, a, sizeof a);
	all = incident_create(rs);
	feed(all, part1);
	feed(all, part2);
	pipeline_diagnose(all);
	answer_key(all, b, sizeof b);
	ok(strcmp(a, b) == 0, "after more lines, the same answer as all at once "
	    "(%s | %s)", a, b);
	ok(first(inc) != NULL && first(inc)->rank == 2 && first(inc)->rule != NULL &&
	    strcmp(first(inc)->rule->id, "py.exc") == 0,
	    "the exception replaces the hang, and its synthetic event is gone");
	incident_free(all);
	incident_free(inc);
}

/* The whole JSON report, as a string the caller frees. */
static char *
report(const struct rl_incident *inc)
{
	struct buf	b = { 0 };

	report_json(inc, &b, NULL);
	return b.p;
}

/*
 * Once every line is read, the diagnosis works on the keeps' own events,
 * not copies: it must say the same as on copies, and say it again the
 * same when run twice (what it set on them the first time changes
 * nothing).
 */
static void
test_settled(struct ruleset *rs)
{
	const char *text =
	    T(0, "01,000") "step 1\n" T(1, "01,000") "step 1\n"
	    T(2, "01,000") "step 1\n"
	    "[default0]:[E1202 13:30:03.1 ProcessGroupNCCL.cpp:1] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)\n"
	    "[default2]:Traceback (most recent call last):\n"
	    "[default2]:ValueError: bad shape\n" T(2, "01,500") "x\n";
	struct rl_incident	*copied = incident_create(rs);
	struct rl_incident	*settled = incident_create(rs);
	char			*a, *b, *c;

	feed(copied, text);
	feed(settled, text);
	settled->settled = true;
	pipeline_diagnose(copied);
	pipeline_diagnose(settled);
	a = report(copied);
	b = report(settled);
	ok(first(settled) != NULL && first(settled)->rule != NULL &&
	    strcmp(first(settled)->rule->id, "py.exc") == 0 &&
	    first(settled)->rank == 2, "settled: the exception on rank 2");
	ok(a != NULL && b != NULL && strcmp(a, b) == 0,
	    "the keeps' own events give the report copies give");
	pipeline_diagnose(settled);
	c = report(settled);
	ok(c != NULL && strcmp(b, c) == 0, "and the same again when diagnosed "
	    "twice");
	free(a);
	free(b);
	free(c);
	incident_free(copied);
	incident_free(settled);
}

/*
 * Step and periodic lines are sampled, 32 a rule and writer, fewer past
 * 512 sources, never under 8: the memory of 10,000 ranks is their
 * failures', not their steps'.  A keep holds no more than it is given.
 */
static void
test_samples(void)
{
	struct ruleset		*rs = ruleset_create();
	struct rl_incident	*inc;
	struct errlist		 e = { 0 };
	struct buf		 b = { 0 };
	const char		*pack = "[rule step]\npattern = step "
				    "(?<step>\\d+)$\nrole = progress\n"
				    "mark = step\n";
	size_t			 i, n = 0;
	int			 k;

	is_int(ruleset_load(rs, "inline", pack, strlen(pack), &e), 0,
	    "a pack with a step rule loads");
	ruleset_finish(rs);
	inc = incident_create(rs);

	is_int((int)incident_samples(1), 32, "1 source: 32 samples");
	is_int((int)incident_samples(512), 32, "512 sources: 32");
	is_int((int)incident_samples(1024), 16, "1,024 sources: 16");
	is_int((int)incident_samples(2048), 8, "2,048 sources: 8");
	is_int((int)incident_samples(10000), 2, "10,000 sources: 2");
	is_int((int)incident_samples(100000), 2, "100,000 sources: 2");
	inc->width = 2048;
	for (k = 1; k <= 1000; k++)
		buf_printf(&b, T(0, "01,000") "step %d\n", k);
	feed(inc, b.p);
	pipeline_diagnose(inc);
	for (i = 0; i < inc->nevents; i++)
		n += inc->events[i]->rule != NULL &&
		    strcmp(inc->events[i]->rule->id, "step") == 0;
	/* The samples, and the latest line, which the keep's tail holds. */
	ok(n >= 4 && n <= 8 + 1, "2,048 sources: a rule keeps 8 of 1,000 "
	    "steps and the last (%zu)", n);
	incident_free(inc);
	/* One source: the full 32. */
	inc = incident_create(rs);
	feed(inc, b.p);
	pipeline_diagnose(inc);
	for (i = n = 0; i < inc->nevents; i++)
		n += inc->events[i]->rule != NULL &&
		    strcmp(inc->events[i]->rule->id, "step") == 0;
	ok(n > 8 && n <= 32 + 1, "one source: up to 32 and the last (%zu)", n);
	buf_clear(&b);
	incident_free(inc);
	errlist_clear(&e);
	ruleset_free(rs);
}

/*
 * Thousands of ranks: processes are found again by their keys (through the
 * index, also after a part's are absorbed), and every rank is judged.
 */
static void
test_many(struct ruleset *rs)
{
	struct rl_incident	*inc = incident_create(rs), *part;
	struct rl_process	*p[3000];
	struct buf		 b = { 0 };
	char			 key[32];
	size_t			 i, same = 0, moved = 0;
	int			 failed = 0, collateral = 0, k;

	for (i = 0; i < 3000; i++) {
		snprintf(key, sizeof key, "node%zu/%zu", i / 8, i % 8);
		p[i] = incident_process(inc, key, NULL, (int)i, RL_NONE);
	}
	for (i = 0; i < 3000; i++) {
		snprintf(key, sizeof key, "node%zu/%zu", i / 8, i % 8);
		same += incident_process(inc, key, NULL, RL_NONE, RL_NONE) ==
		    p[i];
	}
	is_int((int)inc->nprocs, 3000, "3,000 keys make 3,000 processes");
	is_int((int)same, 3000, "and each key finds its own again");
	/* A part read on another thread: half its keys are the whole's. */
	part = incident_create(rs);
	for (i = 1500; i < 4500; i++) {
		snprintf(key, sizeof key, "node%zu/%zu", i / 8, i % 8);
		incident_process(part, key, NULL, (int)i, RL_NONE);
	}
	incident_absorb(inc, part);
	incident_free(part);
	is_int((int)inc->nprocs, 4500, "absorbing a part adds only its new keys");
	for (i = 0; i < 4500; i++) {
		snprintf(key, sizeof key, "node%zu/%zu", i / 8, i % 8);
		moved += incident_process(inc, key, NULL, RL_NONE, RL_NONE) ==
		    inc->procs[i] && inc->procs[i]->rank == (int)i;
	}
	is_int((int)moved, 4500, "after it, every key finds its process");
	is_int((int)inc->nprocs, 4500, "and the lookups made none");
	incident_free(inc);

	/* 2,000 ranks of a console; rank 1234 fails, the rest lose peers. */
	for (i = 0; i < 2000; i++)
		buf_printf(&b, "[default%zu]:2026-12-02 13:20:01,000 INFO x\n", i);
	buf_printf(&b, "[default1234]:ValueError: bad shape\n");
	for (i = 0; i < 2000; i++) {
		if (i != 1234)
			buf_printf(&b, "[default%zu]:RuntimeError: Connection "
			    "closed by peer\n", i);
	}
	inc = run(rs, b.p);
	is_int((int)inc->nranks, 2000, "2,000 ranks are judged");
	ok(first(inc) != NULL && first(inc)->rank == 1234,
	    "the one that failed first is found among them");
	for (i = 0; i < inc->nranks; i++) {
		failed += inc->ranks[i].state == RANK_FAILED;
		collateral += inc->ranks[i].state == RANK_COLLATERAL;
	}
	ok(failed == 1 && collateral == 1999,
	    "one failed, 1,999 collateral (%d, %d)", failed, collateral);
	buf_clear(&b);
	incident_free(inc);

	/*
	 * 1,500 ranks save three times; rank 700 never logs the end of the
	 * third save, and rank 1400 fails: the second is the last safe one,
	 * and rank 700 is the one named, also among so many.
	 */
	memset(&b, 0, sizeof b);
	for (k = 1; k <= 3; k++) {
		for (i = 0; i < 1500; i++)
			buf_printf(&b, "[default%zu]:2026-12-02 13:2%d:00,000 INFO "
			    "saving checkpoint at iteration %d to c\n", i, k,
			    k * 100);
		for (i = 0; i < 1500; i++) {
			if (k < 3 || i != 700)
				buf_printf(&b, "[default%zu]:2026-12-02 13:2%d:30,000 "
				    "INFO successfully saved checkpoint from "
				    "iteration %d to c\n", i, k, k * 100);
		}
	}
	buf_printf(&b, "[default1400]:OSError: [Errno 28] No space left\n");
	inc = run(rs, b.p);
	is_int(inc->answer.last_safe_step, 200,
	    "1,500 savers: the last save every one completed");
	ok(inc->answer.nunsafe == 1 && inc->answer.unsafe_steps[0] == 300,
	    "the third save is unsafe");
	ok(inc->answer.ckpt_evidence.n > 0 &&
	    strstr(inc->answer.ckpt_evidence.v[0].shows, "rank 700 ") != NULL,
	    "and the rank that did not complete it is named: %s",
	    inc->answer.ckpt_evidence.n > 0 ?
	    inc->answer.ckpt_evidence.v[0].shows : "(none)");
	buf_clear(&b);
	incident_free(inc);
}

/* Are the events in time order, then in arrival order, each once? */
static bool
events_ordered(const struct rl_incident *inc)
{
	const struct rl_event	*a, *b;
	size_t			 i;
	int			 c;

	for (i = 1; i < inc->nevents; i++) {
		a = inc->events[i - 1];
		b = inc->events[i];
		c = clock_cmp(&a->time, &b->time);
		if (c > 0 || (c == 0 && a->seq >= b->seq))
			return false;
	}
	return true;
}

/*
 * The events are sorted by time: written times without a zone, zoned
 * times whose order as written is not their order in time, and the two
 * mixed.  Ranks log in a shuffled order, two events each.
 */
static void
test_sorted(struct ruleset *rs)
{
	static const char *const zone[] = { "Z", "+02:00", "-05:00" };
	static const char *const how[] = { "without a zone", "zoned",
	    "mixed" };
	struct rl_incident	*inc;
	struct buf		 b;
	unsigned		 x = 12345, sec;
	size_t			 r;
	int			 mode, untimed;

	for (mode = 0; mode < 3; mode++) {
		memset(&b, 0, sizeof b);
		for (r = 0; r < 120; r++) {
			x = x * 1103515245u + 12345u;
			sec = (x >> 16) % 3600;
			buf_printf(&b, "[default%zu]:2026-12-02", r);
			if (mode == 0 || (mode == 2 && r % 2 == 0))
				buf_printf(&b, " 13:%02u:%02u,000 INFO x\n",
				    sec / 60, sec % 60);
			else
				buf_printf(&b, "T13:%02u:%02u.000%s INFO x\n",
				    sec / 60, sec % 60, zone[r % 3]);
			buf_printf(&b, "[default%zu]:ValueError: bad\n"
			    "[default%zu]:RuntimeError: Connection closed by "
			    "peer\n", r, r);
		}
		inc = run(rs, b.p);
		untimed = 0;
		for (r = 0; r < inc->nevents; r++)
			untimed += !(inc->events[r]->time.flags & RL_TIME_VALID);
		ok(inc->nevents >= 200 && untimed == 0,
		    "%s: %zu events, all timed", how[mode], inc->nevents);
		ok(events_ordered(inc), "%s: the events are in time order",
		    how[mode]);
		buf_clear(&b);
		incident_free(inc);
	}

	/*
	 * One time for all: the order is arrival, which is not the order the
	 * events are gathered in (each rank's errors, rank by rank).
	 */
	memset(&b, 0, sizeof b);
	for (r = 0; r < 8; r++)
		buf_printf(&b, "[default%zu]:2026-12-02 13:00:00,000 INFO x\n", r);
	for (sec = 0; sec < 40; sec++)
		buf_printf(&b, "[default%u]:ValueError: bad %u\n",
		    (sec * 5) % 8, sec);
	inc = run(rs, b.p);
	ok(inc->nevents >= 40 && events_ordered(inc), "at one time, the %zu "
	    "events are in the order they came", inc->nevents);
	buf_clear(&b);
	incident_free(inc);
}

/*
 * The sort by radix, on what an hour of one job does not reach: times
 * over two centuries (a span that needs the time's sixth byte), arrivals
 * past 65,536 (the arrival's third byte), and 200 ties at the latest time
 * among the last of them, which come in a shuffled order of ranks (and
 * are gathered rank by rank, each into the keep of its rank's first).
 */
static void
test_sorted_wide(struct ruleset *rs)
{
	struct rl_incident	*inc;
	struct buf		 b = { 0 };
	unsigned		 x = 777, y;
	size_t			 r, i, old = 0, tied = 0;
	int64_t			 tie_ms;

	for (r = 0; r < 200; r++) {
		x = x * 1103515245u + 12345u;
		y = x >> 8;
		buf_printf(&b, "[default%zu]:%04u-%02u-%02u %02u:%02u:%02u,%03u "
		    "INFO x\n[default%zu]:ValueError: early\n"
		    "[default%zu]:RuntimeError: Connection closed by peer\n", r,
		    1970 + y % 228, 1 + y / 70 % 12, 1 + y / 840 % 28,
		    y / 23520 % 24, y % 60, y / 7 % 60, y % 1000, r, r);
	}
	for (i = 0; i < 70000; i++)
		buf_printf(&b, "[default%zu]:ValueError: bulk %zu\n", i % 200, i);
	for (r = 0; r < 200; r++)
		buf_printf(&b, "[default%zu]:2199-12-31 23:59:59,999 INFO y\n"
		    "[default%zu]:RuntimeError: Connection closed by peer\n",
		    (r * 37) % 200, (r * 37) % 200);
	inc = run(rs, b.p);
	tie_ms = inc->nevents > 0 ?
	    inc->events[inc->nevents - 1]->time.ms : 0;
	for (i = 0; i < inc->nevents; i++) {
		old += inc->events[i]->time.ms < INT64_C(1) << 40;
		tied += inc->events[i]->time.ms == tie_ms &&
		    inc->events[i]->seq > 70000;
	}
	ok(old > 0 && tied == 200 && inc->next_seq > 70000,
	    "%zu events, %zu before 2004, %zu tied past arrival 70,000",
	    inc->nevents, old, tied);
	ok(events_ordered(inc), "across two centuries, the events are in time "
	    "order, and the ties in arrival order");
	buf_clear(&b);
	incident_free(inc);
}

/*
 * The report's list of events: each one's source is its own path, escaped
 * (a quote and a backslash in it), and its time its own, also where the
 * events before it share theirs or come from the other source.
 */
static void
test_report_events(struct ruleset *rs)
{
	static const char *const name[] = { "cmd:rank \"0\".log",
	    "cmd:logs\\rank1" };
	/* Lines 1 to 3 of both at 01,000; lines 4 and 5 of the second later. */
	const char		*one = T(0, "01,000") "x\n"
	    "[default0]:ValueError: a\n[default0]:RuntimeError: b\n";
	const char		*two = T(0, "02,500") "y\n"
	    "[default0]:ValueError: c\n";
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src[2];
	struct buf		 b = { 0 };
	json_t			*root, *ev, *e;
	json_error_t		 err;
	const char		*sp, *tp, *want;
	size_t			 i, k, nv = 0, timed = 0, late = 0, of[2] = { 0 };
	bool			 second;

	for (k = 0; k < 2; k++) {
		src[k] = incident_add_source(inc, name[k], SOURCE_CMD);
		ingest_feed(source_ingest(inc, src[k], NULL, NULL), one,
		    strlen(one));
	}
	ingest_feed(source_ingest(inc, src[1], NULL, NULL), two, strlen(two));
	for (k = 0; k < 2; k++)
		ingest_flush(src[k]->ingest);
	pipeline_diagnose(inc);
	report_json(inc, &b, NULL);
	root = json_loads(b.p, 0, &err);
	ev = root != NULL ? json_object_get(root, "events") : NULL;
	ok(ev != NULL && json_array_size(ev) >= 5, "the report is JSON and "
	    "lists the events (%s)", root == NULL ? err.text : "parsed");
	for (i = 0; ev != NULL && i < json_array_size(ev); i++) {
		e = json_array_get(ev, i);
		sp = json_string_value(json_object_get(e, "source"));
		tp = json_string_value(json_object_get(e, "time"));
		if (sp == NULL || tp == NULL)
			continue;
		nv++;
		for (k = 0; k < 2; k++)
			of[k] += strcmp(sp, name[k]) == 0;
		second = strcmp(sp, name[1]) == 0 && json_integer_value(
		    json_object_get(e, "line")) >= 4;
		late += second;
		want = second ? "2026-12-02T13:20:02.500" :
		    "2026-12-02T13:20:01.000";
		timed += strcmp(tp, want) == 0;
	}
	ok(of[0] == 2 && of[1] == 3, "each listed event names its own source, "
	    "quote and backslash as they are: %zu and %zu", of[0], of[1]);
	ok(late == 1 && timed == nv, "every listed event has its own time: %zu "
	    "of %zu, the later one once (%zu)", timed, nv, late);
	ok(strstr(b.p, "\"role\": \"root\"") != NULL &&
	    strstr(b.p, "\"domain\": \"code\"") != NULL,
	    "roles and domains are quoted words");
	json_decref(root);
	buf_clear(&b);
	incident_free(inc);
}

int
main(void)
{
	struct ruleset	*rs = rules_inline(PACK);

	test_exception(rs);
	test_collateral_first(rs);
	test_killed(rs);
	test_hang(rs);
	test_common(rs);
	test_checkpoint(rs);
	test_rediagnose(rs);
	test_settled(rs);
	test_samples();
	test_many(rs);
	test_sorted(rs);
	test_sorted_wide(rs);
	test_report_events(rs);
	ruleset_free(rs);
	return tap_done();
}
