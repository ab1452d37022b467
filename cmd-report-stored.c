/*
 * cmd-report-stored.c: `rankline report --incident N | --last`, the
 * report made from the store alone, for when the logs are gone (rotated,
 * the job's scratch space wiped).  The store keeps the answer as it was
 * given (the verdict's sentence, domain, group and scope, why, the
 * checkpoint's status), each rank's state and times, each event with the
 * lines around a failure, and the notes; the history of its fingerprint
 * is asked again.  This writes those in the chosen format, redacted and
 * escaped as the other reports: the timeline as a table and as groups of
 * ranks that behaved alike, as the report from the logs has them.
 *
 * Since schema 3 the store also keeps each rank's row of the timeline and
 * a facts document (store/store-facts.c): the answers as analyze --json
 * gives them, the job, the rule packs and the answer's words.  A report of
 * such an incident renders those words with the report's own renderers
 * (report_md_body, report_html_body), so its verdict, checkpoint, next
 * steps and checklist read as the report from the logs did; only the
 * timeline's drawing needs the logs.  An incident stored before says which
 * parts were not stored.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "rankline.h"
#include "report.h"
#include "store/store.h"
#include "cmd-report-stored.h"


static char *
stored_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static void
stored_rank_cb(void *arg, const struct store_rank *r)
{
	struct stored		*s = arg;
	struct stored_rank	*x;

	s->r = array_grow(s->r, s->nr + 1, &s->rcap, sizeof *s->r);
	x = &s->r[s->nr++];
	memset(x, 0, sizeof *x);
	x->rank = r->rank;
	x->host = stored_dup(r->host);
	x->state = stored_dup(r->state);
	x->last = stored_dup(r->last);
	x->first = stored_dup(r->first);
	x->last_step = r->last_step;
	x->group = -1;
	/* Schema 3: the rank's row of the timeline, as the logs' report had it. */
	if (s->facts != NULL) {
		x->sig = stored_dup(r->first_signature);
		x->at = stored_dup(r->first_error);
		x->progress = stored_dup(r->progress);
		x->root = r->first_root;
	}
	if (r->rank != RL_NONE)
		s->nranked = s->nr;
}

/* A stored rank by number (ranks are stored in rank order), or NULL. */
static struct stored_rank *
stored_rank_find(struct stored *s, int rank)
{
	size_t	lo = 0, hi = s->nranked, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->r[mid].rank < rank)
			lo = mid + 1;
		else if (s->r[mid].rank > rank)
			hi = mid;
		else
			return &s->r[mid];
	}
	return NULL;
}

/* Is a stored role a failure's (event_failing_role's, by name)? */
static bool
stored_failing(const char *role)
{
	static const char *const failing[] = { "root", "symptom",
	    "collateral", "wrapper", "hang" };
	size_t	i;

	for (i = 0; role != NULL && i < nitems(failing); i++) {
		if (strcmp(role, failing[i]) == 0)
			return true;
	}
	return false;
}

/*
 * How well a stored failing event stands for its rank's judged event,
 * which the store does not keep: the first failure itself, else a
 * collateral or hang, else a root-capable line, else a symptom or wrapper;
 * 0 for none.  A line the diagnosis found harmless (an import warning
 * that names an error) is stored without context, so the last two must
 * have context to count; the store gives it to its first 64 failures
 * only, so a rank past those may stay unknown, which the report says.
 */
static int
stored_weight(const struct store_event *e)
{
	if (e->root)
		return 4;
	if (!stored_failing(e->role))
		return 0;
	if (strcmp(e->role, "collateral") == 0 || strcmp(e->role, "hang") == 0)
		return 3;
	if (e->context == NULL)
		return 0;
	return strcmp(e->role, "root") == 0 ? 2 : 1;
}

/* What an event says of its rank: its first failure, its last progress. */
static void
stored_event_rank(struct stored *s, const struct store_event *e)
{
	struct stored_rank	*r;
	int			 w;

	/* Schema 3 stored each rank's own: no stand-in is looked for. */
	if (s->facts != NULL)
		return;
	if (e->rank == RL_NONE || (r = stored_rank_find(s, e->rank)) == NULL)
		return;
	if (e->role != NULL && strcmp(e->role, "progress") == 0 &&
	    e->time != NULL && (r->progress == NULL ||
	    strcmp(e->time, r->progress) > 0)) {
		free(r->progress);
		r->progress = xstrdup(e->time);
	}
	/* The first event of the best weight stands for the rank. */
	if ((w = stored_weight(e)) <= r->weight)
		return;
	free(r->sig);
	free(r->at);
	r->sig = xstrdup(e->signature != NULL ? e->signature : "");
	r->at = stored_dup(e->time);
	r->weight = w;
}

