/*
 * store.c: the incident database, on SQLite.
 *
 * Every analysis is saved so that the next engineer paged for the same job
 * finds what the last one learned.  An incident's identity is the set of
 * logs it was read from (its key: a hash of their sorted absolute paths),
 * so analysing the same logs again updates the row in place, keeping its id,
 * its creation time and its notes, while other logs make a new row.
 *
 * Several rankline processes may share one database (a console tailing a
 * job, an `analyze` from a cron job), so the database is in WAL mode, every
 * write is one BEGIN IMMEDIATE transaction, and a busy timeout makes writers
 * queue instead of failing.  Log text is hostile: it reaches SQLite only as
 * bound parameters, and comes back byte for byte.  The database holds log
 * lines, which can hold secrets, so it is created 0600 in a 0700 folder.
 *
 * Saving an incident is in store-save.c; reading, recurrence and notes in
 * store-history.c, export and import in store-export.c.
 *
 * The connection and every prepared statement belong to the struct store.
 * Statements are prepared on first use from the table below, reset after
 * each use so that none keeps a read transaction open, and finalized in
 * store_close.
 */
#include <sys/stat.h>

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store-int.h"

#define STORE_FILE	"incidents.db"	/* in the user's XDG data folder */

/* The latest note of a kind ("?" for any) of incident i. */
#define STORE_NOTE_SQL(kind)						\
	"(SELECT n.text FROM notes n WHERE n.incident_id = i.id" kind	\
	" ORDER BY n.id DESC LIMIT 1)"

/*
 * What the history shows of an incident: store_row_read's column order.
 * Its source is the first failure's log, else the first source that had
 * lines: a folder's walk lists checkpoint files and skipped binaries first.
 */
#define STORE_ROW_SQL							\
	"SELECT i.id, i.created, i.updated, i.started, i.signature,"	\
	" i.fingerprint, i.rank, i.host, i.domain, i.summary, i.text,"	\
	" COALESCE((SELECT e.source FROM events e"			\
	"  WHERE e.incident_id = i.id AND e.root LIMIT 1),"		\
	" (SELECT s.path FROM sources s WHERE s.incident_id = i.id"	\
	"  ORDER BY s.lines = 0, s.id LIMIT 1)), i.nsources, i.nranks, "	\
	STORE_NOTE_SQL("") ", i.uid, i.occurred, "			\
	STORE_NOTE_SQL(" AND n.kind = 'diagnosis'") ", "		\
	STORE_NOTE_SQL(" AND n.kind = 'resolution'") ", i.template,"	\
	" i.pci, i.job_scheduler, i.job_run, i.job_command,"		\
	" i.explanation, i.ckpt_status, i.last_safe_step, i.ended,"	\
	" i.grp, i.scope"						\
	" FROM incidents i"

/* A match as recurrence reports it: store_match_read's column order. */
#define STORE_MATCH_SQL							\
	"SELECT i.id, i.occurred, i.fingerprint, i.summary, "		\
	STORE_NOTE_SQL(" AND n.kind = 'diagnosis'") ", "		\
	STORE_NOTE_SQL(" AND n.kind = 'resolution'")

