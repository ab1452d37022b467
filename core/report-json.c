/*
 * report-json.c: `analyze --json` and the plain text report.
 *
 * The JSON shape is a promise (issue #2): later versions add fields and
 * never change or remove one.  Every string from a log goes through
 * sanitize_json; times are ISO 8601 as the log wrote them.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define JSON_EVENTS_MAX	20000	/* events listed; the count says if more */

/* Append a time, or null. */
static void
json_time(struct buf *b, const struct rl_time *t)
{
	char	s[64];

	if (!(t->flags & RL_TIME_VALID)) {
		buf_adds(b, "null");
		return;
	}
	clock_format(t, s, sizeof s);
	json_string(b, s);
}

/* Append an int, or null for RL_NONE. */
static void
json_int(struct buf *b, int v)
{
	if (v == RL_NONE)
		buf_adds(b, "null");
	else
		buf_printf(b, "%d", v);
}

/* The host of an event's process. */
static const char *
event_host(const struct rl_incident *inc, const struct rl_event *e)
{
	return e->process != RL_NONE ? inc->procs[e->process]->host : NULL;
}

/* The rule id of an event (the diagnosis's own for a hang). */
static const char *
event_signature(const struct rl_event *e)
{
	if (e->rule != NULL)
		return e->rule->id;
	return e->role == ROLE_HANG ? "rankline.hang.quiet" : "rankline.unknown";
}

static void
json_first(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_event	*e;

	if (inc->answer.first == RL_NONE) {
		buf_adds(b, "null");
		return;
	}
	e = &inc->events[inc->answer.first];
	buf_adds(b, "{\"rank\": ");
	json_int(b, e->rank);
	buf_adds(b, ", \"host\": ");
	json_string(b, event_host(inc, e));
	buf_adds(b, ", \"source\": ");
	json_string(b, inc->sources[e->source]->path);
	buf_printf(b, ", \"line\": %llu, \"time\": ", (unsigned long long)e->line);
	json_time(b, &e->time);
	buf_adds(b, ", \"signature\": ");
	json_string(b, event_signature(e));
	buf_adds(b, ", \"role\": ");
	json_string(b, role_name(e->role));
	buf_adds(b, ", \"text\": ");
	json_string(b, e->text);
	if (e->rule != NULL) {
		buf_adds(b, ", \"title\": ");
		json_string(b, e->rule->title);
		buf_adds(b, ", \"explain\": ");
		json_string(b, e->rule->explain);
		buf_adds(b, ", \"action\": ");
		json_string(b, e->rule->action);
	}
	buf_adds(b, "}");
}

static void
json_verdict(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	bool			 none = a->first == RL_NONE;

	buf_adds(b, "{\"domain\": ");
	json_string(b, none ? "none" : domain_name(a->domain));
	buf_adds(b, ", \"group\": ");
	json_string(b, none ? NULL : group_name(a->group));
	buf_adds(b, ", \"scope\": ");
	json_string(b, none ? NULL : scope_name(a->scope));
	buf_adds(b, ", \"summary\": ");
	json_string(b, a->summary);
	buf_adds(b, ", \"explanation\": ");
	json_string(b, a->explanation);
	buf_adds(b, "}");
}

static void
json_checkpoint(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	size_t			 i;

	buf_adds(b, "{\"status\": ");
	json_string(b, ckpt_status_name(a->ckpt));
	buf_adds(b, ", \"last_safe_step\": ");
	json_int(b, a->last_safe_step);
	buf_adds(b, ", \"unsafe_steps\": [");
	for (i = 0; i < a->nunsafe; i++)
		buf_printf(b, "%s%d", i ? ", " : "", a->unsafe_steps[i]);
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
		json_string(b, r->host);
		buf_adds(b, ", \"sources\": [");
		for (k = 0; k < r->nsources; k++) {
			if (k)
				buf_adds(b, ", ");
			json_string(b, inc->sources[r->sources[k]]->path);
		}
		buf_adds(b, "], \"state\": ");
		json_string(b, rank_state_name(r->state));
		buf_adds(b, ", \"last_time\": ");
		json_time(b, &r->last);
		buf_adds(b, "}");
	}
	buf_adds(b, inc->nranks ? "\n  ]" : "]");
}

/* Is this event worth listing?  Step lines are counted, not listed. */
static bool
event_listed(const struct rl_event *e)
{
	return e->rule == NULL || e->rule->mark != MARK_STEP;
}