static void
stored_event_cb(void *arg, const struct store_event *e)
{
	struct stored		*s = arg;
	struct stored_event	*x, tmp;
	int64_t			 ms;

	stored_event_rank(s, e);
	/* The saves completed, for the drawing: their steps are not kept. */
	if (e->signature != NULL && strstr(e->signature, "ckpt.end") != NULL &&
	    s->nckpt < REPORT_SVG_CKPTS && (ms = report_stored_ms(e->time,
	    NULL)) != INT64_MIN && (s->nckpt == 0 ||
	    ms - s->ckpt[s->nckpt - 1] >= 1000 || ms < s->ckpt[s->nckpt - 1]))
		s->ckpt[s->nckpt++] = ms;
	if (!stored_failing(e->role))
		return;
	if (s->n == STORED_EVENTS) {
		s->more++;
		if (!e->root)
			return;
		/* The first failure is written whatever came before it. */
		x = &s->v[s->n - 1];
		free(x->source);
		free(x->time);
		free(x->signature);
		free(x->role);
		free(x->text);
		free(x->context);
	} else {
		s->v = array_grow(s->v, s->n + 1, &s->cap, sizeof *s->v);
		x = &s->v[s->n++];
	}
	x->source = stored_dup(e->source);
	x->time = stored_dup(e->time);
	x->signature = stored_dup(e->signature);
	x->role = stored_dup(e->role);
	x->text = stored_dup(e->text);
	x->context = stored_dup(e->context);
	x->line = e->line;
	x->context_at = e->context_at;
	x->root = e->root;
	if (x->root && x != s->v) {
		tmp = *x;
		memmove(s->v + 1, s->v, (size_t)(x - s->v) * sizeof *s->v);
		s->v[0] = tmp;
	}
}

static void
stored_note_cb(void *arg, const char *created, const char *kind,
    const char *text)
{
	struct stored		*s = arg;
	struct report_note	*nt;

	s->notes.v = array_grow(s->notes.v, s->notes.n + 1, &s->notes.cap,
	    sizeof *s->notes.v);
	nt = &s->notes.v[s->notes.n++];
	nt->time = xstrdup(created != NULL ? created : "");
	nt->kind = xstrdup(kind != NULL ? kind : "");
	nt->text = xstrdup(text != NULL ? text : "");
}

static void
stored_clear(struct stored *s)
{
	size_t	i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].source);
		free(s->v[i].time);
		free(s->v[i].signature);
		free(s->v[i].role);
		free(s->v[i].text);
		free(s->v[i].context);
	}
	free(s->v);
	for (i = 0; i < s->notes.n; i++) {
		free(s->notes.v[i].time);
		free(s->notes.v[i].kind);
		free(s->notes.v[i].text);
	}
	free(s->notes.v);
	for (i = 0; i < s->nr; i++) {
		free(s->r[i].host);
		free(s->r[i].state);
		free(s->r[i].last);
		free(s->r[i].first);
		free(s->r[i].sig);
		free(s->r[i].at);
		free(s->r[i].progress);
	}
	free(s->r);
	for (i = 0; i < s->ng; i++)
		free(s->g[i].ranks);
	free(s->g);
	for (i = 0; i < s->npaths; i++)
		free(s->paths[i]);
	free(s->paths);
	wording_clear(&s->w);
	if (s->facts != NULL)
		json_decref(s->facts);
	history_clear(&s->h);
	memset(s, 0, sizeof *s);
}

/*
 * The time window from the row's first and last log times, their ends
 * written alike as the report from the logs writes them (report_window).
 */
