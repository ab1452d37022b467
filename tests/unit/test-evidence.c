/*
 * test-evidence.c: the reasons behind the three answers, on real-format
 * logs written into a temporary folder and read with the shipped rule
 * packs, as `rankline analyze` reads a run's folder.
 *
 * Section 1 (first failure): evidence and explanation, collateral ranks
 * tied to the first, torchrun's record weighed, clock skew between hosts,
 * a kill with no traceback (with and without the kernel's OOM line).
 * Section 2 (hangs) is test-hang.c's.  Section 3
 * (checkpoints): a failure during a save, a save completed after the
 * failure, a hardware error before a save, the checkpoint folder.
 * Section 4 (verdict): a hardware error joined to a rank by PCI address,
 * capacity arithmetic, the checklist and the next steps.
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence-fixture.h"

/* --- section 1: the first failure ---------------------------------- */

/*
 * One host, a tee'd console: rank 1 raises, the others lose their peer;
 * torchrun's record names rank 0 (the tie goes to the lowest rank).
 */
static void
test_first_evidence(void)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;

	put("console.log",
	    "[default0]:2026-12-02 13:19:50,100 INFO     [rank0] train: iteration      1/    30 | lm loss: 1.0E+00\n"
	    "[default1]:2026-12-02 13:19:50,101 INFO     [rank1] train: iteration      1/    30 | lm loss: 1.0E+00\n"
	    "[default2]:2026-12-02 13:19:50,102 INFO     [rank2] train: iteration      1/    30 | lm loss: 1.0E+00\n"
	    "[default1]:Traceback (most recent call last):\n"
	    "[default1]:  File \"/tmp/job/train.py\", line 240, in main\n"
	    "[default1]:IndexError: list index out of range\n"
	    "[default0]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:44735\n"
	    "[default2]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:44736\n"
	    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 2769) of binary: /usr/bin/python3\n"
	    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
	    "Root Cause (first observed failure):\n"
	    "[0]:\n"
	    "  time      : 2026-12-02_13:19:51\n"
	    "  host      : localhost\n"
	    "  rank      : 0 (local_rank: 0)\n"
	    "  exitcode  : 1 (pid: 2769)\n", 0);
	inc = analyze();
	e = first(inc);
	ok(e != NULL && e->rank == 1, "1: rank 1's exception is the first failure");
	ok(has_ev(&inc->answer.first_evidence, "earliest root-capable",
	    STANCE_SUPPORTS), "1: the root line is evidence for it");
	ok(has_ev(&inc->answer.first_evidence, "rank 0 is collateral",
	    STANCE_SUPPORTS) && has_ev(&inc->answer.first_evidence,
	    "rank 2 is collateral", STANCE_SUPPORTS),
	    "1: each collateral rank is tied to it with its own line");
	ok(has_ev(&inc->answer.first_evidence, "names rank 0", STANCE_AGAINST),
	    "1: torchrun's record naming rank 0 is listed against, as weak");
	ok(says(inc->answer.explanation, "torchrun"),
	    "1: the explanation says why torchrun's record loses");
	ok(inc->answer.confidence > 0 && inc->answer.confidence <= 1 &&
	    inc->answer.verdict_explanation != NULL,
	    "4: the verdict has a confidence and an explanation");
	incident_free(inc);
	tree_empty();
}

/* The source of the evidence item whose "shows" has s, or RL_NONE. */
static int
ev_source(const struct rl_evlist *l, const char *s)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (strstr(l->v[i].shows, s) != NULL)
			return l->v[i].source;
	}
	return RL_NONE;
}

/* The index of the source whose path ends in name, or RL_NONE. */
static int
source_named(const struct rl_incident *inc, const char *name)
{
	size_t	i, n, k = strlen(name);

	for (i = 0; i < inc->nsources; i++) {
		n = strlen(inc->sources[i]->path);
		if (n >= k && strcmp(inc->sources[i]->path + n - k, name) == 0)
			return (int)i;
	}
	return RL_NONE;
}

/*
 * torchrun --tee: the console holds every rank's lines, and each rank's
 * own file holds its own.  A collateral rank is shown by the line in its
 * own file, not by the console's copy, whichever came first.
 */