static void
json_events(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_event	*e;
	size_t			 i, n = 0;

	buf_adds(b, "[");
	for (i = 0; i < inc->nevents && n < JSON_EVENTS_MAX; i++) {
		e = &inc->events[i];
		if (!event_listed(e))
			continue;
		buf_adds(b, n++ ? ",\n    {\"rank\": " : "\n    {\"rank\": ");
		json_int(b, e->rank);
		buf_adds(b, ", \"source\": ");
		json_string(b, inc->sources[e->source]->path);
		buf_printf(b, ", \"line\": %llu, \"time\": ",
		    (unsigned long long)e->line);
		json_time(b, &e->time);
		buf_adds(b, ", \"signature\": ");
		json_string(b, event_signature(e));
		buf_adds(b, ", \"role\": ");
		json_string(b, role_name(e->role));
		buf_adds(b, ", \"domain\": ");
		json_string(b, e->rule != NULL ? domain_name(e->rule->domain) :
		    "unknown");
		if (e->harmless)
			buf_adds(b, ", \"harmless\": true");
		buf_adds(b, ", \"text\": ");
		json_string(b, e->text);
		buf_adds(b, "}");
	}
	buf_adds(b, n ? "\n  ]" : "]");
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
		json_string(b, s->path);
		buf_printf(b, ", \"lines\": %llu, \"bytes\": %llu",
		    (unsigned long long)s->lines, (unsigned long long)s->bytes);
		buf_adds(b, ", \"time_form\": ");
		json_string(b, clock_form_name(clock_form_main(&s->clock)));
		if (s->binary)
			buf_adds(b, ", \"skipped\": \"binary\"");
		if (s->long_lines)
			buf_printf(b, ", \"long_lines\": %llu",
			    (unsigned long long)s->long_lines);
		if (s->error != NULL) {
			buf_adds(b, ", \"error\": ");
			json_string(b, s->error);
		}
		buf_adds(b, "}");
	}
	buf_adds(b, inc->nsources ? "\n  ]" : "]");
}

/* How often one signature was seen, for counts and rates. */
struct tally {
	const struct rl_rule *rule;
	const struct rl_tally *t;	/* borrowed from the incident */
};