static void
stored_window(const struct store_row *r, char *out, size_t sz)
{
	struct clock_ctx	ctx;
	struct rl_time		a = { 0 }, b = { 0 };
	char			t0[64], t1[64];

	clock_init(&ctx, 0);
	if (r->started != NULL)
		clock_parse(&ctx, r->started, strlen(r->started), &a);
	if (r->ended != NULL)
		clock_parse(&ctx, r->ended, strlen(r->ended), &b);
	report_window_of(&a, &b, t0, t1, sizeof t0);
	if (t0[0] == '\0' && t1[0] == '\0')
		out[0] = '\0';
	else
		snprintf(out, sz, "%s to %s", t0[0] ? t0 : "unknown",
		    t1[0] ? t1 : "unknown");
}

/* The row's facts, as (name, value) pairs; values may be NULL. */
#define STORED_FACTS	24

static size_t
stored_facts(const struct store_row *r, bool v3, const char **k,
    const char **v, char *rank, size_t rsz, char *step, size_t ssz, char *win,
    size_t wsz)
{
	size_t	n = 0;

#define FACT(name, val)	do { k[n] = (name); v[n] = (val); n++; } while (0)
	if (r->rank != RL_NONE)
		snprintf(rank, rsz, "%d", r->rank);
	else
		rank[0] = '\0';
	if (r->last_safe_step != RL_NONE)
		snprintf(step, ssz, "%d", r->last_safe_step);
	else
		step[0] = '\0';
	stored_window(r, win, wsz);
	FACT("time window", win[0] ? win : NULL);
	FACT("occurred", r->occurred);
	FACT("stored", r->created);
	FACT("signature", r->signature);
	FACT("fingerprint", r->fingerprint);
	FACT("first failing rank", rank[0] ? rank : NULL);
	FACT("host", r->host);
	FACT("domain", r->domain);
	FACT("verdict group", r->grp);
	FACT("scope", r->scope);
	FACT("checkpoint", r->ckpt);
	FACT("last safe step", step[0] ? step : NULL);
	/* Schema 3 names the whole job as the logs' report does. */
	FACT("job scheduler id", v3 ? NULL : r->job_scheduler);
	FACT("job run id", v3 ? NULL : r->job_run);
	FACT("job command", v3 ? NULL : r->job_command);
	FACT("sources", r->sources);
#undef FACT
	return n;
}

/* Log text redacted, then escaped by esc, into b. */
void
report_stored_put(struct buf *b, struct report_opts *o,
    void (*esc)(struct buf *, const char *, size_t), const char *s)
{
	struct buf	r = { 0 };

	report_raw(o, &r, s != NULL ? s : "");
	esc(b, r.p != NULL ? r.p : "", r.len);
	buf_clear(&r);
}

/* Lines for a fence or a <pre>: each line escaped by esc. */
static void
stored_lines(struct buf *b, struct report_opts *o,
    void (*esc)(struct buf *, const char *, size_t), const char *s)
{
	struct buf	r = { 0 };
	size_t		i, start;

	report_raw(o, &r, s != NULL ? s : "");
	for (start = 0, i = 0; i <= r.len; i++) {
		if (i < r.len && r.p[i] != '\n')
			continue;
		esc(b, r.p + start, i - start);
		buf_addc(b, '\n');
		start = i + 1;
	}
	buf_clear(&r);
}

/* The longest run of backticks in s, so that a fence is longer. */
static size_t
stored_ticks(const char *s)
{
	size_t	run = 0, most = 0;

	for (; s != NULL && *s != '\0'; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > most)
			most = run;
	}
	return most < 3 ? 3 : most + 1;
}

json_t *
report_stored_jstr(struct report_opts *o, struct buf *t, const char *s)
{
	return s != NULL ? json_string(report_raw(o, t, s)) : json_null();
}



/* What a report from the logs adds to the words, for a stored one. */
struct stored_after {
	struct report_opts	*o;
	const struct store_row	*r;
	const struct stored	*s;
};

