/*
 * report-json.c: `analyze --json` and the plain text report.
 *
 * The JSON shape is a promise (issue #2): later versions add fields and
 * never change or remove one.  Every string from a log goes through
 * sanitize_json; times are ISO 8601 as the log wrote them.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define JSON_EVENTS_MAX	20000	/* events listed; the count says if more */
#define JSON_FLUSH	(64 * 1024)	/* bytes held before writing them out */

/* A valid time, quoted, into s: its length. */
static size_t
json_time_quoted(const struct rl_time *t, char *s, size_t sz)
{
	size_t	n;

	/* Digits, '-', 'T', ':', '.', '+' and 'Z': nothing to escape. */
	s[0] = '"';
	n = clock_format(t, s + 1, sz - 2);
	s[n + 1] = '"';
	return n + 2;
}

/* Append a time, or null. */
static void
json_time(struct buf *b, const struct rl_time *t)
{
	char	s[64];

	if (!(t->flags & RL_TIME_VALID)) {
		buf_adds(b, "null");
		return;
	}
	buf_add(b, s, json_time_quoted(t, s, sizeof s));
}

/* Append an int, or null for RL_NONE. */
static void
json_int(struct buf *b, int v)
{
	if (v == RL_NONE)
		buf_adds(b, "null");
	else
		buf_add_int(b, v);
}

/* Append a number that may be unknown (NAN): null then. */
static void
json_num(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "null");
	else
		buf_printf(b, "%.6g", v);
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

/* One list of evidence: where each line is, what it says and shows. */
static void
json_evidence(struct buf *b, const struct rl_incident *inc,
    const struct rl_evlist *l)
{
	const struct rl_evidence	*v;
	size_t				 i;

	buf_adds(b, "[");
	for (i = 0; i < l->n; i++) {
		v = &l->v[i];
		buf_adds(b, i ? ", {\"source\": " : "{\"source\": ");
		sanitize_json_string(b, v->source != RL_NONE && (size_t)v->source <
		    inc->nsources ? inc->sources[v->source]->path : NULL);
		buf_adds(b, ", \"line\": ");
		if (v->line > 0)
			buf_printf(b, "%llu", (unsigned long long)v->line);
		else
			buf_adds(b, "null");
		buf_adds(b, ", \"rank\": ");
		json_int(b, v->rank);
		buf_adds(b, ", \"time\": ");
		json_time(b, &v->time);
		buf_adds(b, ", \"text\": ");
		sanitize_json_string(b, v->text);
		buf_adds(b, ", \"shows\": ");
		sanitize_json_string(b, v->shows);
		buf_adds(b, ", \"stance\": ");
		sanitize_json_string(b, stance_name(v->stance));
		buf_adds(b, "}");
	}
	buf_adds(b, "]");
	if (l->dropped > 0)
		buf_printf(b, ", \"evidence_omitted\": %zu", l->dropped);
}

/* What the timeouts of a hang said. */
static void
json_hang(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_hang	*h = &inc->answer.hang;

	buf_adds(b, "{\"culprit\": ");
	json_int(b, h->culprit);
	buf_adds(b, ", \"basis\": ");
	sanitize_json_string(b, h->basis);
	buf_adds(b, ", \"lagging_rank\": ");
	json_int(b, h->lag_rank);
	if (h->lag_rank != RL_NONE)
		buf_printf(b, ", \"lagging_last_enqueued\": %lld, "
		    "\"peers_last_enqueued\": %lld", (long long)h->lag_enqueued,
		    (long long)h->peers_enqueued);
	buf_adds(b, ", \"dump_origin\": ");
	json_int(b, h->dump_origin);
	buf_printf(b, ", \"frozen\": %s, \"reporters\": %zu, "
	    "\"began\": ", h->frozen ? "true" : "false", h->reporters);
	json_time(b, &h->began);
	buf_adds(b, ", \"timeout_ms\": ");
	if (h->timeout_event != RL_NONE)
		buf_printf(b, "%lld", (long long)h->timeout_ms);
	else
		buf_adds(b, "null");
	buf_adds(b, "}");
}

