/*
 * store-migrate.c: the schema of the incident database, and the steps that
 * bring an older database up to it.
 *
 * The database records the schema it holds in PRAGMA user_version, 0 for a
 * new file.  Each step below takes it exactly one version up and is never
 * edited once released: a change of schema is a new step at the end, so a
 * database made by any earlier rankline can be walked forward.  A database
 * from a newer rankline is refused rather than guessed at.
 *
 * Version 2 (issue #7) adds what recurrence needs: a stable identity for
 * each incident and note (uid) so that a team's exported history imports
 * once; the root's template, fingerprint scheme and PCI address; the job's
 * identity; the kind of each note (diagnosis or resolution); the context
 * lines copied in around each event; the roots' hosts, GPUs and ranks
 * (offenders); one row per fingerprint with an FTS5 index over its
 * template and its incidents' notes (near matches), and a trigram FTS5
 * index over each incident's words (history QUERY).  Its C step computes
 * the template and fingerprint of every incident a version 1 database
 * holds, with scheme 1, so that old incidents are found again.
 *
 * Version 3 (issue #24) keeps what a report made from the store alone
 * needs and the columns did not hold, so that it says what the report from
 * the logs said: each rank's judged first error (its signature and time,
 * and whether it is the first failure) and its last progress line's time,
 * and per incident one JSON document (facts): the answers as analyze
 * --json gives them (the verdict's confidence and evidence for and
 * against, the checkpoint's unsafe steps and what its folder said), the
 * job's identity, the rule packs with their hashes, and the answer's
 * words (wording.c's sections).  Older incidents keep NULL there, and a
 * report of one says which parts were not stored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

/* One step of the schema. */
struct store_migration {
	int		 version;	/* user_version once applied */
	const char	*what;		/* for the cause when it fails */
	const char	*sql;		/* the script, run in one transaction */
	int		(*fill)(sqlite3 *, const char *, char **);/* then, or NULL */
};

static int	store_migrate_fill2(sqlite3 *, const char *, char **);
static int	store_migrate_exec(sqlite3 *, const char *, const char *,
		    const char *, char **);