/* The failing lines the store holds, with the lines around them. */
static void
stored_md_lines(struct buf *body, struct report_opts *o,
    const struct store_row *r, const struct stored *s)
{
	const struct stored_event *e;
	size_t			 i, j, t;

	if (s->n > 0)
		buf_adds(body, "## Failing lines, with the lines around "
		    "them\n\n");
	for (i = 0; i < s->n; i++) {
		e = &s->v[i];
		buf_adds(body, e->root ? "**first failure** " : "");
		buf_adds(body, "**");
		report_stored_put(body, o, sanitize_md, e->signature != NULL ?
		    e->signature : "");
		buf_adds(body, "** (");
		report_stored_put(body, o, sanitize_md, e->role);
		buf_adds(body, ") _");
		report_stored_put(body, o, sanitize_md, e->source);
		buf_printf(body, ":%lld", (long long)e->line);
		if (e->time != NULL) {
			buf_adds(body, " at ");
			report_stored_put(body, o, sanitize_md, e->time);
		}
		buf_adds(body, "_\n\n");
		t = stored_ticks(e->context != NULL ? e->context : e->text);
		for (j = 0; j < t; j++)
			buf_addc(body, '`');
		buf_adds(body, "text\n");
		stored_lines(body, o, sanitize_terminal, e->context != NULL ?
		    e->context : e->text);
		for (j = 0; j < t; j++)
			buf_addc(body, '`');
		buf_adds(body, "\n\n");
	}
	if (s->more > 0)
		buf_printf(body, "_%zu more failing lines in the store "
		    "(rankline show %lld)._\n\n", s->more, (long long)r->id);
}

/* The fingerprint's history, asked of the store again. */
static void
stored_md_history(struct buf *body, struct report_opts *o,
    const struct store_row *r, const struct stored *s)
{
	if (!s->h.looked || r->fingerprint == NULL)
		return;
	buf_adds(body, "## History\n\n");
	report_history_lines(body, o, sanitize_md, "- ", "\n", &s->h);
	buf_addc(body, '\n');
}

/* The timeline, the failing lines and the history among the words. */
static void
stored_md_after(void *arg, struct buf *body, enum wd_part part)
{
	struct stored_after	*a = arg;

	if (part == WD_PART_CHECKPOINT)
		report_ranks_md(body, a->o, a->s);
	else if (part == WD_PART_MEANINGS) {
		report_facts_md_quotes(body, a->o, a->s);
		stored_md_lines(body, a->o, a->r, a->s);
	}
	else if (part == WD_PART_HISTORY)
		stored_md_history(body, a->o, a->r, a->s);
}

static void
stored_md(struct buf *b, struct report_opts *o, const struct store_row *r,
    struct stored *s)
{
	const char		*k[STORED_FACTS], *v[STORED_FACTS];
	char			 rank[16], step[16], win[160];
	struct report_where	 where = { NULL, s->paths, s->npaths };
	struct stored_after	 after = { o, r, s };
	struct buf		 body = { 0 };
	size_t			 n, i;

	buf_printf(b, "# Incident report #%lld (from the store)\n\n",
	    (long long)r->id);
	if (r->summary != NULL) {
		buf_adds(b, "> ");
		report_stored_put(b, o, sanitize_md, r->summary);
		buf_adds(b, "\n\n");
	}
	buf_adds(b, "| | |\n|---|---|\n");
	if (s->facts != NULL)
		report_facts_md_job(b, o, s);
	n = stored_facts(r, s->facts != NULL, k, v, rank, sizeof rank, step,
	    sizeof step, win, sizeof win);
	for (i = 0; i < n; i++) {
		/* Schema 3: the logs' report's rows first, in its order. */
		if (i == 1 && s->facts != NULL)
			report_facts_md_packs(b, o, s);
		if (v[i] == NULL && !(i == 0 && s->facts != NULL))
			continue;
		buf_printf(b, "| %s | ", k[i]);
		report_stored_put(b, o, sanitize_md, v[i] != NULL ? v[i] :
		    "unknown to unknown");
		buf_adds(b, " |\n");
	}
	buf_printf(b, "| ranks seen | %d |\n", r->nranks);
	if (s->facts == NULL)
		buf_printf(b, "| made by | rankline %s |\n", o->version);
	if (s->facts != NULL) {
		report_md_body(&body, o, &where, &s->w, stored_md_after,
		    &after);
	} else {
		if (r->explanation != NULL) {
			buf_adds(&body, "## Why\n\n");
			report_stored_put(&body, o, sanitize_md,
			    r->explanation);
			buf_adds(&body, "\n\n");
		}
		report_ranks_md(&body, o, s);
		stored_md_lines(&body, o, r, s);
		stored_md_history(&body, o, r, s);
	}
	if (s->notes.n > 0)
		buf_adds(&body, "## Notes\n\n");
	for (i = 0; i < s->notes.n; i++) {
		buf_adds(&body, "- **");
		report_stored_put(&body, o, sanitize_md, s->notes.v[i].kind);
		buf_adds(&body, "** ");
		report_stored_put(&body, o, sanitize_md, s->notes.v[i].time);
		buf_adds(&body, ": ");
		report_stored_put(&body, o, sanitize_md, s->notes.v[i].text);
		buf_addc(&body, '\n');
	}
	if (o->redact)
		buf_printf(b, "| redaction | applied: %zu value%s hidden "
		    "(--no-redact keeps them) |\n\n", o->hidden,
		    o->hidden == 1 ? "" : "s");
	else
		buf_adds(b, "| redaction | not applied (--no-redact): this "
		    "report may hold secrets |\n\n");
	if (s->facts != NULL)
		buf_adds(b, "_Made from the store alone, in the words of the "
		    "analysis when it was stored._\n\n");
	else
		buf_printf(b, "_%s; this report gives what was._\n\n",
		    report_facts_missing);
	buf_add(b, body.p, body.len);
	buf_clear(&body);
}

