/*
 * wording.c: the answer put into words, once.
 *
 * Every output that says what failed, why, and what to do renders the
 * sections made here: the text report (report-text.c), the console's
 * diagnosis view, and the Markdown and HTML reports to come.  The checkpoint
 * sentence is here too, for the timeline's header and `show`, which have a
 * stored or partial answer rather than an incident.  Texts are raw (log
 * text as written, no escaping, no markup): each renderer escapes for its
 * destination.  Numbers are formatted here, so every output shows the same.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wording.h"

#define WD_SIGNATURES	12	/* signatures listed */
#define WD_MEANINGS	6	/* failure signatures explained */

static const char *const wd_role_names[] = {
	"heading", "title", "first", "body", "log", "for", "against",
	"detail", "action", "found", "missing", "warning", "dim"
};

/* A role's name, for tests and debugging. */
const char *
wording_role_name(enum wd_role r)
{
	return (unsigned)r < nitems(wd_role_names) ? wd_role_names[r] : "?";
}

/* Append an item; the text is copied. */
void
wording_add(struct wd_section *s, enum wd_role role, int indent,
    const char *text)
{
	struct wd_item	*it;

	s->items = array_grow(s->items, s->n, &s->cap, sizeof *s->items);
	it = &s->items[s->n++];
	it->role = role;
	it->indent = indent;
	it->text = xstrdup(text != NULL ? text : "");
	it->source = RL_NONE;
	it->line = 0;
}

/* Append an item that points at a line of a source. */
static void
wd_add_at(struct wd_section *s, enum wd_role role, int indent,
    const char *text, int source, uint64_t line)
{
	wording_add(s, role, indent, text);
	s->items[s->n - 1].source = source;
	s->items[s->n - 1].line = line;
}

/* Append a formatted item. */
static void __attribute__((format(printf, 4, 5)))
wd_addf(struct wd_section *s, enum wd_role role, int indent,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*t;

	va_start(ap, fmt);
	xvasprintf(&t, fmt, ap);
	va_end(ap);
	wording_add(s, role, indent, t);
	free(t);
}

/* A paragraph after a label, or nothing when there are no words. */
static void
wd_para(struct wd_section *s, enum wd_role role, int indent,
    const char *label, const char *text)
{
	if (text == NULL || *text == '\0')
		return;
	wd_addf(s, role, indent, "%s%s", label, text);
}

/* Free every section's items, keeping the struct. */
void
wording_clear(struct wording *w)
{
	size_t	i, k;

	for (k = 0; k < WD_NPARTS; k++) {
		for (i = 0; i < w->part[k].n; i++)
			free(w->part[k].items[i].text);
		free(w->part[k].items);
	}
	memset(w, 0, sizeof *w);
}

/* ", last safe step 10, unsafe: 20, 30, suspect: 15": the steps part. */
void
wording_checkpoint_steps(struct buf *b, int last_safe, const int *unsafe,
    size_t nunsafe, const int *suspect, size_t nsuspect)
{
	size_t	i;

	if (last_safe != RL_NONE)
		buf_printf(b, ", last safe step %d", last_safe);
	for (i = 0; i < nunsafe; i++)
		buf_printf(b, "%s%d", i ? ", " : ", unsafe: ", unsafe[i]);
	for (i = 0; i < nsuspect; i++)
		buf_printf(b, "%s%d", i ? ", " : ", suspect: ", suspect[i]);
}

/* The checkpoint sentence: the status, then the steps. */
void
wording_checkpoint(struct buf *b, const char *status, int last_safe,
    const int *unsafe, size_t nunsafe, const int *suspect, size_t nsuspect)
{
	buf_adds(b, status != NULL ? status : "?");
	wording_checkpoint_steps(b, last_safe, unsafe, nunsafe, suspect,
	    nsuspect);
}

/* An evidence list, its first WD_EVIDENCE items: where, and what it shows. */
static void
wd_evidence(struct wd_section *s, const struct rl_incident *inc,
    const struct rl_evlist *l)
{
	const struct rl_evidence	*v;
	size_t				 i;

	for (i = 0; i < l->n && i < WD_EVIDENCE; i++) {
		v = &l->v[i];
		wd_add_at(s, v->stance == STANCE_AGAINST ? WD_AGAINST : WD_FOR,
		    4, v->shows, v->source != RL_NONE && (size_t)v->source <
		    inc->nsources ? v->source : RL_NONE, v->line);
		if (v->text != NULL && *v->text != '\0')
			wording_add(s, WD_DETAIL, 6, v->text);
	}
	if (l->n + l->dropped > WD_EVIDENCE)
		wd_addf(s, WD_DIM, 4, "(%zu more in analyze --json)",
		    l->n + l->dropped - WD_EVIDENCE);
}

