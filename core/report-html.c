/*
 * report-html.c: the report as one self-contained HTML file: no script,
 * no external asset, readable in dark and light, printable on A4.  It
 * renders wording.c's sections and draws the per-rank timeline as inline
 * SVG on a true time axis: each rank's span, its first error (the first
 * failure marked, collateral dimmed), its last progress line, and the
 * checkpoints saved.  Every string from a log is redacted, then escaped
 * with sanitize_html, in text and attributes alike.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define SVG_W		960	/* the drawing's width in user units */
#define SVG_LEFT	110	/* room for the ranks' labels */
#define SVG_RIGHT	20
#define SVG_TOP		28	/* room for the checkpoints' labels */
#define SVG_AXIS	30	/* room for the time axis */

static const char html_style[] =
	":root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--dim:#6a737d;"
	"--line:#d0d7de;--code:#f6f8fa;--fail:#cf222e;--coll:#9a6700;"
	"--ok:#1a7f37;--hung:#8250df;--exit:#bc4c00;--ckpt:#0969da}\n"
	"@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;"
	"--dim:#8b949e;--line:#30363d;--code:#161b22;--fail:#ff7b72;"
	"--coll:#d29922;--ok:#3fb950;--hung:#bc8cff;--exit:#f0883e;"
	"--ckpt:#58a6ff}}\n"
	"body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);"
	"background:var(--bg);max-width:60rem;margin:1.5rem auto;"
	"padding:0 1rem}\n"
	"h1{font-size:1.5rem}h2{font-size:1.15rem;border-bottom:1px solid "
	"var(--line);padding-bottom:.2rem;margin-top:1.6rem}\n"
	"table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid "
	"var(--line);padding:.15rem .5rem;text-align:left;vertical-align:top}"
	"\n"
	"pre{background:var(--code);padding:.5rem;overflow-x:auto;"
	"white-space:pre-wrap;word-break:break-all;font-size:12px}\n"
	".where,.dim{color:var(--dim)}.for::before{content:'+ ';color:var(--ok)}"
	".against::before{content:'\\2212  ';color:var(--fail)}\n"
	".first{font-weight:600;color:var(--fail)}.warning{color:var(--exit)}\n"
	"ul{padding-left:1.3rem}li{margin:.15rem 0}\n"
	"svg{width:100%;height:auto;font:11px system-ui,sans-serif}\n"
	"svg text{fill:var(--fg)}svg .axis{stroke:var(--line)}"
	"svg .bar{fill:var(--ok)}svg .failed{fill:var(--fail)}"
	"svg .collateral{fill:var(--coll);opacity:.35}svg .hung{fill:var(--hung)}"
	"svg .exited{fill:var(--exit)}svg .ok{fill:var(--ok);opacity:.6}\n"
	"svg .mark{stroke:var(--fg);stroke-width:1.5}svg .prog{stroke:var(--fg);"
	"stroke-width:1;opacity:.7}svg .ckpt{stroke:var(--ckpt);"
	"stroke-dasharray:3 3}svg .firstmark{fill:var(--fail);stroke:var(--bg);"
	"stroke-width:1.5}\n"
	"@media print{@page{size:A4;margin:14mm}body{max-width:none;margin:0;"
	"font-size:10pt;color:#000;background:#fff}pre{white-space:pre-wrap;"
	"background:#f6f8fa}h2{break-after:avoid}table,pre,svg{break-inside:"
	"avoid}}\n";

/* Log text redacted and escaped for HTML text and attributes. */
static void
html_text(struct buf *b, struct report_opts *o, const char *s)
{
	struct buf	r = { 0 };

	report_raw(o, &r, s);
	sanitize_html(b, r.p != NULL ? r.p : "", r.len);
	buf_clear(&r);
}

/* Lines for a <pre>: each line escaped, the newlines kept. */
void
report_html_pre(struct buf *b, struct report_opts *o, const char *s)
{
	struct buf	r = { 0 };
	size_t		i, start;

	report_raw(o, &r, s);
	buf_adds(b, "<pre>");
	for (start = 0, i = 0; i <= r.len; i++) {
		if (i < r.len && r.p[i] != '\n')
			continue;
		sanitize_html(b, r.p + start, i - start);
		if (i < r.len)
			buf_addc(b, '\n');
		start = i + 1;
	}
	buf_adds(b, "</pre>\n");
	buf_clear(&r);
}

