/*
 * cmd-history.c: `rankline history`, `show` and `note`: the incidents kept
 * between outages, the hosts, GPUs and ranks that keep failing, the
 * engineer's diagnosis and resolution written against them, and the
 * export and import that share a team's history between machines.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rankline.h"
#include "wording.h"
#include "store/store.h"

/*
 * Open the database the options name.  Reading never makes a database (a
 * typo in --db must not leave folders behind) and falls back to read only
 * where the file cannot be written; only --import makes one.  NULL when
 * it cannot be opened, the reason said; *fresh is set instead, with nothing
 * said, when the default database is not there yet: a new machine, whose
 * history is empty.
 */
static struct store *
history_open(const struct options *o, int flags, bool *fresh)
{
	struct store	*st;
	char		*cause = NULL;
	int		 rc;

	if (fresh != NULL)
		*fresh = false;
	rc = store_open_at(o->db, flags, &st, &cause);
	if (rc == STORE_NOWHERE) {
		fprintf(stderr, "rankline: no incident database (set HOME or "
		    "use --db)\n");
		free(cause);
		return NULL;
	}
	if (rc == STORE_ABSENT && o->db == NULL && fresh != NULL) {
		*fresh = true;
		rc = -1;
	} else if (rc != 0)
		fprintf(stderr, "rankline: %s\n", cause);
	free(cause);
	return rc == 0 ? st : NULL;
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

/*
 * The first max bytes of a stored date, made safe, padded to width: a
 * date is text to the store, and an import brings another machine's.
 */
static void
put_date(struct buf *b, const char *s, size_t max, size_t width)
{
	size_t	start = b->len;

	if (s == NULL)
		buf_adds(b, "-");
	else
		sanitize_terminal(b, s, strnlen(s, max));
	while (b->len - start < width)
		buf_addc(b, ' ');
}

/* One row as a jansson object, for the one JSON printer. */
static json_t *
row_json(const struct store_row *r)
{
	static const struct {
		const char	*key;
		size_t		 off;
	} texts[] = {
		{ "created", offsetof(struct store_row, created) },
		{ "updated", offsetof(struct store_row, updated) },
		{ "started", offsetof(struct store_row, started) },
		{ "signature", offsetof(struct store_row, signature) },
		{ "fingerprint", offsetof(struct store_row, fingerprint) },
	}, more[] = {
		{ "host", offsetof(struct store_row, host) },
		{ "domain", offsetof(struct store_row, domain) },
		{ "summary", offsetof(struct store_row, summary) },
		{ "text", offsetof(struct store_row, text) },
		{ "sources", offsetof(struct store_row, sources) },
	}, notes[] = {
		{ "note", offsetof(struct store_row, note) },
		{ "diagnosis", offsetof(struct store_row, diagnosis) },
		{ "resolution", offsetof(struct store_row, resolution) },
		{ "uid", offsetof(struct store_row, uid) },
		{ "occurred", offsetof(struct store_row, occurred) },
		{ "template", offsetof(struct store_row, template) },
		{ "pci", offsetof(struct store_row, pci) },
	};
	json_t	*o = json_object(), *job;
	size_t	 i;

#define ROW_TEXT(t, i) report_json_str(*(char *const *)(const void *) \
	((const char *)r + (t)[i].off))
	json_object_set_new(o, "id", json_integer(r->id));
	for (i = 0; i < nitems(texts); i++)
		json_object_set_new(o, texts[i].key, ROW_TEXT(texts, i));
	json_object_set_new(o, "rank", report_json_int(r->rank));
	for (i = 0; i < nitems(more); i++)
		json_object_set_new(o, more[i].key, ROW_TEXT(more, i));
	json_object_set_new(o, "ranks", json_integer(r->nranks));
	for (i = 0; i < nitems(notes); i++)
		json_object_set_new(o, notes[i].key, ROW_TEXT(notes, i));
#undef ROW_TEXT
	job = json_object();
	json_object_set_new(job, "scheduler", report_json_str(r->job_scheduler));
	json_object_set_new(job, "run", report_json_str(r->job_run));
	json_object_set_new(job, "command", report_json_str(r->job_command));
	json_object_set_new(o, "job", job);
	return o;
}