static void
test_direct_line(void)
{
	static const char *const own[] = { "rank0.log", "rank2.log",
	    "rank3.log" };
	struct rl_incident	*inc;
	struct buf		 b = { 0 };
	char			 want[64];
	int			 r, k;

	buf_adds(&b, "[default1]:Traceback (most recent call last):\n"
	    "[default1]:  File \"/tmp/job/train.py\", line 240, in main\n"
	    "[default1]:IndexError: list index out of range\n");
	for (r = 0; r < 4; r++) {
		buf_printf(&b, "[default%d]:2026-12-02 13:19:50,10%d INFO     "
		    "[rank%d] train: iteration      1/    30 | lm loss: "
		    "1.0E+00\n", r, r, r);
		if (r != 1)
			buf_printf(&b, "[default%d]:RuntimeError: [../third_party"
			    "/gloo/gloo/transport/tcp/pair.cc:598] Connection "
			    "closed by peer [127.0.0.1]:4473%d\n", r, r);
	}
	put("console.log", b.p, b.len);
	for (k = 0; k < 3; k++) {
		r = own[k][4] - '0';
		buf_clear(&b);
		buf_printf(&b, "2026-12-02 13:19:50,10%d INFO     [rank%d] "
		    "train: iteration      1/    30 | lm loss: 1.0E+00\n"
		    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/"
		    "pair.cc:598] Connection closed by peer [127.0.0.1]:4473%d"
		    "\n", r, r, r);
		put(own[k], b.p, b.len);
	}
	buf_clear(&b);
	inc = analyze();
	ok(first(inc) != NULL && first(inc)->rank == 1,
	    "direct: rank 1's exception is the first failure");
	for (k = 0; k < 3; k++) {
		r = own[k][4] - '0';
		snprintf(want, sizeof want, "rank %d is collateral", r);
		is_int(ev_source(&inc->answer.first_evidence, want),
		    source_named(inc, own[k]), "direct: rank %d is shown by "
		    "its own file's line, not the console's", r);
	}
	incident_free(inc);
	tree_empty();
}

/*
 * Two hosts; node1's clock runs 4 s behind.  Rank 1 on node0 raises at
 * 13:50:20.5; rank 3 on node1 raises 0.8 s later, stamped 13:50:17.3.
 */
static void
test_skew(void)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	const struct rl_skew	*k = NULL;
	struct buf		 b[4] = { { 0 } };
	struct rl_time		 ta, tb;
	char			 hms[32], name[64];
	size_t			 i;
	int			 r, s, c;
	bool			 within;

	for (r = 0; r < 4; r++) {
		for (s = 1; s <= 10; s++) {
			/* node1 (ranks 2, 3) prints 4 s behind node0. */
			snprintf(hms, sizeof hms, "13:50:%02d,%03d",
			    10 + s - (r >= 2 ? 4 : 0), 100 + r);
			step_line(&b[r], hms, r, s);
		}
	}
	buf_adds(&b[1], "2026-12-02 13:50:20,500 ERROR    [rank1] train: "
	    "training aborted by exception\nTraceback (most recent call "
	    "last):\n  File \"train.py\", line 9, in main\nRuntimeError: "
	    "shape '[-1, 11]' is invalid for input of size 64\n");
	buf_adds(&b[3], "2026-12-02 13:50:17,300 ERROR    [rank3] train: "
	    "training aborted by exception\nTraceback (most recent call "
	    "last):\n  File \"train.py\", line 9, in main\nValueError: "
	    "expected a tensor from the peer\n");
	for (r = 0; r < 4; r++) {
		snprintf(name, sizeof name, "node%d/rank%d.log", r / 2, r);
		put(name, b[r].p, 0);
		buf_clear(&b[r]);
	}
	inc = analyze();
	e = first(inc);
	for (i = 0; i < inc->answer.nskew; i++) {
		if (strcmp(inc->answer.skew[i].host, "node1") == 0)
			k = &inc->answer.skew[i];
	}
	ok(k != NULL && llabs(k->offset_ms + 4000) <= 5 && k->samples == 10,
	    "1: node1's clock is measured 4 s behind from 10 shared steps "
	    "(%lld ms, %zu samples)", k != NULL ? (long long)k->offset_ms : 0,
	    k != NULL ? k->samples : 0);
	ok(e != NULL && e->rank == 1, "1: corrected for skew, rank 1 on node0 "
	    "failed first, though rank 3's line is stamped 3 s earlier");
	ok(says(inc->answer.explanation, "behind"),
	    "1: the explanation reports node1's clock");
	/* The same corrected instant on both hosts: within the tolerance. */
	memset(&ta, 0, sizeof ta);
	ta.flags = RL_TIME_VALID;
	ta.ms = 1000000;
	tb = ta;
	tb.ms -= 4000 - 30;
	c = skew_cmp(inc, &ta, "node0", &tb, "node1", &within);
	ok(within && c != 0, "1: 30 ms apart after correction is within the "
	    "tolerance, so the order is left to causality");
	incident_free(inc);
	tree_empty();
}