/* The first failure: who, where, the line, why. */
static void
wd_first(struct wd_section *s, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	const struct rl_event	*e;
	struct buf		 b = { 0 };
	char			 t[64];

	if (a->first == RL_NONE) {
		wd_addf(s, WD_HEADING, 0, "No failure found in %zu sources "
		    "(%llu lines).", inc->nsources,
		    (unsigned long long)inc->lines);
		return;
	}
	e = inc->events[a->first];
	buf_adds(&b, "First failure: ");
	if (e->rank != RL_NONE)
		buf_printf(&b, "rank %d", e->rank);
	else if (a->first_launcher)
		buf_adds(&b, "the launcher");
	else if (a->first_unattributed)
		buf_adds(&b, "an unattributed line");
	else
		buf_adds(&b, "a process");
	if (event_host(inc, e) != NULL) {
		buf_adds(&b, " on ");
		buf_adds(&b, event_host(inc, e));
	}
	if (e->time.flags & RL_TIME_VALID) {
		clock_format(&e->time, t, sizeof t);
		buf_printf(&b, " at %s", t);
	}
	wording_add(s, WD_FIRST, 0, b.p);
	wd_addf(s, WD_BODY, 2, "%s (%s)", report_event_signature(inc, e),
	    role_name(e->role));
	buf_clear(&b);
	wd_add_at(s, WD_LOG, 2, event_text(inc, e), (int)e->source, e->line);
	wd_para(s, WD_BODY, 2, "why: ", a->explanation);
	wd_evidence(s, inc, &a->first_evidence);
}

/* The verdict, its reasons, and the first failure's first action. */
static void
wd_verdict(struct wd_section *s, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	const struct rl_event	*e;
	struct buf		 b = { 0 };

	if (a->first == RL_NONE)
		return;
	e = inc->events[a->first];
	buf_printf(&b, "Verdict: %s", domain_name(a->domain));
	if (group_name(a->group) != NULL)
		buf_printf(&b, ", %s", group_name(a->group));
	if (scope_name(a->scope) != NULL)
		buf_printf(&b, ", scope %s", scope_name(a->scope));
	buf_printf(&b, " (confidence %s, %.2f)", confidence_level(a->confidence),
	    a->confidence);
	wording_add(s, WD_HEADING, 0, b.p);
	buf_clear(&b);
	wording_add(s, WD_BODY, 2, a->summary);
	wd_para(s, WD_BODY, 2, "why: ", a->verdict_explanation);
	wd_evidence(s, inc, &a->verdict_evidence);
	if (e->rule != NULL && e->rule->action != NULL)
		wd_addf(s, WD_ACTION, 0, "First action: %s", e->rule->action);
}

/* The date part of an ISO 8601 time, for a sentence. */
static void
wd_date(struct buf *b, const char *t)
{
	/* From the store, which imports whatever another machine wrote. */
	if (t == NULL)
		buf_adds(b, "an unknown date");
	else
		buf_add(b, t, strnlen(t, 10));
}

/* The root's hosts, GPUs and ranks that failed before. */
static void
wd_offenders(struct wd_section *s, const struct rl_incident *inc)
{
	const struct rl_history		*h = inc->history;
	const struct rl_offender	*o;
	struct buf			 b = { 0 };
	size_t				 i;

	for (i = 0; i < h->noffenders; i++) {
		o = &h->offenders[i];
		buf_reset(&b);
		buf_printf(&b, "Repeat offender: %s %s was in the root of %zu "
		    "earlier incident%s (", offender_kind_name(o->kind),
		    o->name != NULL ? o->name : "", o->count,
		    o->count == 1 ? "" : "s");
		wd_date(&b, o->first);
		if (o->count > 1) {
			buf_adds(&b, " to ");
			wd_date(&b, o->last);
		}
		buf_printf(&b, ", last #%lld)", (long long)o->last_incident);
		wording_add(s, WD_WARNING, 0, b.p);
		if (o->kind == OFFENDER_HOST &&
		    inc->answer.domain == DOMAIN_HARDWARE)
			wording_add(s, WD_ACTION, 2, "A hardware fault on a host "
			    "that has failed before: consider draining it.");
	}
	buf_clear(&b);
}

