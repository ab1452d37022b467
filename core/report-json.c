/*
 * report-json.c: `analyze --json`, and the tallies the reports share.
 *
 * The JSON shape is a promise (issue #2): later versions add fields and
 * never change or remove one.  The analysis is built as a jansson tree and
 * printed by report-json-print.c, laid out by report_layout below; strings
 * are kept as the logs wrote them and escaped there.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "model.h"
#include "report.h"

#define JSON_EVENTS_MAX	20000	/* events listed; the count says if more */

/* Set a key, the value's reference taken. */
static void
jset(json_t *o, const char *key, json_t *v)
{
	json_object_set_new_nocheck(o, key, v != NULL ? v : json_null());
}

/* A time as the log wrote it (ISO 8601), or null. */
static json_t *
json_time(const struct rl_time *t)
{
	char	s[64];

	if (!(t->flags & RL_TIME_VALID))
		return json_null();
	clock_format(t, s, sizeof s);
	return json_string_nocheck(s);
}

/* A number that may be unknown (NAN): null then. */
static json_t *
json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/*
 * The rule id of an event; for a hang's culprit the diagnosis's own, named
 * for what found it: a lagging collective, a dump signal, or silence.
 */
const char *
report_event_signature(const struct rl_incident *inc, const struct rl_event *e)
{
	const char	*basis = inc->answer.hang.basis;

	if (e->rule != NULL)
		return e->rule->id;
	if (e->role != ROLE_HANG)
		return "rankline.unknown";
	if (basis != NULL && strcmp(basis, "lagging") == 0)
		return "rankline.hang.lagging";
	if (basis != NULL && strcmp(basis, "dump") == 0)
		return "rankline.hang.dump";
	return "rankline.hang.quiet";
}

/* A source's path, or null for none. */
static json_t *
json_source(const struct rl_incident *inc, int source)
{
	return report_json_str(source != RL_NONE && (size_t)source <
	    inc->nsources ? inc->sources[source]->path : NULL);
}

/*
 * One list of evidence, at key "evidence" of o: where each line is, what
 * it says and shows; what the cap left out is counted beside it.
 */
static void
json_evidence(json_t *o, const struct rl_incident *inc,
    const struct rl_evlist *l)
{
	const struct rl_evidence	*v;
	json_t				*a = json_array(), *x;
	size_t				 i;

	for (i = 0; i < l->n; i++) {
		v = &l->v[i];
		x = json_object();
		jset(x, "source", json_source(inc, v->source));
		jset(x, "line", v->line > 0 ? json_integer((json_int_t)v->line) :
		    json_null());
		jset(x, "rank", report_json_int(v->rank));
		jset(x, "time", json_time(&v->time));
		jset(x, "text", report_json_str(v->text));
		jset(x, "shows", report_json_str(v->shows));
		jset(x, "stance", report_json_str(stance_name(v->stance)));
		json_array_append_new(a, x);
	}
	jset(o, "evidence", a);
	if (l->dropped > 0)
		jset(o, "evidence_omitted", json_integer((json_int_t)l->dropped));
}

/* What the timeouts of a hang said. */
static json_t *
json_hang(const struct rl_incident *inc)
{
	const struct rl_hang	*h = &inc->answer.hang;
	json_t			*o = json_object();

	jset(o, "culprit", report_json_int(h->culprit));
	jset(o, "basis", report_json_str(h->basis));
	jset(o, "lagging_rank", report_json_int(h->lag_rank));
	if (h->lag_rank != RL_NONE) {
		jset(o, "lagging_last_enqueued", json_integer(h->lag_enqueued));
		jset(o, "peers_last_enqueued", json_integer(h->peers_enqueued));
		/* The numbers are the timeouts' SeqNum (no desync line). */
		if (h->lag_seq)
			jset(o, "lagging_from", json_string("seqnum"));
	}
	jset(o, "dump_origin", report_json_int(h->dump_origin));
	jset(o, "frozen", json_boolean(h->frozen));
	jset(o, "reporters", json_integer((json_int_t)h->reporters));
	jset(o, "began", json_time(&h->began));
	jset(o, "timeout_ms", h->timeout_event != RL_NONE ?
	    json_integer(h->timeout_ms) : json_null());
	return o;
}