/*
 * Every rank of two hosts fails alike at start-up; node1's clock runs 4 s
 * behind, so its copies look earliest.  Common to all: the rank shown
 * stands for all and is the lowest that failed in the first second, by the
 * reference host's clock.
 */
static void
test_skew_common(void)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	struct buf		 b = { 0 };
	char			 name[64], hms[32];
	int			 r, s;

	for (r = 0; r < 4; r++) {
		buf_reset(&b);
		for (s = 1; s <= 5; s++) {
			snprintf(hms, sizeof hms, "13:50:%02d,%03d",
			    10 + s - (r >= 2 ? 4 : 0), 100 + r);
			step_line(&b, hms, r, s);
		}
		buf_printf(&b, "2026-12-02 13:50:%02d,200 ERROR    [rank%d] train: "
		    "cannot read the dataset\nFileNotFoundError: [Errno 2] No "
		    "such file or directory: '/datasets/owt/train.bin'\n",
		    r >= 2 ? 12 : 16, r);
		snprintf(name, sizeof name, "node%d/rank%d.log", r / 2, r);
		put(name, b.p, 0);
	}
	buf_clear(&b);
	inc = analyze();
	e = first(inc);
	is_int(inc->answer.scope, SCOPE_ALL, "1: common to all ranks");
	ok(e != NULL && e->rank == 0, "1: the rank that stands for all is the "
	    "lowest, once node1's 4 s are taken off (got %d)",
	    e != NULL ? e->rank : -1);
	incident_free(inc);
	tree_empty();
}

/* A rank killed by SIGKILL that printed no traceback; then dmesg's OOM line. */
static void
test_killed(bool with_dmesg)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	const struct rl_check_item *tb;

	put("console.log",
	    "[default0]:2026-12-02 13:20:19,000 INFO     [rank0] train: iteration      5/    30 | lm loss: 1.0E+00\n"
	    "[default1]:2026-12-02 13:20:19,010 INFO     [rank1] train: iteration      5/    30 | lm loss: 1.0E+00\n"
	    "[default1]:2026-12-02 13:20:20,010 INFO     [rank1] train: iteration      6/    30 | lm loss: 1.0E+00\n"
	    "[default0]:2026-12-02 13:20:21,000 INFO     [rank0] train: iteration      6/    30 | lm loss: 1.0E+00\n"
	    "[default0]:Traceback (most recent call last):\n"
	    "[default0]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:44735\n"
	    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 4241 closing signal SIGTERM\n"
	    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 4242) of binary: /usr/bin/python3\n",
	    0);
	if (with_dmesg)
		put("dmesg.log", "[Wed Dec  2 13:20:20 2026] Out of memory: "
		    "Killed process 4242 (pt_main_thread) total-vm:98765432kB, "
		    "anon-rss:61234567kB, file-rss:65432kB, shmem-rss:12345kB, "
		    "UID:0 pgtables:130000kB oom_score_adj:0\n", 0);
	inc = analyze();
	e = first(inc);
	tb = &inc->answer.checklist[CHECK_TRACEBACK];
	if (!with_dmesg) {
		ok(e != NULL && e->rank == 1, "1: the rank killed with no "
		    "traceback is the first failure");
		is_int(inc->answer.domain, DOMAIN_INFRA, "4: SIGKILL: "
		    "infrastructure");
		ok(has_ev(&inc->answer.first_evidence, "died by signal 9",
		    STANCE_SUPPORTS) && has_ev(&inc->answer.first_evidence,
		    "last words", STANCE_SUPPORTS), "1: its evidence is the "
		    "launcher's record and its last line");
		ok(says(inc->answer.verdict_explanation, "OOM killer"),
		    "4: the verdict says what to look for: no kernel line "
		    "confirms the kill");
		ok(!tb->found && says(tb->missing, "rank 1 (killed by a signal"),
		    "5: the checklist asks for rank 1's dmesg, not a "
		    "traceback it cannot have");
		ok(says(inc->answer.checklist[CHECK_KERNEL].missing, "dmesg"),
		    "5: the checklist lists the missing kernel lines");
	} else {
		ok(e != NULL && e->rank == 1 && e->rule != NULL &&
		    strcmp(e->rule->id, "kernel.oom.killed") == 0,
		    "1: dmesg's OOM kill of pid 4242 is joined to rank 1 and "
		    "is its first failure");
		/* #23: an OOM kill is capacity, like a CUDA OOM. */
		is_int(inc->answer.domain, DOMAIN_CONFIG, "4: the OOM killer: "
		    "capacity (config), as a CUDA OOM is");
		ok(inc->answer.checklist[CHECK_KERNEL].found,
		    "5: the kernel lines are in the checklist");
	}
	incident_free(inc);
	tree_empty();
}

