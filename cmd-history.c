/*
 * cmd-history.c: `rankline history`, `show` and `note`: the incidents kept
 * between outages, the hosts, GPUs and ranks that keep failing, the
 * engineer's diagnosis and resolution written against them, and the
 * export and import that share a team's history between machines.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rankline.h"
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

/* One row as JSON. */
static void
row_json(struct buf *b, const struct store_row *r)
{
	buf_printf(b, "{\"id\": %lld, \"created\": ", (long long)r->id);
	sanitize_json_string(b, r->created);
	buf_adds(b, ", \"updated\": ");
	sanitize_json_string(b, r->updated);
	buf_adds(b, ", \"started\": ");
	sanitize_json_string(b, r->started);
	buf_adds(b, ", \"signature\": ");
	sanitize_json_string(b, r->signature);
	buf_adds(b, ", \"fingerprint\": ");
	sanitize_json_string(b, r->fingerprint);
	buf_adds(b, ", \"rank\": ");
	buf_printf(b, r->rank == RL_NONE ? "null" : "%d", r->rank);
	buf_adds(b, ", \"host\": ");
	sanitize_json_string(b, r->host);
	buf_adds(b, ", \"domain\": ");
	sanitize_json_string(b, r->domain);
	buf_adds(b, ", \"summary\": ");
	sanitize_json_string(b, r->summary);
	buf_adds(b, ", \"text\": ");
	sanitize_json_string(b, r->text);
	buf_adds(b, ", \"sources\": ");
	sanitize_json_string(b, r->sources);
	buf_printf(b, ", \"ranks\": %d, \"note\": ", r->nranks);
	sanitize_json_string(b, r->note);
	buf_adds(b, ", \"diagnosis\": ");
	sanitize_json_string(b, r->diagnosis);
	buf_adds(b, ", \"resolution\": ");
	sanitize_json_string(b, r->resolution);
	buf_adds(b, ", \"uid\": ");
	sanitize_json_string(b, r->uid);
	buf_adds(b, ", \"occurred\": ");
	sanitize_json_string(b, r->occurred);
	buf_adds(b, ", \"template\": ");
	sanitize_json_string(b, r->template);
	buf_adds(b, ", \"pci\": ");
	sanitize_json_string(b, r->pci);
	buf_adds(b, ", \"job\": {\"scheduler\": ");
	sanitize_json_string(b, r->job_scheduler);
	buf_adds(b, ", \"run\": ");
	sanitize_json_string(b, r->job_run);
	buf_adds(b, ", \"command\": ");
	sanitize_json_string(b, r->job_command);
	buf_adds(b, "}}");
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

/* One offender as JSON. */
static void
offender_json(struct buf *b, const struct store_offender *o)
{
	buf_adds(b, "{\"kind\": ");
	sanitize_json_string(b, o->kind);
	buf_adds(b, ", \"name\": ");
	sanitize_json_string(b, o->name);
	buf_printf(b, ", \"count\": %lld, \"first\": ", (long long)o->count);
	sanitize_json_string(b, o->first);
	buf_adds(b, ", \"last\": ");
	sanitize_json_string(b, o->last);
	buf_adds(b, ", \"incidents\": [");
	if (o->incidents != NULL)
		buf_adds(b, o->incidents);	/* ids joined by the store */
	buf_adds(b, "]}");
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
	char			*cause = NULL;
	size_t			 i;

	/* No store: the default database is not there yet, and empty. */
	if (st != NULL && store_offenders(st, 2, &v, &cause) != 0)
		return history_fail(st, cause);
	if (o->json)
		buf_adds(&b, "[");
	for (i = 0; i < v.n; i++) {
		if (o->json) {
			buf_adds(&b, i ? ",\n  " : "\n  ");
			offender_json(&b, &v.v[i]);
		} else
			offender_text(&b, &v.v[i]);
	}
	if (o->json)
		buf_adds(&b, v.n ? "\n]\n" : "]\n");
	else if (v.n == 0)
		buf_adds(&b, "no host, GPU or rank is in the root of two "
		    "incidents\n");
	fwrite(b.p, 1, b.len, stdout);
	buf_free(&b);
	store_offenders_free(&v);
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
	row_text(b, r);
	buf_adds(b, "       ");
	put_safe(b, r->summary);
	buf_adds(b, "\n       checkpoint ");
	put_safe(b, r->ckpt);
	if (r->last_safe_step != RL_NONE)
		buf_printf(b, ", last safe step %d", r->last_safe_step);
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
		row_json(b, &r);
		buf_addc(b, '\n');
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
	}
	fwrite(b->p, 1, b->len, stdout);
	buf_free(b);
	store_row_free(&r);
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
