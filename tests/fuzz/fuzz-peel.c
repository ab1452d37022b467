/*
 * fuzz-peel.c: the prefix peeler (ingest.c's ingest_peel, with the
 * shipped attribution pack): torchrun's "[default3]:", srun --label's
 * "  3: ", Open MPI's "[1,3]<stdout>:", pdsh's "node07: ", kubectl
 * --prefix's "[pod/NAME/CONTAINER] ", Ray's "(Worker pid=N, ip=A) ",
 * syslog's and NCCL's, stacked in any order, with colour codes.
 *
 * The input is a console's text, read line by line as `cat` reads it.  A
 * peel is remembered by a line's first bytes with digits masked (the peel
 * memo), so that most lines run no pattern; a memo that generalised
 * wrongly would give a line another writer, rank or time.  So each input
 * is read twice, with the memo and without it, and every line must come
 * out with the same writer (rank, local rank, pid, host) and time.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "core.h"
#include "rules-int.h"

#define MAX_LINES	2048	/* lines compared per input */

/* What one line came to. */
struct seen_line {
	uint64_t	 line;
	int		 rank;
	int		 local_rank;
	int		 pid;
	uint64_t	 host;		/* str_hash of it, or 0 */
	struct rl_time	 t;
};

struct seen {
	struct seen_line v[MAX_LINES];
	size_t		 n;		/* lines seen, kept or not */
};

static struct ruleset	*fuzz_parent;

static void
seen_cb(void *arg, const struct rl_source *s, uint64_t line,
    const struct rl_time *t, const struct rl_process *p, const char *text,
    size_t len)
{
	struct seen	 *sn = arg;
	struct seen_line *l;

	(void)s;
	(void)text;
	(void)len;
	if (sn->n < MAX_LINES) {
		l = &sn->v[sn->n];
		memset(l, 0, sizeof *l);
		l->line = line;
		l->rank = p->rank;
		l->local_rank = p->local_rank;
		l->pid = p->pid;
		l->host = p->host != NULL ? str_hash(STR_HASH_SEED, p->host) : 0;
		l->t = *t;
	}
	sn->n++;
}

/* Read the text as `cat` does, with rs; what each line came to in sn. */
static void
peel_read(struct ruleset *rs, const char *p, size_t n, struct seen *sn)
{
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src;

	src = incident_add_source(inc, "console.log", SOURCE_FILE);
	src->transient = true;
	clock_init(&src->clock, FUZZ_REF_EPOCH);
	inc->settled = true;
	source_ingest(inc, src, seen_cb, sn);
	ingest_more(src->ingest, false);
	ingest_feed(src->ingest, p, n);
	ingest_flush(src->ingest);
	incident_free(inc);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("TZ", "UTC", 1);
	fuzz_parent = fuzz_rules("attribution.rules");
	if (fuzz_parent->memo == NULL)
		fuzz_fail("the attribution pack has no peel memo to check");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seen	 a, b;
	struct ruleset		*rs;
	size_t			 i;
	const struct seen_line	*x, *y;

	a.n = b.n = 0;
	rs = ruleset_clone(fuzz_parent);
	peel_read(rs, (const char *)data, size, &a);
	ruleset_free(rs);

	/* Without the memo every prefix pattern is run on every line. */
	rs = ruleset_clone(fuzz_parent);
	free(rs->memo);
	rs->memo = NULL;
	peel_read(rs, (const char *)data, size, &b);
	ruleset_free(rs);

	if (a.n != b.n)
		fuzz_fail("%zu lines with the peel memo, %zu without", a.n, b.n);
	for (i = 0; i < a.n && i < MAX_LINES; i++) {
		x = &a.v[i];
		y = &b.v[i];
		if (x->line != y->line || x->rank != y->rank ||
		    x->local_rank != y->local_rank || x->pid != y->pid ||
		    x->host != y->host || x->t.ms != y->t.ms ||
		    x->t.flags != y->t.flags || x->t.tz_min != y->t.tz_min)
			fuzz_fail("line %llu: with the memo rank %d local %d "
			    "pid %d host %llx time %lld/%u; without rank %d "
			    "local %d pid %d host %llx time %lld/%u",
			    (unsigned long long)x->line, x->rank,
			    x->local_rank, x->pid, (unsigned long long)x->host,
			    (long long)x->t.ms, x->t.flags, y->rank,
			    y->local_rank, y->pid, (unsigned long long)y->host,
			    (long long)y->t.ms, y->t.flags);
	}
	return 0;
}