const char *const store_sql[STMT_N] = {
	/* IMMEDIATE takes the write lock now, under the busy timeout. */
	[STMT_BEGIN] = "BEGIN IMMEDIATE",
	[STMT_COMMIT] = "COMMIT",
	[STMT_ROLLBACK] = "ROLLBACK",
	[STMT_VERSION] = "PRAGMA user_version",
	[STMT_FIND] = "SELECT id, fingerprint FROM incidents WHERE key = ?",
	/* A random identity, kept for ever: export and import go by it. */
	[STMT_CREATE] = "INSERT INTO incidents (key, uid, created, updated)"
	    " VALUES (?1, lower(hex(randomblob(16))), ?2, ?2)",
	/* In the order of store_save_answer's binds. */
	[STMT_UPDATE] = "UPDATE incidents SET updated = ?, started = ?,"
	    " ended = ?, occurred = ?, signature = ?, fingerprint = ?,"
	    " fp_scheme = ?, template = ?, rank = ?, host = ?, pci = ?,"
	    " role = ?, domain = ?, grp = ?, scope = ?, summary = ?,"
	    " explanation = ?, ckpt_status = ?, last_safe_step = ?, text = ?,"
	    " nsources = ?, nranks = ?, nevents = ?, nlines = ?, nbytes = ?,"
	    " job_scheduler = ?, job_run = ?, job_command = ?, facts = ?"
	    " WHERE id = ?",
	[STMT_CLEAR_SOURCES] = "DELETE FROM sources WHERE incident_id = ?",
	[STMT_CLEAR_RANKS] = "DELETE FROM ranks WHERE incident_id = ?",
	[STMT_CLEAR_EVENTS] = "DELETE FROM events WHERE incident_id = ?",
	[STMT_CLEAR_OFFENDERS] = "DELETE FROM offenders WHERE incident_id = ?",
	[STMT_ADD_SOURCE] = "INSERT INTO sources (incident_id, path, rank,"
	    " host, lines, bytes) VALUES (?, ?, ?, ?, ?, ?)",
	[STMT_ADD_RANK] = "INSERT INTO ranks (incident_id, rank, host, state,"
	    " first_time, last_time, lines, last_step, first_signature,"
	    " first_error_time, first_root, progress_time)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[STMT_ADD_EVENT] = "INSERT INTO events (incident_id, source, line,"
	    " byte_offset, time, rank, signature, role, domain, root, text,"
	    " context, context_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[STMT_ADD_OFFENDER] = "INSERT OR IGNORE INTO offenders (incident_id,"
	    " kind, name, occurred) VALUES (?, ?, ?, ?)",
	[STMT_FP_ADD] = "INSERT OR IGNORE INTO fingerprints (fingerprint,"
	    " scheme, signature, template) VALUES (?, ?, ?, ?)",
	[STMT_FP_ID] = "SELECT id FROM fingerprints WHERE fingerprint = ?",
	/* max(id) of an INTEGER PRIMARY KEY is one step, count(*) a scan. */
	[STMT_FP_COUNT] = "SELECT ifnull(max(id), 0) FROM fingerprints",
	[STMT_FTS_DELETE] = "DELETE FROM fingerprints_fts WHERE rowid = ?",
	/* The notes of a fingerprint's latest incidents, for near matches. */
	[STMT_FTS_INSERT] = "INSERT INTO fingerprints_fts (rowid, signature,"
	    " template, notes) SELECT f.id, f.signature, f.template,"
	    " (SELECT group_concat(t, ' ') FROM (SELECT n.text AS t FROM"
	    " incidents i JOIN notes n ON n.incident_id = i.id"
	    " WHERE i.fingerprint = f.fingerprint ORDER BY n.id DESC LIMIT 32))"
	    " FROM fingerprints f WHERE f.id = ?",
	[STMT_GREP_DELETE] = "DELETE FROM incidents_grep WHERE rowid = ?",
	[STMT_GREP_INSERT] = "INSERT INTO incidents_grep (rowid, body)"
	    " SELECT id, " STORE_GREP_BODY " FROM incidents WHERE id = ?",
	[STMT_FINGERPRINT_OF] = "SELECT fingerprint FROM incidents WHERE id = ?",
	[STMT_GET] = STORE_ROW_SQL " WHERE i.id = ?",
	/* Newest first: by id, the order incidents were first stored in. */
	[STMT_LIST] = STORE_ROW_SQL " ORDER BY i.id DESC LIMIT ?",
	/*
	 * The trigram index answers LIKE without an ESCAPE clause, and FTS5
	 * hands its rows over in rowid order, so the newest ?2 matches are
	 * found without reading the others.  The row's columns are built for
	 * those only.  A query holding % or _ is searched with them as
	 * wildcards (a superset, from the index), then exactly (?3).
	 */
	[STMT_LIST_LIKE] = STORE_ROW_SQL " WHERE i.id IN (SELECT rowid FROM"
	    " incidents_grep WHERE body LIKE ?1 ORDER BY rowid DESC LIMIT ?2)"
	    " ORDER BY i.id DESC",
	[STMT_LIST_ESCAPED] = STORE_ROW_SQL " WHERE i.id IN (SELECT rowid FROM"
	    " incidents_grep WHERE body LIKE ?1 AND body LIKE ?3 ESCAPE '\\'"
	    " ORDER BY rowid DESC LIMIT ?2) ORDER BY i.id DESC",
	[STMT_EXISTS] = "SELECT 1 FROM incidents WHERE id = ?",
	/* Inserts nothing for an unknown incident, rather than fail the key. */
	[STMT_NOTE] = "INSERT INTO notes (incident_id, created, kind, text, uid)"
	    " SELECT ?1, ?2, ?3, ?4, lower(hex(randomblob(16))) WHERE EXISTS"
	    " (SELECT 1 FROM incidents WHERE id = ?1)",
	[STMT_NOTES] = "SELECT created, kind, text FROM notes"
	    " WHERE incident_id = ? ORDER BY id",
	[STMT_EVENTS] = "SELECT source, line, time, signature, role, text,"
	    " context, context_at, root, rank FROM events WHERE incident_id = ?"
	    " ORDER BY id",
	[STMT_RANKS] = "SELECT rank, host, state, first_time, last_time,"
	    " last_step, first_signature, first_error_time, first_root,"
	    " progress_time FROM ranks WHERE incident_id = ? ORDER BY id",
	/* Not in STORE_ROW_SQL: a list of the history need not read it. */
	[STMT_FACTS] = "SELECT facts FROM incidents WHERE id = ?",
	[STMT_SEEN] = "SELECT count(*) FROM incidents WHERE fingerprint = ?1"
	    " AND id != ?2",
	[STMT_EXACT] = STORE_MATCH_SQL " FROM incidents i"
	    " WHERE i.fingerprint = ?1 AND i.id != ?2"
	    " ORDER BY i.occurred DESC, i.id DESC LIMIT ?3",
	[STMT_VOCAB] = "SELECT doc FROM fingerprints_vocab WHERE term = ?",
	[STMT_NEAR] = "SELECT rowid, bm25(fingerprints_fts, 1.0, 4.0, 2.0)"
	    " FROM fingerprints_fts WHERE fingerprints_fts MATCH ?1"
	    " ORDER BY 2 LIMIT ?2",
	[STMT_NEAR_LATEST] = STORE_MATCH_SQL " FROM fingerprints f"
	    " JOIN incidents i ON i.fingerprint = f.fingerprint"
	    " WHERE f.id = ?1 AND i.id != ?2"
	    " ORDER BY i.occurred DESC, i.id DESC LIMIT 1",
	/* From the index alone: offenders_recent covers kind, name, occurred. */
	[STMT_OFFENDER] = "SELECT count(*), min(occurred), max(occurred)"
	    " FROM offenders WHERE kind = ?1 AND name = ?2"
	    " AND incident_id != ?3",
	[STMT_OFFENDER_LAST] = "SELECT incident_id FROM offenders"
	    " WHERE kind = ?1 AND name = ?2 AND incident_id != ?3"
	    " ORDER BY occurred DESC, incident_id DESC LIMIT 1",
	[STMT_PATHS] = "SELECT path FROM sources WHERE incident_id = ?"
	    " ORDER BY id",
	[STMT_OFFENDER_OF] = "SELECT name FROM offenders"
	    " WHERE incident_id = ?1 AND kind = ?2",
	/* Ids newest first: group_concat keeps the subquery's order. */
	[STMT_OFFENDERS] = "SELECT kind, name, count(*), min(occurred),"
	    " max(occurred), group_concat(incident_id, ',') FROM (SELECT"
	    " kind, name, incident_id, occurred FROM offenders"
	    " ORDER BY occurred DESC, incident_id DESC)"
	    " GROUP BY kind, name HAVING count(*) >= ?1"
	    " ORDER BY count(*) DESC, max(occurred) DESC, kind, name LIMIT 200",
};


/*
 * The system's reason behind SQLite's last I/O failure, or NULL: SQLite
 * says "disk I/O error" for a full disk in some places, and "unable to
 * open database file" for a permission.
 */
const char *
store_os_reason(sqlite3 *db)
{
	int	errnum = sqlite3_system_errno(db);

	switch (sqlite3_errcode(db) & 0xff) {
	case SQLITE_IOERR:
	case SQLITE_FULL:
	case SQLITE_CANTOPEN:
		return errnum != 0 ? strerror(errnum) : NULL;
	}
	return NULL;
}

/* The database's complaint, with the path and the system's reason. */
int
store_fail(struct store *st, char **cause)
{
	const char	*why;

	if (cause == NULL)
		return -1;
	if ((why = store_os_reason(st->db)) != NULL)
		xasprintf(cause, "%s: %s (%s)", st->path,
		    sqlite3_errmsg(st->db), why);
	else
		xasprintf(cause, "%s: %s", st->path, sqlite3_errmsg(st->db));
	return -1;
}

/* Now, in UTC to the millisecond, so that text order is time order. */
void
store_now(char *buf, size_t len)
{
	struct timespec	ts;
	struct tm	tm;
	char		date[24];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03dZ", date,
	    (int)(ts.tv_nsec / 1000000) % 1000);
}

/* Start one use of a statement, preparing it the first time. */
int
store_q_start(struct store *st, enum store_stmt which, struct store_q *q,
    char **cause)
{
	assert(which < STMT_N && store_sql[which] != NULL);
	if (st->stmt[which] == NULL && sqlite3_prepare_v2(st->db,
	    store_sql[which], -1, &st->stmt[which], NULL) != SQLITE_OK)
		return store_fail(st, cause);
	q->stmt = st->stmt[which];
	q->n = 0;
	q->rc = SQLITE_OK;
	return 0;
}

/* Finish a use: no read transaction stays open and no binding lingers. */
void
store_q_end(struct store_q *q)
{
	sqlite3_reset(q->stmt);
	sqlite3_clear_bindings(q->stmt);
}

/* Keep the first binding error; it is reported at the step. */
static void
store_q_check(struct store_q *q, int rc)
{
	if (q->rc == SQLITE_OK)
		q->rc = rc;
}

/* Bind text, or NULL; SQLite copies it, so the caller's may go. */
void
store_q_text(struct store_q *q, const char *s)
{
	q->n++;
	if (s == NULL)
		store_q_check(q, sqlite3_bind_null(q->stmt, q->n));
	else
		store_q_check(q, sqlite3_bind_text(q->stmt, q->n, s, -1,
		    SQLITE_TRANSIENT));
}

/* Bind an integer. */
void
store_q_int(struct store_q *q, int64_t v)
{
	q->n++;
	store_q_check(q, sqlite3_bind_int64(q->stmt, q->n, v));
}

/* Bind a count; none reaches 2^63, but clamp rather than wrap. */
void
store_q_count(struct store_q *q, uint64_t v)
{
	store_q_int(q, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

/* Bind a rank, step or index, with RL_NONE as NULL. */
void
store_q_maybe(struct store_q *q, int v)
{
	if (v == RL_NONE) {
		q->n++;
		store_q_check(q, sqlite3_bind_null(q->stmt, q->n));
	} else
		store_q_int(q, v);
}

/* Bind a real number. */
void
store_q_double(struct store_q *q, double v)
{
	q->n++;
	store_q_check(q, sqlite3_bind_double(q->stmt, q->n, v));
}

/* Bind a log time as clock.c writes it, or NULL when the log had none. */
void
store_q_time(struct store_q *q, const struct rl_time *t)
{
	char	buf[64];

	if ((t->flags & RL_TIME_VALID) &&
	    clock_format(t, buf, sizeof buf) != 0)
		store_q_text(q, buf);
	else
		store_q_text(q, NULL);
}

/* Step once: 1 for a row, 0 when done, -1 with the cause. */
int
store_q_step(struct store *st, struct store_q *q, char **cause)
{
	int	rc;

	if (q->rc != SQLITE_OK) {
		if (cause != NULL)
			xasprintf(cause, "%s: binding a parameter: %s",
			    st->path, sqlite3_errstr(q->rc));
		return -1;
	}
	rc = sqlite3_step(q->stmt);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_fail(st, cause);
}

/* Run a statement that returns no rows, and end its use. */
int
store_q_run(struct store *st, struct store_q *q, char **cause)
{
	int	rc;

	rc = store_q_step(st, q, cause);
	store_q_end(q);
	return rc == -1 ? -1 : 0;
}

/* Run a statement whose only parameter, if any, is an id. */
int
store_run_id(struct store *st, enum store_stmt which, int64_t id,
    char **cause)
{
	struct store_q	q;

	if (store_q_start(st, which, &q, cause) != 0)
		return -1;
	if (sqlite3_bind_parameter_count(q.stmt) != 0)
		store_q_int(&q, id);
	return store_q_run(st, &q, cause);
}

/* Make one folder 0700 whatever the umask, unless it is there already. */
static int
store_mkdir(const char *dir)
{
	struct stat	sb;
	int		error;

	if (mkdir(dir, 0700) == 0)
		return chmod(dir, 0700);
	/* Some file systems say EACCES or EROFS for a folder that exists. */
	error = errno;
	if (stat(dir, &sb) == 0) {
		if (S_ISDIR(sb.st_mode))
			return 0;
		error = ENOTDIR;
	}
	errno = error;
	return -1;
}

/* Make the folders above path, as mkdir -p does. */
static int
store_mkdirs(const char *path, char **cause)
{
	char	*dir, *end, *p, c;

	dir = xstrdup(path);
	if ((end = strrchr(dir, '/')) == NULL || end == dir) {
		free(dir);
		return 0;
	}
	*end = '\0';
	for (p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (store_mkdir(dir) != 0) {
			xasprintf(cause, "%s: cannot create %s: %s", path, dir,
			    strerror(errno));
			free(dir);
			return -1;
		}
		if ((*p = c) == '\0')
			break;
	}
	free(dir);
	return 0;
}

/*
 * Create the file 0600 if it is new; an existing database keeps the mode
 * its owner gave it (a team may share one on purpose), and its -wal and
 * -shm files take that mode from it.  O_EXCL, so an existing file is never
 * opened here: closing any descriptor of a file drops every POSIX lock this
 * process holds on it, which would silently unlock another connection's.
 */
static int
store_create(const char *path, char **cause)
{
	int	fd;

	fd = open(path, O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0600);
	if (fd == -1) {
		if (errno == EEXIST)
			return 0;
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* The umask can only take bits away: put back the owner's. */
	if (fchmod(fd, 0600) != 0) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * Settings of every connection, in this order: the busy timeout first, so
 * that switching to WAL waits for another process instead of failing.  WAL
 * lets readers go on while one writer writes; its shared memory means the
 * processes must be on one host.  Foreign keys (the cascades) are off
 * unless each connection asks.
 */
static const char *const store_setup_sql[] = {
	"PRAGMA busy_timeout = 5000",
	"PRAGMA journal_mode = WAL",
	"PRAGMA foreign_keys = ON",
	/*
	 * In WAL mode NORMAL never corrupts the file; a power cut may lose
	 * the last saves, which analysing the logs again puts back, and no
	 * save waits for an fsync.
	 */
	"PRAGMA synchronous = NORMAL",
};

/*
 * Run one setting, waiting out another process that holds the file.  The
 * switch to WAL takes an exclusive lock and SQLite does not call the busy
 * handler for it (two processes creating one database at once would fail
 * with "database is locked"), so it is retried here, for up to as long as
 * the busy timeout would have waited.
 */
static int
store_setup_exec(sqlite3 *db, const char *sql, char **error)
{
	int	rc, tries;

	for (tries = 0; tries < 500; tries++) {
		rc = sqlite3_exec(db, sql, NULL, NULL, error);
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
			return rc;
		sqlite3_free(*error);
		*error = NULL;
		sqlite3_sleep(10);
	}
	return rc;
}

/*
 * A connection that only reads: no WAL switch and no synchronous setting,
 * which are writes, and the busy timeout so that a reader waits out a
 * checkpoint.
 */
static const char *const store_setup_read_sql[] = {
	"PRAGMA busy_timeout = 5000",
	"PRAGMA foreign_keys = ON",
};

/* Apply the settings every connection needs. */
static int
store_setup(struct store *st, bool readonly, char **cause)
{
	const char *const	*v = readonly ? store_setup_read_sql :
				    store_setup_sql;
	size_t			 n = readonly ? nitems(store_setup_read_sql) :
				    nitems(store_setup_sql), i;
	char			*error = NULL;

	for (i = 0; i < n; i++) {
		if (store_setup_exec(st->db, v[i], &error) != SQLITE_OK) {
			sqlite3_free(error);
			return store_fail(st, cause);
		}
	}
	return 0;
}

/*
 * The path as a URI filename with a query, for the read-only opens: every
 * byte a URI gives a meaning to (%, ?, #) is escaped, and an absolute path
 * gets an empty authority so that "//x" is not read as a host.
 */
static char *
store_uri(const char *path, const char *query)
{
	static const char	 hex[] = "0123456789ABCDEF";
	struct buf		 b = { 0 };
	const unsigned char	*p;

	buf_adds(&b, *path == '/' ? "file://" : "file:");
	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/._-~", *p) != NULL)
			buf_addc(&b, (char)*p);
		else {
			buf_addc(&b, '%');
			buf_addc(&b, hex[*p >> 4]);
			buf_addc(&b, hex[*p & 15]);
		}
	}
	buf_addc(&b, '?');
	buf_adds(&b, query);
	return buf_steal(&b);
}

/*
 * Connect to an existing file, read-write or, with uri, read only, set it
 * up and bring it to STORE_VERSION.  Returns the SQLite result code of the
 * failure (cause set), or SQLITE_OK.
 */
static int
store_connect(const char *path, const char *uri, struct store **stp,
    char **cause)
{
	struct store	*st;
	int		 rc;

	st = xcalloc(1, sizeof *st);
	st->path = xstrdup(path);
	st->readonly = uri != NULL;
	/* Not SQLITE_OPEN_CREATE: the file was made first, with its mode. */
	if (uri != NULL)
		rc = sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY|
		    SQLITE_OPEN_URI, NULL);
	else
		rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE,
		    NULL);
	if (rc != SQLITE_OK) {
		store_fail(st, cause);
		goto fail;
	}
	if (store_setup(st, st->readonly, cause) != 0 ||
	    store_migrate(st->db, st->path, cause) != 0)
		goto fail;
	*stp = st;
	return SQLITE_OK;

fail:
	rc = sqlite3_errcode(st->db);
	if (rc == SQLITE_OK)
		rc = SQLITE_ERROR;
	store_close(st);
	return rc;
}

/* Whether a failed open may be one of permissions, not of the file. */
static bool
store_denied(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
	case SQLITE_AUTH:
	case SQLITE_IOERR:
		return true;
	}
	return false;
}

/*
 * Whether this process may write the file, and its folder (the WAL's);
 * if not, errno says why.
 */
static bool
store_writable(const char *path)
{
	char	*dir, *slash;
	bool	 yes;

	if (access(path, W_OK) != 0)
		return false;
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL)
		yes = access(".", W_OK) == 0;
	else {
		slash[slash == dir] = '\0';
		yes = access(dir, W_OK) == 0;
	}
	free(dir);
	return yes;
}