static void
json_first(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_event	*e;

	if (inc->answer.first == RL_NONE) {
		buf_adds(b, "null");
		return;
	}
	e = inc->events[inc->answer.first];
	buf_adds(b, "{\"rank\": ");
	json_int(b, e->rank);
	buf_adds(b, ", \"host\": ");
	sanitize_json_string(b, event_host(inc, e));
	buf_adds(b, ", \"source\": ");
	sanitize_json_string(b, inc->sources[e->source]->path);
	buf_printf(b, ", \"line\": %llu, \"time\": ", (unsigned long long)e->line);
	json_time(b, &e->time);
	buf_adds(b, ", \"signature\": ");
	sanitize_json_string(b, report_event_signature(inc, e));
	buf_adds(b, ", \"role\": ");
	sanitize_json_string(b, role_name(e->role));
	buf_adds(b, ", \"text\": ");
	sanitize_json_string(b, e->text);
	if (e->rule != NULL) {
		buf_adds(b, ", \"title\": ");
		sanitize_json_string(b, e->rule->title);
		buf_adds(b, ", \"explain\": ");
		sanitize_json_string(b, e->rule->explain);
		buf_adds(b, ", \"action\": ");
		sanitize_json_string(b, e->rule->action);
	}
	if (e->role == ROLE_HANG) {
		buf_adds(b, ", \"hang\": ");
		json_hang(b, inc);
	}
	buf_adds(b, ",\n    \"explanation\": ");
	sanitize_json_string(b, inc->answer.explanation);
	buf_adds(b, ",\n    \"evidence\": ");
	json_evidence(b, inc, &inc->answer.first_evidence);
	buf_adds(b, "}");
}

/* The next steps: advice with its reasons. */
static void
json_advice(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_advice	*v;
	size_t			 i;

	buf_adds(b, "[");
	for (i = 0; i < inc->answer.nadvice; i++) {
		v = &inc->answer.advice[i];
		buf_adds(b, i ? ", {\"action\": " : "{\"action\": ");
		sanitize_json_string(b, advice_kind_name(v->kind));
		buf_adds(b, ", \"host\": ");
		sanitize_json_string(b, v->host);
		buf_adds(b, ", \"step\": ");
		json_int(b, v->step);
		buf_adds(b, ", \"text\": ");
		sanitize_json_string(b, v->text);
		buf_adds(b, ", \"why\": ");
		sanitize_json_string(b, v->why);
		buf_adds(b, "}");
	}
	buf_adds(b, "]");
}

static void
json_verdict(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	bool			 none = a->first == RL_NONE;

	buf_adds(b, "{\"domain\": ");
	sanitize_json_string(b, none ? "none" : domain_name(a->domain));
	buf_adds(b, ", \"group\": ");
	sanitize_json_string(b, none ? NULL : group_name(a->group));
	buf_adds(b, ", \"scope\": ");
	sanitize_json_string(b, none ? NULL : scope_name(a->scope));
	buf_adds(b, ", \"summary\": ");
	sanitize_json_string(b, a->summary);
	buf_adds(b, ", \"confidence\": ");
	if (none)
		buf_adds(b, "null, \"confidence_level\": null");
	else {
		buf_printf(b, "%.2f, \"confidence_level\": ", a->confidence);
		sanitize_json_string(b, confidence_level(a->confidence));
	}
	buf_adds(b, ",\n    \"explanation\": ");
	sanitize_json_string(b, a->verdict_explanation);
	buf_adds(b, ",\n    \"evidence\": ");
	json_evidence(b, inc, &a->verdict_evidence);
	buf_adds(b, ",\n    \"next_steps\": ");
	json_advice(b, inc);
	buf_adds(b, "}");
}

static void
json_checkpoint(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	size_t			 i;

	buf_adds(b, "{\"status\": ");
	sanitize_json_string(b, ckpt_status_name(a->ckpt));
	buf_adds(b, ", \"last_safe_step\": ");
	json_int(b, a->last_safe_step);
	buf_adds(b, ", \"unsafe_steps\": [");
	for (i = 0; i < a->nunsafe; i++)
		buf_printf(b, "%s%d", i ? ", " : "", a->unsafe_steps[i]);
	buf_adds(b, "], \"suspect_steps\": [");
	for (i = 0; i < a->nsuspect; i++)
		buf_printf(b, "%s%d", i ? ", " : "", a->suspect_steps[i]);
	buf_adds(b, "], \"last_clean_step\": ");
	json_int(b, a->nsuspect > 0 ? a->clean_step : a->last_safe_step);
	buf_adds(b, ",\n    \"explanation\": ");
	sanitize_json_string(b, a->ckpt_explanation);
	buf_adds(b, ",\n    \"evidence\": ");
	json_evidence(b, inc, &a->ckpt_evidence);
	buf_adds(b, "}");
}

