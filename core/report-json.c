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
	json_string(b, inc->fingerprint);
	buf_adds(b, ", \"matches\": [");
	for (i = 0; h != NULL && i < h->nmatches; i++) {
		m = &h->matches[i];
		buf_printf(b, "%s\n    {\"incident\": %lld, \"time\": ",
		    i ? "," : "", (long long)m->incident);
		json_string(b, m->time);
		buf_adds(b, ", \"fingerprint\": ");
		json_string(b, m->fingerprint);
		buf_adds(b, ", \"diagnosis\": ");
		json_string(b, m->diagnosis);
		buf_adds(b, ", \"resolution\": ");
		json_string(b, m->resolution);
		buf_adds(b, ", \"summary\": ");
		json_string(b, m->summary);
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
		json_string(b, o->name);
		buf_printf(b, ", \"count\": %zu, \"first\": ", o->count);
		json_string(b, o->first);
		buf_adds(b, ", \"last\": ");
		json_string(b, o->last);
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
		json_string(b, clock_form_name(s->clock.form));
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
	uint64_t	 lines;		/* lines it matched (not harmless) */
	int64_t		 count;		/* sum of `count` captures */
	int64_t		 total;		/* largest `total` capture */
	int64_t		 first;		/* utc ms of the first, or INT64_MAX */
	int64_t		 last;		/* and of the last */
};

/*
 * Tally the failure, symptom and evidence signatures (not step lines):
 * what a repeated warning such as vLLM's preemption amounts to.
 */
static struct tally *
report_tally(const struct rl_incident *inc, size_t *np)
{
	struct tally		*v = NULL, *t;
	const struct rl_event	*e;
	size_t			 n = 0, i, k;
	int64_t			 ms;

	for (i = 0; i < inc->nevents; i++) {
		e = &inc->events[i];
		if (e->rule == NULL || e->rule->mark == MARK_STEP || e->harmless)
			continue;
		for (k = 0; k < n && v[k].rule != e->rule; k++)
			;
		if (k == n) {
			v = xreallocarray(v, n + 1, sizeof *v);
			memset(&v[n], 0, sizeof *v);
			v[n].rule = e->rule;
			v[n].first = INT64_MAX;
			v[n].last = INT64_MIN;
			n++;
		}
		t = &v[k];
		t->lines++;
		if (e->cap[CAP_COUNT] != RL_CAP_UNSET)
			t->count += e->cap[CAP_COUNT];
		if (e->cap[CAP_TOTAL] != RL_CAP_UNSET && e->cap[CAP_TOTAL] > t->total)
			t->total = e->cap[CAP_TOTAL];
		if ((e->time.flags & RL_TIME_VALID) &&
		    !(e->time.flags & RL_TIME_BOOT)) {
			ms = clock_utc_ms(&e->time);
			if (ms < t->first)
				t->first = ms;
			if (ms > t->last)
				t->last = ms;
		}
	}
	*np = n;
	return v;
}

/* What a tally amounts to: reported counts beat counted lines. */
static int64_t
tally_amount(const struct tally *t)
{
	if (t->count > 0)
		return t->count;
	if (t->total > 0)
		return t->total;
	return (int64_t)t->lines;
}

/* Occurrences per minute over the span they were seen in, or -1. */
static double
tally_rate(const struct tally *t)
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
		    (unsigned long long)v[i].lines, (long long)tally_amount(&v[i]));
		if ((r = tally_rate(&v[i])) >= 0)
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
	buf_adds(b, ",\n  \"history\": ");
	json_history(b, inc);
	buf_adds(b, ",\n  \"signatures\": ");
	json_signatures(b, inc);
	buf_adds(b, ",\n  \"sources\": ");
	json_sources(b, inc);
	buf_printf(b, ",\n  \"stats\": {\"lines\": %llu, \"bytes\": %llu, "
	    "\"events\": %zu}", (unsigned long long)inc->lines,
	    (unsigned long long)inc->bytes, inc->nevents);
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
		for (k = i; k > 0 && tally_amount(&v[k - 1]) < tally_amount(&t); k--)
			v[k] = v[k - 1];
		v[k] = t;
	}
	for (i = 0, k = 0; i < n && k < 12; i++) {
		if (v[i].rule->role == ROLE_PROGRESS ||
		    v[i].rule->role == ROLE_EVIDENCE)
			continue;
		if (k++ == 0)
			buf_adds(b, "Signatures seen:\n");
		buf_printf(b, "  %6lld  %-40s %s", (long long)tally_amount(&v[i]),
		    v[i].rule->id, role_name(v[i].rule->role));
		if ((r = tally_rate(&v[i])) >= 0 && tally_amount(&v[i]) > 1)
			buf_printf(b, ", %.1f/min", r);
		buf_adds(b, "\n");
	}
	free(v);
}