/* The failing lines the store holds, in HTML. */
static void
stored_html_lines(struct buf *body, struct report_opts *o,
    const struct stored *s)
{
	const struct stored_event *e;
	size_t			 i;

	if (s->n > 0)
		buf_adds(body, "<h2>Failing lines, with the lines around "
		    "them</h2>\n");
	for (i = 0; i < s->n; i++) {
		e = &s->v[i];
		buf_adds(body, e->root ? "<p class=\"first\">" : "<p>");
		buf_adds(body, "<strong>");
		report_stored_put(body, o, sanitize_html, e->signature);
		buf_adds(body, "</strong> (");
		report_stored_put(body, o, sanitize_html, e->role);
		buf_adds(body, ") <span class=\"where\">");
		report_stored_put(body, o, sanitize_html, e->source);
		buf_printf(body, ":%lld", (long long)e->line);
		if (e->time != NULL) {
			buf_adds(body, " at ");
			report_stored_put(body, o, sanitize_html, e->time);
		}
		buf_adds(body, "</span></p>\n<pre>");
		stored_lines(body, o, sanitize_html, e->context != NULL ?
		    e->context : e->text);
		buf_adds(body, "</pre>\n");
	}
	if (s->more > 0)
		buf_printf(body, "<p class=\"dim\">%zu more failing lines in "
		    "the store.</p>\n", s->more);
}

/* The fingerprint's history, in HTML. */
static void
stored_html_history(struct buf *body, struct report_opts *o,
    const struct store_row *r, const struct stored *s)
{
	if (!s->h.looked || r->fingerprint == NULL)
		return;
	buf_adds(body, "<h2>History</h2>\n<ul>\n");
	report_history_lines(body, o, sanitize_html, "<li>", "</li>\n", &s->h);
	buf_adds(body, "</ul>\n");
}

/* The timeline, the failing lines and the history among the words. */
static void
stored_html_after(void *arg, struct buf *body, enum wd_part part)
{
	struct stored_after	*a = arg;

	if (part == WD_PART_CHECKPOINT)
		report_ranks_html(body, a->o, a->s);
	else if (part == WD_PART_MEANINGS) {
		report_facts_html_quotes(body, a->o, a->s);
		stored_html_lines(body, a->o, a->s);
	}
	else if (part == WD_PART_HISTORY)
		stored_html_history(body, a->o, a->r, a->s);
}

static void
stored_html(struct buf *b, struct report_opts *o, const struct store_row *r,
    struct stored *s)
{
	const char		*k[STORED_FACTS], *v[STORED_FACTS];
	char			 rank[16], step[16], win[160];
	struct report_where	 where = { NULL, s->paths, s->npaths };
	struct stored_after	 after = { o, r, s };
	struct buf		 head = { 0 }, body = { 0 };
	size_t			 n, i;