/* The first failure, or null. */
static json_t *
json_first(const struct rl_incident *inc)
{
	const struct rl_event	*e;
	json_t			*o;

	if (inc->answer.first == RL_NONE)
		return json_null();
	e = inc->events[inc->answer.first];
	o = json_object();
	jset(o, "rank", report_json_int(e->rank));
	jset(o, "host", report_json_str(event_host(inc, e)));
	jset(o, "source", report_json_str(inc->sources[e->source]->path));
	jset(o, "line", json_integer((json_int_t)e->line));
	jset(o, "time", json_time(&e->time));
	jset(o, "signature", report_json_str(report_event_signature(inc, e)));
	jset(o, "role", report_json_str(role_name(e->role)));
	jset(o, "text", report_json_str(event_text(inc, e)));
	if (e->rule != NULL) {
		jset(o, "title", report_json_str(e->rule->title));
		jset(o, "explain", report_json_str(e->rule->explain));
		jset(o, "action", report_json_str(e->rule->action));
	}
	if (e->role == ROLE_HANG)
		jset(o, "hang", json_hang(inc));
	jset(o, "explanation", report_json_str(inc->answer.explanation));
	json_evidence(o, inc, &inc->answer.first_evidence);
	return o;
}

/* The next steps: advice with its reasons. */
static json_t *
json_advice(const struct rl_incident *inc)
{
	const struct rl_advice	*v;
	json_t			*a = json_array(), *x;
	size_t			 i;

	for (i = 0; i < inc->answer.nadvice; i++) {
		v = &inc->answer.advice[i];
		x = json_object();
		jset(x, "action", report_json_str(advice_kind_name(v->kind)));
		jset(x, "host", report_json_str(v->host));
		jset(x, "step", report_json_int(v->step));
		jset(x, "text", report_json_str(v->text));
		jset(x, "why", report_json_str(v->why));
		json_array_append_new(a, x);
	}
	return a;
}

static json_t *
json_verdict(const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	bool			 none = a->first == RL_NONE;
	json_t			*o = json_object();

	jset(o, "domain", report_json_str(none ? "none" :
	    domain_name(a->domain)));
	jset(o, "group", report_json_str(none ? NULL : group_name(a->group)));
	jset(o, "scope", report_json_str(none ? NULL : scope_name(a->scope)));
	jset(o, "summary", report_json_str(a->summary));
	jset(o, "confidence", none ? json_null() : json_real(a->confidence));
	jset(o, "confidence_level", none ? json_null() :
	    report_json_str(confidence_level(a->confidence)));
	jset(o, "explanation", report_json_str(a->verdict_explanation));
	json_evidence(o, inc, &a->verdict_evidence);
	jset(o, "next_steps", json_advice(inc));
	return o;
}

/* A list of steps. */
static json_t *
json_steps(const int *v, size_t n)
{
	json_t	*a = json_array();
	size_t	 i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *
json_checkpoint(const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	json_t			*o = json_object();

	jset(o, "status", report_json_str(ckpt_status_name(a->ckpt)));
	jset(o, "last_safe_step", report_json_int(a->last_safe_step));
	jset(o, "unsafe_steps", json_steps(a->unsafe_steps, a->nunsafe));
	jset(o, "suspect_steps", json_steps(a->suspect_steps, a->nsuspect));
	jset(o, "last_clean_step", report_json_int(a->nsuspect > 0 ?
	    a->clean_step : a->last_safe_step));
	jset(o, "explanation", report_json_str(a->ckpt_explanation));
	json_evidence(o, inc, &a->ckpt_evidence);
	return o;
}

/* Each host's clock offset against the reference host. */
static json_t *
json_skew(const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	json_t			*o = json_object(), *hosts = json_array(), *x;
	size_t			 i;

	jset(o, "tolerance_ms", json_integer(a->skew_tolerance_ms));
	for (i = 0; i < a->nskew && !a->skew[i].reference; i++)
		;
	jset(o, "reference", report_json_str(i < a->nskew ? a->skew[i].host :
	    NULL));
	for (i = 0; i < a->nskew; i++) {
		x = json_object();
		jset(x, "host", report_json_str(a->skew[i].host));
		jset(x, "offset_ms", json_integer(a->skew[i].offset_ms));
		jset(x, "spread_ms", json_integer(a->skew[i].spread_ms));
		jset(x, "samples", json_integer((json_int_t)a->skew[i].samples));
		jset(x, "reference", json_boolean(a->skew[i].reference));
		json_array_append_new(hosts, x);
	}
	jset(o, "hosts", hosts);
	/* Sources whose local times were read in another zone (diag-zone.c). */
	hosts = json_array();
	for (i = 0; i < a->nzones; i++) {
		x = json_object();
		jset(x, "source", report_json_str(
		    inc->sources[a->zones[i].source]->path));
		jset(x, "tz_minutes", json_integer(a->zones[i].tz_min));
		/* How: its own zoned lines around, or lines matched across. */
		jset(x, "found", report_json_str(a->zones[i].matched != 0 ?
		    "matched" : "neighbours"));
		/* Not the neighbours: reading fewer lines counts fewer. */
		jset(x, "matched", json_integer((json_int_t)a->zones[i].matched));
		json_array_append_new(hosts, x);
	}
	jset(o, "zones", hosts);
	return o;
}

/* A list of our sentences. */
static json_t *
json_strings(char *const *v, size_t n)
{
	json_t	*a = json_array();
	size_t	 i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, report_json_str(v[i]));
	return a;
}

