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

#include <sqlite3.h>

#include "store.h"

#define STORE_FILE	"incidents.db"	/* in the user's XDG data folder */
#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

/* Every statement the store runs; the SQL is in store_sql. */
enum store_stmt {
	STMT_BEGIN,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_VERSION,
	STMT_FIND,
	STMT_CREATE,
	STMT_UPDATE,
	STMT_CLEAR_SOURCES,
	STMT_CLEAR_RANKS,
	STMT_CLEAR_EVENTS,
	STMT_ADD_SOURCE,
	STMT_ADD_RANK,
	STMT_ADD_EVENT,
	STMT_GET,
	STMT_LIST,
	STMT_EXISTS,
	STMT_NOTE,
	STMT_EVENTS,
	STMT_N
};

/* What the history shows of an incident: store_row_read's column order. */
#define STORE_ROW_SQL							\
	"SELECT i.id, i.created, i.updated, i.started, i.signature,"	\
	" i.fingerprint, i.rank, i.host, i.domain, i.summary, i.text,"	\
	" (SELECT s.path FROM sources s WHERE s.incident_id = i.id"	\
	"  ORDER BY s.id LIMIT 1), i.nsources, i.nranks,"		\
	" (SELECT n.text FROM notes n WHERE n.incident_id = i.id"	\
	"  ORDER BY n.id DESC LIMIT 1)"					\
	" FROM incidents i"

