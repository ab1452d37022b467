/*
 * report-doc.c: what the report's formats share.  The format from a name
 * or a file's extension; the per-rank timeline and its groups (ranks that
 * behaved alike, so that 10,000 ranks are a few rows); log text redacted
 * and counted; and report_render, which builds the wording once and hands
 * it to the format's renderer.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "report.h"

static const char *const format_names[REPORT_NFORMATS] = {
	"md", "html", "json"
};

/* "md", "markdown", "html", "json", or REPORT_NFORMATS. */
enum report_format
report_format_parse(const char *s)
{
	int	k;

	if (s == NULL)
		return REPORT_NFORMATS;
	if (strcmp(s, "markdown") == 0)
		return REPORT_MD;
	if (strcmp(s, "htm") == 0)
		return REPORT_HTML;
	for (k = 0; k < REPORT_NFORMATS; k++) {
		if (strcmp(s, format_names[k]) == 0)
			return (enum report_format)k;
	}
	return REPORT_NFORMATS;
}

/* The format a file's extension names, or REPORT_NFORMATS. */
enum report_format
report_format_of_path(const char *path)
{
	const char	*dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	if (dot == NULL || (slash != NULL && dot < slash))
		return REPORT_NFORMATS;
	return report_format_parse(dot + 1);
}

const char *
report_format_name(enum report_format f)
{
	return f < REPORT_NFORMATS ? format_names[f] : "?";
}

/* Notes as report_notes_read or the console's callback hand them over. */
void
report_notes_free(struct report_note *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].kind);
		free(v[i].time);
		free(v[i].text);
	}
	free(v);
}

/*
 * Log text as a report may show it: redacted (the hidden values counted in
 * o) into b, which is reused; the result lives until b's next use.
 */
const char *
report_raw(struct report_opts *o, struct buf *b, const char *s)
{
	buf_reset(b);
	if (s == NULL)
		s = "";
	if (o->redact)
		o->hidden += redact(b, s, strlen(s));
	else
		buf_adds(b, s);
	buf_addc(b, '\0');
	b->len--;
	return b->p;
}

/* A time in full (ISO 8601 with ms), or "" when not known. */
void
report_time(const struct rl_time *t, char *s, size_t sz)
{
	clock_format(t, s, sz);
}

/*
 * Two ends of a time window, written alike: when either end's log named
 * a zone, both are given in UTC with Z (an end without a zone is read in
 * the local zone, as the events were ordered); else both as written.
 */
void
report_window_of(const struct rl_time *a, const struct rl_time *b, char *t0,
    char *t1, size_t sz)
{
	const struct rl_time	*end[2] = { a, b };
	char			*out[2] = { t0, t1 };
	struct rl_time		 u;
	bool			 zoned = false;
	int			 k;

	for (k = 0; k < 2; k++)
		zoned |= (end[k]->flags & (RL_TIME_VALID | RL_TIME_ZONED |
		    RL_TIME_BOOT)) == (RL_TIME_VALID | RL_TIME_ZONED);
	for (k = 0; k < 2; k++) {
		if (!zoned || !(end[k]->flags & RL_TIME_VALID) ||
		    (end[k]->flags & RL_TIME_BOOT)) {
			clock_format(end[k], out[k], sz);
			continue;
		}
		u = *end[k];
		u.ms = clock_utc_ms(end[k]);
		u.tz_min = 0;
		u.flags |= RL_TIME_ZONED;
		clock_format(&u, out[k], sz);
	}
}

/* The incident's time window, its ends written alike. */
void
report_window(const struct rl_incident *inc, char *t0, char *t1, size_t sz)
{
	report_window_of(&inc->start, &inc->end, t0, t1, sz);
}

/* A time's HH:MM:SS, or the whole of it when it has no such part. */
void
report_time_hms(const struct rl_time *t, char *s, size_t sz)
{
	char	full[64];
	size_t	n;

	n = clock_format(t, full, sizeof full);
	if (n >= 19 && full[10] == 'T')
		snprintf(s, sz, "%.8s", full + 11);
	else
		snprintf(s, sz, "%s", full);
}

/* A source's path, or NULL. */
const char *
report_source_path(const struct rl_incident *inc, int source)
{
	if (source == RL_NONE || source < 0 || (size_t)source >= inc->nsources)
		return NULL;
	return inc->sources[source]->path;
}

/* The path a wording item's source names, or NULL. */
const char *
report_where_path(const struct report_where *w, int source)
{
	if (w->inc != NULL)
		return report_source_path(w->inc, source);
	if (source < 0 || (size_t)source >= w->npaths)
		return NULL;
	return w->paths[source];
}

