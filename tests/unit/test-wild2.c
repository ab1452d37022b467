/*
 * test-wild2.c: more classes of the failure logs users paste in public
 * threads (#23), on the shipped packs, one real-format excerpt each, in
 * the wordings signatures.md records (never copies of the wild corpus):
 * hangs judged from the watchdog lines themselves, a handled error that
 * is not the failure, the specific line of an error block over the
 * generic one, no rank dropped, srun's signals said in words, NCCL's
 * timed WARN lines, a Ray actor's rank in its name, another process's
 * memory in an out-of-memory message, no memory left for the KV cache,
 * and subgroups that share a PG ID.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

/* Analyze logs held in strings, one file each. */
static struct rl_incident *
run_many(struct ruleset *rs, const char *const *text, const size_t *len,
    size_t n)
{
	struct rl_incident	*inc = incident_create(rs);
	char			 path[8][32];
	size_t			 i;
	int			 fd;

	for (i = 0; i < n && i < 8; i++) {
		strcpy(path[i], "/tmp/rl-test-wild2-XXXXXX");
		if ((fd = mkstemp(path[i])) == -1 ||
		    write(fd, text[i], len[i]) != (ssize_t)len[i])
			fatal("cannot write %s", path[i]);
		close(fd);
		source_add_path(inc, path[i]);
	}
	for (i = 0; i < inc->nsources; i++)
		source_file_read(inc, inc->sources[i], NULL, NULL);
	pipeline_diagnose(inc);
	for (i = 0; i < n && i < 8; i++)
		unlink(path[i]);
	return inc;
}

/*
 * Class 4: torch.distributed.launch's store cannot bind (PyTorch 1.x, the
 * split c10d lines), and the launcher's traceback is cut before its
 * exception line.
 */
static void
test_bind_then_traceback(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    "[W socket.cpp:401] [c10d] The server socket has failed to bind "
	    "to [::]:29500 (errno: 98 - Address already in use).\n"
	    "[W socket.cpp:401] [c10d] The server socket has failed to bind "
	    "to 0.0.0.0:29500 (errno: 98 - Address already in use).\n"
	    "[E socket.cpp:435] [c10d] The server socket has failed to listen "
	    "on any local network address.\n"
	    "Traceback (most recent call last):\n"
	    "  File \"/usr/lib/python3.8/runpy.py\", line 194, in "
	    "_run_module_as_main\n"
	    "    return _run_code(code, main_globals, None,\n"
	    "  File \"/opt/torch/distributed/launch.py\", line 193, in "
	    "<module>\n"
	    "    main()\n");
	const struct rl_event	*e = first(inc);

	ok(e != NULL && e->rule != NULL && strcmp(e->rule->id,
	    "torch.store.bind_attempt_failed") == 0, "a store that cannot "
	    "listen, then a traceback: the c10d line is the failure (%s)",
	    first_rule(inc));
	ok(e != NULL && strstr(e->text, "failed to listen") != NULL,
	    "the line nearest the traceback is the signature");
	is_int(inc->answer.domain, DOMAIN_INFRA, "a port held: infrastructure");
	is_int(inc->answer.scope, SCOPE_ALL, "the store never formed: the "
	    "whole job");
	incident_free(inc);

	/* torchrun's c10d rendezvous connects as a client: it goes on. */
	inc = run(rs,
	    "W1202 13:51:03.077155 18164 socket.cpp:426] [c10d] The server "
	    "socket has failed to bind to [::]:29500 (errno: 98 - Address "
	    "already in use).\n"
	    "E1202 13:51:03.078181 18164 socket.cpp:462] [c10d] The server "
	    "socket has failed to listen on any local network address.\n"
	    "[rank0]: step 1/100 loss 2.31\n"
	    "[rank0]: step 2/100 loss 2.27\n");
	ok(first(inc) == NULL, "the same lines with no traceback after them: "
	    "no failure (%s)", first_rule(inc));
	incident_free(inc);
}

/*
 * A watchdog timeout line with a prefix: PyTorch 2.0's wording, or the
 * newest (process group ids, NumelIn/NumelOut, a timestamp).
 */
static void
watchdog(struct buf *b, const char *prefix, int rank, int seq, bool newest)
{
	if (newest)
		buf_printf(b, "%s[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:"
		    "629] [PG ID 0 PG GUID 0(default_pg) Rank %d] Watchdog "
		    "caught collective operation timeout: WorkNCCL(SeqNum=%d, "
		    "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)="
		    "600000) ran for %d milliseconds before timing out.\n",
		    prefix, rank, seq, 600081 + rank);
	else
		buf_printf(b, "%s[E ProcessGroupNCCL.cpp:475] [Rank %d] "
		    "Watchdog caught collective operation timeout: WorkNCCL("
		    "SeqNum=%d, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for "
		    "%d milliseconds before timing out.\n", prefix, rank, seq,
		    1800300 + rank);
}

/* The rank a hang's culprit is for being out of step, or -1. */
static int
hang_rank(const struct rl_incident *inc)
{
	const struct rl_event	*e = first(inc);
	const char		*basis = inc->answer.hang.basis;

	return e != NULL && e->role == ROLE_HANG && basis != NULL &&
	    strcmp(basis, "lagging") == 0 ? e->rank : -1;
}