/* --- section 3: checkpoints ------------------------------------------ */

/* Megatron save lines for a rank. */
static void
save_lines(struct buf *b, int rank, int step, const char *begin,
    const char *end)
{
	buf_printf(b, "2026-12-02 %s INFO     [rank%d] train: saving checkpoint "
	    "at iteration %7d to checkpoints\n", begin, rank, step);
	if (end != NULL)
		buf_printf(b, "2026-12-02 %s INFO     [rank%d] train: successfully "
		    "saved checkpoint from iteration %7d to checkpoints\n", end,
		    rank, step);
}

/* Rank 1 dies by SIGKILL while saving step 20; the others finish it. */
static void
test_ckpt_during_save(void)
{
	struct rl_incident	*inc;
	struct buf		 b[2] = { { 0 } };

	save_lines(&b[0], 0, 10, "13:21:00,000", "13:21:00,100");
	save_lines(&b[1], 1, 10, "13:21:00,000", "13:21:00,100");
	save_lines(&b[0], 0, 20, "13:22:00,000", "13:22:00,100");
	save_lines(&b[1], 1, 20, "13:22:00,000", NULL);
	put("logs/rank0.log", b[0].p, 0);
	put("logs/rank1.log", b[1].p, 0);
	put("torchrun.log", "ERROR:torch.distributed.elastic.multiprocessing."
	    "api:failed (exitcode: -9) local_rank: 1 (pid: 4325) of binary: "
	    "/usr/bin/python3\n", 0);
	buf_clear(&b[0]);
	buf_clear(&b[1]);
	inc = analyze();
	is_int(inc->answer.last_safe_step, 10, "3: the last step every saver "
	    "completed before the failure");
	ok(inc->answer.nunsafe == 1 && inc->answer.unsafe_steps[0] == 20,
	    "3: step 20, begun and not completed by rank 1, is unsafe");
	is_int(inc->answer.ckpt, CKPT_UNSAFE, "3: status unsafe");
	ok(has_ev(&inc->answer.ckpt_evidence, "rank 1 did not log",
	    STANCE_SUPPORTS), "3: rank 1's begun save is the evidence");
	ok(says(inc->answer.ckpt_explanation, "step 10"),
	    "3: the explanation names the step to resume from");
	incident_free(inc);
	tree_empty();
}

/*
 * Only rank 0 saves; rank 1 failed at 13:22:00, and rank 0's save of step
 * 20 completed 5 s later: an emergency save, not counted.
 */
static void
test_ckpt_after_failure(void)
{
	struct rl_incident	*inc;
	struct buf		 b = { 0 };

	save_lines(&b, 0, 10, "13:21:00,000", "13:21:00,100");
	save_lines(&b, 0, 20, "13:22:04,000", "13:22:05,000");
	put("logs/rank0.log", b.p, 0);
	put("logs/rank1.log", "2026-12-02 13:22:00,000 ERROR    [rank1] train: "
	    "training aborted by exception\nTraceback (most recent call "
	    "last):\nIndexError: list index out of range\n", 0);
	buf_clear(&b);
	inc = analyze();
	is_int(inc->answer.last_safe_step, 10, "3: a save completed after the "
	    "first failure does not count");
	incident_free(inc);
	tree_empty();
}