static void
html_where(struct buf *b, struct report_opts *o,
    const struct report_where *w, int source, uint64_t line)
{
	const char	*path = report_where_path(w, source);

	if (path == NULL)
		return;
	buf_adds(b, "<span class=\"where\">");
	html_text(b, o, path);
	if (line > 0)
		buf_printf(b, ":%llu", (unsigned long long)line);
	buf_adds(b, "</span> ");
}

/* One section: paragraphs, lists and log lines. */
static void
html_section(struct buf *b, struct report_opts *o,
    const struct report_where *w, const struct wd_section *s)
{
	static const char *const cls[] = {
		[WD_FOR] = "for", [WD_AGAINST] = "against",
		[WD_ACTION] = "action", [WD_FOUND] = "found",
		[WD_MISSING] = "missing", [WD_WARNING] = "warning",
		[WD_DIM] = "dim", [WD_FIRST] = "first",
	};
	const struct wd_item	*it;
	bool			 list = false, item;
	size_t			 i;

	for (i = 0; i < s->n; i++) {
		it = &s->items[i];
		item = it->indent > 0 && it->role != WD_LOG &&
		    it->role != WD_DETAIL;
		if (item && !list)
			buf_adds(b, "<ul>\n");
		else if (!item && list)
			buf_adds(b, "</ul>\n");
		list = item;
		if (it->role == WD_LOG || it->role == WD_DETAIL) {
			if (report_where_path(w, it->source) != NULL) {
				buf_adds(b, "<div>");
				html_where(b, o, w, it->source, it->line);
				buf_adds(b, "</div>");
			}
			report_html_pre(b, o, it->text);
			continue;
		}
		if (it->role == WD_HEADING || it->role == WD_TITLE) {
			buf_adds(b, "<p><strong>");
			html_text(b, o, it->text);
			buf_adds(b, "</strong></p>\n");
			continue;
		}
		buf_adds(b, item ? "<li" : "<p");
		if ((size_t)it->role < nitems(cls) && cls[it->role] != NULL)
			buf_printf(b, " class=\"%s\"", cls[it->role]);
		buf_addc(b, '>');
		if (it->role == WD_FOUND)
			buf_adds(b, "&#x2611; ");
		else if (it->role == WD_MISSING)
			buf_adds(b, "&#x2610; ");
		else if (it->role == WD_ACTION)
			buf_adds(b, "<strong>Do:</strong> ");
		html_where(b, o, w, it->source, it->line);
		html_text(b, o, it->text);
		buf_adds(b, item ? "</li>\n" : "</p>\n");
	}
	if (list)
		buf_adds(b, "</ul>\n");
}

/* x of a utc time on the axis [t0, t1]. */
static double
svg_x(int64_t t, int64_t t0, int64_t t1)
{
	double	span = (double)(t1 > t0 ? t1 - t0 : 1);

	if (t < t0)
		t = t0;
	if (t > t1)
		t = t1;
	return SVG_LEFT + (double)(t - t0) / span * (SVG_W - SVG_LEFT -
	    SVG_RIGHT);
}

/* A time's utc ms, or INT64_MIN when not known. */
static int64_t
svg_ms(const struct rl_time *t)
{
	if (!(t->flags & RL_TIME_VALID))
		return INT64_MIN;
	return clock_utc_ms(t);
}

/* Checkpoints saved: one dashed line per step, at its first save's time. */
static void
svg_checkpoints(struct buf *b, const struct report_svg *g, int64_t t0,
    int64_t t1, double bottom)
{
	size_t	i;
	double	x;

	for (i = 0; i < g->nckpt; i++) {
		x = svg_x(g->ckpt[i], t0, t1);
		buf_printf(b, "<line class=\"ckpt\" x1=\"%.1f\" y1=\"%d\" "
		    "x2=\"%.1f\" y2=\"%.1f\"/>", x, SVG_TOP - 4, x, bottom);
		if (g->ckpt_step[i] != RL_CAP_UNSET)
			buf_printf(b, "<text x=\"%.1f\" y=\"%d\" "
			    "text-anchor=\"middle\">ckpt %lld</text>", x,
			    SVG_TOP - 8, (long long)g->ckpt_step[i]);
		buf_addc(b, '\n');
	}
}