/* vLLM's memory budget and the what-ifs, or null. */
static json_t *
json_capacity(const struct rl_incident *inc)
{
	static const struct {
		const char	*name;
		size_t		 off;
	} nums[] = {
		{ "total_gib", offsetof(struct rl_capacity, total_gib) },
		{ "gpu_memory_utilization", offsetof(struct rl_capacity, util) },
		{ "budget_gib", offsetof(struct rl_capacity, budget_gib) },
		{ "weights_gib", offsetof(struct rl_capacity, weights_gib) },
		{ "non_torch_gib", offsetof(struct rl_capacity, non_torch_gib) },
		{ "activation_peak_gib",
		    offsetof(struct rl_capacity, activation_gib) },
		{ "cuda_graph_gib", offsetof(struct rl_capacity, graph_gib) },
		{ "kv_cache_gib", offsetof(struct rl_capacity, kv_gib) },
		{ "kv_cache_tokens", offsetof(struct rl_capacity, kv_tokens) },
		{ "max_model_len", offsetof(struct rl_capacity, max_model_len) },
		{ "max_num_seqs", offsetof(struct rl_capacity, max_num_seqs) },
		{ "max_concurrency", offsetof(struct rl_capacity, concurrency) },
		{ "needed_gib_per_request",
		    offsetof(struct rl_capacity, needed_gib) },
	};
	const struct rl_capacity	*c = &inc->answer.capacity;
	json_t				*o;
	size_t				 i;

	if (!c->present)
		return json_null();
	o = json_object();
	for (i = 0; i < nitems(nums); i++)
		jset(o, nums[i].name, json_num(*(const double *)(const void *)
		    ((const char *)c + nums[i].off)));
	jset(o, "budget", json_strings(c->lines, c->nlines));
	jset(o, "what_if", json_strings(c->whatif, c->nwhatif));
	json_evidence(o, inc, &c->evidence);
	return o;
}

/* The evidence checklist: what the logs hold and what to collect. */
static json_t *
json_checklist(const struct rl_incident *inc)
{
	const struct rl_check_item	*c = inc->answer.checklist;
	json_t				*o = json_object(), *items, *missing, *x;
	int				 k;

	items = json_array();
	missing = json_array();
	for (k = 0; k < CHECK_NITEMS; k++) {
		x = json_object();
		jset(x, "item", report_json_str(check_key(k)));
		jset(x, "name", report_json_str(check_name(k)));
		jset(x, "found", json_boolean(c[k].found));
		jset(x, "missing", report_json_str(c[k].missing));
		json_evidence(x, inc, &c[k].evidence);
		json_array_append_new(items, x);
		if (c[k].missing != NULL)
			json_array_append_new(missing,
			    report_json_str(c[k].missing));
	}
	jset(o, "items", items);
	jset(o, "missing", missing);
	return o;
}

static json_t *
json_ranks(const struct rl_incident *inc)
{
	const struct rl_rank	*r;
	json_t			*a = json_array(), *x, *s;
	size_t			 i, k;

	for (i = 0; i < inc->nranks; i++) {
		r = &inc->ranks[i];
		x = json_object();
		jset(x, "rank", report_json_int(r->rank));
		jset(x, "host", report_json_str(r->host));
		s = json_array();
		for (k = 0; k < r->nsources; k++)
			json_array_append_new(s,
			    report_json_str(inc->sources[r->sources[k]]->path));
		jset(x, "sources", s);
		jset(x, "state", report_json_str(rank_state_name(r->state)));
		jset(x, "last_time", json_time(&r->last));
		json_array_append_new(a, x);
	}
	return a;
}