/*
 * Class 2: the watchdog lines' own SeqNum name the rank out of step, with
 * no desync dump and no timestamps; the rank comes from a [rankN]: prefix
 * (after a progress bar's carriage return too) or from [Rank N].
 */
static void
test_seqnum(struct ruleset *rs)
{
	static const struct {
		int		 seq[4];
		int		 want;
		const char	*what;
	} cases[] = {
		{ { 1234, 1234, 1233, 1234 }, 2, "the one lowest SeqNum" },
		{ { 88, 87, 87, 87 }, 0, "the one SeqNum all others differ from" },
		{ { 1234, 1234, 1234, 1234 }, -1, "all alike: none out of step" },
		{ { 5, 6, 5, 6 }, -1, "two against two: none out of step" },
	};
	static const char *const forms[] = { "[rank%d]:", "", "cr", "new" };
	struct rl_incident	*inc;
	struct buf		 b = { 0 };
	char			 pre[80];
	size_t			 i, f;
	int			 r;

	for (f = 0; f < sizeof forms / sizeof *forms; f++) {
		for (i = 0; i < sizeof cases / sizeof *cases; i++) {
			b.len = 0;
			for (r = 0; r < 4; r++) {
				if (strcmp(forms[f], "new") == 0)
					snprintf(pre, sizeof pre, "[rank%d]:", r);
				else if (strcmp(forms[f], "cr") == 0)
					snprintf(pre, sizeof pre, "  3%%|\xe2\x96"
					    "\x88  | 10/300 [00:01<00:29,  9.8it/s]"
					    "\r[rank%d]:", r);
				else
					snprintf(pre, sizeof pre, forms[f], r);
				watchdog(&b, pre, r, cases[i].seq[r],
				    strcmp(forms[f], "new") == 0);
			}
			inc = run(rs, b.p);
			is_int(hang_rank(inc), cases[i].want, "%s (%s): rank "
			    "%d", cases[i].what, f == 0 ? "[rankN]: prefix" :
			    f == 1 ? "[Rank N] only" : f == 2 ?
			    "after a progress bar" : "newest wording, timed",
			    cases[i].want);
			incident_free(inc);
		}
	}
	buf_clear(&b);
}

/* Is there an event whose text holds this, made harmless? */
static bool
has_harmless(const struct rl_incident *inc, const char *text)
{
	size_t	i;

	for (i = 0; i < inc->nevents; i++) {
		if (inc->events[i]->rule != NULL && inc->events[i]->harmless &&
		    inc->events[i]->text != NULL &&
		    strstr(inc->events[i]->text, text) != NULL)
			return true;
	}
	return false;
}

/* A caught exception: a rank's traceback, in torchrun's [defaultN]: form. */
#define CAUGHT \
	"[default1]:Traceback (most recent call last):\n" \
	"[default1]:  File \"/work/train.py\", line 88, in fetch_batch\n" \
	"[default1]:    batch = next(it)\n" \
	"[default1]:OSError: [Errno 5] Input/output error: " \
	"'/data/shard-00017.arrow'\n"