/* An Xid 48 on the node before step 20's save completed: step 20 suspect. */
static void
test_ckpt_hw_suspect(void)
{
	struct rl_incident	*inc;
	struct buf		 b = { 0 };

	save_lines(&b, 0, 10, "13:21:00,000", "13:21:00,100");
	save_lines(&b, 0, 20, "13:22:00,000", "13:22:02,000");
	step_line(&b, "13:22:03,000", 0, 21);
	buf_adds(&b, "2026-12-02 13:22:04,000 ERROR    [rank0] train: aborted\n"
	    "RuntimeError: CUDA error: uncorrectable ECC error encountered\n");
	put("logs/rank0.log", b.p, 0);
	put("dmesg.log", "[Wed Dec  2 13:22:01 2026] NVRM: Xid (PCI:0000:18:00): "
	    "48, pid=3110652, name=pt_main_thread, Ch 00000008\n", 0);
	buf_clear(&b);
	inc = analyze();
	is_int(inc->answer.last_safe_step, 20, "3: step 20 completed");
	ok(inc->answer.nsuspect == 1 && inc->answer.suspect_steps[0] == 20,
	    "3: but a hardware error came before it completed: suspect");
	is_int(inc->answer.clean_step, 10, "3: step 10 came before the error");
	ok(says(inc->answer.ckpt_explanation, "Suspect"),
	    "3: the explanation says it is suspect");
	incident_free(inc);
	tree_empty();
}

/* Shard files: binary, of a given size. */
static void
shard(const char *rel, size_t n)
{
	char	*data = xcalloc(n, 1);

	memset(data, 0x80, n);
	put(rel, data, n);
	free(data);
}

/*
 * The logs say step 20 was saved by every rank, but one shard of step 20
 * is a quarter of its siblings and the tracker names step 10.
 */
static void
test_ckpt_folder(void)
{
	struct rl_incident	*inc;
	struct buf		 b[2] = { { 0 } };
	char			 name[96];
	int			 r, s;

	for (r = 0; r < 2; r++) {
		save_lines(&b[r], r, 10, "13:21:00,000", "13:21:00,100");
		save_lines(&b[r], r, 20, "13:22:00,000", "13:22:00,100");
	}
	buf_adds(&b[1], "2026-12-02 13:22:30,000 ERROR    [rank1] train: x\n"
	    "IndexError: list index out of range\n");
	put("logs/rank0.log", b[0].p, 0);
	put("logs/rank1.log", b[1].p, 0);
	buf_clear(&b[0]);
	buf_clear(&b[1]);
	for (s = 10; s <= 20; s += 10) {
		for (r = 0; r < 3; r++) {
			snprintf(name, sizeof name, "checkpoints/iter_%07d/"
			    "mp_rank_%02d/model_optim_rng.pt", s, r);
			shard(name, s == 20 && r == 1 ? 4000 : 16000);
		}
	}
	put("checkpoints/latest_checkpointed_iteration.txt", "10", 0);
	inc = analyze();
	is_int(inc->answer.last_safe_step, 10, "3: the folder changes the "
	    "answer: step 20's shard was cut short, the tracker says 10");
	ok(inc->answer.nunsafe == 1 && inc->answer.unsafe_steps[0] == 20,
	    "3: step 20 is unsafe on disk");
	ok(has_ev(&inc->answer.ckpt_evidence, "cut short", STANCE_SUPPORTS),
	    "3: the short shard is evidence");
	ok(has_ev(&inc->answer.ckpt_evidence, "tracker", STANCE_SUPPORTS),
	    "3: the tracker is evidence");
	incident_free(inc);
	tree_empty();
}

/* No checkpoint lines at all: the folder alone says what is whole. */
static void
test_ckpt_folder_only(void)
{
	struct rl_incident	*inc;
	char			 name[96];
	int			 r;

	put("logs/rank0.log", "2026-12-02 13:22:30,000 ERROR    [rank0] x\n"
	    "IndexError: list index out of range\n", 0);
	for (r = 0; r < 4; r++) {
		snprintf(name, sizeof name, "output/checkpoint-5/"
		    "pytorch_model-rank%d.bin", r);
		shard(name, 16000);
		if (r == 2)
			continue;	/* a rank's shard never written */
		snprintf(name, sizeof name, "output/checkpoint-10/"
		    "pytorch_model-rank%d.bin", r);
		shard(name, 16000);
	}
	inc = analyze();
	is_int(inc->answer.ckpt, CKPT_UNSAFE, "3: step 10 is missing rank 2's "
	    "shard: unsafe");
	is_int(inc->answer.last_safe_step, 5, "3: and step 5 is whole");
	incident_free(inc);
	tree_empty();
}