/* The rank's index in inc->ranks, sorted by rank with unranked last. */
static long
timeline_find(const struct rl_incident *inc, int rank)
{
	size_t	lo = 0, hi = inc->nranks, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (inc->ranks[mid].rank == RL_NONE ||
		    inc->ranks[mid].rank > rank)
			hi = mid;
		else if (inc->ranks[mid].rank < rank)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

/* Do two rows behave alike: state, signature, and the same second. */
static bool
timeline_alike(const struct report_rank *a, const struct report_rank *b)
{
	if (a->state != b->state)
		return false;
	if ((a->signature == NULL) != (b->signature == NULL) ||
	    (a->signature != NULL && strcmp(a->signature, b->signature) != 0))
		return false;
	return strcmp(a->at, b->at) == 0;
}

/* Ranks as runs: "0-36,38-63". */
static void
timeline_runs(struct buf *b, const struct report_rank *r, size_t n, int g)
{
	size_t	i, j;
	bool	any = false;

	for (i = 0; i < n; i++) {
		if (r[i].group != g)
			continue;
		if (r[i].rank == RL_NONE) {
			buf_adds(b, any ? ",unranked" : "unranked");
			any = true;
			continue;
		}
		for (j = i; j + 1 < n && r[j + 1].group == g &&
		    r[j + 1].rank == r[j].rank + 1; j++)
			;
		buf_printf(b, any ? ",%d" : "%d", r[i].rank);
		if (j > i)
			buf_printf(b, "-%d", r[j].rank);
		any = true;
		i = j;
	}
}

/* The timeline of an incident's ranks, and their groups. */
void
report_timeline_build(struct report_timeline *t, const struct rl_incident *inc)
{
	struct report_rank	*r;
	struct report_group	*g;
	struct buf		 b = { 0 };
	const struct rl_event	*e;
	size_t			 i, j, cap = 0;
	long			 k;

	memset(t, 0, sizeof *t);
	t->n = inc->nranks;
	t->ranks = xcalloc(t->n + 1, sizeof *t->ranks);
	for (i = 0; i < t->n; i++) {
		r = &t->ranks[i];
		r->rank = inc->ranks[i].rank;
		r->host = inc->ranks[i].host;
		r->state = inc->ranks[i].state;
		r->last_step = inc->ranks[i].last_step;
		r->last = inc->ranks[i].last;
		r->group = -1;
		if (inc->ranks[i].first_event != RL_NONE &&
		    (size_t)inc->ranks[i].first_event < inc->nevents) {
			r->first = inc->events[inc->ranks[i].first_event];
			r->signature = report_event_signature(inc, r->first);
			report_time_hms(&r->first->time, r->at, sizeof r->at);
		}
	}
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->role != ROLE_PROGRESS || e->rank == RL_NONE ||
		    !(e->time.flags & RL_TIME_VALID) ||
		    (k = timeline_find(inc, e->rank)) < 0)
			continue;
		if (!(t->ranks[k].progress.flags & RL_TIME_VALID) ||
		    clock_cmp_any(&e->time, &t->ranks[k].progress) > 0)
			t->ranks[k].progress = e->time;
	}
	/* Groups: each row joins the first group it is alike to. */
	for (i = 0; i < t->n; i++) {
		for (j = 0; j < t->ngroups; j++) {
			if (timeline_alike(&t->ranks[i],
			    &t->ranks[(size_t)t->groups[j].n]))
				break;
		}
		if (j == t->ngroups) {
			t->groups = array_grow(t->groups, t->ngroups + 1, &cap,
			    sizeof *t->groups);
			g = &t->groups[t->ngroups++];
			memset(g, 0, sizeof *g);
			g->n = i;	/* its first row until counted below */
		}
		t->ranks[i].group = (int)j;
	}
	for (j = 0; j < t->ngroups; j++) {
		g = &t->groups[j];
		r = &t->ranks[g->n];
		g->state = r->state;
		g->signature = r->signature;
		snprintf(g->at, sizeof g->at, "%s", r->at);
		g->n = 0;
		for (i = 0; i < t->n; i++)
			g->n += t->ranks[i].group == (int)j;
		buf_reset(&b);
		timeline_runs(&b, t->ranks, t->n, (int)j);
		g->ranks = xstrdup(b.len > 0 ? b.p : "");
	}
	buf_clear(&b);
}

void
report_timeline_clear(struct report_timeline *t)
{
	size_t	j;

	for (j = 0; j < t->ngroups; j++)
		free(t->groups[j].ranks);
	free(t->groups);
	free(t->ranks);
	memset(t, 0, sizeof *t);
}

/* The packs that judged the incident, as JSON rows: name, path, hash. */
json_t *
report_packs_json(const struct rl_incident *inc)
{
	const struct rl_pack	*p;
	json_t			*v = json_array(), *x;
	size_t			 i, n;

	n = inc->rules != NULL ? ruleset_packs(inc->rules, &p) : 0;
	for (i = 0; i < n; i++) {
		x = json_object();
		json_object_set_new(x, "name", json_string(p[i].name));
		json_object_set_new(x, "path", json_string(p[i].path));
		json_object_set_new(x, "hash", json_string(p[i].hash));
		json_array_append_new(v, x);
	}
	return v;
}