/* Each host's clock offset against the reference host. */
static void
json_skew(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	size_t			 i;

	buf_printf(b, "{\"tolerance_ms\": %lld, \"reference\": ",
	    (long long)a->skew_tolerance_ms);
	for (i = 0; i < a->nskew && !a->skew[i].reference; i++)
		;
	sanitize_json_string(b, i < a->nskew ? a->skew[i].host : NULL);
	buf_adds(b, ", \"hosts\": [");
	for (i = 0; i < a->nskew; i++) {
		buf_adds(b, i ? ", {\"host\": " : "{\"host\": ");
		sanitize_json_string(b, a->skew[i].host);
		buf_printf(b, ", \"offset_ms\": %lld, \"spread_ms\": %lld, "
		    "\"samples\": %zu, \"reference\": %s}",
		    (long long)a->skew[i].offset_ms,
		    (long long)a->skew[i].spread_ms, a->skew[i].samples,
		    a->skew[i].reference ? "true" : "false");
	}
	buf_adds(b, "]}");
}

/* vLLM's memory budget and the what-ifs, or null. */
static void
json_capacity(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_capacity	*c = &inc->answer.capacity;
	size_t				 i;
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

	if (!c->present) {
		buf_adds(b, "null");
		return;
	}
	buf_adds(b, "{");
	for (i = 0; i < sizeof nums / sizeof *nums; i++) {
		buf_printf(b, "%s\"%s\": ", i ? ", " : "", nums[i].name);
		json_num(b, *(const double *)(const void *)((const char *)c +
		    nums[i].off));
	}
	buf_adds(b, ",\n    \"budget\": [");
	for (i = 0; i < c->nlines; i++) {
		buf_adds(b, i ? ", " : "");
		sanitize_json_string(b, c->lines[i]);
	}
	buf_adds(b, "],\n    \"what_if\": [");
	for (i = 0; i < c->nwhatif; i++) {
		buf_adds(b, i ? ", " : "");
		sanitize_json_string(b, c->whatif[i]);
	}
	buf_adds(b, "],\n    \"evidence\": ");
	json_evidence(b, inc, &c->evidence);
	buf_adds(b, "}");
}

/* The evidence checklist: what the logs hold and what to collect. */
static void
json_checklist(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_check_item	*c = inc->answer.checklist;
	int				 k;
	bool				 any = false;

	buf_adds(b, "{\"items\": [");
	for (k = 0; k < CHECK_NITEMS; k++) {
		buf_adds(b, k ? ",\n      {\"item\": " : "\n      {\"item\": ");
		sanitize_json_string(b, check_key(k));
		buf_adds(b, ", \"name\": ");
		sanitize_json_string(b, check_name(k));
		buf_printf(b, ", \"found\": %s, \"missing\": ",
		    c[k].found ? "true" : "false");
		sanitize_json_string(b, c[k].missing);
		buf_adds(b, ", \"evidence\": ");
		json_evidence(b, inc, &c[k].evidence);
		buf_adds(b, "}");
	}
	buf_adds(b, "],\n    \"missing\": [");
	for (k = 0; k < CHECK_NITEMS; k++) {
		if (c[k].missing == NULL)
			continue;
		buf_adds(b, any ? ", " : "");
		sanitize_json_string(b, c[k].missing);
		any = true;
	}
	buf_adds(b, "]}");
}