/*
 * What the store knew of this failure before this run: exact matches
 * first, then near ones with a score; the root's host, GPU and rank seen
 * in earlier roots.  No store asked (--no-store): nothing seen before.
 */
static json_t *
json_history(const struct rl_incident *inc)
{
	const struct rl_history		*h = inc->history;
	const struct rl_history_match	*m;
	const struct rl_offender	*f;
	json_t				*o = json_object(), *a, *x;
	size_t				 i;

	jset(o, "seen_before", json_integer(h != NULL ?
	    (json_int_t)h->seen_before : 0));
	jset(o, "fingerprint", report_json_str(inc->fingerprint));
	a = json_array();
	for (i = 0; h != NULL && i < h->nmatches; i++) {
		m = &h->matches[i];
		x = json_object();
		jset(x, "incident", json_integer(m->incident));
		jset(x, "time", report_json_str(m->time));
		jset(x, "fingerprint", report_json_str(m->fingerprint));
		jset(x, "diagnosis", report_json_str(m->diagnosis));
		jset(x, "resolution", report_json_str(m->resolution));
		jset(x, "summary", report_json_str(m->summary));
		jset(x, "exact", json_boolean(m->exact));
		if (!m->exact)
			jset(x, "score", json_real(m->score));
		json_array_append_new(a, x);
	}
	jset(o, "matches", a);
	a = json_array();
	for (i = 0; h != NULL && i < h->noffenders; i++) {
		f = &h->offenders[i];
		x = json_object();
		jset(x, "kind", report_json_str(offender_kind_name(f->kind)));
		jset(x, "name", report_json_str(f->name));
		jset(x, "count", json_integer((json_int_t)f->count));
		jset(x, "first", report_json_str(f->first));
		jset(x, "last", report_json_str(f->last));
		jset(x, "last_incident", json_integer(f->last_incident));
		json_array_append_new(a, x);
	}
	jset(o, "offenders", a);
	return o;
}

/* Is this event worth listing?  Step lines are counted, not listed. */
static bool
event_listed(const struct rl_event *e)
{
	return e->rule == NULL || e->rule->mark != MARK_STEP;
}

/* An event as an object, for a tree that is not printed at once. */
static json_t *
json_event(const struct rl_incident *inc, const struct rl_event *e)
{
	json_t	*x = json_object();

	jset(x, "rank", report_json_int(e->rank));
	jset(x, "source", report_json_str(inc->sources[e->source]->path));
	jset(x, "line", json_integer((json_int_t)e->line));
	jset(x, "time", json_time(&e->time));
	jset(x, "signature", report_json_str(report_event_signature(inc, e)));
	jset(x, "role", json_string_nocheck(role_name(e->role)));
	jset(x, "domain", json_string_nocheck(e->rule != NULL ?
	    domain_name(e->rule->domain) : "unknown"));
	if (e->harmless)
		jset(x, "harmless", json_true());
	jset(x, "text", report_json_str(event_text(inc, e)));
	return x;
}

/* Every listed event, for a tree. */
static json_t *
json_events(const struct rl_incident *inc)
{
	const struct rl_event	*e;
	json_t			*a = json_array();
	size_t			 i, n = 0;

	for (i = 0; i < inc->nevents && n < JSON_EVENTS_MAX; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (!event_listed(e))
			continue;
		json_array_append_new(a, json_event(inc, e));
		n++;
	}
	return a;
}

/*
 * The listed events are most of analyze --json: printed as the rows are
 * made, straight from the model, in json_event's keys and bytes (the
 * tests hold the two to the same output).  A jansson object made,
 * printed and freed for each of 20,000 events cost five times the
 * printing: 140 M instructions at 1,000 ranks.
 */
struct json_rows {
	const struct rl_incident *inc;
	size_t		 i;		/* the next event to look at */
	size_t		 n;		/* events listed so far */
	char		**paths;	/* by source, as printed: made when
					   first wanted */
	struct rl_time	 t;		/* the last time printed, */
	char		 ts[80];	/* as it printed, with its key */
	const char	*sig;		/* the last signature printed, */
	struct buf	 sigj;		/* as it printed, with its key */
};