/* --- section 4: the verdict ------------------------------------------ */

/*
 * A job of nranks ranks, four a node (node0/rank0.log ...), each node with
 * the same four GPUs: NCCL names each rank's bus id; rank faulty hits an
 * illegal memory access, the others lose their peer.
 */
static void
pci_job(int nranks, int faulty)
{
	static const char *bus[] = { "1b000", "29000", "97000", "a2000" };
	char		 name[64];
	int		 r;

	for (r = 0; r < nranks; r++) {
		struct buf	b = { 0 };

		buf_printf(&b, "node%d:42%02d:42%02d [%d] NCCL INFO "
		    "ncclCommInitRank comm 0x55d0 rank %d nranks %d cudaDev %d "
		    "nvmlDev %d busId %s commId 0x1 - Init COMPLETE\n", r / 4,
		    r, r, r % 4, r, nranks, r % 4, r % 4, bus[r % 4]);
		step_line(&b, "13:30:00,000", r, 1);
		if (r == faulty)
			buf_printf(&b, "2026-12-02 13:30:04,000 ERROR    "
			    "[rank%d] RuntimeError: CUDA error: an illegal "
			    "memory access was encountered\n", r);
		else
			buf_adds(&b, "RuntimeError: [../third_party/gloo/gloo/"
			    "transport/tcp/pair.cc:598] Connection closed by "
			    "peer [127.0.0.1]:44735\n");
		snprintf(name, sizeof name, "node%d/rank%d.log", r / 4, r);
		put(name, b.p, 0);
		buf_clear(&b);
	}
}

/*
 * Rank 2's kernel faults (an illegal address: framework); dmesg shows Xid
 * 79 on PCI 0000:97:00, which NCCL says is rank 2's GPU (busId 97000).
 */
static void
test_pci_join(void)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	char			 key[24], id[24], want[40];
	size_t			 i, bad;
	unsigned long		 v;
	bool			 advice = false;

	pci_job(4, 2);
	put("node0/dmesg.log", "[Wed Dec  2 13:30:05 2026] NVRM: Xid "
	    "(PCI:0000:97:00): 79, pid=4202, name=pt_main_thread, GPU has "
	    "fallen off the bus.\n", 0);
	inc = analyze();
	e = first(inc);
	ok(e != NULL && e->rank == 2, "4: rank 2 failed first");
	is_int(inc->answer.domain, DOMAIN_HARDWARE, "4: the Xid on rank 2's GPU "
	    "makes the kernel fault hardware");
	ok(has_ev(&inc->answer.verdict_evidence, "rank 2's own GPU",
	    STANCE_SUPPORTS), "4: the Xid line, joined by PCI address, is "
	    "evidence");
	for (i = 0; i < inc->answer.nadvice; i++)
		advice |= inc->answer.advice[i].kind == ADVICE_HARDWARE;
	ok(advice, "4: the next step hands the node to the hardware team");
	ok(pci_normalize("PCI:0000:97:00", key, sizeof key) &&
	    strcmp(key, "0000:97:00") == 0, "4: Xid's PCI form");
	ok(pci_normalize("00000000:97:00.0", key, sizeof key) &&
	    strcmp(key, "0000:97:00") == 0, "4: nvidia-smi's form");
	ok(pci_normalize("97000", key, sizeof key) &&
	    strcmp(key, "0000:97:00") == 0, "4: NCCL's busId");
	ok(pci_normalize("1b000", key, sizeof key) &&
	    strcmp(key, "0000:1b:00") == 0, "4: NCCL's busId 1b000");
	for (i = 0, bad = 0; i < 4000; i++) {
		/* Packed busIds of every width, against printf's %lx. */
		v = (unsigned long)i * 2654435761u >> (i % 29);
		snprintf(id, sizeof id, "%lx", v);
		snprintf(want, sizeof want, "%04lx:%02lx:%02lx", v >> 20,
		    (v >> 12) & 0xff, (v >> 4) & 0xff);
		bad += !pci_normalize(id, key, sizeof key) ||
		    strcmp(key, want) != 0;
	}
	is_int((int)bad, 0, "4: every busId width reads as printf writes it");
	ok(!pci_normalize("fffffffffff", key, 8) && pci_normalize("97000", key,
	    11) && !pci_normalize("97000", key, 10), "4: an address that does "
	    "not fit the room is refused, one that does is written");
	incident_free(inc);
	tree_empty();
}