static const struct store_migration store_migrations[] = {
	{ 1, "initial schema",
	/*
	 * Times are ISO 8601 text: created and updated in UTC with
	 * milliseconds, so they sort as text; log times as the log wrote them.
	 */
	"CREATE TABLE incidents ("
	"  id INTEGER PRIMARY KEY,"
	"  key TEXT NOT NULL UNIQUE,"	/* hash of the sorted source paths */
	"  created TEXT NOT NULL,"
	"  updated TEXT NOT NULL,"
	"  started TEXT,"
	"  ended TEXT,"
	"  signature TEXT,"		/* root rule id */
	"  fingerprint TEXT,"
	"  rank INTEGER,"
	"  host TEXT,"
	"  role TEXT,"
	"  domain TEXT,"
	"  grp TEXT,"
	"  scope TEXT,"
	"  summary TEXT,"
	"  explanation TEXT,"
	"  ckpt_status TEXT,"
	"  last_safe_step INTEGER,"
	"  text TEXT,"			/* the root line */
	"  nsources INTEGER NOT NULL DEFAULT 0,"
	"  nranks INTEGER NOT NULL DEFAULT 0,"
	"  nevents INTEGER NOT NULL DEFAULT 0,"	/* matched, before the cap */
	"  nlines INTEGER NOT NULL DEFAULT 0,"
	"  nbytes INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE INDEX incidents_fingerprint ON incidents (fingerprint);"
	"CREATE INDEX incidents_signature ON incidents (signature);"
	"CREATE INDEX incidents_created ON incidents (created);"
	"CREATE INDEX incidents_updated ON incidents (updated);"
	"CREATE TABLE sources ("
	"  id INTEGER PRIMARY KEY,"
	"  incident_id INTEGER NOT NULL"
	"    REFERENCES incidents (id) ON DELETE CASCADE,"
	"  path TEXT NOT NULL,"
	"  rank INTEGER,"
	"  host TEXT,"
	"  lines INTEGER NOT NULL DEFAULT 0,"
	"  bytes INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE INDEX sources_incident ON sources (incident_id);"
	"CREATE TABLE ranks ("
	"  id INTEGER PRIMARY KEY,"
	"  incident_id INTEGER NOT NULL"
	"    REFERENCES incidents (id) ON DELETE CASCADE,"
	"  rank INTEGER,"
	"  host TEXT,"
	"  state TEXT,"
	"  first_time TEXT,"
	"  last_time TEXT,"
	"  lines INTEGER NOT NULL DEFAULT 0,"
	"  last_step INTEGER"
	");"
	"CREATE INDEX ranks_incident ON ranks (incident_id);"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  incident_id INTEGER NOT NULL"
	"    REFERENCES incidents (id) ON DELETE CASCADE,"
	"  source TEXT,"
	"  line INTEGER,"
	"  byte_offset INTEGER,"
	"  time TEXT,"
	"  rank INTEGER,"
	"  signature TEXT,"
	"  role TEXT,"
	"  domain TEXT,"
	"  root INTEGER NOT NULL DEFAULT 0,"	/* the first failure */
	"  text TEXT,"
	"  context TEXT"
	");"
	"CREATE INDEX events_incident ON events (incident_id);"
	"CREATE INDEX events_signature ON events (signature);"
	"CREATE TABLE notes ("
	"  id INTEGER PRIMARY KEY,"
	"  incident_id INTEGER NOT NULL"
	"    REFERENCES incidents (id) ON DELETE CASCADE,"
	"  created TEXT NOT NULL,"
	"  text TEXT NOT NULL"
	");"
	"CREATE INDEX notes_incident ON notes (incident_id);", NULL },

	{ 2, "recurrence, offenders, job identity, import identity",
	"ALTER TABLE incidents ADD COLUMN uid TEXT;"
	"ALTER TABLE incidents ADD COLUMN occurred TEXT;"
	"ALTER TABLE incidents ADD COLUMN fp_scheme INTEGER;"
	"ALTER TABLE incidents ADD COLUMN template TEXT;"
	"ALTER TABLE incidents ADD COLUMN pci TEXT;"
	"ALTER TABLE incidents ADD COLUMN job_scheduler TEXT;"
	"ALTER TABLE incidents ADD COLUMN job_run TEXT;"
	"ALTER TABLE incidents ADD COLUMN job_command TEXT;"
	"UPDATE incidents SET uid = lower(hex(randomblob(16))),"
	"  occurred = coalesce(started, created);"
	"CREATE UNIQUE INDEX incidents_uid ON incidents (uid);"
	/* Recurrence: the newest of a fingerprint without a sort. */
	"DROP INDEX incidents_fingerprint;"
	"CREATE INDEX incidents_fingerprint ON incidents (fingerprint, occurred);"
	"ALTER TABLE events ADD COLUMN context_at INTEGER;"
	"ALTER TABLE notes ADD COLUMN kind TEXT NOT NULL DEFAULT 'diagnosis';"
	"ALTER TABLE notes ADD COLUMN uid TEXT;"
	"UPDATE notes SET uid = lower(hex(randomblob(16)));"
	"CREATE UNIQUE INDEX notes_uid ON notes (uid);"
	"CREATE TABLE offenders ("
	"  incident_id INTEGER NOT NULL"
	"    REFERENCES incidents (id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"		/* host, gpu, rank */
	"  name TEXT NOT NULL,"
	"  occurred TEXT,"		/* the incident's, so counts need no join */
	"  PRIMARY KEY (kind, name, incident_id)"
	") WITHOUT ROWID;"
	"CREATE INDEX offenders_incident ON offenders (incident_id);"
	"CREATE INDEX offenders_recent ON offenders (kind, name, occurred);"
	"INSERT INTO offenders SELECT id, 'host', host, occurred FROM incidents"
	"  WHERE signature IS NOT NULL AND host IS NOT NULL;"
	"INSERT INTO offenders SELECT id, 'rank', CAST(rank AS TEXT), occurred"
	"  FROM incidents WHERE signature IS NOT NULL AND rank IS NOT NULL;"
	"CREATE TABLE fingerprints ("
	"  id INTEGER PRIMARY KEY,"	/* the rowid of its FTS row */
	"  fingerprint TEXT NOT NULL UNIQUE,"
	"  scheme INTEGER,"
	"  signature TEXT,"
	"  template TEXT"
	");"
	"CREATE VIRTUAL TABLE fingerprints_fts USING fts5(signature, template,"
	"  notes);"
	"CREATE VIRTUAL TABLE fingerprints_vocab USING fts5vocab("
	"  fingerprints_fts, 'row');"
	"CREATE VIRTUAL TABLE incidents_grep USING fts5(body,"
	"  tokenize = 'trigram');",
	store_migrate_fill2 },

	{ 3, "the stored report: ranks' first errors, the answer's facts",
	"ALTER TABLE ranks ADD COLUMN first_signature TEXT;"
	"ALTER TABLE ranks ADD COLUMN first_error_time TEXT;"
	"ALTER TABLE ranks ADD COLUMN first_root INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE ranks ADD COLUMN progress_time TEXT;"
	"ALTER TABLE incidents ADD COLUMN facts TEXT;", NULL },
};
#define STORE_NMIGRATIONS \
	(sizeof store_migrations / sizeof store_migrations[0])