/* Print the next listed event into b, or say there is none. */
static bool
json_rows_next(void *arg, struct buf *b)
{
	struct json_rows	*r = arg;
	const struct rl_incident *inc = r->inc;
	const struct rl_event	*e;
	const char		*sig;
	struct buf		 t = { 0 };

	do {
		if (r->i >= inc->nevents || r->n >= JSON_EVENTS_MAX)
			return false;
		e = event_ahead(inc->events, inc->nevents, r->i++);
	} while (!event_listed(e));
	r->n++;
	buf_adds(b, "{\"rank\": ");
	if (e->rank != RL_NONE)
		buf_add_int(b, e->rank);
	else
		buf_adds(b, "null");
	if (r->paths[e->source] == NULL) {
		buf_adds(&t, ", \"source\": ");
		sanitize_json_string(&t, inc->sources[e->source]->path);
		buf_adds(&t, ", \"line\": ");
		r->paths[e->source] = buf_steal(&t);
	}
	buf_adds(b, r->paths[e->source]);
	buf_add_int(b, (long long)e->line);
	if (!(e->time.flags & RL_TIME_VALID))
		buf_adds(b, ", \"time\": null");
	else {
		/* Two events in three share the time before them. */
		if (r->ts[0] == '\0' || e->time.ms != r->t.ms ||
		    e->time.flags != r->t.flags ||
		    e->time.tz_min != r->t.tz_min) {
			memcpy(r->ts, ", \"time\": \"", 11);
			clock_format(&e->time, r->ts + 11, sizeof r->ts - 12);
			strcat(r->ts, "\"");
			r->t = e->time;
		}
		buf_adds(b, r->ts);
	}
	/* Most events share their signature with the one before. */
	sig = report_event_signature(inc, e);
	if (sig != r->sig || r->sigj.len == 0) {
		buf_reset(&r->sigj);
		buf_adds(&r->sigj, ", \"signature\": ");
		sanitize_json_string(&r->sigj, sig);
		buf_adds(&r->sigj, ", \"role\": \"");
		r->sig = sig;
	}
	buf_add(b, r->sigj.p, r->sigj.len);
	buf_adds(b, role_name(e->role));
	buf_adds(b, "\", \"domain\": \"");
	buf_adds(b, e->rule != NULL ? domain_name(e->rule->domain) :
	    "unknown");
	buf_adds(b, e->harmless ? "\", \"harmless\": true, \"text\": " :
	    "\", \"text\": ");
	sanitize_json_string(b, event_text(inc, e));
	buf_addc(b, '}');
	return true;
}

static json_t *
json_sources(const struct rl_incident *inc)
{
	const struct rl_source	*s;
	json_t			*a = json_array(), *x;
	size_t			 i;

	for (i = 0; i < inc->nsources; i++) {
		s = inc->sources[i];
		x = json_object();
		jset(x, "path", report_json_str(s->path));
		jset(x, "lines", json_integer((json_int_t)s->lines));
		jset(x, "bytes", json_integer((json_int_t)s->bytes));
		jset(x, "time_form", report_json_str(clock_form_name(
		    clock_form_main(&s->clock))));
		if (s->binary)
			jset(x, "skipped", json_string_nocheck("binary"));
		if (s->long_lines)
			jset(x, "long_lines", json_integer((json_int_t)
			    s->long_lines));
		/* NUL bytes read around (a crashed node's log): how much. */
		if (s->binary_lines) {
			jset(x, "binary_lines", json_integer((json_int_t)
			    s->binary_lines));
			jset(x, "binary_bytes", json_integer((json_int_t)
			    s->binary_bytes));
		}
		if (s->error != NULL)
			jset(x, "error", report_json_str(s->error));
		json_array_append_new(a, x);
	}
	return a;
}
/*
 * The ranks and the sources, a row each for every rank and every file, are
 * printed as they are made too, in json_ranks' and json_sources' keys and
 * bytes (the tests hold them to the same output): at 10,000 ranks their
 * jansson objects were 10 MB of the peak.
 */
struct json_each {
	const struct rl_incident *inc;
	size_t		 i;		/* the next rank or source */
};

/* A time as json_time prints it. */
static void
json_row_time(struct buf *b, const struct rl_time *t)
{
	char	s[64];

	if (!(t->flags & RL_TIME_VALID)) {
		buf_adds(b, "null");
		return;
	}
	clock_format(t, s, sizeof s);
	sanitize_json_string(b, s);
}

