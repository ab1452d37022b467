/*
 * cmd-report-facts.c: what a report made from the store alone takes from
 * the facts document the store keeps since schema 3 (store/store-facts.c):
 * the answer's words rebuilt as wording.c's sections for the report's own
 * renderers, the job's rows and the rule packs of the header as the
 * report from the logs writes them, and the answers, the job and the
 * packs of the JSON report.  For an incident stored before, what was not
 * stored is said in one sentence (report_facts_missing).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rankline.h"
#include "report.h"
#include "store/store.h"
#include "cmd-report-stored.h"

/* What the report of an incident stored before schema 3 cannot say. */
const char report_facts_missing[] = "Stored by a rankline before schema 3: "
    "the verdict's confidence and its lines for and against, the "
    "checkpoint's unsafe steps and what its folder said, the job's "
    "identity, the rule packs, the next steps, the checklist and each "
    "rank's own first error were not stored";

/* A stored word's role by its name, or -1 for one this build lacks. */
static int
stored_role(const char *name)
{
	int	r;

	for (r = WD_HEADING; name != NULL && r <= WD_DIM; r++) {
		if (strcmp(wording_role_name((enum wd_role)r), name) == 0)
			return r;
	}
	return -1;
}

/* The index of a path the stored words point at, added if new. */
static int
stored_path(struct stored *s, const char *path)
{
	size_t	i;

	if (path == NULL)
		return RL_NONE;
	for (i = 0; i < s->npaths; i++) {
		if (strcmp(s->paths[i], path) == 0)
			return (int)i;
	}
	s->paths = array_grow(s->paths, s->npaths + 1, &s->pathcap,
	    sizeof *s->paths);
	s->paths[s->npaths] = xstrdup(path);
	return (int)s->npaths++;
}

/* The answer's words as the facts document kept them, as sections. */
static void
stored_wording(struct stored *s)
{
	json_t		*parts = json_object_get(s->facts, "wording"), *a, *x;
	struct wd_section *sec;
	const char	*name;
	size_t		 i;
	int		 k, role;

	for (k = 0; k < WD_NPARTS; k++) {
		if ((name = store_facts_part_name(k)) == NULL ||
		    !json_is_array(a = json_object_get(parts, name)))
			continue;
		sec = &s->w.part[k];
		json_array_foreach(a, i, x) {
			role = stored_role(json_string_value(json_object_get(x,
			    "role")));
			if (role < 0)
				continue;
			wording_add(sec, (enum wd_role)role, (int)
			    json_integer_value(json_object_get(x, "indent")),
			    json_string_value(json_object_get(x, "text")));
			sec->items[sec->n - 1].source = stored_path(s,
			    json_string_value(json_object_get(x, "where")));
			sec->items[sec->n - 1].line = (uint64_t)
			    json_integer_value(json_object_get(x, "line"));
		}
	}
}

/*
 * The job fact a stored row names, as this build names it (its name is
 * ours, written unescaped as the logs' report writes it), or -1.
 */
static int
stored_job_fact(json_t *x)
{
	const char	*name = json_string_value(json_object_get(x, "name"));
	int		 k;

	for (k = 0; name != NULL && k < JOB_NFACTS; k++) {
		if (strcmp(job_fact_name((enum job_fact)k), name) == 0)
			return k;
	}
	return -1;
}

/* A rule pack's hash as the header writes it: hex digits, else none. */
static const char *
stored_hash(json_t *x)
{
	const char	*h = json_string_value(json_object_get(x, "hash"));

	if (h == NULL || *h == '\0' || strlen(h) > 32 ||
	    strspn(h, "0123456789abcdef") != strlen(h))
		return NULL;
	return h;
}

/* The "read" row's numbers. */
static void
stored_read(const struct stored *s, json_int_t *n)
{
	json_t	*r = json_object_get(s->facts, "read");

	n[0] = json_integer_value(json_object_get(r, "sources"));
	n[1] = json_integer_value(json_object_get(r, "lines"));
	n[2] = json_integer_value(json_object_get(r, "ranks"));
}