static void
json_ranks(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_rank	*r;
	size_t			 i, k;

	buf_adds(b, "[");
	for (i = 0; i < inc->nranks; i++) {
		r = &inc->ranks[i];
		buf_printf(b, "%s\n    {\"rank\": %d, \"host\": ", i ? "," : "",
		    r->rank);
		sanitize_json_string(b, r->host);
		buf_adds(b, ", \"sources\": [");
		for (k = 0; k < r->nsources; k++) {
			if (k)
				buf_adds(b, ", ");
			sanitize_json_string(b, inc->sources[r->sources[k]]->path);
		}
		buf_adds(b, "], \"state\": ");
		sanitize_json_string(b, rank_state_name(r->state));
		buf_adds(b, ", \"last_time\": ");
		json_time(b, &r->last);
		buf_adds(b, "}");
	}
	buf_adds(b, inc->nranks ? "\n  ]" : "]");
}

/*
 * What the store knew of this failure before this run: exact matches
 * first, then near ones with a score; the root's host, GPU and rank seen
 * in earlier roots.  No store asked (--no-store): nothing seen before.
 */
static void
json_history(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_history		*h = inc->history;
	const struct rl_history_match	*m;
	const struct rl_offender	*o;
	size_t				 i;

	buf_printf(b, "{\"seen_before\": %zu, \"fingerprint\": ",
	    h != NULL ? h->seen_before : 0);
	sanitize_json_string(b, inc->fingerprint);
	buf_adds(b, ", \"matches\": [");
	for (i = 0; h != NULL && i < h->nmatches; i++) {
		m = &h->matches[i];
		buf_printf(b, "%s\n    {\"incident\": %lld, \"time\": ",
		    i ? "," : "", (long long)m->incident);
		sanitize_json_string(b, m->time);
		buf_adds(b, ", \"fingerprint\": ");
		sanitize_json_string(b, m->fingerprint);
		buf_adds(b, ", \"diagnosis\": ");
		sanitize_json_string(b, m->diagnosis);
		buf_adds(b, ", \"resolution\": ");
		sanitize_json_string(b, m->resolution);
		buf_adds(b, ", \"summary\": ");
		sanitize_json_string(b, m->summary);
		buf_printf(b, ", \"exact\": %s", m->exact ? "true" : "false");
		if (!m->exact)
			buf_printf(b, ", \"score\": %.3f", m->score);
		buf_adds(b, "}");
	}
	buf_adds(b, h != NULL && h->nmatches ? "\n  ], \"offenders\": [" :
	    "], \"offenders\": [");
	for (i = 0; h != NULL && i < h->noffenders; i++) {
		o = &h->offenders[i];
		buf_printf(b, "%s{\"kind\": \"%s\", \"name\": ", i ? ", " : "",
		    offender_kind_name(o->kind));
		sanitize_json_string(b, o->name);
		buf_printf(b, ", \"count\": %zu, \"first\": ", o->count);
		sanitize_json_string(b, o->first);
		buf_adds(b, ", \"last\": ");
		sanitize_json_string(b, o->last);
		buf_printf(b, ", \"last_incident\": %lld}",
		    (long long)o->last_incident);
	}
	buf_adds(b, "]}");
}

/* Is this event worth listing?  Step lines are counted, not listed. */
static bool
event_listed(const struct rl_event *e)
{
	return e->rule == NULL || e->rule->mark != MARK_STEP;
}

/*
 * The listed events are most of the report, and most of their fields
 * repeat: a source's path is escaped once, and a time formatted once for
 * the events that share it (two in three do, at 1,024 ranks).  Roles and
 * domains are rankline's own words, with nothing to escape.
 */
struct json_memo {
	struct buf	 paths;		/* each source's path, quoted, escaped */
	size_t		*at;		/* where source i's is in paths, + 1 */
	struct rl_time	 t;		/* the last time formatted, */
	char		 ts[64];	/* quoted, */
	size_t		 tn;		/* this long (0: none yet) */
};

static void
json_memo_path(struct buf *b, const struct rl_incident *inc,
    struct json_memo *m, unsigned src)
{
	const char	*p;
	size_t		 from;

	if (m->at[src] == 0) {
		from = m->paths.len;
		sanitize_json_string(&m->paths, inc->sources[src]->path);
		buf_addc(&m->paths, '\0');
		m->at[src] = from + 1;
	}
	p = m->paths.p + m->at[src] - 1;
	buf_add(b, p, strlen(p));
}

