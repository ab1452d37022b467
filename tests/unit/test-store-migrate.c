/*
 * test-store-migrate.c: a database from another rankline: one from a
 * newer one refused with a cause that says so, one an older rankline left
 * (built by running that version's DDL, copied here as released) walked
 * forward.  Split from test-store.c; it speaks SQL only to build those.
 */
#include "store-fixture.h"

/* Write user_version into a closed database's header (offset 60, BE). */
static int
set_user_version(const char *path, uint32_t v)
{
	unsigned char	b[4] = {
		(unsigned char)(v >> 24), (unsigned char)(v >> 16),
		(unsigned char)(v >> 8), (unsigned char)v
	};
	int		fd, rc;

	if ((fd = open(path, O_WRONLY)) == -1)
		return -1;
	rc = pwrite(fd, b, sizeof b, 60) == (ssize_t)sizeof b ? 0 : -1;
	close(fd);
	return rc;
}

/* An empty file is migrated; a newer schema is refused. */
static void
test_versions(void)
{
	struct store	*st;
	char		*path, *cause = NULL;
	int		 fd;

	/* An empty file is a version 0 database: migrated. */
	path = tmp_path("v0.db");
	if ((fd = open(path, O_WRONLY|O_CREAT, 0600)) != -1)
		close(fd);
	if ((st = open_db("v0.db")) != NULL) {
		is_int(store_user_version(st), STORE_VERSION,
		    "v0 migrated to %d", STORE_VERSION);
		is_int(save_many(st, "v0", 0, 1), 0, "v0 database saves");
		store_close(st);
	}

	/* The same, as a newer rankline would have left it. */
	ok(set_user_version(path, STORE_VERSION + 98) == 0, "version set");
	st = (struct store *)1;
	ok(store_open(path, &st, &cause) == -1 && st == NULL,
	    "newer database refused");
	{
		char	want[16];

		snprintf(want, sizeof want, "%d", STORE_VERSION + 98);
		ok(cause != NULL && strstr(cause, path) != NULL &&
		    strstr(cause, "newer") != NULL && strstr(cause, want) !=
		    NULL, "cause: %s", cause);
	}
	free(cause);
	free(path);
}


/* Schema version 1 as rankline released it, and a row as it wrote one. */
static const char v1_ddl[] =
	"CREATE TABLE incidents (id INTEGER PRIMARY KEY, key TEXT NOT NULL"
	" UNIQUE, created TEXT NOT NULL, updated TEXT NOT NULL, started TEXT,"
	" ended TEXT, signature TEXT, fingerprint TEXT, rank INTEGER,"
	" host TEXT, role TEXT, domain TEXT, grp TEXT, scope TEXT,"
	" summary TEXT, explanation TEXT, ckpt_status TEXT,"
	" last_safe_step INTEGER, text TEXT, nsources INTEGER NOT NULL"
	" DEFAULT 0, nranks INTEGER NOT NULL DEFAULT 0, nevents INTEGER NOT"
	" NULL DEFAULT 0, nlines INTEGER NOT NULL DEFAULT 0, nbytes INTEGER"
	" NOT NULL DEFAULT 0);"
	"CREATE INDEX incidents_fingerprint ON incidents (fingerprint);"
	"CREATE INDEX incidents_signature ON incidents (signature);"
	"CREATE INDEX incidents_created ON incidents (created);"
	"CREATE INDEX incidents_updated ON incidents (updated);"
	"CREATE TABLE sources (id INTEGER PRIMARY KEY, incident_id INTEGER NOT"
	" NULL REFERENCES incidents (id) ON DELETE CASCADE, path TEXT NOT"
	" NULL, rank INTEGER, host TEXT, lines INTEGER NOT NULL DEFAULT 0,"
	" bytes INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX sources_incident ON sources (incident_id);"
	"CREATE TABLE ranks (id INTEGER PRIMARY KEY, incident_id INTEGER NOT"
	" NULL REFERENCES incidents (id) ON DELETE CASCADE, rank INTEGER,"
	" host TEXT, state TEXT, first_time TEXT, last_time TEXT, lines"
	" INTEGER NOT NULL DEFAULT 0, last_step INTEGER);"
	"CREATE INDEX ranks_incident ON ranks (incident_id);"
	"CREATE TABLE events (id INTEGER PRIMARY KEY, incident_id INTEGER NOT"
	" NULL REFERENCES incidents (id) ON DELETE CASCADE, source TEXT, line"
	" INTEGER, byte_offset INTEGER, time TEXT, rank INTEGER, signature"
	" TEXT, role TEXT, domain TEXT, root INTEGER NOT NULL DEFAULT 0, text"
	" TEXT, context TEXT);"
	"CREATE INDEX events_incident ON events (incident_id);"
	"CREATE INDEX events_signature ON events (signature);"
	"CREATE TABLE notes (id INTEGER PRIMARY KEY, incident_id INTEGER NOT"
	" NULL REFERENCES incidents (id) ON DELETE CASCADE, created TEXT NOT"
	" NULL, text TEXT NOT NULL);"
	"CREATE INDEX notes_incident ON notes (incident_id);"
	"INSERT INTO incidents (key, created, updated, started, signature,"
	" rank, host, domain, summary, text, nsources, nranks) VALUES"
	" ('00ff', '2026-01-05T10:00:00.000Z', '2026-01-05T10:00:00.000Z',"
	" '2026-01-05T09:59:58.000', 'torch.cuda_oom', 3, 'gpu-node-07',"
	" 'code', 'rank 3 ran out of memory',"
	" 'torch.OutOfMemoryError: CUDA out of memory', 1, 1);"
	"INSERT INTO sources (incident_id, path, rank) VALUES (1,"
	" '/old/rank3.log', 3);"
	"INSERT INTO notes (incident_id, created, text) VALUES (1,"
	" '2026-01-05T11:00:00.000Z', 'ticket OPS-12: batch 64 is too big');"
	"PRAGMA user_version = 1;";