_Static_assert(STORE_NMIGRATIONS == STORE_VERSION,
    "STORE_VERSION must name the last migration");

/*
 * Version 2's C step: the template and fingerprint (scheme 1) of every
 * failed incident, from its root line, rule, host and domain, then the
 * fingerprint rows and both indexes, as store_index keeps them later.
 */
static int
store_migrate_fill2(sqlite3 *db, const char *path, char **cause)
{
	sqlite3_stmt	*get = NULL, *set = NULL;
	struct buf	 b = { 0 };
	const char	*text, *rule, *host, *domain, *hosts[1];
	char		*fp;
	int		 rc;

	if (sqlite3_prepare_v2(db, "SELECT id, text, signature, host, domain"
	    " FROM incidents WHERE signature IS NOT NULL", -1, &get, NULL) !=
	    SQLITE_OK || sqlite3_prepare_v2(db, "UPDATE incidents SET"
	    " template = ?, fingerprint = ?, fp_scheme = 1 WHERE id = ?", -1,
	    &set, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(get)) == SQLITE_ROW) {
		text = (const char *)sqlite3_column_text(get, 1);
		rule = (const char *)sqlite3_column_text(get, 2);
		host = (const char *)sqlite3_column_text(get, 3);
		domain = (const char *)sqlite3_column_text(get, 4);
		hosts[0] = host;
		fingerprint_template(text, hosts, host != NULL, &b);
		fp = fingerprint_make(1, rule, b.p != NULL ? b.p : "",
		    domain != NULL && strcmp(domain, "hardware") == 0 ?
		    host : NULL);
		sqlite3_bind_text(set, 1, b.p != NULL ? b.p : "", -1,
		    SQLITE_TRANSIENT);
		sqlite3_bind_text(set, 2, fp, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(set, 3, sqlite3_column_int64(get, 0));
		free(fp);
		if (sqlite3_step(set) != SQLITE_DONE)
			goto fail;
		sqlite3_reset(set);
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(get);
	sqlite3_finalize(set);
	buf_clear(&b);
	return store_migrate_exec(db, path, "indexing version 1 incidents",
	    "INSERT OR IGNORE INTO fingerprints (fingerprint, scheme, signature,"
	    "  template) SELECT fingerprint, fp_scheme, signature, template"
	    "  FROM incidents WHERE fingerprint IS NOT NULL ORDER BY id;"
	    "INSERT INTO fingerprints_fts (rowid, signature, template, notes)"
	    "  SELECT f.id, f.signature, f.template, (SELECT group_concat(n.text,"
	    "  ' ') FROM notes n JOIN incidents i ON i.id = n.incident_id"
	    "  WHERE i.fingerprint = f.fingerprint) FROM fingerprints f;"
	    "INSERT INTO incidents_grep (rowid, body) SELECT id, " STORE_GREP_BODY
	    " FROM incidents;", cause);

fail:
	xasprintf(cause, "%s: migration to version 2: %s", path,
	    sqlite3_errmsg(db));
	sqlite3_finalize(get);
	sqlite3_finalize(set);
	buf_clear(&b);
	return -1;
}

/* Read the version the database holds, or -1 with the cause. */
static int
store_migrate_version(sqlite3 *db, const char *path, int *version,
    char **cause)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt,
	    NULL) != SQLITE_OK) {
		xasprintf(cause, "%s: %s", path, sqlite3_errmsg(db));
		return -1;
	}
	if ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		*version = sqlite3_column_int(stmt, 0);
	else
		xasprintf(cause, "%s: %s", path, sqlite3_errmsg(db));
	sqlite3_finalize(stmt);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Run a script of our own; its message goes into the cause. */