/*
 * Open a database this process cannot write.  SQLite reads a WAL database
 * read only when its -shm is there to share; when nobody has it open and
 * the folder is not writable there is none, and SQLite cannot make one.
 * The file is then read as immutable, which skips locking and the WAL: that
 * is only right when the WAL holds nothing, so otherwise it is refused.
 */
static int
store_open_readonly(const char *path, struct store **stp, char **cause)
{
	struct stat	 sb;
	char		*uri, *wal, *first = NULL;
	int		 rc;

	uri = store_uri(path, "mode=ro");
	rc = store_connect(path, uri, stp, &first);
	free(uri);
	if (rc == SQLITE_OK || !store_denied(rc)) {
		*cause = first;
		return rc == SQLITE_OK ? 0 : -1;
	}
	xasprintf(&wal, "%s-wal", path);
	if (stat(wal, &sb) == 0 && sb.st_size > 0) {
		xasprintf(cause, "%s: cannot be read: it is not writable here, "
		    "and %s holds saves that only a rankline able to write its "
		    "folder can read (%s)", path, wal, first);
		free(first);
		free(wal);
		return -1;
	}
	free(wal);
	free(first);
	uri = store_uri(path, "immutable=1");
	rc = store_connect(path, uri, stp, cause);
	free(uri);
	return rc == SQLITE_OK ? 0 : -1;
}

