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

/* Append a JSON string, or null. */
static void
json_str(struct buf *b, const char *s)
{
	if (s == NULL) {
		buf_adds(b, "null");
		return;
	}
	buf_addc(b, '"');
	sanitize_json(b, s, strlen(s));
	buf_addc(b, '"');
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
	clock_format(t, s, sizeof s);
	json_str(b, s);
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
	json_str(b, event_host(inc, e));
	buf_adds(b, ", \"source\": ");
	json_str(b, inc->sources[e->source]->path);
	buf_printf(b, ", \"line\": %llu, \"time\": ", (unsigned long long)e->line);
	json_time(b, &e->time);
	buf_adds(b, ", \"signature\": ");
	json_str(b, event_signature(e));
	buf_adds(b, ", \"role\": ");
	json_str(b, role_name(e->role));
	buf_adds(b, ", \"text\": ");
	json_str(b, e->text);
	if (e->rule != NULL) {
		buf_adds(b, ", \"title\": ");
		json_str(b, e->rule->title);
		buf_adds(b, ", \"explain\": ");
		json_str(b, e->rule->explain);
		buf_adds(b, ", \"action\": ");
		json_str(b, e->rule->action);
	}
	buf_adds(b, "}");
}

static void
json_verdict(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	bool			 none = a->first == RL_NONE;

	buf_adds(b, "{\"domain\": ");
	json_str(b, none ? "none" : domain_name(a->domain));
	buf_adds(b, ", \"group\": ");
	json_str(b, none ? NULL : group_name(a->group));
	buf_adds(b, ", \"scope\": ");
	json_str(b, none ? NULL : scope_name(a->scope));
	buf_adds(b, ", \"summary\": ");
	json_str(b, a->summary);
	buf_adds(b, ", \"explanation\": ");
	json_str(b, a->explanation);
	buf_adds(b, "}");
}

static void
json_checkpoint(struct buf *b, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	size_t			 i;

	buf_adds(b, "{\"status\": ");
	json_str(b, ckpt_status_name(a->ckpt));
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
		json_str(b, r->host);
		buf_adds(b, ", \"sources\": [");
		for (k = 0; k < r->nsources; k++) {
			if (k)
				buf_adds(b, ", ");
			json_str(b, inc->sources[r->sources[k]]->path);
		}
		buf_adds(b, "], \"state\": ");
		json_str(b, rank_state_name(r->state));
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
		json_str(b, inc->sources[e->source]->path);
		buf_printf(b, ", \"line\": %llu, \"time\": ",
		    (unsigned long long)e->line);
		json_time(b, &e->time);
		buf_adds(b, ", \"signature\": ");
		json_str(b, event_signature(e));
		buf_adds(b, ", \"role\": ");
		json_str(b, role_name(e->role));
		buf_adds(b, ", \"domain\": ");
		json_str(b, e->rule != NULL ? domain_name(e->rule->domain) :
		    "unknown");
		if (e->harmless)
			buf_adds(b, ", \"harmless\": true");
		buf_adds(b, ", \"text\": ");
		json_str(b, e->text);
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
		json_str(b, s->path);
		buf_printf(b, ", \"lines\": %llu, \"bytes\": %llu",
		    (unsigned long long)s->lines, (unsigned long long)s->bytes);
		buf_adds(b, ", \"time_form\": ");
		json_str(b, clock_form_name(s->clock.form));
		if (s->binary)
			buf_adds(b, ", \"skipped\": \"binary\"");
		if (s->long_lines)
			buf_printf(b, ", \"long_lines\": %llu",
			    (unsigned long long)s->long_lines);
		if (s->error != NULL) {
			buf_adds(b, ", \"error\": ");
			json_str(b, s->error);
		}
		buf_adds(b, "}");
	}
	buf_adds(b, inc->nsources ? "\n  ]" : "]");
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
	buf_adds(b, ",\n  \"sources\": ");
	json_sources(b, inc);
	buf_printf(b, ",\n  \"stats\": {\"lines\": %llu, \"bytes\": %llu, "
	    "\"events\": %zu}", (unsigned long long)inc->lines,
	    (unsigned long long)inc->bytes, inc->nevents);
	buf_adds(b, ",\n  \"errors\": [");
	for (i = 0; i < inc->errors.n; i++) {
		if (i)
			buf_adds(b, ", ");
		json_str(b, inc->errors.v[i]);
	}
	buf_adds(b, "]\n}\n");
}

/* Append log text made safe for a terminal. */
static void
text_safe(struct buf *b, const char *s)
{
	sanitize_terminal(b, s, strlen(s));
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
