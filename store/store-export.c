/*
 * store-export.c: a team's history as one JSON file, so that what one
 * machine's engineers learned is there on another's.
 *
 * The file is an object: {"rankline_history": 1, "schema": N,
 * "incidents": [...]}, one incident per line, each with its sources,
 * ranks, events (with their context lines), offenders and notes, and
 * since schema 3 its facts document, written as a JSON object.  Local
 * row ids never leave the database: an incident is known by its uid, a
 * random identity given when it was first stored, and a note by its own.
 * Importing adds the incidents whose uid the database does not hold, and
 * the notes whose uid it does not hold, so importing the same file twice
 * changes nothing, and export, import into an empty database and export
 * again gives the same bytes.  An import is one transaction: a bad file
 * changes nothing, and its error names the file and, for a syntax error,
 * the line and column.
 *
 * The columns of each table are listed once below; export reads them and
 * import binds them by that list, as bound parameters.  JSON is read and
 * written by jansson.  JSON strings must be UTF-8: log bytes that are not
 * are exported as U+FFFD, the one change a round trip can make.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-int.h"

#include <jansson.h>

#define EXPORT_FORMAT	1	/* "rankline_history": the file's own version */
#define EXPORT_SCHEMA_MIN 2	/* the first "schema" that was exported */

/* A column: its name, and whether it holds text or an integer. */
struct export_col {
	const char	*name;
	char		 type;		/* 'T' text, 'I' integer, 'N' count (0 if
					   absent), 'J' a JSON document */
};

/* A table an incident owns, exported as an array under its name. */
struct export_table {
	const char	*name;		/* the table, and the JSON key */
	const char	*order;		/* ORDER BY of its rows */
	const struct export_col *cols;
	size_t		 ncols;
};

static const struct export_col export_incident[] = {
	{ "uid", 'T' }, { "key", 'T' }, { "created", 'T' },
	{ "updated", 'T' }, { "started", 'T' }, { "ended", 'T' },
	{ "occurred", 'T' }, { "signature", 'T' }, { "fingerprint", 'T' },
	{ "fp_scheme", 'I' }, { "template", 'T' }, { "rank", 'I' },
	{ "host", 'T' }, { "pci", 'T' }, { "role", 'T' }, { "domain", 'T' },
	{ "grp", 'T' }, { "scope", 'T' }, { "summary", 'T' },
	{ "explanation", 'T' }, { "ckpt_status", 'T' },
	{ "last_safe_step", 'I' }, { "text", 'T' }, { "nsources", 'N' },
	{ "nranks", 'N' }, { "nevents", 'N' }, { "nlines", 'N' },
	{ "nbytes", 'N' }, { "job_scheduler", 'T' }, { "job_run", 'T' },
	{ "job_command", 'T' }, { "facts", 'J' },
};
static const struct export_col export_source[] = {
	{ "path", 'T' }, { "rank", 'I' }, { "host", 'T' }, { "lines", 'N' },
	{ "bytes", 'N' },
};
static const struct export_col export_rank[] = {
	{ "rank", 'I' }, { "host", 'T' }, { "state", 'T' },
	{ "first_time", 'T' }, { "last_time", 'T' }, { "lines", 'N' },
	{ "last_step", 'I' }, { "first_signature", 'T' },
	{ "first_error_time", 'T' }, { "first_root", 'N' },
	{ "progress_time", 'T' },
};
static const struct export_col export_event[] = {
	{ "source", 'T' }, { "line", 'I' }, { "byte_offset", 'I' },
	{ "time", 'T' }, { "rank", 'I' }, { "signature", 'T' },
	{ "role", 'T' }, { "domain", 'T' }, { "root", 'N' }, { "text", 'T' },
	{ "context", 'T' }, { "context_at", 'I' },
};
static const struct export_col export_offender[] = {
	{ "kind", 'T' }, { "name", 'T' }, { "occurred", 'T' },
};
static const struct export_col export_note[] = {
	{ "uid", 'T' }, { "created", 'T' }, { "kind", 'T' }, { "text", 'T' },
};

#define EXPORT_TABLE(n, o, c) { n, o, c, sizeof c / sizeof c[0] }
static const struct export_table export_incidents =
    EXPORT_TABLE("incidents", "created, uid", export_incident);