/* Class 3: the same process goes on after its traceback. */
static void
test_handled(struct ruleset *rs)
{
	static const struct {
		const char	*after;
		const char	*what;
	} goes_on[] = {
		{ "[default1]:12/02/2026 13:22:09 - INFO - train - [rank1] "
		  "iteration      8/    30 | lm loss: 1.2E+00 |\n"
		  "[default1]:12/02/2026 13:22:10 - INFO - train - [rank1] "
		  "iteration      9/    30 | lm loss: 1.1E+00 |\n",
		  "two steps beyond the last" },
		{ "[default1]:WARNING:huggingface_hub.utils._http:Retrying in "
		  "1s [Retry 1/5].\n", "a retry" },
		{ "[default1]:INFO:     127.0.0.1:38352 - \"POST "
		  "/v1/chat/completions HTTP/1.1\" 200 OK\n", "a request served" },
	};
	struct rl_incident	*inc;
	struct buf		 b = { 0 };
	size_t			 i;

	for (i = 0; i < sizeof goes_on / sizeof *goes_on; i++) {
		b.len = 0;
		buf_printf(&b, "[default1]:12/02/2026 13:22:07 - INFO - train - "
		    "[rank1] iteration      7/    30 | lm loss: 1.3E+00 |\n"
		    "%s%s", CAUGHT, goes_on[i].after);
		inc = run(rs, b.p);
		ok(first(inc) == NULL, "a traceback, then %s of the same "
		    "process: no failure (%s)", goes_on[i].what,
		    first_rule(inc));
		ok(has_harmless(inc, "Input/output error"), "its exception stays "
		    "an event, harmless");
		incident_free(inc);
	}

	/* Steps flushed late, then torchrun records the rank's death. */
	b.len = 0;
	buf_printf(&b, "[default1]:12/02/2026 13:22:07 - INFO - train - "
	    "[rank1] iteration      7/    30 | lm loss: 1.3E+00 |\n%s%s%s",
	    CAUGHT, goes_on[0].after,
	    "  rank      : 1 (local_rank: 1)\n"
	    "  exitcode  : 1 (pid: 4005)\n");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && first(inc)->rank == 1 && strstr(
	    first(inc)->text, "Input/output error") != NULL, "steps after it, but "
	    "the launcher records rank 1's exit: its exception is the "
	    "failure (%s)", first_rule(inc));
	incident_free(inc);

	/* One step after is a buffer flushed at exit, not progress. */
	b.len = 0;
	buf_printf(&b, "[default1]:12/02/2026 13:22:07 - INFO - train - "
	    "[rank1] iteration      7/    30 | lm loss: 1.3E+00 |\n%s%s",
	    CAUGHT, "[default1]:12/02/2026 13:22:07 - INFO - train - [rank1] "
	    "iteration      8/    30 | lm loss: 1.2E+00 |\n");
	inc = run(rs, b.p);
	ok(first(inc) != NULL, "one step after the traceback: still the "
	    "failure (%s)", first_rule(inc));
	incident_free(inc);

	/* Another rank's steps never excuse it. */
	b.len = 0;
	buf_printf(&b, "%s%s", CAUGHT,
	    "[default0]:12/02/2026 13:22:09 - INFO - train - [rank0] "
	    "iteration      8/    30 | lm loss: 1.2E+00 |\n"
	    "[default0]:12/02/2026 13:22:10 - INFO - train - [rank0] "
	    "iteration      9/    30 | lm loss: 1.1E+00 |\n");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && first(inc)->rank == 1, "rank 0's steps "
	    "after rank 1's traceback: rank 1 failed (%s)", first_rule(inc));
	incident_free(inc);

	/* A handled error, then the real one: the real one is first. */
	b.len = 0;
	buf_printf(&b, "%s%s%s", CAUGHT, goes_on[1].after,
	    "[default1]:torch.OutOfMemoryError: CUDA out of memory. Tried to "
	    "allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB of "
	    "which 1.06 GiB is free.\n");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && strstr(first(inc)->text, "out of memory") !=
	    NULL, "a retry, then an OOM: the OOM is the failure (%s)",
	    first_rule(inc));
	incident_free(inc);
	buf_clear(&b);
}

/*
 * Class 8: a log with a stretch of zeros (pages a crashed node never
 * wrote) is read around them, and the source says how much was left out;
 * a checkpoint shard is still skipped as binary.
 */
static void
test_nul(struct ruleset *rs)
{
	static const char ok0[] = "[rank0]: step 10 loss 1.02\n"
	    "[rank1]: step 10 loss 1.03\n";
	static const char tail[] = "[rank1]: Traceback (most recent call "
	    "last):\n[rank1]: RuntimeError: CUDA error: an illegal memory "
	    "access was encountered\n[rank0]: step 11 loss 1.01\n";
	const char	*text[2];
	size_t		 len[2], i;
	char		*log, *bin;
	struct rl_incident *inc;
	const struct rl_source *src;
	const struct rl_event *e;

	/* Text, 4,096 zeros, then the failing rank's lines. */
	len[0] = sizeof ok0 - 1 + 4096 + sizeof tail - 1;
	log = xcalloc(1, len[0]);
	memcpy(log, ok0, sizeof ok0 - 1);
	memcpy(log + sizeof ok0 - 1 + 4096, tail, sizeof tail - 1);
	text[0] = log;
	inc = run_many(rs, text, len, 1);
	e = first(inc);
	src = inc->sources[0];
	ok(!src->binary, "a log with a run of zeros is not skipped as binary");
	ok(e != NULL && e->rank == 1 && strstr(e->text, "illegal memory") !=
	    NULL, "rank 1's error after the zeros is found and its own (%s, "
	    "rank %d)", first_rule(inc), e != NULL ? e->rank : -1);
	is_int((long long)src->binary_lines, 1, "one line held the zeros");
	is_int((long long)src->binary_bytes, 4096, "4,096 bytes left out");
	is_int((long long)inc->nranks, 2, "both ranks are rows");
	incident_free(inc);

	/* The same zeros at the very start of the file. */
	memmove(log, log + sizeof ok0 - 1, 4096 + sizeof tail - 1);
	len[0] = 4096 + sizeof tail - 1;
	inc = run_many(rs, text, len, 1);
	ok(first(inc) != NULL && first(inc)->rank == 1, "zeros first, then "
	    "the lines: read (%s)", first_rule(inc));
	incident_free(inc);

	/* A zip archive's first bytes (a torch.save shard) and a log. */
	len[1] = 4096;
	bin = xcalloc(1, len[1]);
	memcpy(bin, "PK\x03\x04\x14\x00\x00\x00\x08\x00archive/data.pkl",
	    26);
	for (i = 26; i < len[1]; i++)
		bin[i] = (char)((i * 2654435761u) >> 13);
	text[1] = bin;
	inc = run_many(rs, text, len, 2);
	ok(inc->sources[1]->binary, "a checkpoint shard is still skipped as "
	    "binary");
	ok(first(inc) != NULL && first(inc)->rank == 1, "and the log beside "
	    "it is read");
	incident_free(inc);
	free(bin);
	free(log);
}

/*
 * Class 8: the ranks of one interleaved file raised alike; the paste shows
 * one whole traceback and the others' first lines.  Scope all; one rank
 * alone with the others busy is scope one.
 */