/* The time axis: five ticks with their true times. */
static void
svg_axis(struct buf *b, const struct report_svg *g, int64_t t0, int64_t t1,
    double y)
{
	struct rl_time	t = g->start;
	char		s[32];
	double		x;
	int		k;

	buf_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
	    "y2=\"%.1f\"/>\n", SVG_LEFT, y, SVG_W - SVG_RIGHT, y);
	for (k = 0; k <= 4; k++) {
		/* The start's own clock, moved on: its zone is kept. */
		t.ms = g->start.ms + (t1 - t0) * k / 4;
		report_time_hms(&t, s, sizeof s);
		x = svg_x(t0 + (t1 - t0) * k / 4, t0, t1);
		buf_printf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" "
		    "x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
		    "text-anchor=\"%s\">%s</text>\n", x, y, x, y + 4, x, y + 16,
		    k == 0 ? "start" : k == 4 ? "end" : "middle", s);
	}
}

/*
 * The per-rank timeline as inline SVG, from what it draws alone: the
 * logs' report and the store's both fill a report_svg.
 */
void
report_html_svg(struct buf *b, struct report_opts *o,
    const struct report_svg *g)
{
	const struct report_svg_rank *r;
	int64_t			 t0 = g->t0, t1 = g->t1, a, z;
	double			 row, h, y, bottom, x0, x1, x;
	size_t			 i;
	bool			 big = g->n > REPORT_TABLE_RANKS;

	if (g->n == 0 || t0 == INT64_MIN || t1 == INT64_MIN)
		return;
	if (t1 - t0 < 2000) {
		/* All in one second (whole-second logs): a second each side. */
		t0 -= 1000;
		t1 += 1000;
	}
	row = big ? 3 : 16;
	h = big ? 2.5 : 11;
	bottom = SVG_TOP + row * (double)g->n;
	buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "
	    "%d %.0f\" role=\"img\" aria-label=\"per-rank timeline\">\n",
	    SVG_W, bottom + SVG_AXIS);
	svg_checkpoints(b, g, t0, t1, bottom);
	for (i = 0; i < g->n; i++) {
		r = &g->ranks[i];
		y = SVG_TOP + row * (double)i;
		a = r->first != INT64_MIN ? r->first : t0;
		z = r->last;
		if (z == INT64_MIN || z < a)
			z = a;
		x0 = svg_x(a, t0, t1);
		x1 = svg_x(z, t0, t1);
		if (!big || i % 64 == 0) {
			buf_printf(b, "<text x=\"%d\" y=\"%.1f\" "
			    "text-anchor=\"end\">", SVG_LEFT - 6, y + h);
			if (r->rank == RL_NONE)
				buf_adds(b, "unranked");
			else
				buf_printf(b, "rank %d", r->rank);
			buf_adds(b, "</text>");
		}
		buf_adds(b, "<rect class=\"");
		html_text(b, o, r->state);
		buf_printf(b, "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		    "height=\"%.1f\">", x0, y, x1 - x0 < 1 ? 1 : x1 - x0, h);
		if (!big) {
			buf_printf(b, "<title>rank %d: ", r->rank);
			html_text(b, o, r->state);
			if (r->signature != NULL) {
				buf_adds(b, ", ");
				html_text(b, o, r->signature);
			}
			buf_adds(b, "</title>");
		}
		buf_adds(b, "</rect>");
		if (r->progress != INT64_MIN && !big) {
			x = svg_x(r->progress, t0, t1);
			buf_printf(b, "<line class=\"prog\" x1=\"%.1f\" "
			    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y - 1,
			    x, y + h + 1);
		}
		if (r->error != INT64_MIN) {
			x = svg_x(r->error, t0, t1);
			if (r->root)
				buf_printf(b, "<circle class=\"firstmark\" "
				    "cx=\"%.1f\" cy=\"%.1f\" r=\"%d\"/>"
				    "<text x=\"%.1f\" y=\"%.1f\">first "
				    "failure</text>", x, y + h / 2, big ? 5 : 6,
				    x + 9, y + h);
			else if (!big)
				buf_printf(b, "<line class=\"mark\" x1=\"%.1f\" "
				    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
				    x, y, x, y + h);
		}
		buf_addc(b, '\n');
	}
	svg_axis(b, g, t0, t1, bottom + 6);
	buf_adds(b, "</svg>\n<p class=\"dim\">Bars: each rank from its first "
	    "line to its last; the red dot is the first failure, dimmed bars "
	    "are collateral, ticks are a rank's last progress line and its "
	    "first error, dashed lines the checkpoints saved.</p>\n");
}

