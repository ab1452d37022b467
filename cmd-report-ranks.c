/*
 * cmd-report-ranks.c: the timeline and the history of a report made from
 * the store alone.  Each stored rank with its first failure and last
 * progress (cmd-report-stored.c reads them), written as the report from
 * the logs writes them: a table up to REPORT_TABLE_RANKS ranks, and groups
 * of ranks that behaved alike (state, first failure, the same second);
 * then what the store says of the fingerprint's past.  Log text is
 * redacted and escaped for its format as everywhere else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-report-stored.h"

/* A stored time's HH:MM:SS, or "" (the timeline's "at"). */
static void
stored_hms(const char *t, char *out, size_t sz)
{
	if (t != NULL && strlen(t) >= 19 && t[10] == 'T')
		snprintf(out, sz, "%.8s", t + 11);
	else
		snprintf(out, sz, "%s", t != NULL ? t : "");
}

/*
 * Failing ranks whose failure is not among the stored events (before
 * schema 3 the store kept a bounded number of events, not each rank's
 * judged one).
 */
static size_t
stored_unknown(const struct stored *s)
{
	size_t	i, n = 0;

	if (s->facts != NULL)
		return 0;
	for (i = 0; i < s->nr; i++)
		n += s->r[i].sig == NULL && s->r[i].state != NULL &&
		    strcmp(s->r[i].state, "ok") != 0;
	return n;
}

/* Do two ranks behave alike: state, first failure, the same second. */
static bool
stored_alike(const struct stored_rank *a, const struct stored_rank *b)
{
	char	x[64], y[64];

	if (strcmp(a->state != NULL ? a->state : "", b->state != NULL ?
	    b->state : "") != 0 || (a->sig == NULL) != (b->sig == NULL) ||
	    (a->sig != NULL && strcmp(a->sig, b->sig) != 0))
		return false;
	stored_hms(a->at, x, sizeof x);
	stored_hms(b->at, y, sizeof y);
	return strcmp(x, y) == 0;
}

/* The groups of ranks that behaved alike, each as runs: "0-36,38-63". */
void
report_ranks_group(struct stored *s)
{
	struct buf	 b = { 0 };
	size_t		 i, j, k;
	bool		 any;

	for (i = 0; i < s->nr; i++) {
		for (j = 0; j < s->ng; j++) {
			if (stored_alike(&s->r[i], &s->r[s->g[j].first]))
				break;
		}
		if (j == s->ng) {
			s->g = array_grow(s->g, s->ng + 1, &s->gcap,
			    sizeof *s->g);
			memset(&s->g[s->ng], 0, sizeof *s->g);
			s->g[s->ng++].first = i;
		}
		s->r[i].group = (int)j;
		s->g[j].n++;
	}
	for (j = 0; j < s->ng; j++) {
		buf_reset(&b);
		any = false;
		for (i = 0; i < s->nr; i++) {
			if (s->r[i].group != (int)j)
				continue;
			if (s->r[i].rank == RL_NONE) {
				buf_adds(&b, any ? ",unranked" : "unranked");
				any = true;
				continue;
			}
			for (k = i; k + 1 < s->nr && s->r[k + 1].group ==
			    (int)j && s->r[k + 1].rank == s->r[k].rank + 1; k++)
				;
			buf_printf(&b, any ? ",%d" : "%d", s->r[i].rank);
			if (k > i)
				buf_printf(&b, "-%d", s->r[k].rank);
			any = true;
			i = k;
		}
		s->g[j].ranks = xstrdup(b.len > 0 ? b.p : "");
	}
	buf_clear(&b);
}


