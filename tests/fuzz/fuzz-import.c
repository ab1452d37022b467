/*
 * fuzz-import.c: history --import (store/store-export.c) of any bytes,
 * into a database that already holds an incident and a note, as a team's
 * does when one engineer imports another's export of the same folder.
 *
 * An input that starts with '{' is the file itself.  Any other is a list
 * of edits to a real export (the database's own, made at start), so that
 * most runs reach past the JSON syntax: each edit is three bytes and a
 * value (what to edit, which value kind, how many bytes of text), and sets
 * one field of the file, of an incident or of its first source, rank,
 * event, offender or note, to a string, a number, null, a boolean, an
 * empty array or object, or removes it; or appends a copy of an incident.
 * The file is then imported into a fresh copy of that database (made
 * once, at start, from a small log read by core).  Checked
 * beyond the sanitizers, as store-export.c promises:
 *  - importing the same file again adds nothing;
 *  - the database passes PRAGMA integrity_check afterwards;
 *  - its export, imported into an empty database and exported again,
 *    gives the same bytes;
 * and what was imported is read back as `history` and `show` read it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "fuzz.h"
#include "store.h"

#define LIST_MAX	8	/* imported rows read back in full */

static char	*full_path, *empty_path;	/* the templates */
static char	*work_path, *fresh_path, *in_path, *e1_path, *e2_path;
static char	*full_db, *empty_db;		/* their bytes */
static json_t	*base;				/* full_db's export, edited */
static size_t	 full_len, empty_len;

static const char *fuzz_log =
    "[default0]:2026-12-02 13:20:01,000 INFO step 1\n"
    "[default1]:2026-12-02 13:20:01,000 INFO step 1\n"
    "[default0]:2026-12-02 13:20:02,000 INFO saving checkpoint at "
    "iteration 10 to checkpoints\n"
    "[default1]:Traceback (most recent call last):\n"
    "[default1]:  File \"/job/train.py\", line 12, in <module>\n"
    "[default1]:IndexError: list index out of range\n"
    "[default0]:RuntimeError: [../gloo/pair.cc:598] Connection closed by "
    "peer [10.0.0.2]:29500\n";

/* A whole file's bytes, or NULL. */
static char *
file_read(const char *path, size_t *len)
{
	FILE	*f;
	char	*p;
	long	 n;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	p = xmalloc((size_t)n + 1);
	*len = fread(p, 1, (size_t)n, f);
	fclose(f);
	return p;
}

static void
file_write(const char *path, const void *p, size_t n)
{
	FILE	*f;

	if ((f = fopen(path, "wb")) == NULL || fwrite(p, 1, n, f) != n ||
	    fclose(f) != 0)
		fatal("%s: cannot write", path);
}

/* A database file and what SQLite leaves beside it, removed. */
static void
db_remove(const char *path)
{
	char	*p;

	unlink(path);
	xasprintf(&p, "%s-wal", path);
	unlink(p);
	free(p);
	xasprintf(&p, "%s-shm", path);
	unlink(p);
	free(p);
}

static struct store *
db_open(const char *path)
{
	struct store	*st;
	char		*cause = NULL;

	if (store_open(path, &st, &cause) != 0)
		fuzz_fail("%s: %s", path, cause);
	return st;
}

/*
 * The template's identities and times are random and now: fixed, so that
 * an input does the same in every run, and a kept one in every make check.
 */
static void
templates_fix(const char *path)
{
	sqlite3	*db;

	if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db,
	    "UPDATE incidents SET uid = 'fe11ed0000000000000000000000000'"
	    " || id, created = '2026-12-02T14:00:00.000Z',"
	    " updated = '2026-12-02T14:00:00.000Z';"
	    "UPDATE notes SET uid = 'fe11ed0000000000000000000000100' || id,"
	    " created = '2026-12-02T14:05:00.000Z';", NULL, NULL, NULL) !=
	    SQLITE_OK)
		fuzz_fail("%s: %s", path, sqlite3_errmsg(db));
	sqlite3_close(db);
}

/*
 * The two templates: one with an incident and a note, one empty.  The
 * log's path is one that does not exist, so that the incident's key (a
 * hash of its paths) is the same on every machine, and a kept input can
 * hold it.
 */