	report_html_begin(b, o, "rankline incident report");
	buf_printf(&head, "<h1>Incident report #%lld (from the store)</h1>\n",
	    (long long)r->id);
	if (r->summary != NULL) {
		buf_adds(&head, "<p class=\"first\">");
		report_stored_put(&head, o, sanitize_html, r->summary);
		buf_adds(&head, "</p>\n");
	}
	buf_adds(&head, "<table>\n");
	if (s->facts != NULL)
		report_facts_html_job(&head, o, s);
	n = stored_facts(r, s->facts != NULL, k, v, rank, sizeof rank, step,
	    sizeof step, win, sizeof win);
	for (i = 0; i < n; i++) {
		/* Schema 3: the logs' report's rows first, in its order. */
		if (i == 1 && s->facts != NULL)
			report_facts_html_packs(&head, o, s);
		if (v[i] == NULL && !(i == 0 && s->facts != NULL))
			continue;
		buf_printf(&head, "<tr><th>%s</th><td>", k[i]);
		report_stored_put(&head, o, sanitize_html, v[i] != NULL ? v[i] :
		    "unknown to unknown");
		buf_adds(&head, "</td></tr>\n");
	}
	buf_printf(&head, "<tr><th>ranks seen</th><td>%d</td></tr>\n",
	    r->nranks);
	if (s->facts == NULL)
		buf_printf(&head, "<tr><th>made by</th><td>rankline %s</td>"
		    "</tr>\n", o->version);
	if (s->facts != NULL) {
		buf_adds(&body, "<p class=\"dim\">Made from the store alone, "
		    "in the words of the analysis when it was stored: no "
		    "timeline drawing, which needs the logs.</p>\n");
		report_html_body(&body, o, &where, &s->w, stored_html_after,
		    &after);
	} else {
		buf_printf(&body, "<p class=\"dim\">%s; this report gives what "
		    "was.</p>\n", report_facts_missing);
		if (r->explanation != NULL) {
			buf_adds(&body, "<h2>Why</h2>\n<p>");
			report_stored_put(&body, o, sanitize_html,
			    r->explanation);
			buf_adds(&body, "</p>\n");
		}
		report_ranks_html(&body, o, s);
		stored_html_lines(&body, o, s);
		stored_html_history(&body, o, r, s);
	}
	o->notes = s->notes.v;
	o->nnotes = s->notes.n;
	report_html_notes(&body, o);
	report_html_end(b, o, &head, &body);
	buf_clear(&head);
	buf_clear(&body);
}

static void
stored_json(struct buf *b, struct report_opts *o, const struct store_row *r,
    const struct stored *s)
{
	static const struct report_json_layout layout[] = {
		{ "verdict.confidence", JL_REAL, 0, 0, "%.2f" },
	};
	const char		*k[STORED_FACTS], *v[STORED_FACTS];
	char			 rank[16], step[16], win[160];
	const struct stored_event *e;
	struct buf		 t = { 0 };
	json_t			*doc = json_object(), *inc = json_object();
	json_t			*evs = json_array(), *notes = json_array(), *x;
	json_t			*rep = json_object();
	size_t			 n, i;

	n = stored_facts(r, s->facts != NULL, k, v, rank, sizeof rank, step,
	    sizeof step, win, sizeof win);
	json_object_set_new(inc, "summary", report_stored_jstr(o, &t, r->summary));
	json_object_set_new(inc, "explanation", report_stored_jstr(o, &t,
	    r->explanation));
	for (i = 0; i < n; i++)
		json_object_set_new(inc, k[i], report_stored_jstr(o, &t, v[i]));
	json_object_set_new(inc, "ranks", json_integer(r->nranks));
	for (i = 0; i < s->n; i++) {
		e = &s->v[i];
		x = json_object();
		json_object_set_new(x, "source", report_stored_jstr(o, &t, e->source));
		json_object_set_new(x, "line", json_integer(e->line));
		json_object_set_new(x, "time", report_stored_jstr(o, &t, e->time));
		json_object_set_new(x, "signature", report_stored_jstr(o, &t,
		    e->signature));
		json_object_set_new(x, "role", report_stored_jstr(o, &t, e->role));
		json_object_set_new(x, "root", json_boolean(e->root));
		json_object_set_new(x, "text", report_stored_jstr(o, &t, e->text));
		json_object_set_new(x, "context", report_stored_jstr(o, &t,
		    e->context));
		json_object_set_new(x, "context_at", json_integer(
		    e->context_at));
		json_array_append_new(evs, x);
	}
	for (i = 0; i < s->notes.n; i++) {
		x = json_object();
		json_object_set_new(x, "kind", json_string(s->notes.v[i].kind));
		json_object_set_new(x, "time", json_string(s->notes.v[i].time));
		json_object_set_new(x, "text", report_stored_jstr(o, &t,
		    s->notes.v[i].text));
		json_array_append_new(notes, x);
	}
	json_object_set_new(doc, "incident", inc);
	report_facts_json(doc, rep, o, &t, s, win);
	report_ranks_json(doc, o, &t, s);
	json_object_set_new(doc, "history", report_history_json(o, &t, &s->h));
	json_object_set_new(doc, "events", evs);
	json_object_set_new(doc, "events_more", json_integer((json_int_t)
	    s->more));
	json_object_set_new(rep, "incident", json_integer(r->id));
	json_object_set_new(rep, "from_store", json_true());
	json_object_set_new(rep, "version", json_string(o->version));
	json_object_set_new(rep, "redacted", json_boolean(o->redact));
	json_object_set_new(rep, "hidden", json_integer((json_int_t)o->hidden));
	json_object_set_new(rep, "notes", notes);
	json_object_set_new(doc, "report", rep);
	report_json_print(b, doc, layout, nitems(layout), NULL);
	buf_addc(b, '\n');
	json_decref(doc);
	buf_clear(&t);
}

