/*
 * test-store-migrate.c: a database from another rankline: one from a
 * newer one refused with a cause that says so, one an older rankline left
 * (built by running that version's DDL, copied here as released) walked
 * forward (versions 1 and 2, each from its DDL as released), and a
 * migration that fails undone.  Split from test-store.c; it speaks SQL
 * only to build those and to look at what a failure left.
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

/*
 * Schema version 2's step as rankline released it (on top of v1_ddl), and
 * an incident as it wrote one: two ranks, the root event, a note.
 */
static const char v2_ddl[] =
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
	"DROP INDEX incidents_fingerprint;"
	"CREATE INDEX incidents_fingerprint ON incidents (fingerprint, occurred);"
	"ALTER TABLE events ADD COLUMN context_at INTEGER;"
	"ALTER TABLE notes ADD COLUMN kind TEXT NOT NULL DEFAULT 'diagnosis';"
	"ALTER TABLE notes ADD COLUMN uid TEXT;"
	"UPDATE notes SET uid = lower(hex(randomblob(16)));"
	"CREATE UNIQUE INDEX notes_uid ON notes (uid);"
	"CREATE TABLE offenders (incident_id INTEGER NOT NULL"
	"  REFERENCES incidents (id) ON DELETE CASCADE, kind TEXT NOT NULL,"
	"  name TEXT NOT NULL, occurred TEXT,"
	"  PRIMARY KEY (kind, name, incident_id)) WITHOUT ROWID;"
	"CREATE INDEX offenders_incident ON offenders (incident_id);"
	"CREATE INDEX offenders_recent ON offenders (kind, name, occurred);"
	"CREATE TABLE fingerprints (id INTEGER PRIMARY KEY,"
	"  fingerprint TEXT NOT NULL UNIQUE, scheme INTEGER, signature TEXT,"
	"  template TEXT);"
	"CREATE VIRTUAL TABLE fingerprints_fts USING fts5(signature, template,"
	"  notes);"
	"CREATE VIRTUAL TABLE fingerprints_vocab USING fts5vocab("
	"  fingerprints_fts, 'row');"
	"CREATE VIRTUAL TABLE incidents_grep USING fts5(body,"
	"  tokenize = 'trigram');"
	"INSERT INTO incidents (key, uid, created, updated, started, ended,"
	" occurred, signature, rank, host, domain, grp, scope, summary,"
	" explanation, ckpt_status, last_safe_step, text, nsources, nranks,"
	" job_run) VALUES ('aa22', 'c0ffee00c0ffee00c0ffee00c0ffee00',"
	" '2026-06-01T10:00:00.000Z', '2026-06-01T10:00:00.000Z',"
	" '2026-06-01T09:00:00.000', '2026-06-01T09:10:00.000',"
	" '2026-06-01T09:05:00.000', 'nccl.peer_gone', 1, 'gpu-node-09',"
	" 'infrastructure', 'network', 'one', 'rank 1 lost its peer',"
	" 'the first error in time', 'unsafe', 10, 'peer rank 1 gone', 1, 2,"
	" 'run-42');"
	"INSERT INTO ranks (incident_id, rank, host, state, first_time,"
	" last_time, lines, last_step) VALUES"
	" (2, 0, 'gpu-node-09', 'collateral', '2026-06-01T09:00:00.000',"
	" '2026-06-01T09:10:00.000', 100, 20),"
	" (2, 1, 'gpu-node-09', 'failed', '2026-06-01T09:00:00.000',"
	" '2026-06-01T09:05:00.000', 90, 19);"
	"INSERT INTO events (incident_id, source, line, time, rank, signature,"
	" role, root, text, context, context_at) VALUES (2, '/old/rank1.log',"
	" 7, '2026-06-01T09:05:00.000', 1, 'nccl.peer_gone', 'root', 1,"
	" 'peer rank 1 gone', 'before\npeer rank 1 gone', 6);"
	"INSERT INTO notes (incident_id, created, kind, text, uid) VALUES (2,"
	" '2026-06-01T11:00:00.000Z', 'resolution', 'cable swapped',"
	" 'beef0000beef0000beef0000beef0000');"
	"PRAGMA user_version = 2;";