static int
store_migrate_exec(sqlite3 *db, const char *path, const char *what,
    const char *sql, char **cause)
{
	const char	*why;
	char		*error = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &error) == SQLITE_OK)
		return 0;
	why = store_os_reason(db);
	xasprintf(cause, "%s: %s: %s%s%s%s", path, what,
	    error != NULL ? error : sqlite3_errmsg(db), why != NULL ? " (" : "",
	    why != NULL ? why : "", why != NULL ? ")" : "");
	sqlite3_free(error);
	return -1;
}

/* Refuse a database written by a newer rankline. */
static int
store_migrate_check(const char *path, int version, char **cause)
{
	if (version >= 0 && version <= STORE_VERSION)
		return 0;
	xasprintf(cause, "%s: database schema version %d is not one this "
	    "rankline knows (it knows up to %d); it was written by a newer "
	    "rankline", path, version, STORE_VERSION);
	return -1;
}

/* Apply the steps after version, and record the new version. */
static int
store_migrate_steps(sqlite3 *db, const char *path, int version,
    char **cause)
{
	const struct store_migration	*m;
	char				 what[64], sql[64];
	size_t				 i;

	for (i = 0; i < STORE_NMIGRATIONS; i++) {
		m = &store_migrations[i];
		if (m->version <= version)
			continue;
		snprintf(what, sizeof what, "migration to version %d (%s)",
		    m->version, m->what);
		if (store_migrate_exec(db, path, what, m->sql, cause) != 0)
			return -1;
		if (m->fill != NULL && m->fill(db, path, cause) != 0)
			return -1;
	}
	/* A pragma cannot take a bound parameter; this is our own integer. */
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", STORE_VERSION);
	return store_migrate_exec(db, path, "setting the version", sql, cause);
}

/*
 * Bring the database to STORE_VERSION.  An up-to-date database is only
 * read, so opening one never waits for a writer.  Otherwise the steps run
 * in one BEGIN IMMEDIATE transaction and the version is read again inside
 * it: two processes opening a new file at once migrate it once, the second
 * waiting under the busy timeout and then finding nothing to do.
 */
int
store_migrate(sqlite3 *db, const char *path, char **cause)
{
	int	version;

	if (store_migrate_version(db, path, &version, cause) != 0 ||
	    store_migrate_check(path, version, cause) != 0)
		return -1;
	if (version == STORE_VERSION)
		return 0;
	if (sqlite3_db_readonly(db, "main") == 1) {
		xasprintf(cause, "%s: database schema version %d needs bringing "
		    "up to %d, which cannot be done read only (the file or its "
		    "folder is not writable here)", path, version,
		    STORE_VERSION);
		return -1;
	}
	if (store_migrate_exec(db, path, "starting the migration",
	    "BEGIN IMMEDIATE", cause) != 0)
		return -1;
	if (store_migrate_version(db, path, &version, cause) != 0 ||
	    store_migrate_check(path, version, cause) != 0 ||
	    store_migrate_steps(db, path, version, cause) != 0 ||
	    store_migrate_exec(db, path, "committing the migration",
	    "COMMIT", cause) != 0) {
		if (!sqlite3_get_autocommit(db))
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}