/* The ranks as a table (up to REPORT_TABLE_RANKS) and as groups, in md. */
void
report_ranks_md(struct buf *b, struct report_opts *o, const struct stored *s)
{
	const struct stored_rank	*r;
	const struct stored_group	*g;
	char				 at[64], pr[64], last[64];
	size_t				 i, n;

	if (s->nr == 0)
		return;
	buf_adds(b, "## Timeline\n\n");
	if (s->nr <= REPORT_TABLE_RANKS) {
		buf_adds(b, "| rank | host | state | first error | at | last "
		    "step | last progress | last seen |\n"
		    "|---:|---|---|---|---|---:|---|---|\n");
		for (i = 0; i < s->nr; i++) {
			r = &s->r[i];
			if (r->rank == RL_NONE)
				buf_adds(b, "| unranked | ");
			else
				buf_printf(b, "| %d | ", r->rank);
			report_stored_put(b, o, sanitize_md, r->host);
			/* The first failure's rank in bold, as from the logs. */
			buf_adds(b, r->root ? " | **" : " | ");
			report_stored_put(b, o, sanitize_md, r->state);
			buf_adds(b, r->root ? "** | " : " | ");
			report_stored_put(b, o, sanitize_md, r->sig);
			stored_hms(r->at, at, sizeof at);
			stored_hms(r->progress, pr, sizeof pr);
			stored_hms(r->last, last, sizeof last);
			buf_adds(b, " | ");
			report_stored_put(b, o, sanitize_md, at);
			buf_adds(b, " | ");
			if (r->last_step != RL_NONE)
				buf_printf(b, "%d", r->last_step);
			buf_adds(b, " | ");
			report_stored_put(b, o, sanitize_md, pr);
			buf_adds(b, " | ");
			report_stored_put(b, o, sanitize_md, last);
			buf_adds(b, " |\n");
		}
		buf_addc(b, '\n');
	}
	buf_printf(b, "%zu ranks in %zu groups that behaved alike:\n\n", s->nr,
	    s->ng);
	for (i = 0; i < s->ng; i++) {
		g = &s->g[i];
		r = &s->r[g->first];
		buf_printf(b, "- %s %s: ", g->n == 1 ? "rank" : "ranks",
		    g->ranks);
		report_stored_put(b, o, sanitize_md, r->state);
		if (r->sig != NULL) {
			buf_adds(b, ", ");
			report_stored_put(b, o, sanitize_md, r->sig);
		}
		stored_hms(r->at, at, sizeof at);
		if (at[0] != '\0') {
			buf_adds(b, " at ");
			report_stored_put(b, o, sanitize_md, at);
		}
		buf_addc(b, '\n');
	}
	buf_addc(b, '\n');
	if ((n = stored_unknown(s)) > 0)
		buf_printf(b, "_%zu failing %s not among the stored "
		    "events._\n\n", n, n == 1 ? "rank's first error is" :
		    "ranks' first errors are");
}

/* The fingerprint's history, asked of the store again, as text lines. */
void
report_history_lines(struct buf *b, struct report_opts *o,
    void (*esc)(struct buf *, const char *, size_t), const char *pre,
    const char *post, const struct rl_history *h)
{
	const struct rl_history_match	*m;
	const struct rl_offender	*f;
	size_t				 i;

	buf_printf(b, "%sthis fingerprint was seen %zu time%s in other "
	    "incidents%s", pre, h->seen_before, h->seen_before == 1 ? "" : "s",
	    post);
	for (i = 0; i < h->nmatches; i++) {
		m = &h->matches[i];
		buf_printf(b, "%s%s #%lld at ", pre, m->exact ? "same failure" :
		    "near match", (long long)m->incident);
		report_stored_put(b, o, esc, m->time);
		if (m->summary != NULL) {
			buf_adds(b, ": ");
			report_stored_put(b, o, esc, m->summary);
		}
		if (m->diagnosis != NULL) {
			buf_adds(b, "; diagnosis: ");
			report_stored_put(b, o, esc, m->diagnosis);
		}
		if (m->resolution != NULL) {
			buf_adds(b, "; resolution: ");
			report_stored_put(b, o, esc, m->resolution);
		}
		buf_adds(b, post);
	}
	for (i = 0; i < h->noffenders; i++) {
		f = &h->offenders[i];
		buf_printf(b, "%s%s ", pre, offender_kind_name(f->kind));
		report_stored_put(b, o, esc, f->name);
		buf_printf(b, " was in the root of %zu other incident%s, the "
		    "latest #%lld%s", f->count, f->count == 1 ? "" : "s",
		    (long long)f->last_incident, post);
	}
}

/* A stored time (ISO 8601, as clock_format wrote it) as UTC ms. */
int64_t
report_stored_ms(const char *s, struct rl_time *t)
{
	struct clock_ctx	 ck;
	struct rl_time		 x;

	memset(&x, 0, sizeof x);
	clock_init(&ck, 0);
	if (s == NULL || !clock_parse(&ck, s, strlen(s), &x) ||
	    (x.flags & RL_TIME_BOOT))
		return INT64_MIN;
	if (t != NULL)
		*t = x;
	return clock_utc_ms(&x);
}