/* One row as a line of the list. */
static void
row_text(struct buf *b, const struct store_row *r)
{
	buf_printf(b, "%5lld  ", (long long)r->id);
	put_date(b, r->created, 16, 0);
	buf_adds(b, "  ");
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

/* Print a cause and close the store: the command failed. */
static int
history_fail(struct store *st, char *cause)
{
	fprintf(stderr, "rankline: %s\n", cause);
	free(cause);
	store_close(st);
	return 1;
}

/* One offender as a line of `history --hosts`. */
static void
offender_text(struct buf *b, const struct store_offender *o)
{
	buf_printf(b, "%-5s ", o->kind);
	put_safe(b, o->name);
	buf_printf(b, "  %lld incidents, ", (long long)o->count);
	put_date(b, o->first, 10, 0);
	buf_adds(b, " to ");
	put_date(b, o->last, 10, 0);
	buf_adds(b, "  (#");
	put_safe(b, o->incidents);
	buf_adds(b, ")\n");
}

/* One offender as a jansson object: its incidents' ids a list. */
static json_t *
offender_json(const struct store_offender *o)
{
	json_t		*x = json_object(), *ids = json_array();
	const char	*p = o->incidents;
	char		*end;
	long long	 id;

	json_object_set_new(x, "kind", report_json_str(o->kind));
	json_object_set_new(x, "name", report_json_str(o->name));
	json_object_set_new(x, "count", json_integer(o->count));
	json_object_set_new(x, "first", report_json_str(o->first));
	json_object_set_new(x, "last", report_json_str(o->last));
	/* The store joins the ids with ','. */
	while (p != NULL && *p != '\0') {
		id = strtoll(p, &end, 10);
		if (end == p)
			break;
		json_array_append_new(ids, json_integer(id));
		p = *end == ',' ? end + 1 : end;
	}
	json_object_set_new(x, "incidents", ids);
	return x;
}

/*
 * A list of history --json and --hosts --json: one element a line; an
 * offender's incidents joined by ',' alone, as the store joined them.
 */
static const struct report_json_layout history_layout[] = {
	{ "", JL_ROWS, 2, 0, NULL },
	{ "[].incidents", JL_TIGHT, 0, 0, NULL },
};

/* Print a list of JSON rows, then a newline; the list is freed. */
static void
history_json(struct buf *b, json_t *list)
{
	report_json_print(b, list, history_layout, nitems(history_layout),
	    NULL);
	buf_addc(b, '\n');
	json_decref(list);
}

/*
 * `history --hosts`: what was in the root of two incidents or more (st
 * NULL when there is no history yet).
 */
static int
history_hosts(const struct options *o, struct store *st)
{
	struct store_offenders	 v = { 0 };
	struct buf		 b = { 0 };
	json_t			*list;
	char			*cause = NULL;
	size_t			 i;

	/* No store: the default database is not there yet, and empty. */
	if (st != NULL && store_offenders(st, 2, &v, &cause) != 0)
		return history_fail(st, cause);
	if (o->json) {
		list = json_array();
		for (i = 0; i < v.n; i++)
			json_array_append_new(list, offender_json(&v.v[i]));
		history_json(&b, list);
	}
	for (i = 0; i < v.n && !o->json; i++)
		offender_text(&b, &v.v[i]);
	if (!o->json && v.n == 0)
		buf_adds(&b, "no host, GPU or rank is in the root of two "
		    "incidents\n");
	fwrite(b.p, 1, b.len, stdout);
	buf_clear(&b);
	store_offenders_clear(&v);
	store_close(st);
	return 0;
}

/* What an import says when a signal stops it: one transaction, or none. */
static const char *const import_stop_words[] = {
	" while importing: the database keeps what it held before (an "
	    "import is all or nothing)\n",
	" after the import was stored\n"
};

/* `history --export FILE` and `--import FILE`. */
static int
history_share(const struct options *o, struct store *st)
{
	struct store_import_stats	 stats;
	char				*cause = NULL;

	if (o->export_file != NULL) {
		if (store_export(st, o->export_file, &cause) != 0)
			return history_fail(st, cause);
		store_close(st);
		return 0;
	}
	if (store_import(st, o->import_file, &stats, &cause) != 0)
		return history_fail(st, cause);
	stop_phase(1);
	printf("imported %zu new incident%s, %zu already known, %zu note%s\n",
	    stats.added, stats.added == 1 ? "" : "s", stats.known, stats.notes,
	    stats.notes == 1 ? "" : "s");
	store_close(st);
	return 0;
}

int
cmd_history(const struct options *o, int argc, char **argv)
{
	struct store		*st;
	struct store_list	 l = { 0 };
	struct buf		 b = { 0 };
	json_t			*list;
	char			*cause = NULL;
	size_t			 i;
	int			 modes, flags;
	bool			 fresh;

	modes = o->hosts + (o->export_file != NULL) + (o->import_file != NULL);
	if (argc > 1 || modes > 1 || (modes == 1 && argc != 0)) {
		fprintf(stderr, "usage: rankline %s\n", commands[3].usage);
		return EXIT_USAGE;
	}
	flags = o->import_file != NULL ? 0 : STORE_EXISTING|STORE_READ;
	if (o->import_file != NULL)
		stop_trap(import_stop_words, nitems(import_stop_words));
	st = history_open(o, flags, o->export_file == NULL ? &fresh : NULL);
	if (st == NULL && (o->export_file != NULL || !fresh))
		return 1;
	if (o->hosts)
		return history_hosts(o, st);
	if (modes == 1)
		return history_share(o, st);
	if (st != NULL && store_list(st, argc == 1 ? argv[0] : NULL, 200, &l,
	    &cause) != 0)
		return history_fail(st, cause);
	if (o->json) {
		list = json_array();
		for (i = 0; i < l.n; i++)
			json_array_append_new(list, row_json(&l.rows[i]));
		history_json(&b, list);
	}
	for (i = 0; i < l.n && !o->json; i++)
		row_text(&b, &l.rows[i]);
	if (!o->json && l.n == 0)
		buf_adds(&b, "no incidents\n");
	fwrite(b.p, 1, b.len, stdout);
	buf_clear(&b);
	store_list_clear(&l);
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

/* What `show` prints: the events, and how many progress lines it skipped. */
struct show {
	struct buf	 b;
	size_t		 progress;	/* progress events not printed */
};

/* Print one stored event, and the lines around it when they were kept. */
static void
show_event(void *arg, const struct store_event *e)
{
	struct show	*sh = arg;
	struct buf	*b = &sh->b;
	const char	*p, *nl;
	int64_t		 line;

	/* Steps and checkpoints: where training got to, not the failure. */
	if (e->role != NULL && strcmp(e->role, "progress") == 0) {
		sh->progress++;
		return;
	}
	buf_adds(b, e->root ? "  *" : "   ");
	put_date(b, e->time, 64, 23);
	buf_addc(b, ' ');
	put_safe(b, e->signature);
	buf_adds(b, "  ");
	put_safe(b, e->source);
	buf_printf(b, ":%lld\n      ", (long long)e->line);
	put_safe(b, e->text);
	buf_addc(b, '\n');
	if (e->context == NULL)
		return;
	for (p = e->context, line = e->context_at; *p != '\0'; line++) {
		nl = strchr(p, '\n');
		buf_printf(b, "      %s%6lld | ", line == e->line ? ">" : " ",
		    (long long)line);
		sanitize_terminal(b, p, nl != NULL ? (size_t)(nl - p) :
		    strlen(p));
		buf_addc(b, '\n');
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

/* Print one note. */
static void
show_note(void *arg, const char *created, const char *kind, const char *text)
{
	struct buf	*b = arg;

	buf_adds(b, "  ");
	put_date(b, created, 16, 0);
	buf_printf(b, "  %-10s ", kind != NULL ? kind : "note");
	put_safe(b, text);
	buf_addc(b, '\n');
}

/* The header of `show`: the verdict, the job, the fingerprint. */
static void
show_header(struct buf *b, const struct store_row *r)
{
	struct buf	words = { 0 };

	row_text(b, r);
	buf_adds(b, "       ");
	put_safe(b, r->summary);
	/* The report's checkpoint sentence, from what the store kept. */
	buf_adds(b, "\n       checkpoint ");
	wording_checkpoint(&words, r->ckpt != NULL ? r->ckpt : "-",
	    r->last_safe_step, NULL, 0, NULL, 0);
	put_safe(b, words.p);
	buf_clear(&words);
	if (r->job_scheduler != NULL || r->job_run != NULL ||
	    r->job_command != NULL) {
		buf_adds(b, "\nJob: ");
		if (r->job_scheduler != NULL) {
			buf_adds(b, "scheduler job ");
			put_safe(b, r->job_scheduler);
			buf_adds(b, "  ");
		}
		if (r->job_run != NULL) {
			buf_adds(b, "run ");
			put_safe(b, r->job_run);
		}
		if (r->job_command != NULL) {
			buf_adds(b, "\n     ");
			put_safe(b, r->job_command);
		}
	}
	if (r->fingerprint != NULL) {
		buf_adds(b, "\nFingerprint: ");
		put_safe(b, r->fingerprint);
		buf_adds(b, "  ");
		put_safe(b, r->template);
	}
	buf_adds(b, "\n");
}

int
cmd_show(const struct options *o, int argc, char **argv)
{
	struct store		*st;
	struct store_row	 r = { 0 };
	struct show		 sh = { { 0 }, 0 };
	struct buf		*b = &sh.b;
	json_t			*x;
	char			*cause = NULL;
	int64_t			 id;
	int			 rv = 0;

	if (argc != 1) {
		fprintf(stderr, "usage: rankline show ID [--json]\n");
		return EXIT_USAGE;
	}
	if (parse_id(argv[0], &id) != 0)
		return EXIT_USAGE;
	if ((st = history_open(o, STORE_EXISTING|STORE_READ, NULL)) == NULL)
		return 1;
	if (store_get(st, id, &r, &cause) != 0)
		return history_fail(st, cause);
	if (o->json) {
		x = row_json(&r);
		report_json_print(b, x, NULL, 0, NULL);
		buf_addc(b, '\n');
		json_decref(x);
	} else {
		show_header(b, &r);
		buf_adds(b, "Notes:\n");
		if (store_notes(st, id, show_note, b, &cause) != 0) {
			fprintf(stderr, "rankline: %s\n", cause);
			free(cause);
			cause = NULL;
			rv = 1;
		}
		buf_adds(b, "Events (* the first failure; > its line in the "
		    "lines kept around it):\n");
		if (store_events(st, id, show_event, &sh, &cause) != 0) {
			fprintf(stderr, "rankline: %s\n", cause);
			free(cause);
			rv = 1;
		}
		if (sh.progress > 0)
			buf_printf(b, "  (and %zu progress lines: steps and "
			    "checkpoints)\n", sh.progress);
		/* The verdict's reasons, the ranks and the drawing are there. */
		buf_printf(b, "The whole report, logs or not: rankline report "
		    "--incident %lld [--format md|html|json]\n", (long long)id);
	}
	fwrite(b->p, 1, b->len, stdout);
	buf_clear(b);
	store_row_clear(&r);
	store_close(st);
	return rv;
}

int
cmd_note(const struct options *o, int argc, char **argv)
{
	struct store		*st;
	enum store_note_kind	 kind;
	char			*cause = NULL;
	int64_t			 id;

	if (argc != 2 || argv[1][0] == '\0') {
		fprintf(stderr, "usage: rankline %s\n", commands[5].usage);
		return EXIT_USAGE;
	}
	if (parse_id(argv[0], &id) != 0)
		return EXIT_USAGE;
	if ((st = history_open(o, STORE_EXISTING, NULL)) == NULL)
		return 1;
	kind = o->resolution ? NOTE_RESOLUTION : NOTE_DIAGNOSIS;
	if (store_note(st, id, kind, argv[1], &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
		store_close(st);
		return 1;
	}
	store_close(st);
	printf("%s noted on incident %lld\n", store_note_kind_name(kind),
	    (long long)id);
	return 0;
}