/* The logs' timeline as the drawing takes it. */
static void
html_svg(struct buf *b, struct report_opts *o, const struct rl_incident *inc,
    const struct report_timeline *t)
{
	struct report_svg	 g;
	struct report_svg_rank	*x;
	const struct report_rank *r;
	const struct rl_event	*e;
	int64_t			 step, ms;
	size_t			 i, k;

	memset(&g, 0, sizeof g);
	g.t0 = svg_ms(&inc->start);
	g.t1 = svg_ms(&inc->end);
	g.start = inc->start;
	for (i = 0; i < inc->nevents && g.nckpt < REPORT_SVG_CKPTS; i++) {
		e = inc->events[i];
		if (e->role != ROLE_PROGRESS || e->rule == NULL ||
		    strstr(e->rule->id, "ckpt.end") == NULL ||
		    (ms = svg_ms(&e->time)) == INT64_MIN)
			continue;
		step = event_cap(e, CAP_STEP);
		for (k = 0; k < g.nckpt && g.ckpt_step[k] != step; k++)
			;
		if (k < g.nckpt)
			continue;
		g.ckpt_step[g.nckpt] = step;
		g.ckpt[g.nckpt++] = ms;
	}
	g.ranks = xreallocarray(NULL, t->n + 1, sizeof *g.ranks);
	g.n = t->n;
	for (i = 0; i < t->n; i++) {
		r = &t->ranks[i];
		x = &g.ranks[i];
		x->rank = r->rank;
		x->state = rank_state_name(r->state);
		x->signature = r->signature;
		x->first = svg_ms(&inc->ranks[i].first);
		x->last = svg_ms(&r->last);
		x->progress = svg_ms(&r->progress);
		x->error = r->first != NULL ? svg_ms(&r->first->time) :
		    INT64_MIN;
		x->root = r->first != NULL && inc->answer.first != RL_NONE &&
		    r->first == inc->events[inc->answer.first];
	}
	report_html_svg(b, o, &g);
	free(g.ranks);
}

/* The timeline: the drawing, the table (up to 64 ranks), the groups. */
static void
html_timeline(struct buf *b, struct report_opts *o,
    const struct rl_incident *inc)
{
	struct report_timeline	 t;
	const struct report_rank *r;
	const struct report_group *g;
	char			 tm[64];
	size_t			 i;

	report_timeline_build(&t, inc);
	if (t.n == 0) {
		report_timeline_clear(&t);
		return;
	}
	buf_adds(b, "<h2>Timeline</h2>\n");
	html_svg(b, o, inc, &t);
	if (t.n <= REPORT_TABLE_RANKS) {
		buf_adds(b, "<table><tr><th>rank</th><th>host</th><th>state"
		    "</th><th>first error</th><th>at</th><th>last step</th>"
		    "<th>last progress</th><th>last seen</th></tr>\n");
		for (i = 0; i < t.n; i++) {
			r = &t.ranks[i];
			if (r->rank == RL_NONE)
				buf_adds(b, "<tr><td>unranked</td><td>");
			else
				buf_printf(b, "<tr><td>%d</td><td>", r->rank);
			html_text(b, o, r->host != NULL ? r->host : "");
			buf_printf(b, "</td><td%s>%s</td><td>", r->first !=
			    NULL && inc->answer.first != RL_NONE && r->first ==
			    inc->events[inc->answer.first] ?
			    " class=\"first\"" : "", rank_state_name(r->state));
			html_text(b, o, r->signature != NULL ? r->signature :
			    "");
			buf_printf(b, "</td><td>%s</td><td>", r->at);
			if (r->last_step != RL_NONE)
				buf_printf(b, "%d", r->last_step);
			report_time_hms(&r->progress, tm, sizeof tm);
			buf_printf(b, "</td><td>%s</td>", tm);
			report_time_hms(&r->last, tm, sizeof tm);
			buf_printf(b, "<td>%s</td></tr>\n", tm);
		}
		buf_adds(b, "</table>\n");
	}
	buf_printf(b, "<p>%zu ranks in %zu groups that behaved alike:</p>\n"
	    "<ul>\n", t.n, t.ngroups);
	for (i = 0; i < t.ngroups; i++) {
		g = &t.groups[i];
		buf_printf(b, "<li>%s %s: %s", g->n == 1 ? "rank" : "ranks", g->ranks,
		    rank_state_name(g->state));
		if (g->signature != NULL) {
			buf_adds(b, ", ");
			html_text(b, o, g->signature);
		}
		if (g->at[0] != '\0')
			buf_printf(b, " at %s", g->at);
		buf_adds(b, "</li>\n");
	}
	buf_adds(b, "</ul>\n");
	report_timeline_clear(&t);
}