/*
 * The drawing the logs' report has, from the ranks' stored rows, and the
 * checkpoints from the stored progress lines (their steps are not kept:
 * one line per save, a second apart at least).
 */
static void
report_ranks_svg(struct buf *b, struct report_opts *o, const struct stored *s)
{
	struct report_svg	 g;
	struct report_svg_rank	*x;
	const struct stored_rank *r;
	struct rl_time		 t;
	int64_t			 ms;
	size_t			 i, k;

	memset(&g, 0, sizeof g);
	g.t0 = g.t1 = INT64_MIN;
	g.ranks = xreallocarray(NULL, s->nr + 1, sizeof *g.ranks);
	g.n = s->nr;
	for (i = 0; i < s->nr; i++) {
		r = &s->r[i];
		x = &g.ranks[i];
		x->rank = r->rank;
		x->state = r->state != NULL ? r->state : "";
		x->signature = r->sig;
		x->first = report_stored_ms(r->first, NULL);
		x->last = report_stored_ms(r->last, NULL);
		x->progress = report_stored_ms(r->progress, NULL);
		x->error = report_stored_ms(r->at, NULL);
		x->root = r->root;
		/* The window: every time the rows hold, from the earliest. */
		for (k = 0; k < 4; k++) {
			ms = report_stored_ms(k == 0 ? r->first : k == 1 ?
			    r->at : k == 2 ? r->progress : r->last, &t);
			if (ms == INT64_MIN)
				continue;
			if (g.t0 == INT64_MIN || ms < g.t0) {
				g.t0 = ms;
				g.start = t;
			}
			if (ms > g.t1)
				g.t1 = ms;
		}
	}
	for (i = 0; i < s->nckpt; i++) {
		g.ckpt_step[i] = RL_CAP_UNSET;
		g.ckpt[i] = s->ckpt[i];
	}
	g.nckpt = s->nckpt;
	report_html_svg(b, o, &g);
	free(g.ranks);
}

/* The ranks as an HTML table (up to REPORT_TABLE_RANKS) and as groups. */
void
report_ranks_html(struct buf *b, struct report_opts *o,
    const struct stored *s)
{
	const struct stored_rank	*r;
	const struct stored_group	*g;
	char				 t[64];
	size_t				 i, n;

	if (s->nr == 0)
		return;
	buf_adds(b, "<h2>Timeline</h2>\n");
	report_ranks_svg(b, o, s);
	if (s->nr <= REPORT_TABLE_RANKS) {
		buf_adds(b, "<table><tr><th>rank</th><th>host</th><th>state"
		    "</th><th>first error</th><th>at</th><th>last step</th>"
		    "<th>last progress</th><th>last seen</th></tr>\n");
		for (i = 0; i < s->nr; i++) {
			r = &s->r[i];
			if (r->rank == RL_NONE)
				buf_adds(b, "<tr><td>unranked</td><td>");
			else
				buf_printf(b, "<tr><td>%d</td><td>", r->rank);
			report_stored_put(b, o, sanitize_html, r->host);
			buf_adds(b, r->root ? "</td><td class=\"first\">" :
			    "</td><td>");
			report_stored_put(b, o, sanitize_html, r->state);
			buf_adds(b, "</td><td>");
			report_stored_put(b, o, sanitize_html, r->sig);
			buf_adds(b, "</td><td>");
			stored_hms(r->at, t, sizeof t);
			report_stored_put(b, o, sanitize_html, t);
			buf_adds(b, "</td><td>");
			if (r->last_step != RL_NONE)
				buf_printf(b, "%d", r->last_step);
			buf_adds(b, "</td><td>");
			stored_hms(r->progress, t, sizeof t);
			report_stored_put(b, o, sanitize_html, t);
			buf_adds(b, "</td><td>");
			stored_hms(r->last, t, sizeof t);
			report_stored_put(b, o, sanitize_html, t);
			buf_adds(b, "</td></tr>\n");
		}
		buf_adds(b, "</table>\n");
	}
	buf_printf(b, "<p>%zu ranks in %zu groups that behaved alike:</p>\n"
	    "<ul>\n", s->nr, s->ng);
	for (i = 0; i < s->ng; i++) {
		g = &s->g[i];
		r = &s->r[g->first];
		buf_printf(b, "<li>%s %s: ", g->n == 1 ? "rank" : "ranks",
		    g->ranks);
		report_stored_put(b, o, sanitize_html, r->state);
		if (r->sig != NULL) {
			buf_adds(b, ", ");
			report_stored_put(b, o, sanitize_html, r->sig);
		}
		stored_hms(r->at, t, sizeof t);
		if (t[0] != '\0') {
			buf_adds(b, " at ");
			report_stored_put(b, o, sanitize_html, t);
		}
		buf_adds(b, "</li>\n");
	}
	buf_adds(b, "</ul>\n");
	if ((n = stored_unknown(s)) > 0)
		buf_printf(b, "<p class=\"dim\">%zu failing %s not among the "
		    "stored events.</p>\n", n, n == 1 ?
		    "rank's first error is" : "ranks' first errors are");
}

