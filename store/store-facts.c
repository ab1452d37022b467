/*
 * store-facts.c: what a report made later from the store alone needs and
 * the incident's columns do not hold, kept as one JSON document per
 * incident (incidents.facts, schema 3).
 *
 * The document holds the three answers and the job as analyze --json gives
 * them (report_json_answers: the verdict's confidence and its lines for
 * and against, the checkpoint's unsafe steps and what its folder said),
 * the job's facts as the logs wrote them (the report's header prints
 * them, not their JSON forms), the rule packs with their hashes, what was
 * read, the first lines of each distinct failure as the report quotes
 * them, and the answer's words: wording.c's sections, each item with the
 * path it points at as the report from the logs writes it.  So the report
 * from the store renders the words the analysis said when it was stored,
 * with the same renderers, and cannot drift from the report from the logs
 * of that day.  The history is not kept: it is asked of the store again.
 *
 * Log text in JSON must be UTF-8: a string that is not is kept with each
 * bad byte as U+FFFD (as export does), so that the document always loads.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "store-int.h"
#include "report.h"

#define FACTS_VERSION	1	/* the document's own "version" */

/* The wording parts kept, by their key in the document; NULL: not kept. */
static const char *const store_facts_parts[WD_NPARTS] = {
	[WD_PART_FIRST] = "first",
	[WD_PART_VERDICT] = "verdict",
	[WD_PART_SIGNATURES] = "signatures",
	[WD_PART_MEANINGS] = "meanings",
	[WD_PART_CHECKPOINT] = "checkpoint",
	[WD_PART_CLOCKS] = "clocks",
	[WD_PART_CAPACITY] = "capacity",
	[WD_PART_ADVICE] = "advice",
	[WD_PART_CHECKLIST] = "checklist",
	[WD_PART_WARNINGS] = "warnings",
	/* The history is asked again; the job is the header's. */
};

/* The key a wording part is kept under, or NULL when it is not kept. */
const char *
store_facts_part_name(int part)
{
	if (part < 0 || part >= WD_NPARTS)
		return NULL;
	return store_facts_parts[part];
}

/* Every string of a tree made valid UTF-8, in place. */
static void
store_facts_utf8(json_t *v)
{
	const char	*key;
	json_t		*x, *fixed;
	size_t		 i;

	if (json_is_object(v)) {
		json_object_foreach(v, key, x)
			store_facts_utf8(x);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			store_facts_utf8(x);
	} else if (json_is_string(v)) {
		fixed = store_json_text((const unsigned char *)
		    json_string_value(v), json_string_length(v));
		json_string_setn(v, json_string_value(fixed),
		    json_string_length(fixed));
		json_decref(fixed);
	}
}

/* The job's facts as the logs wrote them: name, value, where from. */
static json_t *
store_facts_job(const struct rl_job *job)
{
	json_t	*a = json_array(), *x;
	int	 k;

	for (k = 0; k < JOB_NFACTS; k++) {
		if (job->fact[k].value == NULL)
			continue;
		x = json_object();
		json_object_set_new(x, "name", json_string(job_fact_name(k)));
		json_object_set_new(x, "value",
		    report_json_str(job->fact[k].value));
		json_object_set_new(x, "from",
		    report_json_str(job->fact[k].from));
		json_array_append_new(a, x);
	}
	return a;
}

/*
 * One wording part's items: role and text, and the indent, the path and
 * the line where there are any (absent is 0 or none: a small incident's
 * words are half keys otherwise).
 */
static json_t *
store_facts_section(const struct rl_incident *inc, const struct wd_section *s)
{
	const struct wd_item	*it;
	const char		*where;
	json_t			*a = json_array(), *x;
	size_t			 i;

	for (i = 0; i < s->n; i++) {
		it = &s->items[i];
		x = json_object();
		json_object_set_new(x, "role",
		    json_string(wording_role_name(it->role)));
		if (it->indent != 0)
			json_object_set_new(x, "indent",
			    json_integer(it->indent));
		json_object_set_new(x, "text", report_json_str(it->text));
		if ((where = report_source_path(inc, it->source)) != NULL)
			json_object_set_new(x, "where", report_json_str(where));
		if (it->line != 0)
			json_object_set_new(x, "line", json_integer((json_int_t)
			    it->line));
		json_array_append_new(a, x);
	}
	return a;
}

/*
 * The first lines of each distinct failure as the report quotes them
 * (report_quotes: at most REPORT_QUOTES): the events' own contexts are
 * kept for the first failures only, and under their absolute paths.
 */
static json_t *
store_facts_quotes(const struct rl_incident *inc)
{
	const struct rl_event	*e;
	json_t			*a = json_array(), *x;
	size_t			 v[REPORT_QUOTES], i, n;
	int64_t			 first;

	n = report_quotes(inc, v);
	for (i = 0; i < n; i++) {
		e = inc->events[v[i]];
		x = json_object();
		json_object_set_new(x, "signature", report_json_str(
		    report_event_signature(inc, e)));
		json_object_set_new(x, "rank", report_json_int(e->rank));
		json_object_set_new(x, "context", report_json_str(
		    event_context(inc, e, &first)));
		json_object_set_new(x, "where", report_json_str(
		    report_source_path(inc, (int)e->source)));
		json_object_set_new(x, "line", json_integer((json_int_t)first));
		json_array_append_new(a, x);
	}
	return a;
}

/*
 * The facts document of an incident, as compact JSON text (the caller
 * frees it).  Made from the model alone, as every save is.
 */
char *
store_facts_make(const struct rl_incident *inc)
{
	struct wording	 w = { 0 };
	json_t		*o, *parts, *read;
	char		*s;
	int		 k;

	o = report_json_answers(inc);
	json_object_set_new(o, "version", json_integer(FACTS_VERSION));
	json_object_set_new(o, "job_facts", store_facts_job(&inc->job));
	json_object_set_new(o, "rule_packs", report_packs_json(inc));
	read = json_object();
	json_object_set_new(read, "sources", json_integer((json_int_t)
	    inc->nsources));
	json_object_set_new(read, "lines", json_integer((json_int_t)
	    inc->lines));
	json_object_set_new(read, "ranks", json_integer((json_int_t)
	    inc->nranks));
	json_object_set_new(o, "read", read);
	json_object_set_new(o, "tracebacks", store_facts_quotes(inc));
	wording_build(&w, inc);
	parts = json_object();
	for (k = 0; k < WD_NPARTS; k++) {
		if (store_facts_parts[k] != NULL && w.part[k].n > 0)
			json_object_set_new(parts, store_facts_parts[k],
			    store_facts_section(inc, &w.part[k]));
	}
	wording_clear(&w);
	json_object_set_new(o, "wording", parts);
	store_facts_utf8(o);
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (s == NULL)
		fatal("store_facts_make: out of memory");
	return s;
}

/*
 * The facts document of incident id into *facts (the caller's, or NULL
 * when it was stored before schema 3, which kept none).
 */
int
store_facts(struct store *st, int64_t id, char **facts, char **cause)
{
	struct store_q	q;
	int		rc;

	*facts = NULL;
	if (store_q_start(st, STMT_FACTS, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	if ((rc = store_q_step(st, &q, cause)) == 1)
		*facts = store_column(q.stmt, 0);
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}
