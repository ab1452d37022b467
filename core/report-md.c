/*
 * report-md.c: the report as Markdown, to paste into a GitHub issue, a
 * Jira ticket or a postmortem: headings, tables, fenced log excerpts.
 *
 * It renders wording.c's sections and the timeline of report-doc.c.  Log
 * text is redacted, then made safe: outside a fence every character that
 * Markdown or HTML would read as markup is escaped (sanitize_md); inside a
 * fence, which nothing renders, the text is made safe for a terminal and
 * the fence is longer than any run of backticks in it.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The sections in the order of the postmortem, each under a heading. */
static const struct {
	enum wd_part	 part;
	const char	*heading;
} md_parts[] = {
	{ WD_PART_FIRST, "First failure" },
	{ WD_PART_VERDICT, "Verdict" },
	{ WD_PART_CHECKPOINT, "Checkpoint" },
	{ WD_PART_SIGNATURES, "Signatures" },
	{ WD_PART_MEANINGS, "What they mean" },
	{ WD_PART_ADVICE, "Next steps" },
	{ WD_PART_CHECKLIST, "Evidence checklist" },
	{ WD_PART_CLOCKS, "Clock offsets" },
	{ WD_PART_CAPACITY, "Capacity" },
	{ WD_PART_HISTORY, "History" },
	{ WD_PART_WARNINGS, "Warnings" },
};

/*
 * For Markdown text outside a fence: as for a terminal (no escape
 * sequence, no control byte, no bidi control), then every character
 * Markdown or inline HTML gives a meaning escaped; a newline is a space.
 */
void
sanitize_md(struct buf *b, const char *s, size_t n)
{
	struct buf	t = { 0 };
	size_t		i;
	char		c;

	sanitize_terminal(&t, s, n);
	for (i = 0; i < t.len; i++) {
		c = t.p[i];
		if (c == '<')
			buf_adds(b, "&lt;");
		else if (c == '>')
			buf_adds(b, "&gt;");
		else if (c == '&')
			buf_adds(b, "&amp;");
		else if (c == '|')
			buf_adds(b, "\\|");
		else if (strchr("\\`*_[]~", c) != NULL &&
		    c != '\0') {
			buf_addc(b, '\\');
			buf_addc(b, c);
		} else
			buf_addc(b, c);
	}
	buf_clear(&t);
}

/* Log text redacted and escaped for Markdown. */
static void
md_text(struct buf *b, struct report_opts *o, const char *s)
{
	struct buf	r = { 0 };

	report_raw(o, &r, s);
	sanitize_md(b, r.p != NULL ? r.p : "", r.len);
	buf_clear(&r);
}

/* Lines in a fence: safe for a terminal, the fence out of their reach. */
void
report_md_fence(struct buf *b, struct report_opts *o, const char *s)
{
	struct buf	r = { 0 }, t = { 0 };
	size_t		i, run = 0, most = 0, start, k;

	report_raw(o, &r, s);
	/* Line by line: a newline stays, the rest as for a terminal. */
	for (start = 0, i = 0; i <= r.len; i++) {
		if (i < r.len && r.p[i] != '\n')
			continue;
		sanitize_terminal(&t, r.p + start, i - start);
		buf_addc(&t, '\n');
		start = i + 1;
	}
	for (i = 0; i < t.len; i++) {
		run = t.p[i] == '`' ? run + 1 : 0;
		if (run > most)
			most = run;
	}
	for (k = 0; k < (most < 3 ? 3 : most + 1); k++)
		buf_addc(b, '`');
	buf_adds(b, "text\n");
	buf_add(b, t.p, t.len);
	for (k = 0; k < (most < 3 ? 3 : most + 1); k++)
		buf_addc(b, '`');
	buf_adds(b, "\n\n");
	buf_clear(&r);
	buf_clear(&t);
}

/* "path:line" of an item that points into the logs, as inline text. */
static void
md_where(struct buf *b, struct report_opts *o, const struct report_where *w,
    int source, uint64_t line)
{
	const char	*path = report_where_path(w, source);

	if (path == NULL)
		return;
	md_text(b, o, path);
	if (line > 0)
		buf_printf(b, ":%llu", (unsigned long long)line);
}