/* The first lines of each distinct failure, with their context. */
static void
html_tracebacks(struct buf *b, struct report_opts *o,
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
			buf_adds(b, "<h2>First lines of each failure</h2>\n");
		buf_adds(b, "<p><strong>");
		html_text(b, o, report_event_signature(inc, e));
		buf_adds(b, "</strong> ");
		if (e->rank != RL_NONE)
			buf_printf(b, "(rank %d) ", e->rank);
		html_where(b, o, &w, (int)e->source, (uint64_t)first);
		buf_adds(b, "</p>\n");
		report_html_pre(b, o, ctx);
	}
}

/* The header's table: the job, the window, the build. */
static void
html_header(struct buf *b, struct report_opts *o,
    const struct rl_incident *inc)
{
	const struct rl_job_fact	*f;
	const struct rl_pack		*p;
	char				 t0[64], t1[64];
	size_t				 i, n;
	int				 k;

	buf_adds(b, "<table>\n");
	for (k = 0; k < JOB_NFACTS; k++) {
		f = &inc->job.fact[k];
		if (f->value == NULL)
			continue;
		buf_printf(b, "<tr><th>job %s</th><td>", job_fact_name(k));
		html_text(b, o, f->value);
		if (f->from != NULL) {
			buf_adds(b, " <span class=\"dim\">(from ");
			html_text(b, o, f->from);
			buf_adds(b, ")</span>");
		}
		buf_adds(b, "</td></tr>\n");
	}
	report_window(inc, t0, t1, sizeof t0);
	buf_printf(b, "<tr><th>time window</th><td>%s to %s</td></tr>\n",
	    t0[0] ? t0 : "unknown", t1[0] ? t1 : "unknown");
	buf_printf(b, "<tr><th>read</th><td>%zu sources, %llu lines, %zu "
	    "ranks</td></tr>\n", inc->nsources,
	    (unsigned long long)inc->lines, inc->nranks);
	buf_printf(b, "<tr><th>made by</th><td>rankline %s</td></tr>\n",
	    o->version != NULL ? o->version : "");
	n = inc->rules != NULL ? ruleset_packs(inc->rules, &p) : 0;
	buf_adds(b, "<tr><th>rule packs</th><td>");
	for (i = 0; i < n; i++) {
		buf_adds(b, i > 0 ? ", " : "");
		buf_adds(b, "<span title=\"");
		html_text(b, o, p[i].path);
		buf_adds(b, "\">");
		html_text(b, o, p[i].name);
		buf_printf(b, " <span class=\"dim\">%s</span></span>", p[i].hash);
	}
	buf_adds(b, n == 0 ? "none</td></tr>\n" : "</td></tr>\n");
}