static const char *const store_sql[STMT_N] = {
	/* IMMEDIATE takes the write lock now, under the busy timeout. */
	[STMT_BEGIN] = "BEGIN IMMEDIATE",
	[STMT_COMMIT] = "COMMIT",
	[STMT_ROLLBACK] = "ROLLBACK",
	[STMT_VERSION] = "PRAGMA user_version",
	[STMT_FIND] = "SELECT id FROM incidents WHERE key = ?",
	[STMT_CREATE] = "INSERT INTO incidents (key, created, updated)"
	    " VALUES (?1, ?2, ?2)",
	/* In the order of store_save_answer's binds. */
	[STMT_UPDATE] = "UPDATE incidents SET updated = ?, started = ?,"
	    " ended = ?, signature = ?, fingerprint = ?, rank = ?, host = ?,"
	    " role = ?, domain = ?, grp = ?, scope = ?, summary = ?,"
	    " explanation = ?, ckpt_status = ?, last_safe_step = ?, text = ?,"
	    " nsources = ?, nranks = ?, nevents = ?, nlines = ?, nbytes = ?"
	    " WHERE id = ?",
	[STMT_CLEAR_SOURCES] = "DELETE FROM sources WHERE incident_id = ?",
	[STMT_CLEAR_RANKS] = "DELETE FROM ranks WHERE incident_id = ?",
	[STMT_CLEAR_EVENTS] = "DELETE FROM events WHERE incident_id = ?",
	[STMT_ADD_SOURCE] = "INSERT INTO sources (incident_id, path, rank,"
	    " host, lines, bytes) VALUES (?, ?, ?, ?, ?, ?)",
	[STMT_ADD_RANK] = "INSERT INTO ranks (incident_id, rank, host, state,"
	    " first_time, last_time, lines, last_step)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	[STMT_ADD_EVENT] = "INSERT INTO events (incident_id, source, line,"
	    " byte_offset, time, rank, signature, role, domain, root, text)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[STMT_GET] = STORE_ROW_SQL " WHERE i.id = ?",
	[STMT_LIST] = STORE_ROW_SQL " WHERE ?1 IS NULL"
	    " OR i.signature LIKE ?1 ESCAPE '\\'"
	    " OR i.summary LIKE ?1 ESCAPE '\\'"
	    " OR i.text LIKE ?1 ESCAPE '\\'"
	    " OR i.host LIKE ?1 ESCAPE '\\'"
	    " OR EXISTS (SELECT 1 FROM notes n WHERE n.incident_id = i.id"
	    "  AND n.text LIKE ?1 ESCAPE '\\')"
	    " ORDER BY i.updated DESC, i.id DESC LIMIT ?2",
	[STMT_EXISTS] = "SELECT 1 FROM incidents WHERE id = ?",
	/* Inserts nothing for an unknown incident, rather than fail the key. */
	[STMT_NOTE] = "INSERT INTO notes (incident_id, created, text)"
	    " SELECT ?1, ?2, ?3 WHERE EXISTS"
	    " (SELECT 1 FROM incidents WHERE id = ?1)",
	[STMT_EVENTS] = "SELECT signature, line, time, role, text FROM events"
	    " WHERE incident_id = ? ORDER BY id",
};

/*
 * How many events of each role are kept.  A 10,000-rank job that fails
 * everywhere would otherwise store every rank's copy of the same error and
 * every step line; the logs still hold them all, and the ranks table keeps
 * each rank's state.  Progress keeps its latest, which are the ones that
 * tell where training stopped; the other roles keep their earliest, which
 * are nearest the first failure.  The first failure itself is always kept.
 */
static const struct {
	size_t		 max;		/* events of the role kept */
	bool		 latest;	/* keep the last max, not the first */
} store_caps[ROLE_NROLES] = {
	[ROLE_NONE] = { 256, false },
	[ROLE_ROOT] = { 1024, false },
	[ROLE_SYMPTOM] = { 1024, false },
	[ROLE_COLLATERAL] = { 512, false },
	[ROLE_WRAPPER] = { 256, false },
	[ROLE_PROGRESS] = { 256, true },
	[ROLE_EVIDENCE] = { 256, false },
	[ROLE_HANG] = { 1024, false },
};

struct store {
	sqlite3		*db;			/* the connection, owned */
	char		*path;			/* as opened, for causes */
	sqlite3_stmt	*stmt[STMT_N];		/* prepared on first use */
};

/* One use of a cached statement: its parameters are bound in order. */
struct store_q {
	sqlite3_stmt	*stmt;		/* borrowed from the store */
	int		 n;		/* parameters bound so far */
	int		 rc;		/* first bind error, or SQLITE_OK */
};

/* What one save works from. */
struct store_save {
	const struct rl_incident *inc;	/* borrowed */
	const struct rl_event *root;	/* the first failure, or NULL */
	char		**paths;	/* each source's absolute path, owned */
	char		 key[17];	/* hex FNV-1a 64 of the sorted paths */
	char		 now[32];	/* ISO 8601 UTC */
	int64_t		 id;
	bool		 updated;	/* the key was already stored */
};

/* The database's complaint, with the path, as a cause. */
static int
store_fail(struct store *st, char **cause)
{
	if (cause != NULL)
		xasprintf(cause, "%s: %s", st->path, sqlite3_errmsg(st->db));
	return -1;
}

/* Now, in UTC to the millisecond, so that text order is time order. */
static void
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
static int
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
static void
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
static void
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
static void
store_q_int(struct store_q *q, int64_t v)
{
	q->n++;
	store_q_check(q, sqlite3_bind_int64(q->stmt, q->n, v));
}

/* Bind a count; none reaches 2^63, but clamp rather than wrap. */
static void
store_q_count(struct store_q *q, uint64_t v)
{
	store_q_int(q, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

/* Bind a rank, step or index, with RL_NONE as NULL. */
static void
store_q_maybe(struct store_q *q, int v)
{
	if (v == RL_NONE) {
		q->n++;
		store_q_check(q, sqlite3_bind_null(q->stmt, q->n));
	} else
		store_q_int(q, v);
}

/* Bind a log time as clock.c writes it, or NULL when the log had none. */
static void
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
static int
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
static int
store_q_run(struct store *st, struct store_q *q, char **cause)
{
	int	rc;

	rc = store_q_step(st, q, cause);
	store_q_end(q);
	return rc == -1 ? -1 : 0;
}

/* Run a statement whose only parameter, if any, is an id. */
static int
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

/* Apply the settings every connection needs. */
static int
store_setup(struct store *st, char **cause)
{
	char	*error = NULL;
	size_t	 i;

	for (i = 0; i < sizeof store_setup_sql / sizeof *store_setup_sql;
	    i++) {
		if (store_setup_exec(st->db, store_setup_sql[i], &error) !=
		    SQLITE_OK) {
			xasprintf(cause, "%s: %s", st->path, error != NULL ?
			    error : sqlite3_errmsg(st->db));
			sqlite3_free(error);
			return -1;
		}
	}
	return 0;
}

/* Open (making it if need be) the database at path, at STORE_VERSION. */
int
store_open(const char *path, struct store **stp, char **cause)
{
	struct store	*st;

	*stp = NULL;
	if (path == NULL || *path == '\0') {
		xasprintf(cause, "no database path");
		return -1;
	}
	if (store_mkdirs(path, cause) != 0 || store_create(path, cause) != 0)
		return -1;

	st = xcalloc(1, sizeof *st);
	st->path = xstrdup(path);
	/* Not SQLITE_OPEN_CREATE: the file was made above, with its mode. */
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		store_fail(st, cause);
		goto fail;
	}
	if (store_setup(st, cause) != 0 ||
	    store_migrate(st->db, st->path, cause) != 0)
		goto fail;
	*stp = st;
	return 0;

fail:
	store_close(st);
	return -1;
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

/* Order paths bytewise, so that the key ignores argument order. */
static int
store_path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The incident's key: FNV-1a 64 over the sorted paths, each with its NUL so
 * that "ab"+"c" and "a"+"bc" differ.  Only identity, never security.
 */
static void
store_key(char **paths, size_t n, char *key, size_t len)
{
	char		**sorted;
	const char	 *p;
	uint64_t	  h = FNV_OFFSET;
	size_t		  i;

	sorted = xreallocarray(NULL, n, sizeof *sorted);
	if (n != 0) {
		memcpy(sorted, paths, n * sizeof *sorted);
		qsort(sorted, n, sizeof *sorted, store_path_cmp);
	}
	for (i = 0; i < n; i++) {
		p = sorted[i];
		do {
			h ^= (unsigned char)*p;
			h *= FNV_PRIME;
		} while (*p++ != '\0');
	}
	free(sorted);
	snprintf(key, len, "%016" PRIx64, h);
}

/* Resolve the paths, make the key and pick the root event. */
static void
store_save_init(struct store_save *s, const struct rl_incident *inc)
{
	const struct rl_source	*src;
	char			*real;
	size_t			 i;

	memset(s, 0, sizeof *s);
	s->inc = inc;
	s->paths = xcalloc(inc->nsources, sizeof *s->paths);
	for (i = 0; i < inc->nsources; i++) {
		src = inc->sources[i];
		/* A file by its real path; a command or stdin as given. */
		real = NULL;
		if (src->kind == SOURCE_FILE)
			real = realpath(src->path, NULL);
		s->paths[i] = xstrdup(real != NULL ? real : src->path);
		free(real);
	}
	store_key(s->paths, inc->nsources, s->key, sizeof s->key);
	store_now(s->now, sizeof s->now);
	if (inc->answer.first != RL_NONE) {
		assert((size_t)inc->answer.first < inc->nevents);
		s->root = &inc->events[inc->answer.first];
	}
}

/* Free what store_save_init made. */
static void
store_save_clear(struct store_save *s)
{
	size_t	i;

	for (i = 0; i < s->inc->nsources; i++)
		free(s->paths[i]);
	free(s->paths);
}

/* Where an event came from: its process's host, its source's or rank's. */
static const char *
store_event_host(const struct rl_incident *inc, const struct rl_event *ev)
{
	const struct rl_rank	*r;

	if (ev->process != RL_NONE && (size_t)ev->process < inc->nprocs &&
	    inc->procs[ev->process]->host != NULL)
		return inc->procs[ev->process]->host;
	if (ev->source < inc->nsources &&
	    inc->sources[ev->source]->host != NULL)
		return inc->sources[ev->source]->host;
	if (ev->rank != RL_NONE && (r = incident_rank(inc, ev->rank)) != NULL)
		return r->host;
	return NULL;
}

/* Find the incident by key, or make its row; either way s->id is set. */
static int
store_save_find(struct store *st, struct store_save *s, char **cause)
{
	struct store_q	q;
	int		rc;

	if (store_q_start(st, STMT_FIND, &q, cause) != 0)
		return -1;
	store_q_text(&q, s->key);
	if ((rc = store_q_step(st, &q, cause)) == 1)
		s->id = sqlite3_column_int64(q.stmt, 0);
	store_q_end(&q);
	if (rc == -1)
		return -1;
	if ((s->updated = (rc == 1)))
		return 0;

	if (store_q_start(st, STMT_CREATE, &q, cause) != 0)
		return -1;
	store_q_text(&q, s->key);
	store_q_text(&q, s->now);
	if (store_q_run(st, &q, cause) != 0)
		return -1;
	s->id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

/* Write the answer and the counts into the incident's row. */
static int
store_save_answer(struct store *st, struct store_save *s, char **cause)
{
	const struct rl_incident	*inc = s->inc;
	const struct rl_answer		*a = &inc->answer;
	const struct rl_event		*root = s->root;
	struct store_q			 q;

	if (store_q_start(st, STMT_UPDATE, &q, cause) != 0)
		return -1;
	store_q_text(&q, s->now);
	store_q_time(&q, &inc->start);
	store_q_time(&q, &inc->end);
	store_q_text(&q, root != NULL && root->rule != NULL ?
	    root->rule->id : NULL);
	store_q_text(&q, inc->fingerprint);
	store_q_maybe(&q, root != NULL ? root->rank : RL_NONE);
	store_q_text(&q, root != NULL ? store_event_host(inc, root) : NULL);
	store_q_text(&q, root != NULL ? role_name(a->first_role) : NULL);
	store_q_text(&q, domain_name(a->domain));
	store_q_text(&q, group_name(a->group));
	store_q_text(&q, scope_name(a->scope));
	store_q_text(&q, a->summary);
	store_q_text(&q, a->explanation);
	store_q_text(&q, ckpt_status_name(a->ckpt));
	store_q_maybe(&q, a->last_safe_step);
	store_q_text(&q, root != NULL ? root->text : NULL);
	store_q_count(&q, inc->nsources);
	store_q_count(&q, inc->nranks);
	store_q_count(&q, inc->nevents);
	store_q_count(&q, inc->lines);
	store_q_count(&q, inc->bytes);
	store_q_int(&q, s->id);
	return store_q_run(st, &q, cause);
}

/* Replace the incident's sources. */
static int
store_save_sources(struct store *st, struct store_save *s, char **cause)
{
	const struct rl_source	*src;
	struct store_q		 q;
	size_t			 i;

	for (i = 0; i < s->inc->nsources; i++) {
		src = s->inc->sources[i];
		if (store_q_start(st, STMT_ADD_SOURCE, &q, cause) != 0)
			return -1;
		store_q_int(&q, s->id);
		store_q_text(&q, s->paths[i]);
		store_q_maybe(&q, src->rank);
		store_q_text(&q, src->host);
		store_q_count(&q, src->lines);
		store_q_count(&q, src->bytes);
		if (store_q_run(st, &q, cause) != 0)
			return -1;
	}
	return 0;
}

/* Replace the incident's ranks: one row each, the map of who did what. */
static int
store_save_ranks(struct store *st, struct store_save *s, char **cause)
{
	const struct rl_rank	*r;
	struct store_q		 q;
	size_t			 i;

	for (i = 0; i < s->inc->nranks; i++) {
		r = &s->inc->ranks[i];
		if (store_q_start(st, STMT_ADD_RANK, &q, cause) != 0)
			return -1;
		store_q_int(&q, s->id);
		store_q_maybe(&q, r->rank);
		store_q_text(&q, r->host);
		store_q_text(&q, rank_state_name(r->state));
		store_q_time(&q, &r->first);
		store_q_time(&q, &r->last);
		store_q_count(&q, r->lines);
		store_q_maybe(&q, r->last_step);
		if (store_q_run(st, &q, cause) != 0)
			return -1;
	}
	return 0;
}

/* Store one event. */
static int
store_save_event(struct store *st, struct store_save *s,
    const struct rl_event *ev, char **cause)
{
	struct store_q	q;

	assert(ev->source < s->inc->nsources);
	if (store_q_start(st, STMT_ADD_EVENT, &q, cause) != 0)
		return -1;
	store_q_int(&q, s->id);
	store_q_text(&q, s->paths[ev->source]);
	store_q_count(&q, ev->line);
	store_q_count(&q, ev->offset);
	store_q_time(&q, &ev->time);
	store_q_maybe(&q, ev->rank);
	store_q_text(&q, ev->rule != NULL ? ev->rule->id : NULL);
	store_q_text(&q, role_name(ev->role));
	store_q_text(&q, ev->rule != NULL ? domain_name(ev->rule->domain) :
	    NULL);
	store_q_int(&q, ev == s->root);
	store_q_text(&q, ev->text);
	return store_q_run(st, &q, cause);
}

/* Whether the nth (from 0) of count events of a role is within its cap. */
static bool
store_event_kept(enum rl_role role, size_t nth, size_t count)
{
	if (store_caps[role].latest)
		return nth + store_caps[role].max >= count;
	return nth < store_caps[role].max;
}

/* Replace the incident's events, within the caps of each role. */
static int
store_save_events(struct store *st, struct store_save *s, char **cause)
{
	const struct rl_event	*ev;
	size_t			 count[ROLE_NROLES] = { 0 };
	size_t			 seen[ROLE_NROLES] = { 0 };
	size_t			 i;

	for (i = 0; i < s->inc->nevents; i++) {
		assert(s->inc->events[i].role < ROLE_NROLES);
		count[s->inc->events[i].role]++;
	}
	for (i = 0; i < s->inc->nevents; i++) {
		ev = &s->inc->events[i];
		if (!store_event_kept(ev->role, seen[ev->role]++,
		    count[ev->role]) && ev != s->root)
			continue;
		if (store_save_event(st, s, ev, cause) != 0)
			return -1;
	}
	return 0;
}

/* Write the whole incident, inside the transaction. */
static int
store_save_all(struct store *st, struct store_save *s, char **cause)
{
	static const enum store_stmt	 clear[] = {
		STMT_CLEAR_SOURCES, STMT_CLEAR_RANKS, STMT_CLEAR_EVENTS
	};
	size_t				 i;

	if (store_save_find(st, s, cause) != 0 ||
	    store_save_answer(st, s, cause) != 0)
		return -1;
	/* In place: INSERT OR REPLACE would delete, and cascade to notes. */
	for (i = 0; s->updated && i < sizeof clear / sizeof *clear; i++) {
		if (store_run_id(st, clear[i], s->id, cause) != 0)
			return -1;
	}
	if (store_save_sources(st, s, cause) != 0 ||
	    store_save_ranks(st, s, cause) != 0 ||
	    store_save_events(st, s, cause) != 0)
		return -1;
	return store_run_id(st, STMT_COMMIT, 0, cause);
}

/*
 * Save an incident in one transaction: a new row, or the row of the same
 * logs updated in place (*updated true).  Nothing is written on failure.
 */
int
store_save(struct store *st, const struct rl_incident *inc, int64_t *id,
    bool *updated, char **cause)
{
	struct store_save	s;
	int			rc = 0;

	store_save_init(&s, inc);
	if (store_run_id(st, STMT_BEGIN, 0, cause) != 0)
		rc = -1;
	else if (store_save_all(st, &s, cause) != 0) {
		/* Some errors (a full disk) end the transaction themselves. */
		if (!sqlite3_get_autocommit(st->db))
			store_run_id(st, STMT_ROLLBACK, 0, NULL);
		rc = -1;
	}
	if (rc == 0) {
		*id = s.id;
		*updated = s.updated;
	}
	store_save_clear(&s);
	return rc;
}

/* A copy of a text column, or NULL. */
static char *
store_column(sqlite3_stmt *stmt, int col)
{
	const unsigned char	*p;

	if ((p = sqlite3_column_text(stmt, col)) == NULL)
		return NULL;
	return xstrndup((const char *)p, (size_t)sqlite3_column_bytes(stmt,
	    col));
}

/* Fill a row from a STORE_ROW_SQL result, in its column order. */
static void
store_row_read(sqlite3_stmt *stmt, struct store_row *row)
{
	char	*first;
	int64_t	 nsources;

	memset(row, 0, sizeof *row);
	row->id = sqlite3_column_int64(stmt, 0);
	row->created = store_column(stmt, 1);
	row->updated = store_column(stmt, 2);
	row->started = store_column(stmt, 3);
	row->signature = store_column(stmt, 4);
	row->fingerprint = store_column(stmt, 5);
	row->rank = sqlite3_column_type(stmt, 6) == SQLITE_NULL ? RL_NONE :
	    sqlite3_column_int(stmt, 6);
	row->host = store_column(stmt, 7);
	row->domain = store_column(stmt, 8);
	row->summary = store_column(stmt, 9);
	row->text = store_column(stmt, 10);
	first = store_column(stmt, 11);
	nsources = sqlite3_column_int64(stmt, 12);
	if (first != NULL && nsources > 1) {
		xasprintf(&row->sources, "%s (+%" PRId64 " more)", first,
		    nsources - 1);
		free(first);
	} else
		row->sources = first;
	row->nranks = sqlite3_column_int(stmt, 13);
	row->note = store_column(stmt, 14);
}

/* A LIKE pattern matching query anywhere, its own % _ and \ escaped. */
static char *
store_like(const char *query)
{
	struct buf	b = { 0 };

	buf_addc(&b, '%');
	for (; *query != '\0'; query++) {
		if (*query == '%' || *query == '_' || *query == '\\')
			buf_addc(&b, '\\');
		buf_addc(&b, *query);
	}
	buf_addc(&b, '%');
	return buf_steal(&b);
}

/*
 * The stored incidents, last updated first, at most limit (0 or less for
 * all), matching query (NULL or empty for all) in signature, summary, root
 * line, host or notes, case-insensitively for ASCII.
 */
int
store_list(struct store *st, const char *query, int limit,
    struct store_list *list, char **cause)
{
	struct store_q	 q;
	char		*like = NULL;
	size_t		 cap = 0;
	int		 rc;

	list->rows = NULL;
	list->n = 0;
	if (store_q_start(st, STMT_LIST, &q, cause) != 0)
		return -1;
	if (query != NULL && *query != '\0')
		like = store_like(query);
	store_q_text(&q, like);
	store_q_int(&q, limit > 0 ? limit : -1);
	while ((rc = store_q_step(st, &q, cause)) == 1) {
		if (list->n == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			list->rows = xreallocarray(list->rows, cap,
			    sizeof *list->rows);
		}
		store_row_read(q.stmt, &list->rows[list->n++]);
	}
	store_q_end(&q);
	free(like);
	if (rc == -1) {
		store_list_free(list);
		return -1;
	}
	return 0;
}

/* One stored incident by id; an unknown id is an error. */
int
store_get(struct store *st, int64_t id, struct store_row *row, char **cause)
{
	struct store_q	q;
	int		rc;

	memset(row, 0, sizeof *row);
	if (store_q_start(st, STMT_GET, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	if ((rc = store_q_step(st, &q, cause)) == 1)
		store_row_read(q.stmt, row);
	store_q_end(&q);
	if (rc == 0)
		xasprintf(cause, "%s: no incident %" PRId64, st->path, id);
	return rc == 1 ? 0 : -1;
}

/* Whether an incident is stored: 1, 0, or -1 with the cause. */
static int
store_exists(struct store *st, int64_t id, char **cause)
{
	struct store_q	q;
	int		rc;

	if (store_q_start(st, STMT_EXISTS, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	rc = store_q_step(st, &q, cause);
	store_q_end(&q);
	if (rc == 0)
		xasprintf(cause, "%s: no incident %" PRId64, st->path, id);
	return rc;
}

/* Add the engineer's note to an incident; the newest is the row's note. */
int
store_note(struct store *st, int64_t id, const char *text, char **cause)
{
	struct store_q	q;
	char		now[32];

	assert(text != NULL);
	store_now(now, sizeof now);
	if (store_q_start(st, STMT_NOTE, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	store_q_text(&q, now);
	store_q_text(&q, text);
	if (store_q_step(st, &q, cause) == -1) {
		store_q_end(&q);
		return -1;
	}
	store_q_end(&q);
	if (sqlite3_changes(st->db) == 0) {
		xasprintf(cause, "%s: no incident %" PRId64, st->path, id);
		return -1;
	}
	return 0;
}

/*
 * Call cb for each stored event of an incident, in stored order, with its
 * signature, line, time, role and text (borrowed for the call).  The
 * callback must not call store_events itself.
 */
int
store_events(struct store *st, int64_t id,
    void (*cb)(void *, const char *, int64_t, const char *, const char *,
    const char *), void *arg, char **cause)
{
	struct store_q	q;
	size_t		n = 0;
	int		rc;

	if (store_q_start(st, STMT_EVENTS, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	while ((rc = store_q_step(st, &q, cause)) == 1) {
		n++;
		cb(arg, (const char *)sqlite3_column_text(q.stmt, 0),
		    sqlite3_column_int64(q.stmt, 1),
		    (const char *)sqlite3_column_text(q.stmt, 2),
		    (const char *)sqlite3_column_text(q.stmt, 3),
		    (const char *)sqlite3_column_text(q.stmt, 4));
	}
	store_q_end(&q);
	if (rc == -1)
		return -1;
	/* No events is a healthy run, or an unknown id. */
	if (n == 0 && store_exists(st, id, cause) != 1)
		return -1;
	return 0;
}

/* Free a row's strings; the row itself is the caller's. */
void
store_row_free(struct store_row *row)
{
	free(row->created);
	free(row->updated);
	free(row->started);
	free(row->signature);
	free(row->fingerprint);
	free(row->host);
	free(row->domain);
	free(row->summary);
	free(row->text);
	free(row->sources);
	free(row->note);
	memset(row, 0, sizeof *row);
}

/* Free a list's rows; it is left empty, ready for another store_list. */
void
store_list_free(struct store_list *list)
{
	size_t	i;

	for (i = 0; i < list->n; i++)
		store_row_free(&list->rows[i]);
	free(list->rows);
	list->rows = NULL;
	list->n = 0;
}