/* One section's items: paragraphs, lists, and log lines in fences. */
static void
md_section(struct buf *b, struct report_opts *o, const struct report_where *w,
    const struct wd_section *s)
{
	const struct wd_item	*it;
	struct buf		 fence = { 0 };
	size_t			 i;

	for (i = 0; i < s->n; i++) {
		it = &s->items[i];
		if (it->role == WD_LOG || it->role == WD_DETAIL) {
			/* Where, then the line: a fence holds no markup. */
			if (report_where_path(w, it->source) != NULL) {
				buf_adds(b, it->indent > 0 ? "  " : "");
				buf_adds(b, "_");
				md_where(b, o, w, it->source, it->line);
				buf_adds(b, "_\n\n");
			}
			buf_reset(&fence);
			buf_adds(&fence, it->text);
			report_md_fence(b, o, fence.p);
			continue;
		}
		switch (it->role) {
		case WD_HEADING:
		case WD_FIRST:
			buf_adds(b, "**");
			md_text(b, o, it->text);
			buf_adds(b, "**\n\n");
			continue;
		case WD_TITLE:
			buf_adds(b, "**");
			md_text(b, o, it->text);
			buf_adds(b, ":**\n\n");
			continue;
		case WD_FOR:
			buf_adds(b, "- (for) ");
			break;
		case WD_AGAINST:
			buf_adds(b, "- (against) ");
			break;
		case WD_ACTION:
			buf_adds(b, "- **Do:** ");
			break;
		case WD_FOUND:
			buf_adds(b, "- [x] ");
			break;
		case WD_MISSING:
			buf_adds(b, "- [ ] ");
			break;
		case WD_WARNING:
			buf_adds(b, "> **Warning:** ");
			break;
		case WD_DIM:
			buf_adds(b, it->indent > 0 ? "- _" : "_");
			break;
		default:
			if (it->indent > 0)
				buf_adds(b, "- ");
			break;
		}
		if (report_where_path(w, it->source) != NULL) {
			md_where(b, o, w, it->source, it->line);
			buf_adds(b, ": ");
		}
		md_text(b, o, it->text);
		if (it->role == WD_DIM)
			buf_adds(b, "_");
		buf_adds(b, "\n\n");
	}
	buf_clear(&fence);
}

/* The header: what this is, which job, when, which build, what was hidden. */
static void
md_header(struct buf *b, struct report_opts *o, const struct rl_incident *inc,
    const struct wording *w)
{
	const struct rl_job_fact	*f;
	const struct rl_pack		*p;
	char				 t0[64], t1[64];
	size_t				 i, n;
	int				 k;

	(void)w;
	buf_adds(b, "# Incident report");
	if (o->incident > 0)
		buf_printf(b, " #%lld", (long long)o->incident);
	buf_adds(b, "\n\n");
	if (inc->answer.summary != NULL) {
		buf_adds(b, "> ");
		md_text(b, o, inc->answer.summary);
		buf_adds(b, "\n\n");
	}
	buf_adds(b, "| | |\n|---|---|\n");
	for (k = 0; k < JOB_NFACTS; k++) {
		f = &inc->job.fact[k];
		if (f->value == NULL)
			continue;
		buf_adds(b, "| job ");
		buf_adds(b, job_fact_name(k));
		buf_adds(b, " | ");
		md_text(b, o, f->value);
		if (f->from != NULL) {
			buf_adds(b, " (from ");
			md_text(b, o, f->from);
			buf_adds(b, ")");
		}
		buf_adds(b, " |\n");
	}
	report_window(inc, t0, t1, sizeof t0);
	buf_printf(b, "| time window | %s to %s |\n", t0[0] ? t0 : "unknown",
	    t1[0] ? t1 : "unknown");
	buf_printf(b, "| read | %zu sources, %llu lines, %zu ranks |\n",
	    inc->nsources, (unsigned long long)inc->lines, inc->nranks);
	buf_printf(b, "| made by | rankline %s |\n", o->version != NULL ?
	    o->version : "");
	n = inc->rules != NULL ? ruleset_packs(inc->rules, &p) : 0;
	buf_adds(b, "| rule packs | ");
	for (i = 0; i < n; i++) {
		buf_adds(b, i > 0 ? ", " : "");
		md_text(b, o, p[i].name);
		buf_printf(b, " `%s`", p[i].hash);
	}
	buf_adds(b, n == 0 ? "none |\n" : " |\n");
}

/* The timeline: a row per rank up to REPORT_TABLE_RANKS, else groups. */
static void
md_timeline(struct buf *b, struct report_opts *o, const struct rl_incident *inc)
{
	struct report_timeline	 t;
	const struct report_rank *r;
	const struct report_group *g;
	char			 tm[64];
	size_t			 i;
	bool			 bold;

	report_timeline_build(&t, inc);
	if (t.n == 0) {
		report_timeline_clear(&t);
		return;
	}
	buf_adds(b, "## Timeline\n\n");
	if (t.n <= REPORT_TABLE_RANKS) {
		buf_adds(b, "| rank | host | state | first error | at | last "
		    "step | last progress | last seen |\n"
		    "|---:|---|---|---|---|---:|---|---|\n");
		for (i = 0; i < t.n; i++) {
			r = &t.ranks[i];
			if (r->rank == RL_NONE)
				buf_adds(b, "| unranked | ");
			else
				buf_printf(b, "| %d | ", r->rank);
			md_text(b, o, r->host != NULL ? r->host : "");
			/* The first failure's rank in bold. */
			bold = r->first != NULL && inc->answer.first !=
			    RL_NONE && r->first == inc->events[inc->answer.first];
			buf_printf(b, " | %s%s%s | ", bold ? "**" : "",
			    rank_state_name(r->state), bold ? "**" : "");
			md_text(b, o, r->signature != NULL ? r->signature : "");
			buf_printf(b, " | %s | ", r->at);
			if (r->last_step != RL_NONE)
				buf_printf(b, "%d", r->last_step);
			report_time_hms(&r->progress, tm, sizeof tm);
			buf_printf(b, " | %s | ", tm);
			report_time_hms(&r->last, tm, sizeof tm);
			buf_printf(b, "%s |\n", tm);
		}
		buf_addc(b, '\n');
	}
	buf_printf(b, "%zu ranks in %zu groups that behaved alike:\n\n",
	    t.n, t.ngroups);
	for (i = 0; i < t.ngroups; i++) {
		g = &t.groups[i];
		buf_printf(b, "- %s %s: %s", g->n == 1 ? "rank" : "ranks", g->ranks,
		    rank_state_name(g->state));
		if (g->signature != NULL) {
			buf_adds(b, ", ");
			md_text(b, o, g->signature);
		}
		if (g->at[0] != '\0')
			buf_printf(b, " at %s", g->at);
		buf_addc(b, '\n');
	}
	buf_addc(b, '\n');
	report_timeline_clear(&t);
}

