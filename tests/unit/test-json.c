/*
 * test-json.c: the one JSON printer (report_json_print) and what it
 * prints: the layout rules, hostile text escaped as every rankline JSON
 * output escapes it, and analyze --json's "job", null and filled by hand.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "model.h"
#include "engine.h"	/* job_clear */
#include "fixture.h"

/* v printed by the layout, then freed; the text is the caller's. */
static char *
print(json_t *v, const struct report_json_layout *lay, size_t n)
{
	struct buf	b = { 0 };

	report_json_print(&b, v, lay, n, NULL);
	json_decref(v);
	return b.p != NULL ? b.p : xstrdup("");
}

/* Check the printed text and free it. */
static void
is_printed(char *got, const char *want, const char *what)
{
	is_str(got, want, "%s", what);
	free(got);
}

static void
test_layout(void)
{
	static const struct report_json_layout lay[] = {
		{ "", JL_ROWS, 2, 0, NULL },
		{ "list", JL_ROWS, 4, 2, NULL },
		{ "tight", JL_TIGHT, 0, 0, NULL },
		{ "obj.why", JL_BREAK, 4, 0, NULL },
		{ "list[].r", JL_REAL, 0, 0, "%.2f" },
		{ "inline", JL_ROWS, 6, -1, NULL },
	};
	json_t	*o = json_object(), *a, *x;

	json_object_set_new(o, "n", json_integer(-7));
	a = json_array();
	x = json_object();
	json_object_set_new(x, "r", json_real(0.9));
	json_array_append_new(a, x);
	x = json_object();
	json_object_set_new(x, "r", json_real(1.0 / 3));
	json_array_append_new(a, x);
	json_object_set_new(o, "list", a);
	json_object_set_new(o, "empty", json_array());
	a = json_array();
	json_array_append_new(a, json_integer(3));
	json_array_append_new(a, json_integer(2));
	json_object_set_new(o, "tight", a);
	x = json_object();
	json_object_set_new(x, "a", json_true());
	json_object_set_new(x, "why", json_null());
	json_object_set_new(o, "obj", x);
	a = json_array();
	json_array_append_new(a, json_false());
	json_array_append_new(a, json_real(2.5));
	json_object_set_new(o, "inline", a);
	is_printed(print(o, lay, nitems(lay)),
	    "{\n  \"n\": -7,\n  \"list\": [\n    {\"r\": 0.90},\n"
	    "    {\"r\": 0.33}\n  ],\n  \"empty\": [],\n  \"tight\": [3,2],\n"
	    "  \"obj\": {\"a\": true,\n    \"why\": null},\n"
	    "  \"inline\": [\n      false,\n      2.5]\n}",
	    "rows, breaks, tight lists and real formats go where the layout "
	    "says; empty lists stay []");

	/* Without rules: one line, jansson's ", " and ": ", reals %.6g. */
	o = json_object();
	json_object_set_new(o, "x", json_real(1.0 / 3));
	a = json_array();
	json_array_append_new(a, json_string("a"));
	json_array_append_new(a, json_object());
	json_object_set_new(o, "y", a);
	is_printed(print(o, NULL, 0), "{\"x\": 0.333333, \"y\": [\"a\", {}]}",
	    "no layout: one line");
}

static void
test_hostile(void)
{
	static const char hostile[] =
	    "a\x1b[31mred\x1b]0;title\x07 \xe2\x80\xae bidi \xe2\x80\x8f "
	    "bad \xff\xc3\x28 \"q\" \\ \r\n\t\x7f\x01";
	struct buf	 want = { 0 };
	json_t		*o;
	char		*got;

	o = json_object();
	json_object_set_new(o, "text", report_json_str(hostile));
	got = print(o, NULL, 0);
	buf_adds(&want, "{\"text\": ");
	sanitize_json_string(&want, hostile);
	buf_adds(&want, "}");
	is_str(got, want.p, "hostile text is escaped as sanitize_json_string "
	    "escapes it");
	ok(strchr(got, '\x1b') == NULL && strchr(got, '\r') == NULL &&
	    strchr(got, '\x7f') == NULL, "no escape, carriage return or DEL "
	    "gets out raw");
	ok(strstr(got, "\\u001b[31m") != NULL && strstr(got, "\\u000d") !=
	    NULL && strstr(got, "\\u007f") != NULL, "controls as \\u00xx, in "
	    "lower case, as before (jansson would write \\r and \\u001B)");
	ok(strstr(got, "bad \xef\xbf\xbd\xef\xbf\xbd(") != NULL,
	    "invalid UTF-8 becomes U+FFFD, byte by byte");
	ok(strstr(got, "\xe2\x80\xae bidi \xe2\x80\x8f") != NULL,
	    "bidi controls are valid UTF-8 and kept, as before");
	free(got);
	buf_clear(&want);

	o = json_array();
	json_array_append_new(o, json_stringn_nocheck("nul\0after", 9));
	json_array_append_new(o, report_json_str(NULL));
	json_array_append_new(o, report_json_int(RL_NONE));
	json_array_append_new(o, report_json_int(4));
	is_printed(print(o, NULL, 0), "[\"nul\\u0000after\", null, null, 4]",
	    "a NUL inside a line is \\u0000; NULL and RL_NONE are null");
}