static void
test_alike(struct ruleset *rs)
{
	struct rl_incident	*inc;
	struct buf		 b = { 0 };
	int			 r;

	for (r = 0; r < 3; r++)
		buf_printf(&b, "[rank%d]: Traceback (most recent call last):\n"
		    "[rank%d]:   File \"/opt/LLaMA-Factory/src/llamafactory/"
		    "launcher.py\", line 23, in <module>\n[rank%d]:     "
		    "launch()\n", r, r, r);
	buf_adds(&b, "[rank3]:   File \"/opt/LLaMA-Factory/src/llamafactory/"
	    "data/loader.py\", line 75, in _load_single_dataset\n"
	    "[rank3]:     raise ValueError(f\"File {local_path} not found.\")\n"
	    "[rank3]: ValueError: File data/train_set.json not found.\n");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && inc->answer.scope == SCOPE_ALL, "one "
	    "traceback whole, three begun alike: scope all (%s, scope %d)",
	    first_rule(inc), (int)inc->answer.scope);
	incident_free(inc);

	b.len = 0;
	for (r = 0; r < 3; r++)
		buf_printf(&b, "[rank%d]: step 12 loss 1.20\n", r);
	buf_adds(&b, "[rank3]: ValueError: File data/train_set.json not "
	    "found.\n");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && inc->answer.scope == SCOPE_ONE, "one rank "
	    "raised, the others stepped: scope one (scope %d)",
	    (int)inc->answer.scope);
	incident_free(inc);
	buf_clear(&b);
}

/* Class 8: "the launcher" is said of a launcher's line only. */
static void
test_launcher_words(struct ruleset *rs)
{
	struct rl_incident	*inc;

	inc = run(rs, "[rank0]: step 3 loss 2.0\n[rank1]: step 3 loss 2.0\n"
	    "Fatal Python error: Segmentation fault\n");
	ok(inc->answer.summary != NULL && strstr(inc->answer.summary,
	    "unattributed") != NULL && strstr(inc->answer.summary,
	    "launcher") == NULL, "ranks known, and a segfault no prefix "
	    "attributes: unattributed, not the launcher's: %s",
	    inc->answer.summary);
	ok(!inc->answer.first_launcher && inc->answer.first_unattributed,
	    "nor is it the launcher's line");
	incident_free(inc);

	inc = run(rs, "Fatal Python error: Segmentation fault\n");
	ok(inc->answer.summary != NULL && strncmp(inc->answer.summary,
	    "A process failed", 16) == 0, "no rank anywhere: a process "
	    "failed: %s", inc->answer.summary);
	incident_free(inc);

	inc = run(rs, "srun: error: Unable to allocate resources: Requested "
	    "node configuration is not available\n");
	ok(inc->answer.summary != NULL && strstr(inc->answer.summary,
	    "The launcher failed") != NULL && inc->answer.first_launcher,
	    "srun's own error is the launcher's: %s", inc->answer.summary);
	incident_free(inc);
}

/*
 * NCCL 2.26 and later start a WARN line with its time ("[%F %T] " by
 * default) before the writer's host:pid:tid [dev]: the writer is still
 * found, and the rank its communicator's line named for that pid.
 */
static void
test_nccl_timed_warn(struct ruleset *rs)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	const char		*host;

	inc = run(rs, "node07:1233:1300 [2] NCCL INFO ncclCommInitRank comm "
	    "0x55d0 rank 26 nranks 32 cudaDev 2 nvmlDev 2 busId 96000 commId "
	    "0x1 - Init COMPLETE\n"
	    "node07:1234:1301 [3] NCCL INFO ncclCommInitRank comm 0x55d1 rank "
	    "27 nranks 32 cudaDev 3 nvmlDev 3 busId 97000 commId 0x1 - Init "
	    "COMPLETE\n"
	    "\n"
	    "[2025-05-12 10:31:02] node07:1234:1301 [3] transport/net_ib.cc:2234 "
	    "NCCL WARN NET/IB: Got completion from peer 10.0.0.2<35002> with "
	    "status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
	    "::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_0\n"
	    "[2025-05-12 10:31:03] node07:1233:1300 [2] transport/net.cc:1296 "
	    "(ncclProxy) NCCL WARN Call to ibv_post_send failed\n");
	e = first(inc);
	host = e != NULL && e->process != RL_NONE ?
	    inc->procs[e->process]->host : NULL;
	ok(e != NULL && e->rank == 27, "a timed WARN is its writer's, rank "
	    "27: %s", inc->answer.summary);
	ok(host != NULL && strcmp(host, "node07") == 0, "on node07");
	ok(e != NULL && (e->time.flags & RL_TIME_VALID) && e->timed,
	    "and keeps its own time");
	incident_free(inc);
}

/*
 * Ray prefixes a worker's lines with its actor's __repr__, which may name
 * its rank itself: (MegatronPolicyWorker[rank=9] pid=3098846); vLLM's
 * RayWorkerWrapper does not, and its worker's start-up line does.
 */
