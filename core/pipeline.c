/*
 * pipeline.c: the one way from logs to a complete model.
 *
 *   read -> diagnose -> fingerprint -> job identity
 *
 * The readers (batch.c, follow.c, the source-*.c files) cut the bytes into
 * lines and events and, while the bytes are in hand, keep what a reader of
 * the model would otherwise open the logs again for: each process's last
 * timed line, the head of each log for the job (job.c) and a checkpoint
 * tracker's first bytes.  Then
 * pipeline_diagnose completes the model: the three answers, the root's
 * signature, and the job with where each of its facts was read.
 *
 * analyze, cat, the console's live loop and the store's tests all come
 * through here; nothing else calls diagnose(), and nothing after ingestion
 * opens a log.
 */
#include <stdlib.h>

#include "diag.h"

/*
 * Read the paths to their end on every core (jobs runs at most, 0: as many
 * as cores).  Returns 1 when a path could not be read (named in the
 * incident's errors; the rest were read), else 0.
 */
int
pipeline_read(struct rl_incident *inc, int argc, char **argv,
    ingest_line_cb cb, void *arg, int jobs)
{
	int	k, bad = 0;

	for (k = 0; k < argc; k++) {
		if (source_add_path(inc, argv[k]) != 0)
			bad = 1;
	}
	if (batch_read(inc, cb, arg, jobs) != 0)
		bad = 1;
	source_readbuf_free();
	return bad;
}

/*
 * Complete the model from what was read: again after more lines (a
 * followed incident), it starts afresh.
 */
void
pipeline_diagnose(struct rl_incident *inc)
{
	size_t	i;

	/* A followed source's failures: their lines after, as far as read. */
	for (i = 0; i < inc->nsources; i++) {
		if (inc->sources[i]->ingest != NULL)
			ingest_context(inc->sources[i]->ingest);
	}
	diagnose(inc);
	fingerprint_incident(inc);
	job_clear(&inc->job);
	job_identity(inc, &inc->job);
}
