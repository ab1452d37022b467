/*
 * test-wild.c: the classes of failure logs users paste in public threads,
 * on the shipped packs (what a user gets), one real-format excerpt each:
 * a failed job always gets an answer, even when it holds only
 * consequences; a line that names a dead worker or its own rank attributes
 * the failure; the errno decides the domain.  The lines are the forms
 * signatures.md records, not copies of the wild corpus.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

/* Class 1: a launcher's exit record is all there is. */
static void
test_exit_record_only(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending "
	    "process 226262 closing signal SIGTERM\n"
	    "ERROR:torch.distributed.elastic.multiprocessing.api:failed "
	    "(exitcode: 1) local_rank: 1 (pid: 226263) of binary: "
	    "/usr/bin/python\n");
	const struct rl_event	*e = first(inc);

	ok(e != NULL, "an exit record with code 1 and nothing else: a failure "
	    "is reported (%s)", first_rule(inc));
	ok(e != NULL && strstr(e->text, "exitcode: 1") != NULL,
	    "the record itself stands for the culprit");
	ok(e != NULL && e->rank == 1, "its local rank, on one node, is the rank");
	ok(inc->answer.summary != NULL && strstr(inc->answer.summary,
	    "printed nothing of its own") != NULL,
	    "the summary says the culprit printed nothing: %s",
	    inc->answer.summary);
	ok(inc->answer.confidence < 0.5, "with a low confidence (%.2f)",
	    inc->answer.confidence);
	incident_free(inc);
}

/* Class 1: a wrapper is all there is. */
static void
test_wrapper_only(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    "INFO 09-10 12:00:01 [core.py:100] Waiting for init message\n"
	    "ERROR 09-10 12:03:44 [core_client.py:564] Engine core proc "
	    "EngineCore_DP0 died unexpectedly, shutting down client.\n");

	ok(first(inc) != NULL, "an engine core that died silently is a "
	    "failure (%s)", first_rule(inc));
	incident_free(inc);
}

/* Nothing failed: nothing is invented. */
static void
test_healthy(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    "INFO 09-10 12:00:01 [api_server.py:1336] Starting vLLM API server "
	    "on http://0.0.0.0:8000\n"
	    "INFO:     127.0.0.1:38352 - \"POST /v1/chat/completions HTTP/1.1\" "
	    "200 OK\n"
	    "INFO:     127.0.0.1:45084 - \"POST /v1/chat/completions HTTP/1.1\" "
	    "400 Bad Request\n");

	ok(first(inc) == NULL, "a request refused after one was served is a "
	    "client's: no failure (%s)", first_rule(inc));
	incident_free(inc);
}

/* Class 7: the message names the dead worker. */
static void
test_dead_worker(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    "INFO 11-08 11:00:02 [multiproc_executor.py:120] Worker proc "
	    "VllmWorker-3 started\n"
	    "ERROR 11-08 11:01:29 [multiproc_executor.py:135] Worker proc "
	    "VllmWorker-3 died unexpectedly, shutting down executor.\n");
	const struct rl_event	*e = first(inc);

	ok(e != NULL && e->rank == 3, "\"Worker proc VllmWorker-3 died\" is "
	    "rank 3's failure, though the executor printed it (rank %d)",
	    e != NULL ? e->rank : -1);
	incident_free(inc);
}

/* Class 7: one process's paste names its rank once, after the error. */
static void
test_rank_named_later(struct ruleset *rs)
{
	struct rl_incident	*inc = run(rs,
	    "RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
	    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
	    "[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread "
	    "terminated with exception: CUDA error: uncorrectable ECC error "
	    "encountered\n");
	const struct rl_event	*e = first(inc);

	ok(e != NULL && strstr(e->text, "RuntimeError") != NULL,
	    "the ECC error is the first failure (%s)", first_rule(inc));
	ok(e != NULL && e->rank == 1, "and rank 1's, which its watchdog's "
	    "[Rank 1] names (rank %d)", e != NULL ? e->rank : -1);
	is_int(inc->answer.domain, DOMAIN_HARDWARE, "domain hardware");
	incident_free(inc);
	/* A sub-group's PG-local rank is not the global one. */
	inc = run(rs,
	    "RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
	    "[rank2]:[E1109 16:13:20.2 ProcessGroupNCCL.cpp:1785] [PG ID 1 PG "
	    "GUID 1 Rank 0] Process group watchdog thread terminated with "
	    "exception: CUDA error: uncorrectable ECC error encountered\n");
	e = first(inc);
	ok(e != NULL && e->rank != 0, "group 1's \"Rank 0\" does not make the "
	    "error rank 0's (rank %d)", e != NULL ? e->rank : -1);
	incident_free(inc);
}

/* Class 6: the errno, not the exception class, decides the domain. */
static void
test_errno_domain(struct ruleset *rs)
{
	static const struct {
		const char	*line;
		enum rl_domain	 domain;
	} cases[] = {
		{ "OSError: [Errno 28] No space left on device\n",
		    DOMAIN_INFRA },
		{ "safetensors_rust.SafetensorError: Error while serializing: "
		    "I/O error: No space left on device (os error 28)\n",
		    DOMAIN_INFRA },
		{ "OSError: [Errno 98] Address already in use\n", DOMAIN_INFRA },
		{ "PermissionError: [Errno 13] Permission denied: "
		    "'/ckpt/run1'\n", DOMAIN_CONFIG },
		{ "ValueError: File data/train.json not found.\n",
		    DOMAIN_CONFIG },
		{ "/usr/bin/python3: can't open file '/home/u/train.py': "
		    "[Errno 2] No such file or directory\n", DOMAIN_CONFIG },
	};
	struct rl_incident	*inc;
	size_t			 i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		inc = run(rs, cases[i].line);
		ok(first(inc) != NULL && inc->answer.domain == cases[i].domain,
		    "%.*s: %s (%s)", (int)strcspn(cases[i].line, "\n"),
		    cases[i].line, domain_name(cases[i].domain),
		    first_rule(inc));
		incident_free(inc);
	}
}

int
main(void)
{
	struct ruleset	*rs = rules_shipped();

	test_exit_record_only(rs);
	test_wrapper_only(rs);
	test_healthy(rs);
	test_dead_worker(rs);
	test_rank_named_later(rs);
	test_errno_domain(rs);
	ruleset_free(rs);
	return tap_done();
}