static void
test_job(void)
{
	struct rl_job	job;

	memset(&job, 0, sizeof job);
	is_printed(print(report_json_job(&job), NULL, 0),
	    "{\"name\": null, \"id\": null, \"run\": null, \"command\": null, "
	    "\"hosts\": null, \"world_size\": null}",
	    "a job with no fact found: every fact null, in order");
	job.fact[JOB_ID].value = xstrdup("4242");
	job.fact[JOB_ID].from = xstrdup("slurm-4242.out (its name)");
	job.fact[JOB_COMMAND].value = xstrdup("torchrun \"x\x1b[2J\" train.py");
	job.fact[JOB_COMMAND].from = xstrdup("launcher.log:3");
	job.fact[JOB_HOSTS].value = xstrdup("node0,node1");
	job.fact[JOB_HOSTS].from = xstrdup("ranks seen");
	job.fact[JOB_WORLD].value = xstrdup("16");
	job.fact[JOB_WORLD].from = xstrdup("launcher.log:2");
	is_printed(print(report_json_job(&job), NULL, 0),
	    "{\"name\": null, \"id\": {\"value\": \"4242\", \"from\": "
	    "\"slurm-4242.out (its name)\"}, \"run\": null, \"command\": "
	    "{\"value\": \"torchrun \\\"x\\u001b[2J\\\" train.py\", \"from\": "
	    "\"launcher.log:3\"}, \"hosts\": {\"value\": [\"node0\", \"node1\"], "
	    "\"from\": \"ranks seen\"}, \"world_size\": {\"value\": 16, "
	    "\"from\": \"launcher.log:2\"}}",
	    "facts found: value and from; hosts a list, the world size a "
	    "number, the command escaped");
	job_clear(&job);
}

/* analyze --json of a small log, with the job filled by hand. */
static void
test_report(void)
{
	static const char pack[] =
	    "[rule py.exc]\npattern = ^(?<exc>\\w+Error): \n"
	    "literal = Error: \nrole = root\ndomain = code\n";
	static const char log[] =
	    "2026-12-02 13:20:01,000 INFO step 1\n"
	    "RuntimeError: boom \xff\n";
	struct ruleset		*rs;
	struct rl_incident	*inc;
	struct buf		 b = { 0 };
	const char		*job, *stats;
	json_t			*back;

	rs = rules_inline(pack);
	inc = run_pipeline(rs, log);
	inc->job.fact[JOB_NAME].value = xstrdup("llama");
	inc->job.fact[JOB_NAME].from = xstrdup("a.log:1");
	report_json(inc, &b, NULL);
	job = strstr(b.p, "\n  \"job\": {\"name\": {\"value\": \"llama\", "
	    "\"from\": \"a.log:1\"}, \"id\": null,");
	stats = strstr(b.p, "\n  \"stats\": {\"lines\": 2, ");
	ok(job != NULL, "analyze --json has the job, on a line of its own");
	ok(job != NULL && stats != NULL && strchr(job + 1, '\n') == stats,
	    "just before the stats");
	ok(strstr(b.p, "\"text\": \"RuntimeError: boom \xef\xbf\xbd\"") != NULL,
	    "the log's invalid byte is U+FFFD in the report");
	ok(b.len > 2 && b.p[0] == '{' && strcmp(b.p + b.len - 4, "]\n}\n") == 0,
	    "one object, ended by the errors and a newline");
	back = json_loads(b.p, 0, NULL);
	ok(back != NULL && json_is_null(json_object_get(json_object_get(back,
	    "job"), "id")), "jansson reads it back, an unknown fact null");
	json_decref(back);
	/* The incident's job is the pipeline's to free once it fills it. */
	job_clear(&inc->job);
	memset(&inc->job, 0, sizeof inc->job);
	buf_clear(&b);
	incident_free(inc);
	ruleset_free(rs);
}

/* A list printed a row a line, as analyze --json prints its lists. */
static const struct report_json_layout rows[] = {
	{ "", JL_ROWS, 4, 2, NULL },
};

/*
 * analyze --json prints its events straight from the model, and a report's
 * tree makes them as objects: both must print the same bytes.
 */