/* Whether any exact match carries a note. */
static bool
wd_noted(const struct rl_history *h)
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
wd_history(struct wd_section *s, const struct rl_incident *inc)
{
	const struct rl_history		*h = inc->history;
	const struct rl_history_match	*m;
	struct buf			 b = { 0 };
	size_t				 i;

	if (h == NULL || !h->looked || inc->answer.first == RL_NONE)
		return;
	if (h->seen_before == 0)
		wording_add(s, WD_HEADING, 0, "Seen before: never (a new "
		    "fingerprint)");
	for (i = 0; i < h->nmatches; i++) {
		m = &h->matches[i];
		if (m->exact && i == 0) {
			buf_reset(&b);
			buf_printf(&b, "Seen before: %zu time%s, last on ",
			    h->seen_before, h->seen_before == 1 ? "" : "s");
			wd_date(&b, m->time);
			buf_printf(&b, " in incident #%lld",
			    (long long)m->incident);
			wording_add(s, WD_HEADING, 0, b.p);
		}
		if (m->exact && (m->diagnosis != NULL ||
		    m->resolution != NULL)) {
			buf_reset(&b);
			buf_printf(&b, "In incident #%lld (", (long long)
			    m->incident);
			wd_date(&b, m->time);
			buf_adds(&b, "):");
			wording_add(s, WD_BODY, 2, b.p);
			wd_para(s, WD_BODY, 4, "Diagnosis: ", m->diagnosis);
			wd_para(s, WD_BODY, 4, "Resolution: ", m->resolution);
		} else if (!m->exact) {
			buf_reset(&b);
			buf_printf(&b, "Similar: incident #%lld (score %.2f) "
			    "on ", (long long)m->incident, m->score);
			wd_date(&b, m->time);
			buf_adds(&b, ": ");
			buf_adds(&b, m->summary != NULL ? m->summary : "");
			wording_add(s, WD_BODY, 0, b.p);
			wd_para(s, WD_BODY, 4, "Diagnosis: ", m->diagnosis);
		}
	}
	buf_clear(&b);
	if (h->seen_before > 0 && !wd_noted(h))
		wd_addf(s, WD_DIM, 2, "No diagnosis was written then "
		    "(rankline note %lld TEXT)", (long long)h->matches[0].incident);
	wd_offenders(s, inc);
}

/* The signatures seen, most frequent first, with their rates. */
static void
wd_signatures(struct wd_section *s, const struct rl_incident *inc)
{
	struct report_tally	*v, t;
	struct buf		 b = { 0 };
	size_t			 n, i, k;
	double			 r;

	v = report_tally(inc, &n);
	/* Stable: equal counts keep the order they were first seen in. */
	for (i = 1; i < n; i++) {
		t = v[i];
		for (k = i; k > 0 && report_tally_amount(v[k - 1].t) <
		    report_tally_amount(t.t); k--)
			v[k] = v[k - 1];
		v[k] = t;
	}
	for (i = 0, k = 0; i < n && k < WD_SIGNATURES; i++) {
		if (v[i].rule->role == ROLE_PROGRESS ||
		    v[i].rule->role == ROLE_EVIDENCE)
			continue;
		if (k++ == 0)
			wording_add(s, WD_TITLE, 0, "Signatures seen");
		buf_reset(&b);
		buf_printf(&b, "%6lld  %-40s %s",
		    (long long)report_tally_amount(v[i].t), v[i].rule->id,
		    role_name(v[i].rule->role));
		if ((r = report_tally_rate(v[i].t)) >= 0 &&
		    report_tally_amount(v[i].t) > 1)
			buf_printf(&b, ", %.1f/min", r);
		wording_add(s, WD_BODY, 2, b.p);
	}
	buf_clear(&b);
	free(v);
}