static void
test_ray_repr_rank(struct ruleset *rs)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;

	inc = run(rs, "(MegatronPolicyWorker[rank=9] pid=3098846) "
	    "INFO 02-19 08:40:01 [worker.py:1] step 10\n"
	    "(MegatronPolicyWorker[rank=2] pid=3098839) "
	    "RuntimeError: CUDA error: an illegal memory access was "
	    "encountered\n");
	e = first(inc);
	ok(e != NULL && e->rank == 2 && e->process != RL_NONE &&
	    inc->procs[e->process]->pid == 3098839, "the actor's [rank=2] "
	    "and pid name the failing writer: %s", inc->answer.summary);
	incident_free(inc);

	/* Or its prefix has none, and the worker says its rank once. */
	inc = run(rs, "(RayWorkerWrapper pid=270291, ip=10.175.94.190) INFO "
	    "08-31 14:42:32 [parallel_state.py:1076] rank 5 in world size 8 is "
	    "assigned as DP rank 0, PP rank 1, TP rank 1, EP rank 5\n"
	    "(RayWorkerWrapper pid=270292, ip=10.175.94.190) INFO 08-31 "
	    "14:42:32 [parallel_state.py:1076] rank 6 in world size 8 is "
	    "assigned as DP rank 0, PP rank 1, TP rank 2, EP rank 6\n"
	    "(RayWorkerWrapper pid=270292, ip=10.175.94.190) ERROR 08-31 "
	    "14:50:01 [worker.py:1] RuntimeError: CUDA error: an illegal "
	    "memory access was encountered\n");
	e = first(inc);
	ok(e != NULL && e->rank == 6, "vLLM's rank assignment names pid "
	    "270292's rank, 6: %s", inc->answer.summary);
	incident_free(inc);
}

/*
 * An out-of-memory message naming another process that holds a GiB or more
 * of the GPU is not the job's limits: the GPU was not free.
 */
static void
test_oom_foreign(struct ruleset *rs)
{
	static const char oom[] = "[rank3]: torch.OutOfMemoryError: CUDA out "
	    "of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity "
	    "of 79.15 GiB of which 1.12 GiB is free. Process 4242 has %s memory "
	    "in use. Including non-PyTorch memory, this process has 18.02 GiB "
	    "memory in use.\n";
	struct rl_incident	*inc;
	struct buf		 b = { 0 };

	buf_printf(&b, oom, "60.00 GiB");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && first(inc)->rank == 3 &&
	    inc->answer.domain == DOMAIN_INFRA, "60 GiB held by pid 4242: "
	    "infrastructure (%s)", first_rule(inc));
	incident_free(inc);
	buf_reset(&b);
	buf_printf(&b, oom, "402.00 MiB");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && inc->answer.domain == DOMAIN_CONFIG,
	    "402 MiB held by another: the job's own limits, config (%s)",
	    first_rule(inc));
	incident_free(inc);
	buf_clear(&b);
}

/*
 * vLLM's memory profile left nothing for the KV cache: the failure, when no
 * error line says so (V1 may only say the engine failed to start); the
 * error line, when there is one.
 */
static void
test_kv_none_left(struct ruleset *rs)
{
	static const char prof[] = "INFO 12-03 14:10:22 worker.py:267] model "
	    "weights take 13.80GiB; non_torch_memory takes 0.06GiB; PyTorch "
	    "activation peak memory takes 2.71GiB; the rest of the memory "
	    "reserved for KV Cache is -0.87GiB.\n"
	    "INFO 12-03 14:10:22 executor_base.py:111] # cuda blocks: 0, # CPU "
	    "blocks: 2048\n";
	struct rl_incident	*inc;
	struct buf		 b = { 0 };

	inc = run(rs, prof);
	ok(first(inc) != NULL && strcmp(first_rule(inc),
	    "vllm.kv_cache.none_left") == 0 && inc->answer.domain ==
	    DOMAIN_CONFIG, "-0.87 GiB left for the KV cache: the failure, "
	    "config (%s)", first_rule(inc));
	incident_free(inc);

	buf_printf(&b, "%sERROR 12-03 14:10:23 [core.py:1006] ValueError: No "
	    "available memory for the cache blocks. Try increasing "
	    "`gpu_memory_utilization` when initializing the engine.\n", prof);
	inc = run(rs, b.p);
	ok(first(inc) != NULL && strcmp(first_rule(inc),
	    "vllm.kv_cache.no_memory") == 0, "with the error after it, the "
	    "error stands first (%s)", first_rule(inc));
	incident_free(inc);
	buf_clear(&b);

	inc = run(rs, "(EngineCore_DP0 pid=4411) INFO 12-03 14:10:22 "
	    "[gpu_worker.py:276] Available KV cache memory: 11.17 GiB\n");
	ok(first(inc) == NULL, "11.17 GiB left: no failure (%s)",
	    first_rule(inc));
	incident_free(inc);
}

/*
 * Two subgroups may share a PG ID; their GUIDs tell them apart, and ranks
 * of different groups are never weighed as one group's.  A platform's time
 * before [rankN]: leaves the global rank known.
 */
