/*
 * report-json-print.c: the one JSON printer, for every JSON output
 * (analyze, cat, history, show).
 *
 * Each output builds a jansson tree and prints it here, laid out by a table
 * of rules at paths: where lines break, which lists have a row a line, how
 * a real prints.  jansson's own json_dumps cannot keep the bytes these
 * outputs have always had: it escapes \r, \b and \f short, writes \u001B
 * in capitals, leaves DEL bare and prints reals with %.17g.  So the tree
 * keeps each log's bytes as they are (json_stringn_nocheck: invalid UTF-8
 * and NUL included) and every string is escaped here with sanitize_json,
 * as each JSON output always did: a tree made for this printer is printed
 * only by it.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "model.h"

#define JSON_FLUSH	(64 * 1024)	/* bytes held before writing them out */
#define JSON_PATH_MAX	128	/* bytes of a value's path the layout sees */

/* Where the printer is: the output and the path of the value it is at. */
struct json_printer {
	struct buf			*b;
	FILE				*out;	/* flushed to at rows, or NULL */
	const struct report_json_layout	*lay;
	size_t				 nlay;
	const struct report_json_stream	*streams;/* arrays made as they are
						   printed */
	size_t				 nstreams;
	char				 path[JSON_PATH_MAX];
	size_t				 plen;
	int				 lost;	/* steps in past a path that did
						   not fit: no rule applies */
};

/* The layout rule of this kind at the printer's path, or NULL. */
static const struct report_json_layout *
json_rule(const struct json_printer *p, enum report_json_kind kind)
{
	size_t	i;

	if (p->lost > 0)
		return NULL;
	for (i = 0; i < p->nlay; i++) {
		if (p->lay[i].kind == kind && strcmp(p->lay[i].path, p->path) == 0)
			return &p->lay[i];
	}
	return NULL;
}

/*
 * Whether a rule applies below the printer's path.  Where none does, the
 * printer stops keeping the path for the subtree: the events are most of
 * analyze --json, and nothing in them is laid out.
 */
static bool
json_rules_below(const struct json_printer *p)
{
	const char	*r;
	size_t		 i;

	if (p->lost > 0)
		return false;
	for (i = 0; i < p->nlay; i++) {
		r = p->lay[i].path;
		if (strncmp(r, p->path, p->plen) != 0)
			continue;
		if (p->plen == 0 ? r[0] != '\0' : r[p->plen] == '.' ||
		    r[p->plen] == '[')
			return true;
	}
	return false;
}

/* Step into a key ("a.b") or an element ("a[]"); returns the old length. */
static size_t
json_path_push(struct json_printer *p, const char *key)
{
	size_t	old = p->plen, n;

	/* No rules: no path to keep (cat --json prints millions of rows). */
	if (p->nlay == 0)
		return old;
	n = key != NULL ? strlen(key) : 2;
	if (p->lost > 0 || p->plen + n + 2 > sizeof p->path) {
		p->lost++;
		return old;
	}
	if (key != NULL && p->plen > 0)
		p->path[p->plen++] = '.';
	memcpy(p->path + p->plen, key != NULL ? key : "[]", n);
	p->plen += n;
	p->path[p->plen] = '\0';
	return old;
}

/* Step back out. */
static void
json_path_pop(struct json_printer *p, size_t old)
{
	if (p->nlay == 0)
		return;
	if (p->lost > 0) {
		p->lost--;
		return;
	}
	p->plen = old;
	p->path[old] = '\0';
}

/* A newline and so many spaces. */
static void
json_newline(struct buf *b, int indent)
{
	buf_addc(b, '\n');
	while (indent-- > 0)
		buf_addc(b, ' ');
}

/* Pass what is held on to the output once there is enough of it. */
static void
json_flush(struct json_printer *p)
{
	if (p->out != NULL && p->b->len >= JSON_FLUSH) {
		fwrite(p->b->p, 1, p->b->len, p->out);
		buf_reset(p->b);
	}
}

/* A string, escaped as every rankline JSON output escapes log text. */
static void
json_print_string(struct buf *b, const char *s, size_t n)
{
	buf_addc(b, '"');
	sanitize_json(b, s, n);
	buf_addc(b, '"');
}

static void json_print_value(struct json_printer *, const json_t *);

