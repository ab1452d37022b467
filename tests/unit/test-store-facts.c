/*
 * test-store-facts.c: what schema 3 keeps for a report made from the store
 * alone, saved and read back: each rank's judged first error (signature,
 * time, whether it is the first failure) and last progress line's time,
 * and the facts document (the verdict's confidence and its lines for and
 * against, the checkpoint's unsafe steps, the job, the rule packs and the
 * answer's words); then the same through export and import into an empty
 * database, and a root line of hostile bytes that still gives a document
 * that loads.
 */
#include <jansson.h>

#include "store-fixture.h"
#include "diag.h"	/* evidence by hand */

/* What store_ranks handed back, per rank (two ranks). */
struct ranks_seen {
	size_t	 n;
	char	*sig[2], *at[2], *progress[2];
	bool	 root[2];
};

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static void
ranks_cb(void *arg, const struct store_rank *r)
{
	struct ranks_seen	*s = arg;

	if (s->n >= 2) {
		s->n++;
		return;
	}
	s->sig[s->n] = dup_or_null(r->first_signature);
	s->at[s->n] = dup_or_null(r->first_error);
	s->progress[s->n] = dup_or_null(r->progress);
	s->root[s->n] = r->first_root;
	s->n++;
}

static void
ranks_seen_clear(struct ranks_seen *s)
{
	size_t	i;

	for (i = 0; i < 2; i++) {
		free(s->sig[i]);
		free(s->at[i]);
		free(s->progress[i]);
	}
	memset(s, 0, sizeof *s);
}

/* The fixture's incident, with what the diagnosis would have added. */
static struct rl_incident *
make_full(const char *path, const char *root_text)
{
	const char		*paths[1] = { path };
	struct rl_incident	*inc;

	inc = make_incident(paths, 1, "rank 0 ran out of memory", root_text);
	inc->ranks[0].first_event = 1;		/* the root */
	inc->ranks[1].first_event = 2;		/* the peer's */
	inc->answer.confidence = 0.8;
	inc->answer.ckpt = CKPT_UNSAFE;
	inc->answer.last_safe_step = 10;
	inc->answer.unsafe_steps = xcalloc(1, sizeof *inc->answer.unsafe_steps);
	inc->answer.unsafe_steps[0] = 20;
	inc->answer.nunsafe = 1;
	inc->answer.verdict_explanation = xstrdup("From the first failure's "
	    "rule: confidence high (0.80).");
	evlist_add(&inc->answer.verdict_evidence, inc, 1, STANCE_SUPPORTS,
	    "the first failure's own line: domain %s", "code");
	evlist_add(&inc->answer.verdict_evidence, inc, 2, STANCE_AGAINST,
	    "a peer failed too");
	evlist_add_file(&inc->answer.ckpt_evidence, 0, "step 20 lacks a "
	    "shard", STANCE_SUPPORTS, "the folder: step %d lacks a shard", 20);
	inc->job.fact[JOB_WORLD].value = xstrdup("2");
	inc->job.fact[JOB_WORLD].from = xstrdup("rank0.log:1");
	inc->job.fact[JOB_HOSTS].value = xstrdup("gpu-node-07,gpu-node-08");
	return inc;
}

/* A stored time as store_q_time writes an event's. */
static void
event_time(const struct rl_incident *inc, size_t i, char *buf, size_t sz)
{
	clock_format(&inc->events[i]->time, buf, sz);
}

/* A facts document's checks: the parts the stored report needs. */
static void
check_facts(const char *text, const char *where)
{
	json_t		*d, *v, *w, *x;
	json_error_t	 err;
	size_t		 i;
	bool		 against = false, confidence = false;

	d = json_loads(text != NULL ? text : "", 0, &err);
	if (!ok(json_is_object(d), "%s: the facts document loads", where)) {
		printf("#   %s\n", err.text);
		return;
	}
	v = json_object_get(d, "verdict");
	ok(json_real_value(json_object_get(v, "confidence")) == 0.8,
	    "%s: the verdict's confidence", where);
	is_int((int)json_array_size(json_object_get(v, "evidence")), 2,
	    "%s: its lines for and against", where);
	x = json_object_get(json_object_get(d, "checkpoint"), "unsafe_steps");
	ok(json_array_size(x) == 1 && json_integer_value(json_array_get(x,
	    0)) == 20, "%s: the checkpoint's unsafe step", where);
	x = json_array_get(json_object_get(json_object_get(d, "checkpoint"),
	    "evidence"), 0);
	ok(x != NULL && strstr(json_string_value(json_object_get(x, "shows")),
	    "lacks a shard") != NULL, "%s: what the folder said", where);
	x = json_object_get(json_object_get(d, "job"), "world_size");
	ok(json_integer_value(json_object_get(x, "value")) == 2,
	    "%s: the job's world size", where);
	x = json_object_get(json_object_get(d, "job"), "hosts");
	ok(json_array_size(json_object_get(x, "value")) == 2,
	    "%s: the job's hosts", where);
	ok(json_is_array(json_object_get(d, "rule_packs")),
	    "%s: the rule packs (none loaded here)", where);
	w = json_object_get(json_object_get(d, "wording"), "verdict");
	json_array_foreach(w, i, x) {
		const char *role = json_string_value(json_object_get(x,
		    "role"));
		const char *t = json_string_value(json_object_get(x, "text"));

		against |= role != NULL && strcmp(role, "against") == 0 &&
		    t != NULL && strstr(t, "a peer failed too") != NULL &&
		    json_string_value(json_object_get(x, "where")) != NULL;
		confidence |= t != NULL && strstr(t, "confidence") != NULL;
	}
	ok(against, "%s: the verdict's words keep the line against, and "
	    "where it is", where);
	ok(confidence, "%s: and say the confidence", where);
	json_decref(d);
}

