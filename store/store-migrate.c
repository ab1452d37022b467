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
 * Room is left for what is known to come: incidents.id is the rowid, so an
 * external-content FTS5 table (content='incidents', content_rowid='id') and
 * its triggers can be added as step 2 for the history search of issue #7;
 * events.context waits for ingest to keep the lines around a match.
 */
#include <stdio.h>

#include <sqlite3.h>

#include "store.h"

/* One step of the schema. */
struct store_migration {
	int		 version;	/* user_version once applied */
	const char	*what;		/* for the cause when it fails */
	const char	*sql;		/* the script, run in one transaction */
};

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
	"CREATE INDEX notes_incident ON notes (incident_id);" },
};
#define STORE_NMIGRATIONS \
	(sizeof store_migrations / sizeof store_migrations[0])

_Static_assert(STORE_NMIGRATIONS == STORE_VERSION,
    "STORE_VERSION must name the last migration");

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
	char	*error = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &error) == SQLITE_OK)
		return 0;
	xasprintf(cause, "%s: %s: %s", path, what,
	    error != NULL ? error : sqlite3_errmsg(db));
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