static void
templates_make(void)
{
	struct ruleset		*rs = fuzz_rules(NULL);
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src;
	struct store		*st;
	char			*cause = NULL;
	int64_t			 id;
	bool			 updated;

	src = incident_add_source(inc, "/nonexistent-rankline-fuzz/console.log",
	    SOURCE_FILE);
	src->transient = true;
	clock_init(&src->clock, FUZZ_REF_EPOCH);
	inc->settled = true;
	source_ingest(inc, src, NULL, NULL);
	ingest_more(src->ingest, false);
	ingest_feed(src->ingest, fuzz_log, strlen(fuzz_log));
	ingest_flush(src->ingest);
	pipeline_diagnose(inc);
	st = db_open(full_path);
	if (store_save(st, inc, &id, &updated, &cause) != 0 ||
	    store_note(st, id, NOTE_DIAGNOSIS, "bad shard on node1", &cause) !=
	    0)
		fuzz_fail("template: %s", cause);
	store_close(st);
	templates_fix(full_path);
	store_close(db_open(empty_path));
	full_db = file_read(full_path, &full_len);
	empty_db = file_read(empty_path, &empty_len);
	if (full_db == NULL || empty_db == NULL)
		fuzz_fail("cannot read the templates back");
	incident_free(inc);
	ruleset_free(rs);
}

/* The full template's export, which edits start from. */
static void
base_make(void)
{
	struct store	*st;
	json_error_t	 err;
	char		*cause = NULL;

	db_remove(work_path);
	file_write(work_path, full_db, full_len);
	st = db_open(work_path);
	if (store_export(st, e1_path, &cause) != 0)
		fuzz_fail("export of the template: %s", cause);
	store_close(st);
	if ((base = json_load_file(e1_path, 0, &err)) == NULL)
		fuzz_fail("the template's export: %s", err.text);
}

/* The object an edit's first byte names, in the file being made. */
static json_t *
edit_target(json_t *root, uint8_t what)
{
	static const char *const child[] = { "sources", "ranks", "events",
	    "offenders", "notes" };
	json_t	*a = json_object_get(root, "incidents"), *inc;
	size_t	 n = json_array_size(a);

	if ((what & 7) > 5 || n == 0)
		return root;
	inc = json_array_get(a, (what >> 3) % n);
	if ((what & 7) == 0 || !json_is_object(inc))
		return inc;
	return json_array_get(json_object_get(inc, child[(what & 7) - 1]), 0);
}

/* The file an input of edits makes, as text; NULL if it makes none. */
static char *
edit_apply(const uint8_t *p, size_t n)
{
	json_t		*root = json_deep_copy(base), *o, *v, *a;
	const char	*key;
	size_t		 i = 0, len, k, nkeys;
	char		*out, *text;
	int64_t		 num;

	while (i + 3 <= n) {
		o = edit_target(root, p[i]);
		len = p[i + 2] % 32;
		if (len > n - i - 3)
			len = n - i - 3;
		text = xstrndup((const char *)p + i + 3, len);
		len = strlen(text);
		/* Text that is not UTF-8 stops at the parser: keep it ASCII. */
		if ((v = json_stringn(text, len)) == NULL) {
			for (k = 0; k < len; k++)
				text[k] = (char)(text[k] & 0x7f);
		}
		json_decref(v);
		/* Shifted as unsigned: a signed shift past the top is UB. */
		num = (int64_t)((uint64_t)(int64_t)(int8_t)p[i + 1] <<
		    (p[i + 2] % 64));
		/* Which key of that object: the kind byte's top bits. */
		nkeys = json_is_object(o) ? json_object_size(o) : 0;
		key = NULL;
		k = (size_t)(p[i + 1] >> 3);
		json_object_foreach(o, key, v) {
			if (nkeys != 0 && k-- % nkeys == 0)
				break;
		}
		if (key == NULL)
			key = text;
		switch (p[i + 1] & 7) {
		case 0: v = json_stringn(text, len); break;
		case 1: v = json_integer(num); break;
		case 2: v = json_null(); break;
		case 3: v = json_boolean(len & 1); break;
		case 4: v = json_real((double)num / 3); break;
		case 5: v = json_array(); break;
		case 6: v = json_object(); break;
		default: v = NULL; break;
		}
		if (json_is_object(o) && v != NULL)
			json_object_set_new(o, key, v);
		else if (json_is_object(o))
			json_object_del(o, key);
		else
			json_decref(v);
		/* Now and then a copy of an incident, as a second export has. */
		a = json_object_get(root, "incidents");
		if ((p[i] & 0xc0) == 0xc0 && json_array_size(a) < 8)
			json_array_append_new(a, json_deep_copy(
			    json_array_get(a, 0)));
		free(text);
		i += 3 + len;
	}
	out = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return out;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*dir = fuzz_tmpdir();

	(void)argc;
	(void)argv;
	xasprintf(&full_path, "%s/full.db", dir);
	xasprintf(&empty_path, "%s/empty.db", dir);
	xasprintf(&work_path, "%s/work.db", dir);
	xasprintf(&fresh_path, "%s/fresh.db", dir);
	xasprintf(&in_path, "%s/in.json", dir);
	xasprintf(&e1_path, "%s/e1.json", dir);
	xasprintf(&e2_path, "%s/e2.json", dir);
	templates_make();
	base_make();
	return 0;
}