/* Every string of a tree redacted in place, counted in o. */
void
report_json_redact(struct report_opts *o, struct buf *b, json_t *v)
{
	const char	*key;
	json_t		*x;
	size_t		 i, was;

	if (json_is_object(v)) {
		json_object_foreach(v, key, x)
			report_json_redact(o, b, x);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			report_json_redact(o, b, x);
	} else if (json_is_string(v)) {
		was = o->hidden;
		report_raw(o, b, json_string_value(v));
		if (o->hidden != was)
			json_string_setn(v, b->p, b->len);
	}
}

/* The JSON report: analyze --json's document, the id, notes, redaction. */
static void
report_json_doc(const struct rl_incident *inc, struct report_opts *o,
    struct buf *b)
{
	static const struct report_json_layout layout[] = {
		{ "", JL_ROWS, 2, 0, NULL },
		{ "report.notes", JL_ROWS, 6, 4, NULL },
		{ "report.rule_packs", JL_ROWS, 6, 4, NULL },
		{ "verdict.confidence", JL_REAL, 0, 0, "%.2f" },
		{ "ranks", JL_ROWS, 4, 2, NULL },
		{ "events", JL_ROWS, 4, 2, NULL },
		{ "signatures", JL_ROWS, 4, 2, NULL },
		{ "sources", JL_ROWS, 4, 2, NULL },
	};
	struct buf	 t = { 0 };
	json_t		*doc = report_json_tree(inc), *rep, *notes, *n, *w;
	char		 t0[64], t1[64];
	size_t		 i;

	if (o->redact)
		report_json_redact(o, &t, doc);
	notes = json_array();
	for (i = 0; i < o->nnotes; i++) {
		n = json_object();
		json_object_set_new(n, "kind", json_string(o->notes[i].kind));
		json_object_set_new(n, "time", report_json_str(o->notes[i].time));
		json_object_set_new(n, "text", report_json_str(report_raw(o, &t,
		    o->notes[i].text)));
		json_array_append_new(notes, n);
	}
	rep = json_object();
	json_object_set_new(rep, "incident", o->incident > 0 ?
	    json_integer(o->incident) : json_null());
	json_object_set_new(rep, "version", report_json_str(o->version));
	json_object_set_new(rep, "rule_packs", report_packs_json(inc));
	report_window(inc, t0, t1, sizeof t0);
	w = json_object();
	json_object_set_new(w, "start", t0[0] ? json_string(t0) : json_null());
	json_object_set_new(w, "end", t1[0] ? json_string(t1) : json_null());
	json_object_set_new(rep, "window", w);
	json_object_set_new(rep, "redacted", json_boolean(o->redact));
	json_object_set_new(rep, "hidden", json_integer((json_int_t)o->hidden));
	json_object_set_new(rep, "notes", notes);
	json_object_set_new(doc, "report", rep);
	report_json_print(b, doc, layout, nitems(layout), NULL);
	buf_addc(b, '\n');
	json_decref(doc);
	buf_clear(&t);
}

/* The report of an incident in a format, appended to b. */
void
report_render(const struct rl_incident *inc, enum report_format f,
    struct report_opts *o, struct buf *b)
{
	struct wording	w = { 0 };

	if (f == REPORT_JSON) {
		report_json_doc(inc, o, b);
		return;
	}
	wording_build(&w, inc);
	if (f == REPORT_HTML)
		report_html(inc, &w, o, b);
	else
		report_md(inc, &w, o, b);
	wording_clear(&w);
}

/*
 * The failures a report quotes with their lines around them: the first
 * failing event of each distinct signature that has context, in time
 * order, at most REPORT_QUOTES; their indexes go to v.  One choice, which
 * every format renders.  A signature already quoted is passed over before
 * its context is asked for: asking makes the lines a string the context
 * then holds (and reads them again from a file let go), and a job of
 * fewer signatures than quotes had every rank's failures' made so, 78 MB
 * and 100,000 opens at 10,000 ranks, for the eight shown.
 */
size_t
report_quotes(const struct rl_incident *inc, size_t *v)
{
	const struct rl_event	*e;
	const char		*seen[REPORT_QUOTES], *sig;
	size_t			 i, k, n = 0;
	int64_t			 first;

	for (i = 0; i < inc->nevents && n < REPORT_QUOTES; i++) {
		e = inc->events[i];
		if (!event_failing(e))
			continue;
		sig = report_event_signature(inc, e);
		for (k = 0; k < n && strcmp(seen[k], sig) != 0; k++)
			;
		if (k < n || event_context(inc, e, &first) == NULL)
			continue;
		seen[n] = sig;
		v[n++] = i;
	}
	return n;
}
