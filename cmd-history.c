/*
 * cmd-history.c: `rankline history`, `show` and `note`: the incidents kept
 * between outages, and the engineer's diagnosis written against them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rankline.h"
#include "store/store.h"

/* Open the database the options name. */
static struct store *
history_open(const struct options *o)
{
	struct store	*st;
	char		*path, *cause = NULL;

	path = o->db != NULL ? xstrdup(o->db) : store_default_path();
	if (path == NULL) {
		fprintf(stderr, "rankline: no incident database (set HOME or "
		    "use --db)\n");
		return NULL;
	}
	if (store_open(path, &st, &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		free(path);
		return NULL;
	}
	free(path);
	return st;
}

/* Print a string for a terminal, or a dash. */
static void
put_safe(struct buf *b, const char *s)
{
	if (s == NULL)
		buf_adds(b, "-");
	else
		sanitize_terminal(b, s, strlen(s));
}

/* One row as JSON. */
static void
row_json(struct buf *b, const struct store_row *r)
{
	buf_printf(b, "{\"id\": %lld, \"created\": ", (long long)r->id);
	json_string(b, r->created);
	buf_adds(b, ", \"updated\": ");
	json_string(b, r->updated);
	buf_adds(b, ", \"started\": ");
	json_string(b, r->started);
	buf_adds(b, ", \"signature\": ");
	json_string(b, r->signature);
	buf_adds(b, ", \"fingerprint\": ");
	json_string(b, r->fingerprint);
	buf_adds(b, ", \"rank\": ");
	buf_printf(b, r->rank == RL_NONE ? "null" : "%d", r->rank);
	buf_adds(b, ", \"host\": ");
	json_string(b, r->host);
	buf_adds(b, ", \"domain\": ");
	json_string(b, r->domain);
	buf_adds(b, ", \"summary\": ");
	json_string(b, r->summary);
	buf_adds(b, ", \"text\": ");
	json_string(b, r->text);
	buf_adds(b, ", \"sources\": ");
	json_string(b, r->sources);
	buf_printf(b, ", \"ranks\": %d, \"note\": ", r->nranks);
	json_string(b, r->note);
	buf_adds(b, "}");
}

/* One row as a line of the list. */
static void
row_text(struct buf *b, const struct store_row *r)
{
	buf_printf(b, "%5lld  %.16s  ", (long long)r->id,
	    r->created ? r->created : "-");
	if (r->signature == NULL)
		buf_adds(b, "no failure");
	else {
		put_safe(b, r->signature);
		if (r->rank != RL_NONE)
			buf_printf(b, " rank %d", r->rank);
		if (r->host != NULL) {
			buf_adds(b, " on ");
			put_safe(b, r->host);
		}
	}
	buf_adds(b, "  [");
	put_safe(b, r->domain);
	buf_adds(b, "]  ");
	put_safe(b, r->sources);
	if (r->note != NULL) {
		buf_adds(b, "\n       note: ");
		put_safe(b, r->note);
	}
	buf_addc(b, '\n');
}

int
cmd_history(const struct options *o, int argc, char **argv)
{
	struct store		*st;
	struct store_list	 l = { 0 };
	struct buf		 b = { 0 };
	char			*cause = NULL;
	size_t			 i;

	if (argc > 1) {
		fprintf(stderr, "usage: rankline history [QUERY] [--json]\n");
		return EXIT_USAGE;
	}
	if ((st = history_open(o)) == NULL)
		return 1;
	if (store_list(st, argc == 1 ? argv[0] : NULL, 200, &l, &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		store_close(st);
		return 1;
	}
	if (o->json)
		buf_adds(&b, "[");
	for (i = 0; i < l.n; i++) {
		if (o->json) {
			buf_adds(&b, i ? ",\n  " : "\n  ");
			row_json(&b, &l.rows[i]);
		} else
			row_text(&b, &l.rows[i]);
	}
	if (o->json)
		buf_adds(&b, l.n ? "\n]\n" : "]\n");
	else if (l.n == 0)
		buf_adds(&b, "no incidents\n");
	fwrite(b.p, 1, b.len, stdout);
	buf_free(&b);
	store_list_free(&l);
	store_close(st);
	return 0;
}

/* Parse an incident id. */
static int
parse_id(const char *s, int64_t *id)
{
	char		*end;
	long long	 v = strtoll(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0) {
		fprintf(stderr, "rankline: '%s' is not an incident id\n", s);
		return -1;
	}
	*id = v;
	return 0;
}

/* Print one stored event. */
static void
show_event(void *arg, const char *source, int64_t line, const char *time,
    const char *signature, const char *text)
{
	struct buf	*b = arg;

	buf_printf(b, "  %-23s ", time ? time : "-");
	put_safe(b, signature);
	buf_adds(b, "  ");
	put_safe(b, source);
	buf_printf(b, ":%lld\n      ", (long long)line);
	put_safe(b, text);
	buf_addc(b, '\n');
}

int
cmd_show(const struct options *o, int argc, char **argv)
{
	struct store		*st;
	struct store_row	 r = { 0 };
	struct buf		 b = { 0 };
	char			*cause = NULL;
	int64_t			 id;
	int			 rv = 0;

	if (argc != 1) {
		fprintf(stderr, "usage: rankline show ID [--json]\n");
		return EXIT_USAGE;
	}
	if (parse_id(argv[0], &id) != 0)
		return EXIT_USAGE;
	if ((st = history_open(o)) == NULL)
		return 1;
	if (store_get(st, id, &r, &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		store_close(st);
		return 1;
	}
	if (o->json) {
		row_json(&b, &r);
		buf_addc(&b, '\n');
	} else {
		row_text(&b, &r);
		buf_adds(&b, "       ");
		put_safe(&b, r.summary);
		buf_adds(&b, "\nEvents:\n");
		if (store_events(st, id, show_event, &b, &cause) != 0) {
			fprintf(stderr, "rankline: %s\n", cause);
			free(cause);
			rv = 1;
		}
	}
	fwrite(b.p, 1, b.len, stdout);
	buf_free(&b);
	store_row_free(&r);
	store_close(st);
	return rv;
}

int
cmd_note(const struct options *o, int argc, char **argv)
{
	struct store	*st;
	char		*cause = NULL;
	int64_t		 id;

	if (argc != 2 || argv[1][0] == '\0') {
		fprintf(stderr, "usage: rankline note ID TEXT\n");
		return EXIT_USAGE;
	}
	if (parse_id(argv[0], &id) != 0)
		return EXIT_USAGE;
	if ((st = history_open(o)) == NULL)
		return 1;
	if (store_note(st, id, argv[1], &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		store_close(st);
		return 1;
	}
	store_close(st);
	printf("noted on incident %lld\n", (long long)id);
	return 0;
}