/* A version 2 database, as the released rankline left one, at path. */
static int
make_v2(const char *path, const char *extra)
{
	sqlite3	*db;
	int	 rc;

	if (make_v1(path) != 0 || sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(db, v2_ddl, NULL, NULL, NULL);
	if (rc == SQLITE_OK && extra != NULL)
		rc = sqlite3_exec(db, extra, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

/* What store_ranks hands back of a migrated incident. */
struct v2_ranks {
	size_t	 n;
	size_t	 firsts;	/* ranks with a first error or progress */
	char	 states[64];	/* "collateral,failed," */
};

static void
v2_rank_cb(void *arg, const struct store_rank *r)
{
	struct v2_ranks	*s = arg;
	size_t		 len = strlen(s->states);

	s->n++;
	s->firsts += r->first_signature != NULL || r->first_error != NULL ||
	    r->progress != NULL || r->first_root;
	snprintf(s->states + len, sizeof s->states - len, "%s,",
	    r->state != NULL ? r->state : "?");
}

static void
v2_note_cb(void *arg, const char *created, const char *kind,
    const char *text)
{
	(void)created;
	if (strcmp(kind, "resolution") == 0 && strcmp(text, "cable swapped")
	    == 0)
		(*(int *)arg)++;
}

static void
v2_event_cb(void *arg, const struct store_event *e)
{
	if (e->root && e->context != NULL && strcmp(e->context,
	    "before\npeer rank 1 gone") == 0 && e->context_at == 6)
		(*(int *)arg)++;
}

/* Schema 2 walks to 3: its data kept, the new parts said to be absent. */
static void
test_migrate_v2(void)
{
	struct store		*st;
	struct store_row	 row;
	struct v2_ranks		 rs = { 0 };
	char			*path, *cause = NULL, *facts = (char *)1;
	int			 notes = 0, events = 0;

	path = tmp_path("v2.db");
	ok(make_v2(path, NULL) == 0, "a version 2 database, from its DDL");
	free(path);
	if ((st = open_db("v2.db")) == NULL)
		return;
	is_int(store_user_version(st), STORE_VERSION, "v2 migrated to %d",
	    STORE_VERSION);
	ok(store_get(st, 2, &row, &cause) == 0, "the v2 incident is there");
	is_str(row.uid, "c0ffee00c0ffee00c0ffee00c0ffee00", "its uid kept");
	is_str(row.summary, "rank 1 lost its peer", "its summary kept");
	is_str(row.ckpt, "unsafe", "its checkpoint kept");
	is_int(row.last_safe_step, 10, "and last safe step");
	is_str(row.job_run, "run-42", "its job run kept");
	is_str(row.resolution, "cable swapped", "its note kept");
	store_row_clear(&row);
	ok(store_ranks(st, 2, v2_rank_cb, &rs, &cause) == 0 && rs.n == 2,
	    "its two ranks");
	is_str(rs.states, "collateral,failed,", "their states kept");
	is_int((int)rs.firsts, 0, "no first error or progress: not stored");
	ok(store_facts(st, 2, &facts, &cause) == 0 && facts == NULL,
	    "no facts document: not stored then");
	ok(store_notes(st, 2, v2_note_cb, &notes, &cause) == 0 && notes == 1,
	    "the resolution note, with its kind");
	ok(store_events(st, 2, v2_event_cb, &events, &cause) == 0 &&
	    events == 1, "the root event with its context");
	/* A save after the migration keeps the new parts. */
	is_int(save_many(st, "v2", 0, 1), 0, "a migrated database saves");
	ok(store_facts(st, 3, &facts, &cause) == 0 && facts != NULL &&
	    strstr(facts, "\"verdict\"") != NULL, "with its facts");
	free(facts);
	store_close(st);
}

/* A migration that fails leaves the database as it was: one transaction. */
static void
test_migrate_atomic(void)
{
	struct store	*st = NULL;
	sqlite3		*db;
	sqlite3_stmt	*q;
	char		*path, *cause = NULL;
	int		 version = -1, cols = -1, rows = -1;

	/* A column of step 3's, there already: its last ALTER fails. */
	path = tmp_path("v2-bad.db");
	ok(make_v2(path, "ALTER TABLE incidents ADD COLUMN facts TEXT;") == 0,
	    "a version 2 database with a column in the way");
	ok(store_open(path, &st, &cause) == -1 && st == NULL,
	    "its migration fails");
	ok(cause != NULL && strstr(cause, "version 3") != NULL,
	    "the cause names the step: %s", cause);
	free(cause);
	if (sqlite3_open(path, &db) == SQLITE_OK) {
		if (sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM"
		    " pragma_user_version), (SELECT count(*) FROM"
		    " pragma_table_info('ranks') WHERE name ="
		    " 'first_signature'), (SELECT count(*) FROM incidents)",
		    -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) ==
		    SQLITE_ROW) {
			version = sqlite3_column_int(q, 0);
			cols = sqlite3_column_int(q, 1);
			rows = sqlite3_column_int(q, 2);
		}
		sqlite3_finalize(q);
	}
	sqlite3_close(db);
	is_int(version, 2, "it is still version 2");
	is_int(cols, 0, "the steps before the failure were undone");
	is_int(rows, 2, "its incidents are there");
	free(path);
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
	test_migrate_v2();
	test_migrate_atomic();
	rm_tmp(tmp);
	return tap_done();
}