static bool
json_ranks_next(void *arg, struct buf *b)
{
	struct json_each	*r = arg;
	const struct rl_incident *inc = r->inc;
	const struct rl_rank	*k;
	size_t			 i;

	if (r->i >= inc->nranks)
		return false;
	k = &inc->ranks[r->i++];
	buf_adds(b, "{\"rank\": ");
	if (k->rank != RL_NONE)
		buf_add_int(b, k->rank);
	else
		buf_adds(b, "null");
	buf_adds(b, ", \"host\": ");
	sanitize_json_string(b, k->host);
	buf_adds(b, ", \"sources\": [");
	for (i = 0; i < k->nsources; i++) {
		buf_adds(b, i > 0 ? ", " : "");
		sanitize_json_string(b, inc->sources[k->sources[i]]->path);
	}
	buf_adds(b, "], \"state\": ");
	sanitize_json_string(b, rank_state_name(k->state));
	buf_adds(b, ", \"last_time\": ");
	json_row_time(b, &k->last);
	buf_addc(b, '}');
	return true;
}

static bool
json_sources_next(void *arg, struct buf *b)
{
	struct json_each	*r = arg;
	const struct rl_source	*s;

	if (r->i >= r->inc->nsources)
		return false;
	s = r->inc->sources[r->i++];
	buf_adds(b, "{\"path\": ");
	sanitize_json_string(b, s->path);
	buf_adds(b, ", \"lines\": ");
	buf_add_int(b, (long long)s->lines);
	buf_adds(b, ", \"bytes\": ");
	buf_add_int(b, (long long)s->bytes);
	buf_adds(b, ", \"time_form\": ");
	sanitize_json_string(b, clock_form_name(clock_form_main(&s->clock)));
	if (s->binary)
		buf_adds(b, ", \"skipped\": \"binary\"");
	if (s->long_lines) {
		buf_adds(b, ", \"long_lines\": ");
		buf_add_int(b, (long long)s->long_lines);
	}
	if (s->binary_lines) {
		buf_adds(b, ", \"binary_lines\": ");
		buf_add_int(b, (long long)s->binary_lines);
		buf_adds(b, ", \"binary_bytes\": ");
		buf_add_int(b, (long long)s->binary_bytes);
	}
	if (s->error != NULL) {
		buf_adds(b, ", \"error\": ");
		sanitize_json_string(b, s->error);
	}
	buf_addc(b, '}');
	return true;
}

/* Tallies in the order their signatures were first seen. */
static int
tally_cmp(const void *a, const void *b)
{
	const struct report_tally	*x = a, *y = b;

	if (x->t->first != y->t->first)
		return x->t->first < y->t->first ? -1 : 1;
	return (x->rule->index > y->rule->index) -
	    (x->rule->index < y->rule->index);
}

/*
 * The failure, symptom and evidence signatures seen (not step lines), in
 * the order they were first seen: what a repeated warning such as vLLM's
 * preemption amounts to.  Counted as the lines were read, so a signature
 * counts every line even where only some of its events are kept.
 */
struct report_tally *
report_tally(const struct rl_incident *inc, size_t *np)
{
	struct report_tally		*v;
	const struct rl_rule	*r;
	size_t			 n = 0, i;

	v = xcalloc(inc->ntally + 1, sizeof *v);
	for (i = 0; i < inc->ntally; i++) {
		if (inc->tally[i].lines == 0)
			continue;
		r = ruleset_rule(inc->rules, i);
		if (r->mark == MARK_STEP)
			continue;
		v[n].rule = r;
		v[n++].t = &inc->tally[i];
	}
	qsort(v, n, sizeof *v, tally_cmp);
	*np = n;
	return v;
}

/* What a tally amounts to: reported counts beat counted lines. */
int64_t
report_tally_amount(const struct rl_tally *t)
{
	if (t->count > 0)
		return t->count;
	if (t->total > 0)
		return t->total;
	return (int64_t)t->lines;
}

/* Occurrences per minute over the span they were seen in, or -1. */
double
report_tally_rate(const struct rl_tally *t)
{
	/*
	 * Over less than a minute a rate says nothing.  Either end may be
	 * unset (INT64_MAX, INT64_MIN) when the other was only an uptime,
	 * which a tally leaves out: compared before they are subtracted.
	 */
	if (t->first == INT64_MAX || t->last == INT64_MIN ||
	    t->last <= t->first || t->last - t->first < 60000)
		return -1;
	return (double)report_tally_amount(t) * 60000.0 / (double)(t->last - t->first);
}