/*
 * The first failing lines of each distinct signature, with the lines
 * around them: the tracebacks the postmortem quotes.
 */
static void
md_tracebacks(struct buf *b, struct report_opts *o,
    const struct rl_incident *inc)
{
	const struct rl_event	*e;
	const char		*ctx;
	size_t			 v[REPORT_QUOTES], i, n;
	struct report_where	 w = { inc, NULL, 0 };
	int64_t			 first;

	n = report_quotes(inc, v);
	for (i = 0; i < n; i++) {
		e = inc->events[v[i]];
		ctx = event_context(inc, e, &first);
		if (i == 0)
			buf_adds(b, "## First lines of each failure\n\n");
		buf_adds(b, "**");
		md_text(b, o, report_event_signature(inc, e));
		buf_adds(b, "** ");
		if (e->rank != RL_NONE)
			buf_printf(b, "(rank %d) ", e->rank);
		buf_adds(b, "_");
		md_where(b, o, &w, (int)e->source, (uint64_t)first);
		buf_adds(b, "_\n\n");
		report_md_fence(b, o, ctx);
	}
}

/* The engineer's notes on this incident, from the store. */
static void
md_notes(struct buf *b, struct report_opts *o)
{
	size_t	i;

	if (o->nnotes == 0)
		return;
	buf_adds(b, "## Notes\n\n");
	for (i = 0; i < o->nnotes; i++) {
		buf_adds(b, "- **");
		md_text(b, o, o->notes[i].kind);
		buf_adds(b, "** ");
		md_text(b, o, o->notes[i].time);
		buf_adds(b, ": ");
		md_text(b, o, o->notes[i].text);
		buf_addc(b, '\n');
	}
	buf_addc(b, '\n');
}

/*
 * The wording's parts in the postmortem's order, each under its heading,
 * with after's own after each: the body of the report from the logs and
 * of the report from the store alone (cmd-report-stored.c).
 */
void
report_md_body(struct buf *body, struct report_opts *o,
    const struct report_where *where, const struct wording *w,
    report_after_fn *after, void *arg)
{
	size_t	k;

	for (k = 0; k < nitems(md_parts); k++) {
		if (w->part[md_parts[k].part].n > 0) {
			buf_printf(body, "## %s\n\n", md_parts[k].heading);
			md_section(body, o, where, &w->part[md_parts[k].part]);
		}
		after(arg, body, md_parts[k].part);
	}
}

/* What the report from the logs adds to its body. */
struct md_after {
	struct report_opts	 *o;
	const struct rl_incident *inc;
};

/* The timeline after the checkpoint, the tracebacks after the meanings. */
static void
md_after_part(void *arg, struct buf *body, enum wd_part part)
{
	struct md_after	*a = arg;

	if (part == WD_PART_CHECKPOINT)
		md_timeline(body, a->o, a->inc);
	if (part == WD_PART_MEANINGS)
		md_tracebacks(body, a->o, a->inc);
}

/* The whole report as Markdown, appended to b. */
void
report_md(const struct rl_incident *inc, const struct wording *w,
    struct report_opts *o, struct buf *b)
{
	struct buf		 body = { 0 };
	struct report_where	 where = { inc, NULL, 0 };
	struct md_after		 after = { o, inc };

	/* Header and body first: the redaction line counts what they hid. */
	md_header(b, o, inc, w);
	report_md_body(&body, o, &where, w, md_after_part, &after);
	md_notes(&body, o);
	if (o->redact)
		buf_printf(b, "| redaction | applied: %zu value%s hidden "
		    "(--no-redact keeps them) |\n\n", o->hidden,
		    o->hidden == 1 ? "" : "s");
	else
		buf_adds(b, "| redaction | not applied (--no-redact): this "
		    "report may hold secrets |\n\n");
	buf_add(b, body.p, body.len);
	buf_clear(&body);
}