/*
 * The report of stored incident id, from the store alone, into b: the
 * command's and the console's (its history shows it when the logs are
 * gone).  Returns -1 with *cause set.
 */
int
report_stored_text(const struct options *o, int64_t id, int format,
    struct buf *b, char **cause)
{
	struct report_opts	 ro = { 0 };
	struct store		*st;
	struct store_row	 r = { 0 };
	struct stored		 s = { 0 };

	if (store_open_at(o->db, STORE_EXISTING | STORE_READ, &st,
	    cause) != 0) {
		if (*cause == NULL)
			*cause = xstrdup("no incident database");
		return -1;
	}
	/* The facts first: the ranks are read by what they say. */
	if (store_get(st, id, &r, cause) != 0 ||
	    report_facts_load(st, id, &s, cause) != 0 ||
	    store_ranks(st, id, stored_rank_cb, &s, cause) != 0 ||
	    store_events(st, id, stored_event_cb, &s, cause) != 0 ||
	    store_recall_stored(st, id, &s.h, cause) != 0 ||
	    store_notes(st, id, stored_note_cb, &s, cause) != 0) {
		store_row_clear(&r);
		stored_clear(&s);
		store_close(st);
		return -1;
	}
	store_close(st);
	report_ranks_group(&s);
	ro.redact = !o->no_redact;
	ro.version = PACKAGE_VERSION;
	ro.incident = r.id;
	if (format == REPORT_HTML)
		stored_html(b, &ro, &r, &s);
	else if (format == REPORT_JSON)
		stored_json(b, &ro, &r, &s);
	else
		stored_md(b, &ro, &r, &s);
	store_row_clear(&r);
	stored_clear(&s);
	return 0;
}

/* The report of incident --incident N, or of the newest with --last. */
int
report_stored(const struct options *o, int format)
{
	struct store		*st;
	struct store_list	 l = { 0 };
	struct buf		 b = { 0 };
	char			*cause = NULL;
	int64_t			 id = o->report_incident;
	int			 rv = 0;

	if (o->report_last) {
		if (store_open_at(o->db, STORE_EXISTING | STORE_READ, &st,
		    &cause) != 0) {
			fprintf(stderr, "rankline: %s\n", cause != NULL ?
			    cause : "no incident database");
			free(cause);
			return 1;
		}
		if (store_list(st, NULL, 1, &l, &cause) != 0 || l.n == 0) {
			fprintf(stderr, "rankline: %s\n", cause != NULL ?
			    cause : "no incident stored yet");
			free(cause);
			store_list_clear(&l);
			store_close(st);
			return 1;
		}
		id = l.rows[0].id;
		store_list_clear(&l);
		store_close(st);
	}
	if (report_stored_text(o, id, format, &b, &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause != NULL ? cause :
		    "the incident could not be read");
		free(cause);
		buf_clear(&b);
		return 1;
	}
	if (report_write(o->output, &b) != 0)
		rv = 1;
	buf_clear(&b);
	return rv;
}