static void
test_events(void)
{
	static const char pack[] =
	    "[rule py.exc]\npattern = ^(?<exc>\\w+Error): \n"
	    "literal = Error: \nrole = root\ndomain = code\n"
	    "[rule nccl.warn]\npattern = NCCL WARN\nliteral = NCCL WARN\n"
	    "role = evidence\n"
	    "domain = infrastructure\nnot_after = py.exc\n";
	static const char log[] =
	    "RuntimeError: no time of its own \"q\" \\ \x7f\n"
	    "2026-12-02 13:20:01,000 INFO step 1\n"
	    "2026-12-02 13:20:02,000 NCCL WARN before any error\n"
	    "RuntimeError: boom \t \xff\n";
	struct ruleset		*rs;
	struct rl_incident	*inc;
	struct buf		 b = { 0 }, t = { 0 };
	const char		*at;
	json_t			*tree;

	rs = rules_inline(pack);
	inc = run_pipeline(rs, log);
	report_json(inc, &b, NULL);
	tree = report_json_tree(inc);
	report_json_print(&t, json_object_get(tree, "events"), rows,
	    nitems(rows), NULL);
	at = strstr(b.p, "\n  \"events\": [");
	ok(at != NULL && t.len > 40, "analyze --json lists events");
	ok(at != NULL && strncmp(at + 13, t.p, t.len) == 0 &&
	    at[13 + t.len] == ',', "its rows are the tree's, byte for byte");
	ok(strstr(t.p, "\"harmless\": true") != NULL &&
	    strstr(t.p, "\\\"q\\\" \\\\ \\u007f\"") != NULL &&
	    strstr(t.p, "\\t \xef\xbf\xbd\"") != NULL &&
	    strstr(t.p, "\"rank\": null") != NULL &&
	    strstr(t.p, "\"time\": \"2026-12-02T13:20:02.000\"") != NULL,
	    "a harmless one, escapes, no rank and a time among them");
	json_decref(tree);
	buf_clear(&b);
	buf_clear(&t);
	incident_free(inc);
	ruleset_free(rs);
}

/* The rows of the list at key in an analyze --json output, or NULL. */
static const char *
rows_at(const char *out, const char *key, const char *rows, size_t n)
{
	char		 head[64];
	const char	*at;

	snprintf(head, sizeof head, "\n  \"%s\": ", key);
	if ((at = strstr(out, head)) == NULL)
		return NULL;
	at += strlen(head);
	return strncmp(at, rows, n) == 0 && at[n] == ',' ? at : NULL;
}

/*
 * The ranks and the sources are printed straight from the model too, each
 * key as the tree has it: a host with quotes and escapes and none, a rank
 * of none, a time and none, and a source skipped as binary, with long
 * lines, NUL bytes read around and an error.
 */
static void
test_rows(void)
{
	static const char log[] =
	    "[rank0]:2026-12-02 13:20:01,000 INFO step 1\n"
	    "[rank1]:2026-12-02 13:20:02,000 INFO step 1\n"
	    "[rank2]:RuntimeError: boom\n";
	struct ruleset		*rs;
	struct rl_incident	*inc;
	struct rl_source	*src;
	struct buf		 b = { 0 }, t = { 0 }, u = { 0 };
	json_t			*tree;

	rs = rules_shipped();
	inc = run_pipeline(rs, log);
	ok(inc->nranks == 3 && inc->nsources == 1, "three ranks, one file "
	    "(%zu, %zu)", inc->nranks, inc->nsources);
	if (inc->nranks == 3 && inc->nsources == 1) {
		free(inc->ranks[0].host);
		inc->ranks[0].host = xstrdup("node\"7\" \x1b[31m\\");
		free(inc->ranks[1].host);
		inc->ranks[1].host = NULL;
		inc->ranks[2].rank = RL_NONE;
		memset(&inc->ranks[2].last, 0, sizeof inc->ranks[2].last);
		src = inc->sources[0];
		src->binary = true;
		src->long_lines = 3;
		src->binary_lines = 2;
		src->binary_bytes = 17;
		free(src->error);
		src->error = xstrdup("cannot \"read\"\t\x7f");
	}
	report_json(inc, &b, NULL);
	tree = report_json_tree(inc);
	report_json_print(&t, json_object_get(tree, "ranks"), rows,
	    nitems(rows), NULL);
	report_json_print(&u, json_object_get(tree, "sources"), rows,
	    nitems(rows), NULL);
	ok(rows_at(b.p, "ranks", t.p, t.len) != NULL, "the ranks' rows are "
	    "the tree's, byte for byte");
	ok(strstr(t.p, "\"host\": null") != NULL &&
	    strstr(t.p, "\"rank\": null") != NULL &&
	    strstr(t.p, "\"last_time\": null") != NULL &&
	    strstr(t.p, "\"last_time\": \"2026-12-02T13:20:01.000\"") != NULL &&
	    strstr(t.p, "node\\\"7\\\" \\u001b[31m\\\\") != NULL,
	    "no host, no rank, no time, a time and an escaped host among "
	    "them");
	ok(rows_at(b.p, "sources", u.p, u.len) != NULL, "the sources' rows "
	    "are the tree's, byte for byte");
	ok(strstr(u.p, "\"skipped\": \"binary\", \"long_lines\": 3, "
	    "\"binary_lines\": 2, \"binary_bytes\": 17, \"error\": "
	    "\"cannot \\\"read\\\"\\t\\u007f\"}") != NULL,
	    "every key a source may have, in the tree's order");
	json_decref(tree);
	buf_clear(&b);
	buf_clear(&t);
	buf_clear(&u);
	incident_free(inc);
	ruleset_free(rs);
}

int
main(void)
{
	test_layout();
	test_hostile();
	test_job();
	test_report();
	test_events();
	test_rows();
	return tap_done();
}