/* The job's rows of the Markdown header, as the logs' report writes them. */
void
report_facts_md_job(struct buf *b, struct report_opts *o,
    const struct stored *s)
{
	json_t		*x;
	const char	*from;
	size_t		 i;
	int		 k;

	json_array_foreach(json_object_get(s->facts, "job_facts"), i, x) {
		if ((k = stored_job_fact(x)) < 0)
			continue;
		buf_printf(b, "| job %s | ", job_fact_name((enum job_fact)k));
		report_stored_put(b, o, sanitize_md, json_string_value(
		    json_object_get(x, "value")));
		if ((from = json_string_value(json_object_get(x, "from"))) !=
		    NULL) {
			buf_adds(b, " (from ");
			report_stored_put(b, o, sanitize_md, from);
			buf_adds(b, ")");
		}
		buf_adds(b, " |\n");
	}
}

/* The read row, the build and the rule packs with their hashes. */
void
report_facts_md_packs(struct buf *b, struct report_opts *o,
    const struct stored *s)
{
	json_t		*a = json_object_get(s->facts, "rule_packs"), *x;
	json_int_t	 n[3];
	size_t		 i;

	stored_read(s, n);
	buf_printf(b, "| read | %lld sources, %lld lines, %lld ranks |\n",
	    (long long)n[0], (long long)n[1], (long long)n[2]);
	buf_printf(b, "| made by | rankline %s |\n", o->version);
	buf_adds(b, "| rule packs | ");
	json_array_foreach(a, i, x) {
		buf_adds(b, i > 0 ? ", " : "");
		report_stored_put(b, o, sanitize_md, json_string_value(
		    json_object_get(x, "name")));
		if (stored_hash(x) != NULL)
			buf_printf(b, " `%s`", stored_hash(x));
	}
	buf_adds(b, json_array_size(a) == 0 ? "none |\n" : " |\n");
}

/* The job's rows of the HTML header, as the logs' report writes them. */
void
report_facts_html_job(struct buf *b, struct report_opts *o,
    const struct stored *s)
{
	json_t		*x;
	const char	*from;
	size_t		 i;
	int		 k;

	json_array_foreach(json_object_get(s->facts, "job_facts"), i, x) {
		if ((k = stored_job_fact(x)) < 0)
			continue;
		buf_printf(b, "<tr><th>job %s</th><td>", job_fact_name(
		    (enum job_fact)k));
		report_stored_put(b, o, sanitize_html, json_string_value(
		    json_object_get(x, "value")));
		if ((from = json_string_value(json_object_get(x, "from"))) !=
		    NULL) {
			buf_adds(b, " <span class=\"dim\">(from ");
			report_stored_put(b, o, sanitize_html, from);
			buf_adds(b, ")</span>");
		}
		buf_adds(b, "</td></tr>\n");
	}
}

/* The read row and the rule packs, with their paths and hashes. */
void
report_facts_html_packs(struct buf *b, struct report_opts *o,
    const struct stored *s)
{
	json_t		*a = json_object_get(s->facts, "rule_packs"), *x;
	json_int_t	 n[3];
	size_t		 i;

	stored_read(s, n);
	buf_printf(b, "<tr><th>read</th><td>%lld sources, %lld lines, %lld "
	    "ranks</td></tr>\n", (long long)n[0], (long long)n[1],
	    (long long)n[2]);
	buf_printf(b, "<tr><th>made by</th><td>rankline %s</td></tr>\n",
	    o->version);
	buf_adds(b, "<tr><th>rule packs</th><td>");
	json_array_foreach(a, i, x) {
		buf_adds(b, i > 0 ? ", " : "");
		buf_adds(b, "<span title=\"");
		report_stored_put(b, o, sanitize_html, json_string_value(
		    json_object_get(x, "path")));
		buf_adds(b, "\">");
		report_stored_put(b, o, sanitize_html, json_string_value(
		    json_object_get(x, "name")));
		if (stored_hash(x) != NULL)
			buf_printf(b, " <span class=\"dim\">%s</span>",
			    stored_hash(x));
		buf_adds(b, "</span>");
	}
	buf_adds(b, json_array_size(a) == 0 ? "none</td></tr>\n" :
	    "</td></tr>\n");
}

/*
 * The stored answers, the job and the packs into the JSON report, as the
 * report from the logs has them, redacted; or which were not stored.
 */
void
report_facts_json(json_t *doc, json_t *rep, struct report_opts *o,
    struct buf *t, const struct stored *s, const char *win)
{
	static const char *const keys[] = {
		"first_failure", "verdict", "checkpoint", "job"
	};
	json_t		*x, *w;
	size_t		 i;
	char		 t0[64] = "", t1[64] = "";
	const char	*to;