static void
test_pg_guid(struct ruleset *rs)
{
	static const char line[] = " 2026-12-03 09:12 [rank%1$d]:[E1203 "
	    "01:12:40.12004%2$04d ProcessGroupNCCL.cpp:616] [PG ID 4 PG GUID "
	    "%3$d Rank %4$d] Watchdog caught collective operation timeout: "
	    "WorkNCCL(SeqNum=%5$d, OpType=ALLTOALL_BASE, NumelIn=1, NumelOut=1, "
	    "Timeout(ms)=600000) ran for 600045 milliseconds before timing "
	    "out.\n"
	    " 2026-12-03 09:12 [rank%1$d]:[E1203 "
	    "01:12:40.12014%2$04d ProcessGroupNCCL.cpp:1795] [PG ID 4 PG GUID "
	    "%3$d Rank %4$d] Exception (either an error or timeout) detected by "
	    "watchdog at work: %5$d, last enqueued NCCL work: %6$d, last "
	    "completed NCCL work: %7$d.\n";
	struct rl_incident	*inc;
	struct buf		 b = { 0 };
	size_t			 i;
	bool			 ranks = true;

	buf_printf(&b, line, 21, 1, 31, 2, 140, 143, 139);
	buf_printf(&b, line, 22, 2, 27, 0, 38, 38, 37);
	inc = run(rs, b.p);
	for (i = 0; i < inc->nranks; i++)
		ranks &= inc->ranks[i].rank == 21 || inc->ranks[i].rank == 22;
	ok(inc->nranks == 2 && ranks, "the global ranks 21 and 22, past the "
	    "platform's time (%zu ranks)", inc->nranks);
	ok(inc->answer.hang.lag_rank == RL_NONE, "two groups of one PG ID: "
	    "no rank lags the other (%d)", inc->answer.hang.lag_rank);
	incident_free(inc);

	buf_reset(&b);
	buf_printf(&b, line, 21, 1, 31, 2, 140, 143, 139);
	buf_printf(&b, line, 22, 2, 31, 0, 38, 38, 37);
	inc = run(rs, b.p);
	ok(inc->answer.hang.lag_rank == 22, "one group: rank 22's last "
	    "enqueued, 38, lags 143 (%d)", inc->answer.hang.lag_rank);
	incident_free(inc);
	buf_clear(&b);
}

/*
 * srun says a task's signal as strsignal writes it ("task 3: Killed"), not
 * as a number: the death is the task's, weighed by the signal it names.
 */
static void
test_srun_signals(struct ruleset *rs)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;

	inc = run(rs, "0: step 1 loss 2.31\n"
	    "3: step 1 loss 2.30\n"
	    "srun: error: node07: task 3: Killed\n"
	    "srun: Job step aborted: Waiting up to 32 seconds for job step "
	    "to finish.\n");
	e = first(inc);
	ok(e != NULL && e->rule != NULL && strcmp(e->rule->id,
	    "slurm.task.signal") == 0 && e->rank == 3, "task 3 Killed: rank 3 "
	    "died first, not the step's abort (%s)", first_rule(inc));
	is_int(e != NULL ? event_cap(e, CAP_SIGNAL) : -1, 9, "Killed is SIGKILL");
	is_int(inc->answer.domain, DOMAIN_INFRA, "SIGKILL comes from outside "
	    "the task: infrastructure");
	ok(inc->answer.summary != NULL && strstr(inc->answer.summary,
	    "killed by a signal") != NULL, "killed: %s", inc->answer.summary);
	incident_free(inc);

	/* The line alone: a failure all the same. */
	inc = run(rs, "srun: error: node07: task 5: Segmentation fault (core "
	    "dumped)\n");
	e = first(inc);
	ok(e != NULL && e->rank == 5, "a segfault srun reports alone is a "
	    "failure of rank 5: %s", inc->answer.summary);
	is_int(e != NULL ? event_cap(e, CAP_SIGNAL) : -1, 11,
	    "Segmentation fault is SIGSEGV");
	is_int(inc->answer.domain, DOMAIN_CODE, "a native crash: code");
	ok(inc->answer.summary != NULL && strstr(inc->answer.summary,
	    "crashed") != NULL && inc->answer.explanation != NULL &&
	    strstr(inc->answer.explanation, "SIGSEGV") != NULL &&
	    strstr(inc->answer.explanation, "outside") == NULL,
	    "a crash is not said to come from outside: %s",
	    inc->answer.explanation);
	incident_free(inc);

	/*
	 * The task that crashed is the failure; those srun ended after it
	 * died another way and are not its like.
	 */
	inc = run(rs, "0: 2025-05-12 10:30:00,000 INFO step 1\n"
	    "1: 2025-05-12 10:30:00,000 INFO step 1\n"
	    "srun: error: node07: task 1: Segmentation fault (core dumped)\n"
	    "slurmstepd: error: *** STEP 1234.0 ON node07 CANCELLED AT "
	    "2025-05-12T10:31:02 DUE TO TASK FAILURE ***\n"
	    "srun: error: node07: task 0: Killed\n");
	e = first(inc);
	ok(e != NULL && e->rank == 1 && inc->answer.scope == SCOPE_ONE &&
	    inc->answer.domain == DOMAIN_CODE, "a crash, then the others "
	    "killed: rank 1, scope one, code: %s", inc->answer.summary);
	incident_free(inc);

	/* An operator's scancel: the tasks it ended are no failure. */
	inc = run(rs, "0: 2025-05-12 10:30:00,000 INFO step 1\n"
	    "1: 2025-05-12 10:30:00,000 INFO step 1\n"
	    "slurmstepd: error: *** STEP 1234.0 ON node07 CANCELLED AT "
	    "2025-05-12T10:31:02 ***\n"
	    "srun: Job step aborted: Waiting up to 32 seconds for job step to "
	    "finish.\n"
	    "srun: error: node07: task 0: Terminated\n"
	    "srun: error: node07: task 1: Terminated\n");
	ok(first(inc) == NULL, "tasks ended by a cancel are no failure: %s",
	    inc->answer.summary);
	incident_free(inc);

	/* An exit code is no signal. */
	inc = run(rs, "srun: error: node07: task 2: Exited with exit code 1\n");
	e = first(inc);
	ok(e != NULL && e->rank == 2 && event_cap(e, CAP_SIGNAL) ==
	    RL_CAP_UNSET, "an exit code of 1: rank 2, and no signal");
	incident_free(inc);
}