/*
 * Open the database at path, at STORE_VERSION.  With STORE_EXISTING it
 * must be there already (STORE_ABSENT if not, with nothing made); without,
 * it and its folders are made if need be.  With STORE_READ a database that
 * cannot be written here (a folder of someone else's, a read-only mount) is
 * opened read only instead of failing.
 */
int
store_open_flags(const char *path, int flags, struct store **stp,
    char **cause)
{
	struct stat	 sb;
	char		*first = NULL, *second = NULL;
	int		 rc;

	*stp = NULL;
	if (path == NULL || *path == '\0') {
		xasprintf(cause, "no database path");
		return -1;
	}
	if (flags & STORE_EXISTING) {
		if (stat(path, &sb) != 0 && (errno == ENOENT ||
		    errno == ENOTDIR)) {
			xasprintf(cause, "no incident database at %s", path);
			return STORE_ABSENT;
		}
	} else if (store_mkdirs(path, cause) != 0 ||
	    store_create(path, cause) != 0)
		return -1;

	if ((flags & STORE_READ) && !store_writable(path))
		return store_open_readonly(path, stp, cause);
	if ((rc = store_connect(path, NULL, stp, &first)) == SQLITE_OK)
		return 0;
	/* access() says yes to root, whom chattr +i still stops. */
	if ((flags & STORE_READ) && store_denied(rc)) {
		if (store_open_readonly(path, stp, &second) == 0) {
			free(first);
			return 0;
		}
		free(second);
	}
	/*
	 * SQLite's words for a file it may not write ("unable to open
	 * database file (No such file or directory)" on a read-only mount,
	 * where the -wal cannot be made) do not say so.
	 */
	if (store_denied(rc) && !store_writable(path)) {
		free(first);
		xasprintf(&first, "%s: cannot be written here: %s", path,
		    strerror(errno));
	}
	*cause = first;
	return -1;
}