	if (s->facts == NULL) {
		json_object_set_new(rep, "not_stored",
		    json_string(report_facts_missing));
		return;
	}
	for (i = 0; i < nitems(keys); i++) {
		x = json_deep_copy(json_object_get(s->facts, keys[i]));
		if (x == NULL)
			continue;
		if (o->redact)
			report_json_redact(o, t, x);
		json_object_set_new(doc, keys[i], x);
	}
	x = json_deep_copy(json_object_get(s->facts, "rule_packs"));
	json_object_set_new(rep, "rule_packs", x != NULL ? x : json_array());
	/* The window's ends, as stored_window wrote them. */
	if ((to = strstr(win, " to ")) != NULL) {
		snprintf(t0, sizeof t0, "%.*s", (int)(to - win), win);
		snprintf(t1, sizeof t1, "%s", to + 4);
	}
	w = json_object();
	json_object_set_new(w, "start", t0[0] && strcmp(t0, "unknown") != 0 ?
	    json_string(t0) : json_null());
	json_object_set_new(w, "end", t1[0] && strcmp(t1, "unknown") != 0 ?
	    json_string(t1) : json_null());
	json_object_set_new(rep, "window", w);
}

/*
 * The facts document of an incident (schema 3), parsed, and its words
 * rebuilt; none for an older incident, or one whose document does not
 * parse (a hand-edited import), which is then reported as an older one.
 */
int
report_facts_load(struct store *st, int64_t id, struct stored *s,
    char **cause)
{
	char	*text;

	if (store_facts(st, id, &text, cause) != 0)
		return -1;
	if (text != NULL) {
		s->facts = json_loads(text, 0, NULL);
		if (s->facts != NULL && !json_is_object(s->facts)) {
			json_decref(s->facts);
			s->facts = NULL;
		}
		free(text);
	}
	if (s->facts != NULL)
		stored_wording(s);
	return 0;
}


/* A stored traceback's line number, 0 for none. */
static unsigned long long
stored_quote_line(json_t *x)
{
	json_int_t	n = json_integer_value(json_object_get(x, "line"));

	return n > 0 ? (unsigned long long)n : 0;
}

/* The first lines of each failure, as the report from the logs quotes them. */
void
report_facts_md_quotes(struct buf *b, struct report_opts *o,
    const struct stored *s)
{
	json_t		*x, *rank;
	const char	*where;
	size_t		 i;

	json_array_foreach(json_object_get(s->facts, "tracebacks"), i, x) {
		if (i == 0)
			buf_adds(b, "## First lines of each failure\n\n");
		buf_adds(b, "**");
		report_stored_put(b, o, sanitize_md, json_string_value(
		    json_object_get(x, "signature")));
		buf_adds(b, "** ");
		if (json_is_integer(rank = json_object_get(x, "rank")))
			buf_printf(b, "(rank %lld) ", (long long)
			    json_integer_value(rank));
		buf_adds(b, "_");
		if ((where = json_string_value(json_object_get(x, "where"))) !=
		    NULL) {
			report_stored_put(b, o, sanitize_md, where);
			if (stored_quote_line(x) > 0)
				buf_printf(b, ":%llu", stored_quote_line(x));
		}
		buf_adds(b, "_\n\n");
		report_md_fence(b, o, json_string_value(json_object_get(x,
		    "context")));
	}
}

/* The same in HTML. */
void
report_facts_html_quotes(struct buf *b, struct report_opts *o,
    const struct stored *s)
{
	json_t		*x, *rank;
	const char	*where;
	size_t		 i;

	json_array_foreach(json_object_get(s->facts, "tracebacks"), i, x) {
		if (i == 0)
			buf_adds(b, "<h2>First lines of each failure</h2>\n");
		buf_adds(b, "<p><strong>");
		report_stored_put(b, o, sanitize_html, json_string_value(
		    json_object_get(x, "signature")));
		buf_adds(b, "</strong> ");
		if (json_is_integer(rank = json_object_get(x, "rank")))
			buf_printf(b, "(rank %lld) ", (long long)
			    json_integer_value(rank));
		if ((where = json_string_value(json_object_get(x, "where"))) !=
		    NULL) {
			buf_adds(b, "<span class=\"where\">");
			report_stored_put(b, o, sanitize_html, where);
			if (stored_quote_line(x) > 0)
				buf_printf(b, ":%llu", stored_quote_line(x));
			buf_adds(b, "</span> ");
		}
		buf_adds(b, "</p>\n");
		report_html_pre(b, o, json_string_value(json_object_get(x,
		    "context")));
	}
}