/*
 * Class 4: a generic exception line, then a specific rule's line in the
 * same block of the same process: the specific one is the signature.
 */
static void
test_specific(struct ruleset *rs)
{
	static const char block[] =
	    "[rank%d]: Traceback (most recent call last):\n"
	    "[rank%d]:   File \"/work/train.py\", line 61, in <module>\n"
	    "[rank%d]:     model = build(cfg)\n"
	    "[rank%d]: RuntimeError: Failed to initialise the tensor-parallel "
	    "group\n"
	    "[rank%d]: %s:1021 NCCL WARN Cuda failure 'invalid argument'\n";
	struct rl_incident	*inc;
	struct buf		 b = { 0 };

	buf_printf(&b, block, 1, 1, 1, 1, 1, "node3:4711:4711 [1] "
	    "enqueue.cc");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && strstr(first(inc)->text, "Cuda failure") !=
	    NULL, "a generic exception, then NCCL's Cuda failure: the Cuda "
	    "failure is the signature (%s)", first_rule(inc));
	ok(first(inc) != NULL && first(inc)->rank == 1, "of the same rank");
	incident_free(inc);

	/* The specific line is another rank's: it is not this block's. */
	b.len = 0;
	buf_printf(&b, block, 1, 1, 1, 1, 2, "node3:4712:4712 [2] "
	    "enqueue.cc");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && strcmp(first_rule(inc), "python.exception")
	    == 0 && first(inc)->rank == 1, "another rank's Cuda failure "
	    "leaves rank 1's exception its own (%s)", first_rule(inc));
	incident_free(inc);
	buf_clear(&b);
}

/*
 * Class 4: an ImportError before the first step is harmless by itself (an
 * optional import), unless the launcher then records its process's death
 * or the process wrote nothing after it.
 */
static void
test_revive(struct ruleset *rs)
{
	static const char imp[] =
	    "[default0]:Traceback (most recent call last):\n"
	    "[default0]:  File \"/work/train.py\", line 3, in <module>\n"
	    "[default0]:    import flash_attn\n"
	    "[default0]:ModuleNotFoundError: No module named 'flash_attn'\n";
	struct rl_incident	*inc;
	struct buf		 b = { 0 };

	buf_printf(&b, "%s%s", imp, "E1203 10:00:02.123000 4242 torch/"
	    "distributed/elastic/multiprocessing/api.py:869] failed "
	    "(exitcode: 1) local_rank: 0 (pid: 4243) of binary: "
	    "/usr/bin/python3\n");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && strstr(first(inc)->text, "flash_attn") !=
	    NULL, "an ImportError at start-up, then torchrun records the "
	    "rank's exit: the ImportError is the failure (%s)",
	    first_rule(inc));
	incident_free(inc);

	b.len = 0;
	buf_printf(&b, "%s%s", imp, "[default0]:12/03/2026 10:00:09 - INFO - "
	    "train - [rank0] iteration      1/    30 | lm loss: 2.3E+00 |\n");
	inc = run(rs, b.p);
	ok(first(inc) == NULL, "the same ImportError, then a step: no "
	    "failure (%s)", first_rule(inc));
	incident_free(inc);

	/* Its process's last words, with no launcher to record the death. */
	inc = run(rs, imp);
	ok(first(inc) != NULL && strstr(first(inc)->text, "flash_attn") !=
	    NULL, "the ImportError the process wrote last is the failure (%s)",
	    first_rule(inc));
	ok(first(inc) != NULL && first(inc)->rule->index < inc->ntally &&
	    inc->tally[first(inc)->rule->index].lines == 1, "and its "
	    "signature is counted among those seen");
	pipeline_diagnose(inc);
	ok(first(inc) != NULL && first(inc)->rule->index < inc->ntally &&
	    inc->tally[first(inc)->rule->index].lines == 1, "once, again, "
	    "when the settled incident is diagnosed again");
	incident_free(inc);

	/* A vLLM server's fallback import, then it goes on: none. */
	inc = run(rs, "INFO 05-12 10:31:02 [__init__.py:1] Automatically "
	    "detected platform cuda.\n"
	    "ERROR 05-12 10:31:03 [registry.py:1] ModuleNotFoundError: No "
	    "module named 'xformers'\n"
	    "INFO 05-12 10:31:09 [core.py:1] Loading model weights\n");
	ok(first(inc) == NULL, "a fallback import the server outlives: no "
	    "failure (%s)", first_rule(inc));
	incident_free(inc);

	/* Nor when its process's next lines are untimed, but events. */
	b.len = 0;
	buf_printf(&b, "%s%s", imp, "[default0]:ModuleNotFoundError: No "
	    "module named 'apex'\n[default0]:WARNING: apex is not installed, "
	    "falling back\n[default0]:RuntimeError: CUDA error: an illegal "
	    "memory access was encountered\n");
	inc = run(rs, b.p);
	ok(first(inc) != NULL && strstr(first(inc)->text, "illegal memory") !=
	    NULL, "imports it survived, then a crash: the crash (%s)",
	    first_rule(inc));
	incident_free(inc);
	buf_clear(&b);
}