/* What each failure signature found means and what to do first. */
static void
wd_meanings(struct wd_section *s, const struct rl_incident *inc)
{
	/* Causes first, then what they cause, then what carries them. */
	static const enum rl_role order[] = {
		ROLE_ROOT, ROLE_SYMPTOM, ROLE_COLLATERAL, ROLE_WRAPPER
	};
	struct report_tally	*v;
	const struct rl_rule	*r;
	size_t			 n, i, o, k = 0;

	v = report_tally(inc, &n);
	for (o = 0; o < nitems(order); o++) {
		for (i = 0; i < n && k < WD_MEANINGS; i++) {
			r = v[i].rule;
			if (r->role != order[o] || (r->explain == NULL &&
			    r->action == NULL))
				continue;
			if (k++ == 0)
				wording_add(s, WD_TITLE, 0, "What the signatures "
				    "mean, and what to do first");
			if (r->title != NULL)
				wd_addf(s, WD_BODY, 2, "%s: %s", r->id, r->title);
			else
				wording_add(s, WD_BODY, 2, r->id);
			wd_para(s, WD_BODY, 4, "means: ", r->explain);
			wd_para(s, WD_ACTION, 4, "do:    ", r->action);
		}
	}
	free(v);
}

/* Which step is safe to resume from, and why. */
static void
wd_checkpoint(struct wd_section *s, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	struct buf		 b = { 0 };

	buf_adds(&b, "Checkpoint: ");
	wording_checkpoint(&b, ckpt_status_name(a->ckpt), a->last_safe_step,
	    a->unsafe_steps, a->nunsafe, a->suspect_steps, a->nsuspect);
	wording_add(s, WD_HEADING, 0, b.p);
	buf_clear(&b);
	wd_para(s, WD_BODY, 2, "why: ", a->ckpt_explanation);
	wd_evidence(s, inc, &a->ckpt_evidence);
}

/* Each host's clock against the reference, when there are several. */
static void
wd_clocks(struct wd_section *s, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	const struct rl_skew	*k;
	size_t			 i;

	for (i = 0; i < a->nzones; i++) {
		if (i == 0)
			wording_add(s, WD_TITLE, 0, "Clocks (from lines with "
			    "and without a zone)");
		if (a->zones[i].matched != 0)
			wd_addf(s, WD_BODY, 2, "%s: its times without a zone "
			    "are local time at UTC%c%02d:%02d, as %zu steps "
			    "and events matched with the zoned sources' say; "
			    "read as such",
			    inc->sources[a->zones[i].source]->path,
			    a->zones[i].tz_min < 0 ? '-' : '+',
			    abs(a->zones[i].tz_min) / 60,
			    abs(a->zones[i].tz_min) % 60, a->zones[i].matched);
		else
			wd_addf(s, WD_BODY, 2, "%s: its times without a zone "
			    "are local time at UTC%c%02d:%02d, as the zoned "
			    "lines around them say; read as such",
			    inc->sources[a->zones[i].source]->path,
			    a->zones[i].tz_min < 0 ? '-' : '+',
			    abs(a->zones[i].tz_min) / 60,
			    abs(a->zones[i].tz_min) % 60);
	}
	if (a->nskew == 0)
		return;
	wording_add(s, WD_TITLE, 0, "Clocks (from step lines every rank "
	    "printed)");
	for (i = 0; i < a->nskew; i++) {
		k = &a->skew[i];
		if (k->reference)
			wd_addf(s, WD_BODY, 2, "%s: reference", k->host);
		else
			wd_addf(s, WD_BODY, 2, "%s: %+.3f s (%zu samples, "
			    "spread %.3f s)", k->host,
			    (double)k->offset_ms / 1000, k->samples,
			    (double)k->spread_ms / 1000);
	}
}

/* vLLM's memory budget and the what-ifs. */
static void
wd_capacity(struct wd_section *s, const struct rl_incident *inc)
{
	const struct rl_capacity	*c = &inc->answer.capacity;
	size_t				 i;

	if (!c->present)
		return;
	wording_add(s, WD_TITLE, 0, "Memory budget (vLLM)");
	for (i = 0; i < c->nlines; i++)
		wd_para(s, WD_BODY, 2, "", c->lines[i]);
	if (c->nwhatif > 0)
		wording_add(s, WD_TITLE, 2, "One change at a time");
	for (i = 0; i < c->nwhatif; i++)
		wd_para(s, WD_ACTION, 4, "", c->whatif[i]);
}