/*
 * Two nodes with the same four GPUs (every node's bus ids are the same):
 * node1's Xid names its own 97000, rank 6's, not node0's rank 2.  The
 * ties are looked up by bus id and host, since hashed by bus id alone
 * they were one per node to walk.
 */
static void
test_pci_join_hosts(void)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;

	pci_job(8, 6);
	put("node1/dmesg.log", "[Wed Dec  2 13:30:05 2026] NVRM: Xid "
	    "(PCI:0000:97:00): 79, pid=4206, name=pt_main_thread, GPU has "
	    "fallen off the bus.\n", 0);
	inc = analyze();
	e = first(inc);
	ok(e != NULL && e->rank == 6, "4: two nodes: rank 6 failed first");
	is_int(inc->answer.domain, DOMAIN_HARDWARE, "4: two nodes: node1's "
	    "Xid on 97000 is rank 6's GPU, though node0's 97000 is rank 2's");
	ok(has_ev(&inc->answer.verdict_evidence, "rank 6's own GPU",
	    STANCE_SUPPORTS), "4: two nodes: the Xid line is joined to rank 6");
	incident_free(inc);
	tree_empty();
}

/* vLLM V0: the budget is spent before the KV cache; one change each. */
static void
test_capacity(void)
{
	struct rl_incident	*inc;
	const struct rl_capacity *c;
	double			 v;

	put("vllm.log",
	    "INFO 03-25 21:32:40 api_server.py:177] args: Namespace(host=None, "
	    "port=8000, model='facebook/opt-13b', max_model_len=4096, "
	    "gpu_memory_utilization=0.9, max_num_seqs=256)\n"
	    "INFO 03-25 21:32:48 worker.py:266] Memory profiling takes 1.62 "
	    "seconds\n"
	    "INFO 03-25 21:32:48 worker.py:266] the current vLLM instance can "
	    "use total_gpu_memory (22.06GiB) x gpu_memory_utilization (0.90) = "
	    "19.86GiB\n"
	    "INFO 03-25 21:32:48 worker.py:266] model weights take 14.99GiB; "
	    "non_torch_memory takes 0.05GiB; PyTorch activation peak memory "
	    "takes 5.76GiB; the rest of the memory reserved for KV Cache is "
	    "-0.94GiB.\n"
	    "ERROR 03-25 21:32:48 engine.py:387] ValueError: No available "
	    "memory for the cache blocks. Try increasing "
	    "`gpu_memory_utilization` when initializing the engine.\n", 0);
	inc = analyze();
	c = &inc->answer.capacity;
	ok(c->present, "7: the memory profile is read");
	ok(fabs(c->total_gib - 22.06) < 1e-6 && fabs(c->util - 0.9) < 1e-6 &&
	    fabs(c->budget_gib - 19.86) < 1e-6, "7: total x utilization = "
	    "budget");
	ok(fabs(c->weights_gib - 14.99) < 1e-6 &&
	    fabs(c->activation_gib - 5.76) < 1e-6 &&
	    fabs(c->kv_gib + 0.94) < 1e-6, "7: weights, activation peak and "
	    "what is left for the KV cache");
	ok(c->max_model_len == 4096 && c->max_num_seqs == 256,
	    "7: the limits from the arguments");
	ok(c->nwhatif >= 2 && says(c->whatif[0], "--gpu-memory-utilization"),
	    "7: what one change would give (%s)", c->nwhatif > 0 ?
	    c->whatif[0] : "none");
	is_int(inc->answer.domain, DOMAIN_CONFIG, "4: capacity is config");
	is_int(inc->answer.group, GROUP_CAPACITY, "4: group capacity");
	ok(has_ev(&inc->answer.verdict_evidence, "memory budget",
	    STANCE_SUPPORTS), "4: the memory profile corroborates capacity");
	ok(inc->answer.checklist[CHECK_MEMORY].found &&
	    inc->answer.checklist[CHECK_ARGS].found &&
	    inc->answer.checklist[CHECK_MODEL].found, "5: memory profile, "
	    "arguments and model are in the checklist");
	ok(text_key_num("{'max_model_len': 262144, 'x': 1}", "max_model_len",
	    &v) && v == 262144, "7: a dict's key");
	ok(text_key_num("vllm serve m --max-model-len 4096", "--max-model-len",
	    &v) && v == 4096, "7: an option");
	ok(!text_key_num("my_max_model_len=5", "max_model_len", &v),
	    "7: a key inside another name is not it");
	incident_free(inc);
	tree_empty();
}