/* An object: one line, or one key a line where the layout says rows. */
static void
json_print_object(struct json_printer *p, const json_t *v)
{
	const struct report_json_layout	*rows, *brk;
	const char			*key;
	const json_t			*x;
	size_t				 old, i = 0;
	bool				 below;

	rows = json_rule(p, JL_ROWS);
	below = json_rules_below(p);
	if (!below)
		p->lost++;
	buf_addc(p->b, '{');
	json_object_foreach((json_t *)v, key, x) {
		old = json_path_push(p, key);
		if (rows != NULL) {
			buf_adds(p->b, i ? "," : "");
			json_newline(p->b, rows->indent);
		} else if ((brk = json_rule(p, JL_BREAK)) != NULL && i > 0) {
			buf_addc(p->b, ',');
			json_newline(p->b, brk->indent);
		} else if (i > 0)
			buf_adds(p->b, ", ");
		json_print_string(p->b, key, strlen(key));
		buf_adds(p->b, ": ");
		json_print_value(p, x);
		json_path_pop(p, old);
		i++;
		if (rows != NULL)
			json_flush(p);
	}
	if (!below)
		p->lost--;
	if (rows != NULL && i > 0 && rows->close >= 0)
		json_newline(p->b, rows->close);
	buf_addc(p->b, '}');
}

/* An array: one line, or one element a line where the layout says rows. */
static void
json_print_array(struct json_printer *p, const json_t *v)
{
	const struct report_json_layout	*rows;
	const struct report_json_stream	*stream = NULL;
	const char			*sep = ", ";
	size_t				 old, i, n = json_array_size(v), mark;
	bool				 below;

	rows = json_rule(p, JL_ROWS);
	if (json_rule(p, JL_TIGHT) != NULL)
		sep = ",";
	for (i = 0; i < p->nstreams && p->lost == 0; i++) {
		if (strcmp(p->streams[i].path, p->path) == 0)
			stream = &p->streams[i];
	}
	buf_addc(p->b, '[');
	mark = p->b->len;
	old = json_path_push(p, NULL);
	below = json_rules_below(p);
	if (!below)
		p->lost++;
	for (i = 0; stream != NULL || i < n; i++) {
		if (rows != NULL) {
			buf_adds(p->b, i ? "," : "");
			json_newline(p->b, rows->indent);
		} else if (i > 0)
			buf_adds(p->b, sep);
		if (stream == NULL)
			json_print_value(p, json_array_get(v, i));
		else if (!stream->row(stream->arg, p->b)) {
			/* Nothing more: take back the separator. */
			p->b->len = mark;
			p->b->p[mark] = '\0';
			break;
		}
		if (rows != NULL)
			json_flush(p);
		mark = p->b->len;
	}
	n = i;
	if (!below)
		p->lost--;
	json_path_pop(p, old);
	if (rows != NULL && n > 0 && rows->close >= 0)
		json_newline(p->b, rows->close);
	buf_addc(p->b, ']');
}

static void
json_print_value(struct json_printer *p, const json_t *v)
{
	const struct report_json_layout	*r;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		json_print_object(p, v);
		break;
	case JSON_ARRAY:
		json_print_array(p, v);
		break;
	case JSON_STRING:
		json_print_string(p->b, json_string_value(v),
		    json_string_length(v));
		break;
	case JSON_INTEGER:
		buf_add_int(p->b, (long long)json_integer_value(v));
		break;
	case JSON_REAL:
		r = json_rule(p, JL_REAL);
		buf_printf(p->b, r != NULL ? r->real : "%.6g",
		    json_real_value(v));
		break;
	case JSON_TRUE:
		buf_adds(p->b, "true");
		break;
	case JSON_FALSE:
		buf_adds(p->b, "false");
		break;
	default:
		buf_adds(p->b, "null");
		break;
	}
}

/*
 * Print v into b as laid out by lay[0, n): a break before a key, rows of
 * an object or array, a real's format, each at a path such as
 * "verdict.explanation" or "events" ("" is the value itself, "a[]" an
 * element of a).  With out, rows are written to out as they are made
 * and b holds what is left.
 */
void
report_json_print(struct buf *b, const json_t *v,
    const struct report_json_layout *lay, size_t n, FILE *out)
{
	report_json_print_stream(b, v, lay, n, out, NULL, 0);
}

/*
 * The same, with the elements of each (empty) array at one of the streams'
 * paths printed by its stream, one at a time: a long list is never all in
 * memory at once, and rows printed straight from the model cost a fifth
 * of a jansson object's each.
 */
void
report_json_print_stream(struct buf *b, const json_t *v,
    const struct report_json_layout *lay, size_t n, FILE *out,
    const struct report_json_stream *streams, size_t nstreams)
{
	struct json_printer	p;

	memset(&p, 0, sizeof p);
	p.b = b;
	p.out = out;
	p.lay = lay;
	p.nlay = n;
	p.streams = streams;
	p.nstreams = nstreams;
	json_print_value(&p, v);
}

/* A string of log text or of our words, or null: kept as it is. */
json_t *
report_json_str(const char *s)
{
	return s != NULL ? json_stringn_nocheck(s, strlen(s)) : json_null();
}

/* An int, or null for RL_NONE. */
json_t *
report_json_int(int v)
{
	return v != RL_NONE ? json_integer(v) : json_null();
}