/* Open (making it if need be) the database at path, to read and write. */
int
store_open(const char *path, struct store **stp, char **cause)
{
	return store_open_flags(path, 0, stp, cause);
}

/* Close the database; every statement is finalized first. */
void
store_close(struct store *st)
{
	size_t	i;

	if (st == NULL)
		return;
	for (i = 0; i < STMT_N; i++)
		sqlite3_finalize(st->stmt[i]);
	/* Busy here means a statement escaped the table: a bug. */
	if (sqlite3_close(st->db) != SQLITE_OK)
		fatal("%s: close: %s", st->path, sqlite3_errmsg(st->db));
	free(st->path);
	free(st);
}

/* $XDG_DATA_HOME/rankline/incidents.db, else under ~/.local/share. */
char *
store_default_path(void)
{
	return paths_user_data(STORE_FILE);
}

/*
 * Open the database at db (--db), or at the default path when db is NULL:
 * the one place analyze, history and the console find it.  As
 * store_open_flags, or STORE_NOWHERE, with *cause, when there is no
 * default path (neither XDG_DATA_HOME nor HOME is set).
 */
int
store_open_at(const char *db, int flags, struct store **stp, char **cause)
{
	char	*path;
	int	 rc;

	*stp = NULL;
	if ((path = db != NULL ? xstrdup(db) : store_default_path()) == NULL) {
		*cause = xstrdup("no place for the incident database (set "
		    "HOME or use --db)");
		return STORE_NOWHERE;
	}
	rc = store_open_flags(path, flags, stp, cause);
	free(path);
	return rc;
}

/* The schema version the database holds, or -1. */
int
store_user_version(struct store *st)
{
	struct store_q	q;
	int		version = -1;

	if (store_q_start(st, STMT_VERSION, &q, NULL) != 0)
		return -1;
	if (sqlite3_step(q.stmt) == SQLITE_ROW)
		version = sqlite3_column_int(q.stmt, 0);
	store_q_end(&q);
	return version;
}

/* Begin a write: the lock is taken now, waiting under the busy timeout. */
int
store_begin(struct store *st, char **cause)
{
	return store_run_id(st, STMT_BEGIN, 0, cause);
}

/* Commit what was begun. */
int
store_commit(struct store *st, char **cause)
{
	return store_run_id(st, STMT_COMMIT, 0, cause);
}

/* Undo what was begun; some errors (a full disk) ended it already. */
void
store_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		store_run_id(st, STMT_ROLLBACK, 0, NULL);
}

/* A copy of a text column, or NULL. */
char *
store_column(sqlite3_stmt *stmt, int col)
{
	const unsigned char	*p;

	if ((p = sqlite3_column_text(stmt, col)) == NULL)
		return NULL;
	return xstrndup((const char *)p, (size_t)sqlite3_column_bytes(stmt,
	    col));
}