static void
json_memo_time(struct buf *b, struct json_memo *m, const struct rl_time *t)
{
	if (!(t->flags & RL_TIME_VALID)) {
		buf_adds(b, "null");
		return;
	}
	if (m->tn == 0 || t->ms != m->t.ms || t->flags != m->t.flags ||
	    t->tz_min != m->t.tz_min) {
		m->tn = json_time_quoted(t, m->ts, sizeof m->ts);
		m->t = *t;
	}
	buf_add(b, m->ts, m->tn);
}

/* One of rankline's own words, quoted: nothing in it to escape. */
static void
json_word(struct buf *b, const char *w)
{
	buf_addc(b, '"');
	buf_adds(b, w);
	buf_addc(b, '"');
}

static void
json_events(struct buf *b, const struct rl_incident *inc, FILE *out)
{
	const struct rl_event	*e;
	struct json_memo	 m;
	size_t			 i, n = 0;

	memset(&m, 0, sizeof m);
	m.at = xcalloc(inc->nsources + 1, sizeof *m.at);
	buf_adds(b, "[");
	for (i = 0; i < inc->nevents && n < JSON_EVENTS_MAX; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (!event_listed(e))
			continue;
		buf_adds(b, n++ ? ",\n    {\"rank\": " : "\n    {\"rank\": ");
		json_int(b, e->rank);
		buf_adds(b, ", \"source\": ");
		json_memo_path(b, inc, &m, e->source);
		buf_adds(b, ", \"line\": ");
		buf_add_int(b, (long long)e->line);
		buf_adds(b, ", \"time\": ");
		json_memo_time(b, &m, &e->time);
		buf_adds(b, ", \"signature\": ");
		sanitize_json_string(b, report_event_signature(inc, e));
		buf_adds(b, ", \"role\": ");
		json_word(b, role_name(e->role));
		buf_adds(b, ", \"domain\": ");
		json_word(b, e->rule != NULL ? domain_name(e->rule->domain) :
		    "unknown");
		if (e->harmless)
			buf_adds(b, ", \"harmless\": true");
		buf_adds(b, ", \"text\": ");
		sanitize_json_string(b, e->text);
		buf_adds(b, "}");
		/* The list is most of the output: pass it on as it grows. */
		if (out != NULL && b->len >= JSON_FLUSH) {
			fwrite(b->p, 1, b->len, out);
			buf_reset(b);
		}
	}
	buf_adds(b, n ? "\n  ]" : "]");
	buf_free(&m.paths);
	free(m.at);
}