static json_t *
json_signatures(const struct rl_incident *inc)
{
	struct report_tally	*v;
	json_t			*a = json_array(), *x;
	size_t			 n, i;
	double			 r;

	v = report_tally(inc, &n);
	for (i = 0; i < n; i++) {
		x = json_object();
		jset(x, "signature", report_json_str(v[i].rule->id));
		jset(x, "role", report_json_str(role_name(v[i].rule->role)));
		jset(x, "lines", json_integer((json_int_t)v[i].t->lines));
		jset(x, "count", json_integer(report_tally_amount(v[i].t)));
		if ((r = report_tally_rate(v[i].t)) >= 0)
			jset(x, "per_minute", json_real(r));
		jset(x, "title", report_json_str(v[i].rule->title));
		jset(x, "explain", report_json_str(v[i].rule->explain));
		jset(x, "action", report_json_str(v[i].rule->action));
		json_array_append_new(a, x);
	}
	free(v);
	return a;
}

/* One rule's or attribution's limit hits, as an object of "match_limits". */
static json_t *
json_limit(const char *kind, const char *id, const char *file,
    unsigned line, uint64_t hits)
{
	json_t	*o = json_object();

	jset(o, kind, report_json_str(id));
	jset(o, "file", report_json_str(file));
	jset(o, "line", json_integer(line));
	jset(o, "lines", json_integer((json_int_t)hits));
	return o;
}

/*
 * Lines a pattern gave up on at pcre2's match limit, in all and per rule
 * or attribution: what they would have matched is missing from the rest.
 */
static void
json_limits(json_t *stats, const struct ruleset *rs)
{
	const struct rl_rule	*r;
	const struct rl_attrib	*a;
	json_t			*v;
	uint64_t		 h;
	size_t			 i;

	if (rs == NULL)
		return;
	jset(stats, "limit_hits", json_integer((json_int_t)
	    ruleset_limit_hits(rs)));
	v = json_array();
	for (i = 0; i < ruleset_nrules(rs); i++) {
		r = ruleset_rule(rs, i);
		if ((h = ruleset_rule_limit_hits(rs, i)) != 0)
			json_array_append_new(v, json_limit("rule", r->id,
			    r->file, r->line, h));
	}
	for (i = 0; i < ruleset_nattribs(rs); i++) {
		a = ruleset_attrib(rs, i);
		if ((h = ruleset_attrib_limit_hits(rs, i)) != 0)
			json_array_append_new(v, json_limit("attribution", a->id,
			    a->file, a->line, h));
	}
	jset(stats, "match_limits", v);
}

/* A job fact's value: hosts a list, the world size a number. */
static json_t *
json_job_value(enum job_fact k, const char *s)
{
	json_t		*a;
	const char	*comma;
	char		*end;
	long long	 n;

	if (k == JOB_WORLD) {
		n = strtoll(s, &end, 10);
		if (end != s && *end == '\0')
			return json_integer(n);
	}
	if (k != JOB_HOSTS)
		return report_json_str(s);
	a = json_array();
	while (*s != '\0') {
		comma = strchr(s, ',');
		if (comma == NULL)
			comma = s + strlen(s);
		if (comma > s)
			json_array_append_new(a, json_stringn_nocheck(s,
			    (size_t)(comma - s)));
		s = *comma != '\0' ? comma + 1 : comma;
	}
	return a;
}

/*
 * Which job the logs belong to: each fact null when not found, else its
 * value and where it was read.
 */
json_t *
report_json_job(const struct rl_job *job)
{
	const struct rl_job_fact	*f;
	json_t				*o = json_object(), *x;
	int				 k;

	for (k = 0; k < JOB_NFACTS; k++) {
		f = &job->fact[k];
		if (f->value == NULL) {
			jset(o, job_fact_name(k), json_null());
			continue;
		}
		x = json_object();
		jset(x, "value", json_job_value(k, f->value));
		jset(x, "from", report_json_str(f->from));
		jset(o, job_fact_name(k), x);
	}
	return o;
}

/*
 * The three answers as analyze --json gives them (first_failure, verdict,
 * checkpoint) and the job: what the store keeps for a report made later
 * from it alone (store/store-facts.c).
 */
json_t *
report_json_answers(const struct rl_incident *inc)
{
	json_t	*o = json_object();

	jset(o, "first_failure", json_first(inc));
	jset(o, "verdict", json_verdict(inc));
	jset(o, "checkpoint", json_checkpoint(inc));
	jset(o, "job", report_json_job(&inc->job));
	return o;
}