/* A version 1 database, as the released rankline left one, at path. */
static int
make_v1(const char *path)
{
	sqlite3	*db;
	int	 rc;

	if (sqlite3_open(path, &db) != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	rc = sqlite3_exec(db, v1_ddl, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

/* Every earlier version walks forward: 1 here (0, an empty file, above). */
static void
test_migrate_v1(void)
{
	struct store		*st;
	struct store_row	 row;
	struct store_list	 list;
	struct rl_incident	*inc;
	struct rl_history	 h;
	const char		*paths[1] = { "/new/rank3.log" };
	char			*path, *cause = NULL;

	path = tmp_path("v1.db");
	ok(make_v1(path) == 0, "a version 1 database, from its DDL");
	free(path);
	if ((st = open_db("v1.db")) == NULL)
		return;
	is_int(store_user_version(st), STORE_VERSION, "v1 migrated to %d",
	    STORE_VERSION);
	ok(store_get(st, 1, &row, &cause) == 0, "the v1 incident is there");
	ok(row.uid != NULL && strlen(row.uid) == 32, "it has a uid: %s",
	    row.uid);
	is_str(row.template, "torch.OutOfMemoryError: CUDA out of memory",
	    "its template was computed");
	ok(row.fingerprint != NULL && strncmp(row.fingerprint, "1:", 2) == 0,
	    "and its fingerprint, scheme 1: %s", row.fingerprint);
	is_str(row.diagnosis, "ticket OPS-12: batch 64 is too big",
	    "its note is a diagnosis");
	is_str(row.occurred, "2026-01-05T09:59:58.000", "occurred: started");
	store_row_clear(&row);
	ok(store_list(st, "ops-12", 0, &list, &cause) == 0 && list.n == 1,
	    "its note is searched");
	store_list_clear(&list);

	/* The same failure today meets the diagnosis written under v1. */
	inc = make_incident(paths, 1, "rank 0 ran out of memory",
	    "torch.OutOfMemoryError: CUDA out of memory");
	ok(store_recall(st, inc, 0, &h, &cause) == 0, "recall");
	is_int(h.seen_before, 1, "seen once before, in the v1 database");
	ok(h.nmatches >= 1 && h.matches[0].exact && h.matches[0].incident == 1
	    && h.matches[0].diagnosis != NULL && strstr(h.matches[0].diagnosis,
	    "OPS-12") != NULL, "with the diagnosis written then");
	ok(h.noffenders >= 1 && h.offenders[0].kind == OFFENDER_HOST &&
	    strcmp(h.offenders[0].name, "gpu-node-07") == 0,
	    "its host is a repeat offender");
	history_clear(&h);
	incident_free(inc);
	store_close(st);
}

int
main(void)
{
	char		 templ[] = "/tmp/test-store.XXXXXX";

	if ((tmp = mkdtemp(templ)) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_versions();
	test_migrate_v1();
	rm_tmp(tmp);
	return tap_done();
}