static void
events_cb(void *arg, const struct store_event *e)
{
	(void)arg;
	(void)e;
}

static void
notes_cb(void *arg, const char *kind, const char *when, const char *text)
{
	(void)arg;
	(void)kind;
	(void)when;
	(void)text;
}

/* Read the history back as `history` and `show` do. */
static void
history_read(struct store *st)
{
	struct store_list	 l;
	struct store_row	 row;
	struct store_offenders	 off;
	char			*cause = NULL;
	size_t			 i;

	if (store_list(st, NULL, 100, &l, &cause) != 0)
		fuzz_fail("history after an import: %s", cause);
	for (i = 0; i < l.n && i < LIST_MAX; i++) {
		if (store_get(st, l.rows[i].id, &row, &cause) != 0 ||
		    store_events(st, l.rows[i].id, events_cb, NULL, &cause) !=
		    0 || store_notes(st, l.rows[i].id, notes_cb, NULL,
		    &cause) != 0 || store_offenders(st, l.rows[i].id, &off,
		    &cause) != 0)
			fuzz_fail("show %lld after an import: %s",
			    (long long)l.rows[i].id, cause);
		store_row_clear(&row);
		store_offenders_clear(&off);
	}
	store_list_clear(&l);
}

/* PRAGMA integrity_check of a closed database. */
static void
integrity(const char *path)
{
	sqlite3		*db;
	sqlite3_stmt	*stmt;
	const char	*r;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, NULL) !=
	    SQLITE_OK)
		fuzz_fail("%s: %s", path, sqlite3_errmsg(db));
	if (sqlite3_step(stmt) != SQLITE_ROW ||
	    (r = (const char *)sqlite3_column_text(stmt, 0)) == NULL ||
	    strcmp(r, "ok") != 0)
		fuzz_fail("%s: integrity_check: %s", path,
		    sqlite3_column_text(stmt, 0));
	sqlite3_finalize(stmt);
	sqlite3_close(db);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store_import_stats s1, s2;
	struct store	*st;
	char		*cause = NULL, *e1, *e2;
	size_t		 n1, n2;
	int		 rc;

	if (size > 0 && data[0] == '{')
		file_write(in_path, data, size);
	else {
		char	*made = edit_apply(data, size);

		if (made == NULL)
			return 0;
		file_write(in_path, made, strlen(made));
		free(made);
	}
	db_remove(work_path);
	file_write(work_path, full_db, full_len);
	st = db_open(work_path);
	rc = store_import(st, in_path, &s1, &cause);
	if (rc != 0 && getenv("RL_FUZZ_SHOW") != NULL)
		fprintf(stderr, "refused: %s\n", cause);
	free(cause);
	cause = NULL;
	if (rc != 0) {
		store_close(st);
		integrity(work_path);
		return 0;
	}
	if (store_import(st, in_path, &s2, &cause) != 0 || s2.added != 0 ||
	    s2.notes != 0)
		fuzz_fail("the same file again: %s, %zu added, %zu notes",
		    cause != NULL ? cause : "ok", s2.added, s2.notes);
	history_read(st);
	if (store_export(st, e1_path, &cause) != 0)
		fuzz_fail("export after an import: %s", cause);
	store_close(st);
	integrity(work_path);

	/* Export, import into an empty database, export: the same bytes. */
	db_remove(fresh_path);
	file_write(fresh_path, empty_db, empty_len);
	st = db_open(fresh_path);
	if (store_import(st, e1_path, &s2, &cause) != 0)
		fuzz_fail("our own export does not import: %s", cause);
	if (store_export(st, e2_path, &cause) != 0)
		fuzz_fail("export of the fresh database: %s", cause);
	store_close(st);
	e1 = file_read(e1_path, &n1);
	e2 = file_read(e2_path, &n2);
	/* RL_FUZZ_SHOW=1: what an input came to, to read a finding by. */
	if (getenv("RL_FUZZ_SHOW") != NULL && e1 != NULL)
		fprintf(stderr, "%zu added, %zu known, %zu notes\n%.*s",
		    s1.added, s1.known, s1.notes, (int)n1, e1);
	if (e1 == NULL || e2 == NULL || n1 != n2 || memcmp(e1, e2, n1) != 0)
		fuzz_fail("export, import, export: %zu bytes then %zu", n1, n2);
	free(e1);
	free(e2);
	return 0;
}