/* How analyze --json is laid out: the answers' reasons and lists on lines. */
static const struct report_json_layout report_layout[] = {
	{ "", JL_ROWS, 2, 0, NULL },
	{ "first_failure.explanation", JL_BREAK, 4, 0, NULL },
	{ "first_failure.evidence", JL_BREAK, 4, 0, NULL },
	{ "verdict.confidence", JL_REAL, 0, 0, "%.2f" },
	{ "verdict.explanation", JL_BREAK, 4, 0, NULL },
	{ "verdict.evidence", JL_BREAK, 4, 0, NULL },
	{ "verdict.next_steps", JL_BREAK, 4, 0, NULL },
	{ "checkpoint.explanation", JL_BREAK, 4, 0, NULL },
	{ "checkpoint.evidence", JL_BREAK, 4, 0, NULL },
	{ "ranks", JL_ROWS, 4, 2, NULL },
	{ "events", JL_ROWS, 4, 2, NULL },
	{ "history.matches", JL_ROWS, 4, 2, NULL },
	{ "history.matches[].score", JL_REAL, 0, 0, "%.3f" },
	{ "signatures", JL_ROWS, 4, 2, NULL },
	{ "signatures[].per_minute", JL_REAL, 0, 0, "%.2f" },
	{ "capacity.budget", JL_BREAK, 4, 0, NULL },
	{ "capacity.what_if", JL_BREAK, 4, 0, NULL },
	{ "capacity.evidence", JL_BREAK, 4, 0, NULL },
	{ "checklist.items", JL_ROWS, 6, -1, NULL },
	{ "checklist.missing", JL_BREAK, 4, 0, NULL },
	{ "sources", JL_ROWS, 4, 2, NULL },
};

static json_t	*report_json_make(const struct rl_incident *, bool);

/* The whole analysis as a jansson tree, in the order of the promise. */
json_t *
report_json_tree(const struct rl_incident *inc)
{
	return report_json_make(inc, true);
}

/*
 * The tree, whole, or with empty lists of ranks, events and sources for
 * streams to fill.
 */
static json_t *
report_json_make(const struct rl_incident *inc, bool whole)
{
	json_t	*o = json_object(), *stats;

	jset(o, "first_failure", json_first(inc));
	jset(o, "verdict", json_verdict(inc));
	jset(o, "checkpoint", json_checkpoint(inc));
	jset(o, "ranks", whole ? json_ranks(inc) : json_array());
	jset(o, "events", whole ? json_events(inc) : json_array());
	jset(o, "history", json_history(inc));
	jset(o, "signatures", json_signatures(inc));
	jset(o, "skew", json_skew(inc));
	jset(o, "capacity", json_capacity(inc));
	jset(o, "checklist", json_checklist(inc));
	jset(o, "sources", whole ? json_sources(inc) : json_array());
	jset(o, "job", report_json_job(&inc->job));
	stats = json_object();
	jset(stats, "lines", json_integer((json_int_t)inc->lines));
	jset(stats, "bytes", json_integer((json_int_t)inc->bytes));
	jset(stats, "events", json_integer((json_int_t)inc->nevents));
	jset(stats, "matched", json_integer((json_int_t)inc->matched));
	json_limits(stats, inc->rules);
	jset(o, "stats", stats);
	jset(o, "errors", json_strings(inc->errors.v, inc->errors.n));
	return o;
}

/*
 * The whole analysis as one JSON object, in b; with out, the rows are
 * written to out as they are made, and b holds what is left to write.
 */
void
report_json(const struct rl_incident *inc, struct buf *b, FILE *out)
{
	struct json_rows		 rows = { 0 };
	struct json_each		 ranks = { inc, 0 };
	struct json_each		 sources = { inc, 0 };
	struct report_json_stream	 streams[] = {
		{ "ranks", json_ranks_next, &ranks },
		{ "events", json_rows_next, &rows },
		{ "sources", json_sources_next, &sources },
	};
	json_t				*o = report_json_make(inc, false);
	size_t				 i, n = 0, *v;

	/* The listed events' texts, read back in bulk where they were let go. */
	v = xcalloc(JSON_EVENTS_MAX + 1, sizeof *v);
	for (i = 0; i < inc->nevents && n < JSON_EVENTS_MAX; i++) {
		if (event_listed(inc->events[i]))
			v[n++] = i;
	}
	event_texts_hold(inc, v, n);
	free(v);
	rows.inc = inc;
	rows.paths = xcalloc(inc->nsources + 1, sizeof *rows.paths);
	report_json_print_stream(b, o, report_layout, nitems(report_layout),
	    out, streams, nitems(streams));
	buf_addc(b, '\n');
	for (i = 0; i < inc->nsources; i++)
		free(rows.paths[i]);
	free(rows.paths);
	buf_clear(&rows.sigj);
	json_decref(o);
}