/* The next steps, and what to collect before taking them. */
static void
wd_advice(struct wd_section *s, const struct rl_incident *inc)
{
	const struct rl_answer	*a = &inc->answer;
	size_t			 i;
	int			 k;
	bool			 any = false;

	for (i = 0; i < a->nadvice; i++) {
		if (i == 0)
			wording_add(s, WD_TITLE, 0, "Next steps (advice, not "
			    "actions)");
		wd_addf(s, WD_ACTION, 2, "%zu. %s (%s)", i + 1,
		    a->advice[i].text != NULL ? a->advice[i].text : "",
		    a->advice[i].why != NULL ? a->advice[i].why : "");
	}
	for (k = 0; k < CHECK_NITEMS && a->first != RL_NONE; k++) {
		if (a->checklist[k].missing == NULL ||
		    *a->checklist[k].missing == '\0')
			continue;
		if (!any)
			wording_add(s, WD_TITLE, 0, "Collect before restarting "
			    "(not in the logs)");
		any = true;
		wording_add(s, WD_MISSING, 2, a->checklist[k].missing);
	}
}

/* Which job the logs belong to: each fact found, and where from. */
static void
wd_job(struct wd_section *s, const struct rl_incident *inc)
{
	const struct rl_job_fact	*f;
	int				 k;

	for (k = 0; k < JOB_NFACTS; k++) {
		f = &inc->job.fact[k];
		if (f->value == NULL)
			continue;
		if (s->n == 0)
			wording_add(s, WD_TITLE, 0, "Job (from its logs)");
		if (f->from != NULL)
			wd_addf(s, WD_BODY, 2, "%s: %s (%s)", job_fact_name(k),
			    f->value, f->from);
		else
			wd_addf(s, WD_BODY, 2, "%s: %s", job_fact_name(k),
			    f->value);
	}
}

/* The evidence checklist: what the logs hold, what to collect. */
static void
wd_checklist(struct wd_section *s, const struct rl_incident *inc)
{
	const struct rl_check_item	*c = inc->answer.checklist;
	int				 k;

	wording_add(s, WD_TITLE, 0, "Evidence checklist (collect what is "
	    "missing first)");
	for (k = 0; k < CHECK_NITEMS; k++) {
		if (c[k].missing == NULL)
			wording_add(s, WD_FOUND, 4, check_name(k));
		else
			wording_add(s, WD_MISSING, 4, c[k].found ?
			    check_name(k) : c[k].missing);
	}
}

/*
 * What the answer may be missing: unreadable inputs, then rules that gave
 * lines up at pcre2's match limit (rankline rules check names the cause).
 */
static void
wd_warnings(struct wd_section *s, const struct rl_incident *inc)
{
	char	**notes;
	size_t	  n, i;

	for (i = 0; i < inc->errors.n; i++)
		wd_addf(s, WD_WARNING, 0, "warning: %s", inc->errors.v[i]);
	for (i = 0; i < inc->nsources; i++) {
		if (inc->sources[i]->binary_lines == 0)
			continue;
		wd_addf(s, WD_WARNING, 0, "warning: %s: %llu line%s held NUL "
		    "bytes (%llu bytes left out); the text around them was "
		    "read", inc->sources[i]->path,
		    (unsigned long long)inc->sources[i]->binary_lines,
		    inc->sources[i]->binary_lines == 1 ? "" : "s",
		    (unsigned long long)inc->sources[i]->binary_bytes);
	}
	n = ruleset_limit_notes(inc->rules, &notes);
	for (i = 0; i < n; i++) {
		wd_addf(s, WD_WARNING, 0, "warning: %s", notes[i]);
		free(notes[i]);
	}
	free(notes);
}

/* Every section for a diagnosed incident; w is cleared first. */
void
wording_build(struct wording *w, const struct rl_incident *inc)
{
	static void (*const build[WD_NPARTS])(struct wd_section *,
	    const struct rl_incident *) = {
		[WD_PART_FIRST] = wd_first,
		[WD_PART_VERDICT] = wd_verdict,
		[WD_PART_HISTORY] = wd_history,
		[WD_PART_SIGNATURES] = wd_signatures,
		[WD_PART_MEANINGS] = wd_meanings,
		[WD_PART_CHECKPOINT] = wd_checkpoint,
		[WD_PART_CLOCKS] = wd_clocks,
		[WD_PART_CAPACITY] = wd_capacity,
		[WD_PART_ADVICE] = wd_advice,
		[WD_PART_JOB] = wd_job,
		[WD_PART_CHECKLIST] = wd_checklist,
		[WD_PART_WARNINGS] = wd_warnings,
	};
	size_t	k;

	wording_clear(w);
	for (k = 0; k < WD_NPARTS; k++) {
		if (build[k] != NULL)
			build[k](&w->part[k], inc);
	}
}