static void
json_sources(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_source	*s;
	size_t			 i;

	buf_adds(b, "[");
	for (i = 0; i < inc->nsources; i++) {
		s = inc->sources[i];
		buf_adds(b, i ? ",\n    {\"path\": " : "\n    {\"path\": ");
		sanitize_json_string(b, s->path);
		buf_printf(b, ", \"lines\": %llu, \"bytes\": %llu",
		    (unsigned long long)s->lines, (unsigned long long)s->bytes);
		buf_adds(b, ", \"time_form\": ");
		sanitize_json_string(b, clock_form_name(clock_form_main(&s->clock)));
		if (s->binary)
			buf_adds(b, ", \"skipped\": \"binary\"");
		if (s->long_lines)
			buf_printf(b, ", \"long_lines\": %llu",
			    (unsigned long long)s->long_lines);
		if (s->error != NULL) {
			buf_adds(b, ", \"error\": ");
			sanitize_json_string(b, s->error);
		}
		buf_adds(b, "}");
	}
	buf_adds(b, inc->nsources ? "\n  ]" : "]");
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

static void
json_signatures(struct buf *b, const struct rl_incident *inc)
{
	struct report_tally	*v;
	size_t		 n, i;
	double		 r;

	v = report_tally(inc, &n);
	buf_adds(b, "[");
	for (i = 0; i < n; i++) {
		buf_adds(b, i ? ",\n    {\"signature\": " : "\n    {\"signature\": ");
		sanitize_json_string(b, v[i].rule->id);
		buf_adds(b, ", \"role\": ");
		sanitize_json_string(b, role_name(v[i].rule->role));
		buf_printf(b, ", \"lines\": %llu, \"count\": %lld",
		    (unsigned long long)v[i].t->lines, (long long)report_tally_amount(v[i].t));
		if ((r = report_tally_rate(v[i].t)) >= 0)
			buf_printf(b, ", \"per_minute\": %.2f", r);
		buf_adds(b, ", \"title\": ");
		sanitize_json_string(b, v[i].rule->title);
		buf_adds(b, ", \"explain\": ");
		sanitize_json_string(b, v[i].rule->explain);
		buf_adds(b, ", \"action\": ");
		sanitize_json_string(b, v[i].rule->action);
		buf_adds(b, "}");
	}
	buf_adds(b, n ? "\n  ]" : "]");
	free(v);
}

/* One rule's or attribution's limit hits, as an object of "match_limits". */
static void
json_limit(struct buf *b, bool first, const char *kind, const char *id,
    const char *file, unsigned line, uint64_t hits)
{
	buf_printf(b, "%s{\"%s\": ", first ? "" : ", ", kind);
	sanitize_json_string(b, id);
	buf_adds(b, ", \"file\": ");
	sanitize_json_string(b, file);
	buf_printf(b, ", \"line\": %u, \"lines\": %llu}", line,
	    (unsigned long long)hits);
}

/*
 * Lines a pattern gave up on at pcre2's match limit, in all and per rule
 * or attribution: what they would have matched is missing from the rest.
 */
static void
json_limits(struct buf *b, const struct ruleset *rs)
{
	const struct rl_rule	*r;
	const struct rl_attrib	*a;
	uint64_t		 h;
	size_t			 i;
	bool			 first = true;

	if (rs == NULL)
		return;
	buf_printf(b, ", \"limit_hits\": %llu, \"match_limits\": [",
	    (unsigned long long)ruleset_limit_hits(rs));
	for (i = 0; i < ruleset_nrules(rs); i++) {
		r = ruleset_rule(rs, i);
		if ((h = ruleset_rule_limit_hits(rs, i)) == 0)
			continue;
		json_limit(b, first, "rule", r->id, r->file, r->line, h);
		first = false;
	}
	for (i = 0; i < ruleset_nattribs(rs); i++) {
		a = ruleset_attrib(rs, i);
		if ((h = ruleset_attrib_limit_hits(rs, i)) == 0)
			continue;
		json_limit(b, first, "attribution", a->id, a->file, a->line, h);
		first = false;
	}
	buf_adds(b, "]");
}

/*
 * The whole analysis as one JSON object, in b; with out, the events list
 * is written to out as it is made, and b holds what is left to write.
 */
void
report_json(const struct rl_incident *inc, struct buf *b, FILE *out)
{
	size_t	i;

	buf_adds(b, "{\n  \"first_failure\": ");
	json_first(b, inc);
	buf_adds(b, ",\n  \"verdict\": ");
	json_verdict(b, inc);
	buf_adds(b, ",\n  \"checkpoint\": ");
	json_checkpoint(b, inc);
	buf_adds(b, ",\n  \"ranks\": ");
	json_ranks(b, inc);
	buf_adds(b, ",\n  \"events\": ");
	json_events(b, inc, out);
	buf_adds(b, ",\n  \"history\": ");
	json_history(b, inc);
	buf_adds(b, ",\n  \"signatures\": ");
	json_signatures(b, inc);
	buf_adds(b, ",\n  \"skew\": ");
	json_skew(b, inc);
	buf_adds(b, ",\n  \"capacity\": ");
	json_capacity(b, inc);
	buf_adds(b, ",\n  \"checklist\": ");
	json_checklist(b, inc);
	buf_adds(b, ",\n  \"sources\": ");
	json_sources(b, inc);
	buf_printf(b, ",\n  \"stats\": {\"lines\": %llu, \"bytes\": %llu, "
	    "\"events\": %zu, \"matched\": %llu", (unsigned long long)inc->lines,
	    (unsigned long long)inc->bytes, inc->nevents,
	    (unsigned long long)inc->matched);
	json_limits(b, inc->rules);
	buf_adds(b, "}");
	buf_adds(b, ",\n  \"errors\": [");
	for (i = 0; i < inc->errors.n; i++) {
		if (i)
			buf_adds(b, ", ");
		sanitize_json_string(b, inc->errors.v[i]);
	}
	buf_adds(b, "]\n}\n");
}