/* The ranks and their groups as JSON rows. */
void
report_ranks_json(json_t *doc, struct report_opts *o, struct buf *t,
    const struct stored *s)
{
	const struct stored_rank	*r;
	json_t				*ranks = json_array();
	json_t				*groups = json_array(), *x;
	size_t				 i;

	for (i = 0; i < s->nr; i++) {
		r = &s->r[i];
		x = json_object();
		json_object_set_new(x, "rank", r->rank != RL_NONE ?
		    json_integer(r->rank) : json_null());
		json_object_set_new(x, "host", report_stored_jstr(o, t, r->host));
		json_object_set_new(x, "state", report_stored_jstr(o, t, r->state));
		json_object_set_new(x, "first_error", report_stored_jstr(o, t, r->sig));
		json_object_set_new(x, "at", report_stored_jstr(o, t, r->at));
		json_object_set_new(x, "last_step", r->last_step != RL_NONE ?
		    json_integer(r->last_step) : json_null());
		json_object_set_new(x, "last_progress", report_stored_jstr(o, t,
		    r->progress));
		json_object_set_new(x, "last_seen", report_stored_jstr(o, t, r->last));
		json_array_append_new(ranks, x);
	}
	for (i = 0; i < s->ng; i++) {
		r = &s->r[s->g[i].first];
		x = json_object();
		json_object_set_new(x, "ranks", json_string(s->g[i].ranks));
		json_object_set_new(x, "n", json_integer((json_int_t)s->g[i].n));
		json_object_set_new(x, "state", report_stored_jstr(o, t, r->state));
		json_object_set_new(x, "first_error", report_stored_jstr(o, t, r->sig));
		json_object_set_new(x, "at", report_stored_jstr(o, t, r->at));
		json_array_append_new(groups, x);
	}
	json_object_set_new(doc, "ranks", ranks);
	json_object_set_new(doc, "groups", groups);
}

/* The fingerprint's history as JSON. */
json_t *
report_history_json(struct report_opts *o, struct buf *t,
    const struct rl_history *h)
{
	const struct rl_history_match	*m;
	json_t				*x = json_object(), *v = json_array(), *y;
	size_t				 i;

	json_object_set_new(x, "seen_before", json_integer((json_int_t)
	    h->seen_before));
	for (i = 0; i < h->nmatches; i++) {
		m = &h->matches[i];
		y = json_object();
		json_object_set_new(y, "incident", json_integer(m->incident));
		json_object_set_new(y, "exact", json_boolean(m->exact));
		json_object_set_new(y, "time", report_stored_jstr(o, t, m->time));
		json_object_set_new(y, "summary", report_stored_jstr(o, t, m->summary));
		json_object_set_new(y, "diagnosis", report_stored_jstr(o, t,
		    m->diagnosis));
		json_object_set_new(y, "resolution", report_stored_jstr(o, t,
		    m->resolution));
		json_array_append_new(v, y);
	}
	json_object_set_new(x, "matches", v);
	v = json_array();
	for (i = 0; i < h->noffenders; i++) {
		y = json_object();
		json_object_set_new(y, "kind", json_string(offender_kind_name(
		    h->offenders[i].kind)));
		json_object_set_new(y, "name", report_stored_jstr(o, t,
		    h->offenders[i].name));
		json_object_set_new(y, "count", json_integer((json_int_t)
		    h->offenders[i].count));
		json_object_set_new(y, "latest", json_integer(
		    h->offenders[i].last_incident));
		json_array_append_new(v, y);
	}
	json_object_set_new(x, "offenders", v);
	return x;
}
