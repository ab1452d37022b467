/*
 * fuzz-import.c: history --import (store/store-export.c) of any bytes,
 * into a database that already holds an incident and a note, as a team's
 * does when one engineer imports another's export of the same folder.
 *
 * Each input is written to a file and imported into a fresh copy of that
 * database (made once, at start, from a small log read by core).  Checked
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

#include <sqlite3.h>

#include "fuzz.h"
#include "store.h"

#define LIST_MAX	8	/* imported rows read back in full */

static char	*full_path, *empty_path;	/* the templates */
static char	*work_path, *fresh_path, *in_path, *e1_path, *e2_path;
static char	*full_db, *empty_db;		/* their bytes */
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
	diagnose(inc);
	st = db_open(full_path);
	if (store_save(st, inc, &id, &updated, &cause) != 0 ||
	    store_note(st, id, NOTE_DIAGNOSIS, "bad shard on node1", &cause) !=
	    0)
		fuzz_fail("template: %s", cause);
	store_close(st);
	store_close(db_open(empty_path));
	full_db = file_read(full_path, &full_len);
	empty_db = file_read(empty_path, &empty_len);
	if (full_db == NULL || empty_db == NULL)
		fuzz_fail("cannot read the templates back");
	incident_free(inc);
	ruleset_free(rs);
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
		store_row_free(&row);
		store_offenders_free(&off);
	}
	store_list_free(&l);
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

	db_remove(work_path);
	file_write(work_path, full_db, full_len);
	file_write(in_path, data, size);
	st = db_open(work_path);
	rc = store_import(st, in_path, &s1, &cause);
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