/*
 * Class 7/8: an unprefixed abort, and torchrun records one rank's death:
 * the abort is that rank's.  Two ranks dead: it stays unattributed.
 */
static void
test_adopt(struct ruleset *rs)
{
	static const char head[] =
	    "[rank0]:[W1019 08:16:22.397556647 ProcessGroupNCCL.cpp:1477] "
	    "Warning: WARNING: destroy_process_group() was not called before "
	    "program exit, which can leak resources.\n"
	    "[rank1]:[W1019 08:16:22.418489772 ProcessGroupNCCL.cpp:1477] "
	    "Warning: WARNING: destroy_process_group() was not called before "
	    "program exit, which can leak resources.\n"
	    "pure virtual method called\n"
	    "terminate called without an active exception\n";
	static const char rec[] = "E1019 08:21:39.599000 3036 torch/"
	    "distributed/elastic/multiprocessing/api.py:874] failed (exitcode: "
	    "-6) local_rank: %d (pid: %d) of binary: /usr/bin/python\n";
	struct rl_incident	*inc;
	struct buf		 b = { 0 };

	buf_adds(&b, head);
	buf_printf(&b, rec, 0, 3042);
	inc = run(rs, b.p);
	ok(first(inc) != NULL && first(inc)->rank == 0 && strstr(first(inc)->
	    text, "pure virtual") != NULL, "an unprefixed abort and torchrun's "
	    "record of local rank 0's death: rank 0's abort (%s, rank %d)",
	    first_rule(inc), first(inc) != NULL ? first(inc)->rank : -1);
	incident_free(inc);

	b.len = 0;
	buf_adds(&b, head);
	buf_printf(&b, rec, 0, 3042);
	buf_printf(&b, rec, 1, 3043);
	inc = run(rs, b.p);
	ok(first(inc) != NULL && strstr(first(inc)->text, "pure virtual") !=
	    NULL && first(inc)->rank == RL_NONE, "two ranks recorded dead: "
	    "the abort stays unattributed (rank %d)", first(inc) != NULL ?
	    first(inc)->rank : -1);
	incident_free(inc);
	buf_clear(&b);
}

/* Class 8: pdsh's "host: " prefixes and no rank: the hosts are the rows. */
static void
test_host_rows(struct ruleset *rs)
{
	struct rl_incident	*inc;
	size_t			 i, failed = 0;

	inc = run(rs, "node01: step 10 loss 1.02\n"
	    "node02: step 10 loss 1.03\n"
	    "node02: Traceback (most recent call last):\n"
	    "node02: RuntimeError: CUDA error: an illegal memory access was "
	    "encountered\n"
	    "node01: step 11 loss 1.01\n");
	is_int((long long)inc->nranks, 2, "two hosts, two rows");
	for (i = 0; i < inc->nranks; i++) {
		if (inc->ranks[i].state == RANK_FAILED && inc->ranks[i].host !=
		    NULL && strcmp(inc->ranks[i].host, "node02") == 0)
			failed++;
	}
	is_int((long long)failed, 1, "node02's row is the failed one");
	incident_free(inc);

	inc = run(rs, "node01: Traceback (most recent call last):\n"
	    "node01: FileNotFoundError: [Errno 2] No such file or directory: "
	    "'/data/train.json'\n"
	    "node02: Traceback (most recent call last):\n"
	    "node02: FileNotFoundError: [Errno 2] No such file or directory: "
	    "'/data/train.json'\n");
	is_int(inc->answer.scope, SCOPE_ALL, "every host raised alike: scope "
	    "all");
	incident_free(inc);
}

int
main(void)
{
	struct ruleset	*rs = rules_shipped();

	test_seqnum(rs);
	test_handled(rs);
	test_specific(rs);
	test_revive(rs);
	test_bind_then_traceback(rs);
	test_nul(rs);
	test_alike(rs);
	test_launcher_words(rs);
	test_adopt(rs);
	test_host_rows(rs);
	test_srun_signals(rs);
	test_nccl_timed_warn(rs);
	test_ray_repr_rank(rs);
	test_oom_foreign(rs);
	test_kv_none_left(rs);
	test_pg_guid(rs);
	ruleset_free(rs);
	return tap_done();
}