/* Notes last: import reads them whether or not the incident is new. */
static const struct export_table export_children[] = {
	EXPORT_TABLE("sources", "id", export_source),
	EXPORT_TABLE("ranks", "id", export_rank),
	EXPORT_TABLE("events", "id", export_event),
	EXPORT_TABLE("offenders", "kind, name", export_offender),
	EXPORT_TABLE("notes", "id", export_note),
};
#define EXPORT_NCHILDREN (sizeof export_children / sizeof export_children[0])

/* Where an import is, for its causes. */
struct import {
	struct store	*st;
	const char	*file;		/* the file, as named */
	size_t		 index;		/* the incident being read, from 0 */
	struct store_import_stats *stats;
};

/* "SELECT a, b[, extra] FROM t WHERE ..." for a table's columns. */
static char *
export_select(const struct export_table *t, const char *extra,
    const char *where)
{
	struct buf	b = { 0 };
	size_t		i;

	buf_adds(&b, "SELECT ");
	for (i = 0; i < t->ncols; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", t->cols[i].name);
	if (extra != NULL)
		buf_printf(&b, ", %s", extra);
	buf_printf(&b, " FROM %s %s ORDER BY %s", t->name, where, t->order);
	return buf_steal(&b);
}

/* Whether the n bytes at p are one well-formed UTF-8 sequence (RFC 3629). */
static bool
export_utf8(const unsigned char *p, size_t n)
{
	unsigned char	lo = 0x80, hi = 0xbf;
	size_t		i;

	if (p[0] == 0xe0)
		lo = 0xa0;		/* no overlong forms */
	else if (p[0] == 0xed)
		hi = 0x9f;		/* no surrogates */
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;		/* nothing past U+10FFFF */
	if (p[1] < lo || p[1] > hi)
		return false;
	for (i = 2; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return false;
	}
	return true;
}

/* Text made valid UTF-8 for JSON: every byte that is not becomes U+FFFD. */
json_t *
store_json_text(const unsigned char *p, size_t len)
{
	struct buf	 b = { 0 };
	json_t		*j;
	size_t		 i, n, k;

	if ((j = json_stringn((const char *)p, len)) != NULL)
		return j;
	for (i = 0; i < len; i += n) {
		n = 1;
		if (p[i] >= 0xc2 && p[i] <= 0xf4) {
			n = p[i] >= 0xf0 ? 4 : p[i] >= 0xe0 ? 3 : 2;
			for (k = 1; k < n && i + k < len; k++)
				;
			if (k == n && export_utf8(p + i, n)) {
				buf_add(&b, p + i, n);
				continue;
			}
			n = 1;
		}
		if (p[i] < 0x80)
			buf_addc(&b, (char)p[i]);
		else
			buf_adds(&b, "\xef\xbf\xbd");
	}
	j = json_stringn(b.p != NULL ? b.p : "", b.len);
	buf_clear(&b);
	return j;
}

/* One result row as a JSON object of the table's columns. */
static json_t *
export_row(sqlite3_stmt *stmt, const struct export_table *t)
{
	json_t	*o = json_object();
	json_t	*v;
	size_t	 i;

	for (i = 0; i < t->ncols; i++) {
		switch (sqlite3_column_type(stmt, (int)i)) {
		case SQLITE_NULL:
			v = json_null();
			break;
		case SQLITE_INTEGER:
		case SQLITE_FLOAT:
			v = json_integer(sqlite3_column_int64(stmt, (int)i));
			break;
		default:
			v = NULL;
			/* A document is written as one, not as a string. */
			if (t->cols[i].type == 'J')
				v = json_loadb((const char *)sqlite3_column_text(
				    stmt, (int)i), (size_t)sqlite3_column_bytes(
				    stmt, (int)i), 0, NULL);
			if (v == NULL)
				v = store_json_text(sqlite3_column_text(stmt,
				    (int)i), (size_t)sqlite3_column_bytes(stmt,
				    (int)i));
			break;
		}
		json_object_set_new(o, t->cols[i].name, v);
	}
	return o;
}

/* Run a prepared SELECT with an optional id, each row into an array. */
static int
export_rows(struct store *st, sqlite3_stmt *stmt, const struct export_table *t,
    int64_t id, json_t *array, char **cause)
{
	int	rc;

	sqlite3_reset(stmt);
	if (id != 0)
		sqlite3_bind_int64(stmt, 1, id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		json_array_append_new(array, export_row(stmt, t));
	if (rc != SQLITE_DONE)
		return store_fail(st, cause);
	return 0;
}

/* The children of one incident, into its object. */
static int
export_children_of(struct store *st, sqlite3_stmt **child, int64_t id,
    json_t *inc, char **cause)
{
	json_t	*a;
	size_t	 i;

	for (i = 0; i < EXPORT_NCHILDREN; i++) {
		a = json_array();
		json_object_set_new(inc, export_children[i].name, a);
		if (export_rows(st, child[i], &export_children[i], id, a,
		    cause) != 0)
			return -1;
	}
	return 0;
}

/* Write each incident as one line, inside one read transaction. */
static int
export_write(struct store *st, FILE *f, char **cause)
{
	sqlite3_stmt	*top = NULL, *child[EXPORT_NCHILDREN] = { NULL };
	json_t		*inc;
	char		*sql, *line;
	size_t		 i, n = 0;
	int		 rc = -1, step;

	/* The rowid too, last, to find the children; it is not written. */
	sql = export_select(&export_incidents, "id", "");
	if (sqlite3_prepare_v2(st->db, sql, -1, &top, NULL) != SQLITE_OK)
		goto out;
	for (i = 0; i < EXPORT_NCHILDREN; i++) {
		free(sql);
		sql = export_select(&export_children[i], NULL,
		    "WHERE incident_id = ?");
		if (sqlite3_prepare_v2(st->db, sql, -1, &child[i], NULL) !=
		    SQLITE_OK)
			goto out;
	}
	fprintf(f, "{\"rankline_history\": %d, \"schema\": %d, "
	    "\"incidents\": [", EXPORT_FORMAT, STORE_VERSION);
	while ((step = sqlite3_step(top)) == SQLITE_ROW) {
		inc = export_row(top, &export_incidents);
		if (export_children_of(st, child, sqlite3_column_int64(top,
		    (int)export_incidents.ncols), inc, cause) != 0) {
			json_decref(inc);
			goto done;
		}
		line = json_dumps(inc, JSON_COMPACT | JSON_ENSURE_ASCII);
		fprintf(f, "%s\n%s", n++ ? "," : "", line);
		free(line);
		json_decref(inc);
	}
	if (step != SQLITE_DONE)
		goto out;
	fprintf(f, "\n]}\n");
	rc = 0;
	goto done;
out:
	store_fail(st, cause);
done:
	free(sql);
	sqlite3_finalize(top);
	for (i = 0; i < EXPORT_NCHILDREN; i++)
		sqlite3_finalize(child[i]);
	return rc;
}

/*
 * Export every incident to a file ("-" for standard output).  The file is
 * written beside its name and renamed into place, so a failed export
 * leaves the old file as it was.
 */
int
store_export(struct store *st, const char *file, char **cause)
{
	FILE	*f;
	char	*tmp = NULL;
	int	 rc;

	if (strcmp(file, "-") == 0)
		f = stdout;
	else {
		xasprintf(&tmp, "%s.tmp%ld", file, (long)getpid());
		if ((f = fopen(tmp, "w")) == NULL) {
			xasprintf(cause, "%s: %s", file, strerror(errno));
			free(tmp);
			return -1;
		}
	}
	/* One read transaction: a consistent picture while others write. */
	if ((rc = sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL)) !=
	    SQLITE_OK)
		rc = store_fail(st, cause);
	else {
		rc = export_write(st, f, cause);
		sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	}
	if (fflush(f) != 0 || ferror(f)) {
		if (rc == 0)
			xasprintf(cause, "%s: %s", file, strerror(errno));
		rc = -1;
	}
	if (f != stdout) {
		if (fclose(f) != 0 && rc == 0) {
			xasprintf(cause, "%s: %s", file, strerror(errno));
			rc = -1;
		}
		if (rc == 0 && rename(tmp, file) != 0) {
			xasprintf(cause, "%s: %s", file, strerror(errno));
			rc = -1;
		}
		if (rc != 0)
			unlink(tmp);
		free(tmp);
	}
	return rc;
}

/* A cause naming the file, the incident and what is wrong. */
static int
import_fail(struct import *im, char **cause, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int
import_fail(struct import *im, char **cause, const char *fmt, ...)
{
	va_list	 ap;
	char	*what;

	va_start(ap, fmt);
	xvasprintf(&what, fmt, ap);
	va_end(ap);
	xasprintf(cause, "%s: incidents[%zu]: %s", im->file, im->index, what);
	free(what);
	return -1;
}

/* Bind the table's columns from an object, checking each one's type. */
static int
import_bind(struct import *im, sqlite3_stmt *stmt, const struct export_table *t,
    json_t *o, int first, char **cause)
{
	json_t	*v;
	char	*doc;
	size_t	 i;
	int	 at;

	if (!json_is_object(o))
		return import_fail(im, cause, "%s: a row is not an object",
		    t->name);
	for (i = 0; i < t->ncols; i++) {
		at = first + (int)i;
		v = json_object_get(o, t->cols[i].name);
		if ((v == NULL || json_is_null(v)) && t->cols[i].type == 'N')
			sqlite3_bind_int64(stmt, at, 0);
		else if (v == NULL || json_is_null(v))
			sqlite3_bind_null(stmt, at);
		else if ((t->cols[i].type == 'T' || t->cols[i].type == 'J') &&
		    json_is_string(v))
			sqlite3_bind_text(stmt, at, json_string_value(v),
			    (int)json_string_length(v), SQLITE_TRANSIENT);
		else if (t->cols[i].type == 'J' && json_is_object(v)) {
			/* Compact, as store_facts_make writes it. */
			if ((doc = json_dumps(v, JSON_COMPACT)) == NULL)
				return import_fail(im, cause, "%s.%s: cannot be "
				    "written", t->name, t->cols[i].name);
			sqlite3_bind_text(stmt, at, doc, -1, free);
		}
		else if (t->cols[i].type != 'T' && json_is_integer(v))
			sqlite3_bind_int64(stmt, at, json_integer_value(v));
		else
			return import_fail(im, cause, "%s.%s: expected %s",
			    t->name, t->cols[i].name, t->cols[i].type == 'T' ?
			    "a string or null" : t->cols[i].type == 'J' ?
			    "an object or null" : "an integer or null");
	}
	return 0;
}

/* "INSERT INTO t (incident_id, a, b) VALUES (?, ?, ?)". */
static char *
import_insert(const struct export_table *t, bool owned)
{
	struct buf	b = { 0 };
	size_t		i;

	buf_printf(&b, "INSERT INTO %s (%s", t->name, owned ?
	    "incident_id" : "");
	for (i = 0; i < t->ncols; i++)
		buf_printf(&b, "%s%s", i || owned ? ", " : "", t->cols[i].name);
	buf_adds(&b, ") VALUES (");
	for (i = 0; i < t->ncols + owned; i++)
		buf_adds(&b, i ? ", ?" : "?");
	buf_adds(&b, ")");
	return buf_steal(&b);
}

/* Run one prepared insert of a row (after incident_id when owned). */
static int
import_row(struct import *im, sqlite3_stmt *stmt, const struct export_table *t,
    int64_t id, json_t *o, char **cause)
{
	int	rc;

	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	if (id != 0)
		sqlite3_bind_int64(stmt, 1, id);
	if (import_bind(im, stmt, t, o, id != 0 ? 2 : 1, cause) != 0)
		return -1;
	if ((rc = sqlite3_step(stmt)) == SQLITE_DONE)
		return 0;
	return import_fail(im, cause, "%s: %s", t->name,
	    sqlite3_errmsg(im->st->db));
}

/* The prepared statements of an import. */
struct import_stmts {
	sqlite3_stmt	*find;		/* incident id by uid */
	sqlite3_stmt	*key;		/* whether a key is taken */
	sqlite3_stmt	*incident;
	sqlite3_stmt	*child[EXPORT_NCHILDREN];
	sqlite3_stmt	*note_known;	/* whether a note uid is held */
};

/* A one-column lookup: 1 found (*id set), 0 not, -1 error. */
static int
import_lookup(sqlite3_stmt *stmt, const char *value, int64_t *id)
{
	int	rc;

	sqlite3_reset(stmt);
	sqlite3_bind_text(stmt, 1, value, -1, SQLITE_TRANSIENT);
	if ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (id != NULL)
			*id = sqlite3_column_int64(stmt, 0);
		return 1;
	}
	return rc == SQLITE_DONE ? 0 : -1;
}

/* A new incident: its row (its key kept unless taken here), its children. */
static int
import_new(struct import *im, struct import_stmts *s, json_t *o,
    int64_t *id, char **cause)
{
	json_t		*key, *a, *v;
	char		*own = NULL;
	size_t		 i, k;
	int		 taken;

	key = json_object_get(o, "key");
	if (!json_is_string(key) || (taken = import_lookup(s->key,
	    json_string_value(key), NULL)) == 1) {
		/* Another machine's logs under a path this one also used. */
		xasprintf(&own, "import:%s",
		    json_string_value(json_object_get(o, "uid")));
		json_object_set_new(o, "key", json_string(own));
		free(own);
	} else if (taken == -1)
		return import_fail(im, cause, "%s", sqlite3_errmsg(im->st->db));
	if (import_row(im, s->incident, &export_incidents, 0, o, cause) != 0)
		return -1;
	*id = sqlite3_last_insert_rowid(im->st->db);
	/* Notes are read by import_notes, new incident or not. */
	for (i = 0; i + 1 < EXPORT_NCHILDREN; i++) {
		a = json_object_get(o, export_children[i].name);
		if (a != NULL && !json_is_array(a))
			return import_fail(im, cause, "%s: expected an array",
			    export_children[i].name);
		json_array_foreach(a, k, v) {
			if (import_row(im, s->child[i], &export_children[i],
			    *id, v, cause) != 0)
				return -1;
		}
	}
	im->stats->added++;
	return 0;
}

/* The notes of an incident this database holds, those it does not. */
static int
import_notes(struct import *im, struct import_stmts *s, json_t *o, int64_t id,
    size_t *added, char **cause)
{
	const struct export_table *t = &export_children[EXPORT_NCHILDREN - 1];
	json_t		*a, *v, *uid;
	size_t		 k;
	int		 known;

	a = json_object_get(o, "notes");
	if (a != NULL && !json_is_array(a))
		return import_fail(im, cause, "notes: expected an array");
	json_array_foreach(a, k, v) {
		uid = json_object_get(v, "uid");
		if (!json_is_string(uid))
			return import_fail(im, cause, "notes[%zu]: no uid", k);
		if ((known = import_lookup(s->note_known,
		    json_string_value(uid), NULL)) == -1)
			return import_fail(im, cause, "%s",
			    sqlite3_errmsg(im->st->db));
		if (known)
			continue;
		if (import_row(im, s->child[EXPORT_NCHILDREN - 1], t, id, v,
		    cause) != 0)
			return -1;
		(*added)++;
	}
	return 0;
}

/* One incident of the file: new, or known with perhaps new notes. */
static int
import_incident(struct import *im, struct import_stmts *s, json_t *o,
    char **cause)
{
	json_t		*uid, *fp;
	int64_t		 id = 0;
	size_t		 notes = 0;
	int		 found;

	if (!json_is_object(o) || !json_is_string(uid = json_object_get(o,
	    "uid")) || json_string_length(uid) == 0)
		return import_fail(im, cause, "not an incident with a uid");
	if ((found = import_lookup(s->find, json_string_value(uid), &id)) ==
	    -1)
		return import_fail(im, cause, "%s", sqlite3_errmsg(im->st->db));
	if (found)
		im->stats->known++;
	else if (import_new(im, s, o, &id, cause) != 0)
		return -1;
	if (import_notes(im, s, o, id, &notes, cause) != 0)
		return -1;
	im->stats->notes += notes;
	if (found && notes == 0)
		return 0;
	fp = json_object_get(o, "fingerprint");
	if (json_is_string(fp) && store_fingerprint_add(im->st,
	    json_string_value(fp), (int)json_integer_value(json_object_get(o,
	    "fp_scheme")), json_string_value(json_object_get(o, "signature")),
	    json_string_value(json_object_get(o, "template")), cause) != 0)
		return -1;
	return store_index(im->st, id, json_is_string(fp) ?
	    json_string_value(fp) : NULL, cause);
}

/* Prepare what an import runs. */
static int
import_prepare(struct store *st, struct import_stmts *s)
{
	char	*sql;
	size_t	 i;
	int	 rc;

	memset(s, 0, sizeof *s);
	rc = sqlite3_prepare_v2(st->db, "SELECT id FROM incidents WHERE uid = ?",
	    -1, &s->find, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(st->db, "SELECT 1 FROM incidents "
		    "WHERE key = ?", -1, &s->key, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(st->db, "SELECT 1 FROM notes "
		    "WHERE uid = ?", -1, &s->note_known, NULL);
	if (rc == SQLITE_OK) {
		sql = import_insert(&export_incidents, false);
		rc = sqlite3_prepare_v2(st->db, sql, -1, &s->incident, NULL);
		free(sql);
	}
	for (i = 0; rc == SQLITE_OK && i < EXPORT_NCHILDREN; i++) {
		sql = import_insert(&export_children[i], true);
		rc = sqlite3_prepare_v2(st->db, sql, -1, &s->child[i], NULL);
		free(sql);
	}
	return rc == SQLITE_OK ? 0 : -1;
}

/* Finalize what import_prepare made. */
static void
import_finalize(struct import_stmts *s)
{
	size_t	i;

	sqlite3_finalize(s->find);
	sqlite3_finalize(s->key);
	sqlite3_finalize(s->note_known);
	sqlite3_finalize(s->incident);
	for (i = 0; i < EXPORT_NCHILDREN; i++)
		sqlite3_finalize(s->child[i]);
}

/*
 * Refuse a "schema" this rankline does not know: its incidents' columns
 * would be read by the wrong list.  Exports began at version 2, and every
 * one carries it.
 */
static int
import_schema(const char *file, json_t *v, char **cause)
{
	if (v == NULL) {
		xasprintf(cause, "%s: no \"schema\": not a history this "
		    "rankline wrote (it reads schema %d to %d)", file,
		    EXPORT_SCHEMA_MIN, STORE_VERSION);
		return -1;
	}
	if (json_is_integer(v) && json_integer_value(v) >= EXPORT_SCHEMA_MIN &&
	    json_integer_value(v) <= STORE_VERSION)
		return 0;
	if (json_is_integer(v))
		xasprintf(cause, "%s: history schema %lld is not one this "
		    "rankline reads (it reads schema %d to %d)%s", file,
		    (long long)json_integer_value(v), EXPORT_SCHEMA_MIN,
		    STORE_VERSION, json_integer_value(v) > STORE_VERSION ?
		    "; it was written by a newer rankline" : "");
	else
		xasprintf(cause, "%s: \"schema\" is not a number (this "
		    "reads schema %d to %d)", file, EXPORT_SCHEMA_MIN,
		    STORE_VERSION);
	return -1;
}

/* Read and check the file's outer object; its incidents array. */
static json_t *
import_load(const char *file, json_t **root, char **cause)
{
	json_error_t	 err;
	json_t		*v, *a;

	if ((*root = json_load_file(file, JSON_REJECT_DUPLICATES, &err)) ==
	    NULL) {
		if (err.line > 0)
			xasprintf(cause, "%s:%d:%d: %s", file, err.line,
			    err.column, err.text);
		else
			xasprintf(cause, "%s: %s", file, err.text);
		return NULL;
	}
	v = json_object_get(*root, "rankline_history");
	a = json_object_get(*root, "incidents");
	if (!json_is_integer(v) || !json_is_array(a)) {
		xasprintf(cause, "%s: not a rankline history (no "
		    "\"rankline_history\" and \"incidents\")", file);
		json_decref(*root);
		return NULL;
	}
	if (json_integer_value(v) != EXPORT_FORMAT) {
		xasprintf(cause, "%s: history format %lld is not one this "
		    "rankline reads (it reads %d)", file,
		    (long long)json_integer_value(v), EXPORT_FORMAT);
		json_decref(*root);
		return NULL;
	}
	if (import_schema(file, json_object_get(*root, "schema"), cause) != 0) {
		json_decref(*root);
		return NULL;
	}
	return a;
}

/*
 * Import a file written by store_export, in one transaction: incidents
 * and notes not held yet are added, nothing else changes, and on any error
 * nothing at all changes.
 */
int
store_import(struct store *st, const char *file,
    struct store_import_stats *stats, char **cause)
{
	struct import		 im = { st, file, 0, stats };
	struct import_stmts	 s;
	json_t			*root, *a, *v;
	size_t			 i;
	int			 rc = 0;

	memset(stats, 0, sizeof *stats);
	if ((a = import_load(file, &root, cause)) == NULL)
		return -1;
	if (store_begin(st, cause) != 0) {
		json_decref(root);
		return -1;
	}
	if (import_prepare(st, &s) != 0)
		rc = store_fail(st, cause);
	json_array_foreach(a, i, v) {
		if (rc != 0)
			break;
		im.index = i;
		rc = import_incident(&im, &s, v, cause);
	}
	import_finalize(&s);
	if (rc == 0)
		rc = store_commit(st, cause);
	if (rc != 0) {
		store_rollback(st);
		memset(stats, 0, sizeof *stats);
	}
	json_decref(root);
	return rc;
}