/*
 * Writers no line gives a rank are said as processes, never as rank -1
 * (RL_NONE): a launcher's kill record, and the checklist's tracebacks.
 */
static void
test_unranked_words(void)
{
	struct rl_incident	*inc;
	const struct rl_check_item *tb;

	put("launcher.log", "[2025-05-12 10:31:02,123] [ERROR] "
	    "[launch.py:434:sigkill_handler] ['/usr/bin/python', '-u', "
	    "'train.py', '--local_rank=0'] exits with return code = -9\n", 0);
	inc = analyze();
	ok(first(inc) != NULL && has_ev(&inc->answer.first_evidence,
	    "a process died by signal 9", STANCE_SUPPORTS) &&
	    !has_ev(&inc->answer.first_evidence, "rank -1", STANCE_SUPPORTS),
	    "1: an unranked kill record is a process's death, not rank -1's");
	incident_free(inc);
	tree_empty();

	put("node07/server.log", "INFO 05-12 10:31:01 [worker.py:1] x\n"
	    "ERROR 05-12 10:31:02 [engine.py:1] ValueError: No available "
	    "memory for the cache blocks. Try increasing "
	    "`gpu_memory_utilization` when initializing the engine.\n", 0);
	inc = analyze();
	tb = &inc->answer.checklist[CHECK_TRACEBACK];
	ok(first(inc) != NULL && tb->missing != NULL &&
	    !says(tb->missing, "rank -1") && says(tb->missing, "a process on "
	    "node07"), "5: the checklist asks for the process's traceback by "
	    "its host: %s", tb->missing != NULL ? tb->missing : "(none)");
	incident_free(inc);
	tree_empty();
}

/*
 * Every rank failing alike points away from one node; at the code only
 * when the domain says so: a port every rank found taken is the set-up's.
 */
static void
test_alike_words(void)
{
	static const char bind[] = "torch.distributed.DistNetworkError: The "
	    "server socket has failed to listen on any local network address. "
	    "port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, "
	    "message: address already in use\n";
	struct rl_incident	*inc;

	put("logs/rank0.log", bind, 0);
	put("logs/rank1.log", bind, 0);
	inc = analyze();
	ok(inc->answer.scope == SCOPE_ALL && inc->answer.domain ==
	    DOMAIN_INFRA && says(inc->answer.verdict_explanation, "what they "
	    "all share") && !says(inc->answer.verdict_explanation, "the code, "
	    "the config or the data"), "4: alike on every rank, infrastructure: "
	    "not pointed at the code: %s", inc->answer.verdict_explanation);
	incident_free(inc);
	tree_empty();
}

/* A healthy run: no failure, no advice, nothing to weigh. */
static void
test_healthy(void)
{
	struct rl_incident	*inc;
	struct buf		 b = { 0 };

	step_line(&b, "13:21:00,000", 0, 1);
	save_lines(&b, 0, 10, "13:21:01,000", "13:21:01,100");
	put("logs/rank0.log", b.p, 0);
	buf_clear(&b);
	inc = analyze();
	ok(first(inc) == NULL && inc->answer.nadvice == 0 &&
	    inc->answer.first_evidence.n == 0, "1: no failure, no evidence, "
	    "no advice");
	is_int(inc->answer.ckpt, CKPT_NONE, "3: status none");
	incident_free(inc);
	tree_empty();
}

int
main(void)
{
	tree_create();
	rules = rules_shipped();
	test_first_evidence();
	test_direct_line();
	test_skew();
	test_skew_common();
	test_killed(false);
	test_killed(true);
	test_ckpt_during_save();
	test_ckpt_after_failure();
	test_ckpt_hw_suspect();
	test_ckpt_folder();
	test_ckpt_folder_only();
	test_pci_join();
	test_pci_join_hosts();
	test_capacity();
	test_healthy();
	test_unranked_words();
	test_alike_words();
	ruleset_free(rules);
	tree_remove();
	return tap_done();
}