/* Save, read back, export, import into an empty database, read again. */
static void
test_roundtrip(void)
{
	struct rl_incident	*inc;
	struct store		*a, *b;
	struct ranks_seen	 rs = { 0 };
	struct store_import_stats stats;
	char			*cause = NULL, *facts = NULL, *facts2 = NULL;
	char			*file, t1[64], t2[64], t0[64];
	int64_t			 id = 0;
	bool			 updated;

	if ((a = open_db("facts-a.db")) == NULL)
		return;
	inc = make_full("/no/such/facts/rank0.log", "torch.OutOfMemoryError");
	ok(store_save(a, inc, &id, &updated, &cause) == 0, "save");
	ok(store_ranks(a, id, ranks_cb, &rs, &cause) == 0 && rs.n == 2,
	    "two ranks read back");
	event_time(inc, 1, t1, sizeof t1);
	event_time(inc, 2, t2, sizeof t2);
	event_time(inc, 0, t0, sizeof t0);
	is_str(rs.sig[0], "torch.cuda_oom", "rank 0's first error");
	is_str(rs.at[0], t1, "at its time");
	ok(rs.root[0], "is the first failure");
	is_str(rs.progress[0], t0, "rank 0's last progress line's time");
	is_str(rs.sig[1], "nccl.peer_gone", "rank 1's first error");
	is_str(rs.at[1], t2, "at its time");
	ok(!rs.root[1], "is not the first failure");
	ok(rs.progress[1] == NULL, "rank 1 logged no progress");
	ranks_seen_clear(&rs);
	ok(store_facts(a, id, &facts, &cause) == 0 && facts != NULL,
	    "the facts document is stored");
	check_facts(facts, "saved");

	/* Through a history file into an empty database. */
	file = tmp_path("facts.json");
	ok(store_export(a, file, &cause) == 0, "export");
	if ((b = open_db("facts-b.db")) != NULL) {
		ok(store_import(b, file, &stats, &cause) == 0 &&
		    stats.added == 1, "import into an empty database");
		ok(store_facts(b, 1, &facts2, &cause) == 0 && facts2 != NULL,
		    "the imported incident has its facts");
		is_str(facts2, facts, "byte for byte");
		ok(store_ranks(b, 1, ranks_cb, &rs, &cause) == 0 &&
		    rs.n == 2, "its ranks");
		ok(rs.sig[0] != NULL && strcmp(rs.sig[0], "torch.cuda_oom") ==
		    0 && rs.root[0] && rs.at[1] != NULL && strcmp(rs.at[1],
		    t2) == 0 && rs.progress[0] != NULL, "with their first "
		    "errors and progress");
		ranks_seen_clear(&rs);
		store_close(b);
	}
	free(facts2);
	free(facts);
	free(file);
	incident_free(inc);
	store_close(a);
}

/* A root line of bytes that are not UTF-8 still gives a document. */
static void
test_hostile(void)
{
	struct rl_incident	*inc;
	struct store		*st;
	char			*cause = NULL, *facts = NULL;
	int64_t			 id = 0;
	bool			 updated;

	if ((st = open_db("facts-hostile.db")) == NULL)
		return;
	inc = make_full("/no/such/facts/hostile.log", HOSTILE);
	ok(store_save(st, inc, &id, &updated, &cause) == 0, "save hostile");
	ok(store_facts(st, id, &facts, &cause) == 0, "read its facts");
	check_facts(facts, "hostile");
	ok(facts != NULL && strstr(facts, "DROP TABLE incidents") != NULL,
	    "the hostile line is kept as text");
	free(facts);
	incident_free(inc);
	store_close(st);
}

int
main(void)
{
	char	templ[] = "/tmp/test-store-facts.XXXXXX";

	if ((tmp = mkdtemp(templ)) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_roundtrip();
	test_hostile();
	rm_tmp(tmp);
	return tap_done();
}