/* Tallies in the order their signatures were first seen. */
static int
tally_cmp(const void *a, const void *b)
{
	const struct tally	*x = a, *y = b;

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
static struct tally *
report_tally(const struct rl_incident *inc, size_t *np)
{
	struct tally		*v;
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
static int64_t
tally_amount(const struct rl_tally *t)
{
	if (t->count > 0)
		return t->count;
	if (t->total > 0)
		return t->total;
	return (int64_t)t->lines;
}

/* Occurrences per minute over the span they were seen in, or -1. */
static double
tally_rate(const struct rl_tally *t)
{
	/* Over less than a minute a rate says nothing. */
	if (t->first == INT64_MAX || t->last - t->first < 60000)
		return -1;
	return (double)tally_amount(t) * 60000.0 / (double)(t->last - t->first);
}

static void
json_signatures(struct buf *b, const struct rl_incident *inc)
{
	struct tally	*v;
	size_t		 n, i;
	double		 r;

	v = report_tally(inc, &n);
	buf_adds(b, "[");
	for (i = 0; i < n; i++) {
		buf_adds(b, i ? ",\n    {\"signature\": " : "\n    {\"signature\": ");
		json_string(b, v[i].rule->id);
		buf_adds(b, ", \"role\": ");
		json_string(b, role_name(v[i].rule->role));
		buf_printf(b, ", \"lines\": %llu, \"count\": %lld",
		    (unsigned long long)v[i].t->lines, (long long)tally_amount(v[i].t));
		if ((r = tally_rate(v[i].t)) >= 0)
			buf_printf(b, ", \"per_minute\": %.2f", r);
		buf_adds(b, "}");
	}
	buf_adds(b, n ? "\n  ]" : "]");
	free(v);
}

/* The whole analysis as one JSON object. */
void
report_json(const struct rl_incident *inc, struct buf *b)
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
	json_events(b, inc);
	buf_adds(b, ",\n  \"history\": {\"seen_before\": 0, \"matches\": []}");
	buf_adds(b, ",\n  \"signatures\": ");
	json_signatures(b, inc);
	buf_adds(b, ",\n  \"sources\": ");
	json_sources(b, inc);
	buf_printf(b, ",\n  \"stats\": {\"lines\": %llu, \"bytes\": %llu, "
	    "\"events\": %zu, \"matched\": %llu}", (unsigned long long)inc->lines,
	    (unsigned long long)inc->bytes, inc->nevents,
	    (unsigned long long)inc->matched);
	buf_adds(b, ",\n  \"errors\": [");
	for (i = 0; i < inc->errors.n; i++) {
		if (i)
			buf_adds(b, ", ");
		json_string(b, inc->errors.v[i]);
	}
	buf_adds(b, "]\n}\n");
}

/* Append log text made safe for a terminal. */
static void
text_safe(struct buf *b, const char *s)
{
	sanitize_terminal(b, s, strlen(s));
}

/* The signatures seen, most frequent first, with their first actions. */
static void
report_text_tally(const struct rl_incident *inc, struct buf *b)
{
	struct tally	*v, t;
	size_t		 n, i, k;
	double		 r;

	v = report_tally(inc, &n);
	for (i = 1; i < n; i++) {
		t = v[i];
		for (k = i; k > 0 && tally_amount(v[k - 1].t) < tally_amount(t.t);
		    k--)
			v[k] = v[k - 1];
		v[k] = t;
	}
	for (i = 0, k = 0; i < n && k < 12; i++) {
		if (v[i].rule->role == ROLE_PROGRESS ||
		    v[i].rule->role == ROLE_EVIDENCE)
			continue;
		if (k++ == 0)
			buf_adds(b, "Signatures seen:\n");
		buf_printf(b, "  %6lld  %-40s %s", (long long)tally_amount(v[i].t),
		    v[i].rule->id, role_name(v[i].rule->role));
		if ((r = tally_rate(v[i].t)) >= 0 && tally_amount(v[i].t) > 1)
			buf_printf(b, ", %.1f/min", r);
		buf_adds(b, "\n");
	}
	free(v);
}

/* The analysis for a person at a terminal. */
void
report_text(const struct rl_incident *inc, struct buf *b)
{
	const struct rl_answer	*a = &inc->answer;
	const struct rl_event	*e;
	char			 t[64];
	size_t			 i;

	if (a->first == RL_NONE) {
		buf_printf(b, "No failure found in %zu sources (%llu lines).\n",
		    inc->nsources, (unsigned long long)inc->lines);
	} else {
		e = &inc->events[a->first];
		buf_adds(b, "First failure: ");
		if (e->rank != RL_NONE)
			buf_printf(b, "rank %d", e->rank);
		else
			buf_adds(b, "the launcher");
		if (event_host(inc, e) != NULL) {
			buf_adds(b, " on ");
			text_safe(b, event_host(inc, e));
		}
		if (e->time.flags & RL_TIME_VALID) {
			clock_format(&e->time, t, sizeof t);
			buf_printf(b, " at %s", t);
		}
		buf_printf(b, "\n  %s (%s)\n  ", event_signature(e),
		    role_name(e->role));
		text_safe(b, inc->sources[e->source]->path);
		buf_printf(b, ":%llu: ", (unsigned long long)e->line);
		text_safe(b, e->text);
		buf_adds(b, "\n");
		buf_printf(b, "Verdict: %s", domain_name(a->domain));
		if (group_name(a->group) != NULL)
			buf_printf(b, ", %s", group_name(a->group));
		if (scope_name(a->scope) != NULL)
			buf_printf(b, ", scope %s", scope_name(a->scope));
		buf_adds(b, "\n  ");
		text_safe(b, a->summary);
		buf_adds(b, "\n");
		if (e->rule != NULL && e->rule->action != NULL) {
			buf_adds(b, "First action: ");
			text_safe(b, e->rule->action);
			buf_adds(b, "\n");
		}
	}
	report_text_tally(inc, b);
	buf_printf(b, "Checkpoint: %s", ckpt_status_name(a->ckpt));
	if (a->last_safe_step != RL_NONE)
		buf_printf(b, ", last safe step %d", a->last_safe_step);
	for (i = 0; i < a->nunsafe; i++)
		buf_printf(b, "%s%d", i ? ", " : ", unsafe: ", a->unsafe_steps[i]);
	buf_adds(b, "\n");
	for (i = 0; i < inc->errors.n; i++) {
		buf_adds(b, "warning: ");
		text_safe(b, inc->errors.v[i]);
		buf_adds(b, "\n");
	}
}