/* The sections, in the postmortem's order. */
static const struct {
	enum wd_part	 part;
	const char	*heading;
} html_parts[] = {
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

/* The page's head: a title, the style; nothing fetched. */
void
report_html_begin(struct buf *b, struct report_opts *o, const char *title)
{
	buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
	    "content=\"width=device-width, initial-scale=1\">\n"
	    "<title>");
	html_text(b, o, title);
	buf_adds(b, "</title>\n<style>\n");
	buf_adds(b, html_style);
	buf_adds(b, "</style>\n</head>\n<body>\n");
}

/* The redaction line, closing the header's table, and the page's end. */
void
report_html_end(struct buf *b, struct report_opts *o, const struct buf *head,
    const struct buf *body)
{
	buf_add(b, head->p, head->len);
	if (o->redact)
		buf_printf(b, "<tr><th>redaction</th><td>applied: %zu value%s "
		    "hidden (--no-redact keeps them)</td></tr>\n", o->hidden,
		    o->hidden == 1 ? "" : "s");
	else
		buf_adds(b, "<tr><th>redaction</th><td class=\"warning\">not "
		    "applied (--no-redact): this report may hold secrets"
		    "</td></tr>\n");
	buf_adds(b, "</table>\n");
	buf_add(b, body->p, body->len);
	buf_adds(b, "</body>\n</html>\n");
}

/* The notes written against the incident. */
void
report_html_notes(struct buf *b, struct report_opts *o)
{
	size_t	i;

	if (o->nnotes == 0)
		return;
	buf_adds(b, "<h2>Notes</h2>\n<ul>\n");
	for (i = 0; i < o->nnotes; i++) {
		buf_adds(b, "<li><strong>");
		html_text(b, o, o->notes[i].kind);
		buf_adds(b, "</strong> <span class=\"dim\">");
		html_text(b, o, o->notes[i].time);
		buf_adds(b, "</span>: ");
		html_text(b, o, o->notes[i].text);
		buf_adds(b, "</li>\n");
	}
	buf_adds(b, "</ul>\n");
}

/*
 * The wording's parts in the postmortem's order, each under its heading,
 * with after's own after each: the body of the report from the logs and
 * of the report from the store alone (cmd-report-stored.c).
 */
void
report_html_body(struct buf *body, struct report_opts *o,
    const struct report_where *where, const struct wording *w,
    report_after_fn *after, void *arg)
{
	size_t	k;

	for (k = 0; k < nitems(html_parts); k++) {
		if (w->part[html_parts[k].part].n > 0) {
			buf_printf(body, "<h2>%s</h2>\n", html_parts[k].heading);
			html_section(body, o, where, &w->part[html_parts[k].part]);
		}
		after(arg, body, html_parts[k].part);
	}
}

/* What the report from the logs adds to its body. */
struct html_after {
	struct report_opts	 *o;
	const struct rl_incident *inc;
};

/* The timeline after the checkpoint, the tracebacks after the meanings. */
static void
html_after_part(void *arg, struct buf *body, enum wd_part part)
{
	struct html_after	*a = arg;

	if (part == WD_PART_CHECKPOINT)
		html_timeline(body, a->o, a->inc);
	if (part == WD_PART_MEANINGS)
		html_tracebacks(body, a->o, a->inc);
}

/* The whole report as HTML, appended to b. */
void
report_html(const struct rl_incident *inc, const struct wording *w,
    struct report_opts *o, struct buf *b)
{
	struct buf		 head = { 0 }, body = { 0 };
	struct report_where	 where = { inc, NULL, 0 };
	struct html_after	 after = { o, inc };

	report_html_begin(b, o, "rankline incident report");
	buf_adds(&head, "<h1>Incident report");
	if (o->incident > 0)
		buf_printf(&head, " #%lld", (long long)o->incident);
	buf_adds(&head, "</h1>\n");
	if (inc->answer.summary != NULL) {
		buf_adds(&head, "<p class=\"first\">");
		html_text(&head, o, inc->answer.summary);
		buf_adds(&head, "</p>\n");
	}
	html_header(&head, o, inc);
	report_html_body(&body, o, &where, w, html_after_part, &after);
	report_html_notes(&body, o);
	report_html_end(b, o, &head, &body);
	buf_clear(&head);
	buf_clear(&body);
}