/* The date part of an ISO 8601 time, for a sentence. */
static void
text_date(struct buf *b, const char *t)
{
	if (t == NULL)
		buf_adds(b, "an unknown date");
	else
		buf_printf(b, "%.10s", t);
}

/* A note written then, quoted, for a terminal. */
static void
text_note(struct buf *b, const char *label, const char *note)
{
	if (note == NULL)
		return;
	buf_printf(b, "    %s: ", label);
	text_safe(b, note);
	buf_adds(b, "\n");
}

/* The root's hosts, GPUs and ranks that failed before. */
static void
report_text_offenders(const struct rl_incident *inc, struct buf *b)
{
	const struct rl_history		*h = inc->history;
	const struct rl_offender	*o;
	size_t				 i;

	for (i = 0; i < h->noffenders; i++) {
		o = &h->offenders[i];
		buf_printf(b, "Repeat offender: %s ", offender_kind_name(o->kind));
		text_safe(b, o->name);
		buf_printf(b, " was in the root of %zu earlier incident%s (",
		    o->count, o->count == 1 ? "" : "s");
		text_date(b, o->first);
		if (o->count > 1) {
			buf_adds(b, " to ");
			text_date(b, o->last);
		}
		buf_printf(b, ", last #%lld)\n", (long long)o->last_incident);
		if (o->kind == OFFENDER_HOST &&
		    inc->answer.domain == DOMAIN_HARDWARE)
			buf_adds(b, "  A hardware fault on a host that has "
			    "failed before: consider draining it.\n");
	}
}

/* Whether any exact match carries a note. */
static bool
history_noted(const struct rl_history *h)
{
	size_t	i;

	for (i = 0; i < h->nmatches; i++) {
		if (h->matches[i].exact && (h->matches[i].diagnosis != NULL ||
		    h->matches[i].resolution != NULL))
			return true;
	}
	return false;
}

/* What the store knew of this failure: seen before, near ones, offenders. */
static void
report_text_history(const struct rl_incident *inc, struct buf *b)
{
	const struct rl_history		*h = inc->history;
	const struct rl_history_match	*m;
	size_t				 i;

	if (h == NULL || !h->looked || inc->answer.first == RL_NONE)
		return;
	if (h->seen_before == 0)
		buf_adds(b, "Seen before: never (a new fingerprint)\n");
	for (i = 0; i < h->nmatches; i++) {
		m = &h->matches[i];
		if (m->exact && i == 0) {
			buf_printf(b, "Seen before: %zu time%s, last on ",
			    h->seen_before, h->seen_before == 1 ? "" : "s");
			text_date(b, m->time);
			buf_printf(b, " in incident #%lld\n",
			    (long long)m->incident);
		}
		if (m->exact && (m->diagnosis != NULL ||
		    m->resolution != NULL)) {
			buf_printf(b, "  In incident #%lld (", (long long)
			    m->incident);
			text_date(b, m->time);
			buf_adds(b, "):\n");
			text_note(b, "Diagnosis", m->diagnosis);
			text_note(b, "Resolution", m->resolution);
		} else if (!m->exact) {
			buf_printf(b, "Similar: incident #%lld (score %.2f) "
			    "on ", (long long)m->incident, m->score);
			text_date(b, m->time);
			buf_adds(b, ": ");
			text_safe(b, m->summary != NULL ? m->summary : "");
			buf_adds(b, "\n");
			text_note(b, "Diagnosis", m->diagnosis);
		}
	}
	if (h->seen_before > 0 && !history_noted(h))
		buf_printf(b, "  No diagnosis was written then (rankline note "
		    "%lld TEXT)\n", (long long)h->matches[0].incident);
	report_text_offenders(inc, b);
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
	report_text_history(inc, b);
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
