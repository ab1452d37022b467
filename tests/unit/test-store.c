/*
 * test-store.c: the incident database, against real files in a fresh
 * temporary folder.
 *
 * What matters is what the store promises the console: a database nobody
 * else can read, one row per set of logs however often they are analysed,
 * hostile log text kept byte for byte and never run as SQL, writers in two
 * processes both succeeding, and a database from a newer rankline refused
 * with a cause that says so.  The test speaks no SQL itself; where it needs
 * a database in a given state it writes the file format, or lets the store
 * make it.  Every test closes all it opened, so ASan sees no leak.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "store.h"
#include "tap.h"

/* Log text as a hostile job can print it (NUL-free: a line ends there). */
#define HOSTILE								\
	"it's \"quoted\" '); DROP TABLE incidents; -- 100% a_b \\ "	\
	"\x1b[31mred\x1b[0m \x1b]0;title\x07 \r\t \x80\xfe\xff\xc3\x28 end"

static char	*tmp;			/* the test's folder */

static struct rl_rule rule_oom = {
	.id = "torch.cuda_oom", .role = ROLE_ROOT, .domain = DOMAIN_CODE
};
static struct rl_rule rule_step = {
	.id = "progress.step", .role = ROLE_PROGRESS, .mark = MARK_STEP
};
static struct rl_rule rule_peer = {
	.id = "nccl.peer_gone", .role = ROLE_COLLATERAL, .domain = DOMAIN_INFRA
};

/* A path in the test's folder; the caller frees it. */
static char *
tmp_path(const char *name)
{
	char	*p;

	xasprintf(&p, "%s/%s", tmp, name);
	return p;
}

/* Make a file so that realpath finds it. */
static void
touch(const char *path)
{
	int	fd;

	if ((fd = open(path, O_WRONLY|O_CREAT, 0600)) != -1)
		close(fd);
}

/* Add an event with a rule, a rank, a line and a time. */
static struct rl_event *
add_event(struct rl_incident *inc, const struct rl_rule *rule, int rank,
    uint64_t line, const char *text)
{
	struct rl_event	*ev;

	ev = incident_add_event(inc);
	ev->source = (unsigned)(line % inc->nsources);
	ev->line = line;
	ev->rank = rank;
	ev->rule = rule;
	ev->role = rule->role;
	ev->time.flags = RL_TIME_VALID;
	ev->time.ms = INT64_C(1796216803123) + (int64_t)line;
	ev->text = xstrdup(text);
	return ev;
}

/* An answered incident of two ranks read from the given paths. */
static struct rl_incident *
make_incident(const char *const *paths, size_t npaths, const char *summary,
    const char *root_text)
{
	struct rl_incident	*inc;
	struct rl_source	*src;
	size_t			 i;

	inc = incident_create(NULL);
	for (i = 0; i < npaths; i++) {
		src = incident_add_source(inc, paths[i], SOURCE_FILE);
		src->rank = (int)i;
		src->host = xstrdup("gpu-node-07");
		src->lines = 1000 + i;
		src->bytes = 100000 + i;
	}
	inc->ranks = xcalloc(2, sizeof *inc->ranks);
	inc->nranks = 2;
	for (i = 0; i < 2; i++) {
		inc->ranks[i].rank = (int)i;
		inc->ranks[i].host = xstrdup("gpu-node-07");
		inc->ranks[i].state = i == 0 ? RANK_FAILED : RANK_COLLATERAL;
		inc->ranks[i].first_event = RL_NONE;
		inc->ranks[i].last_step = 41;
	}
	add_event(inc, &rule_step, 0, 10, "step 41 loss 2.3");
	add_event(inc, &rule_oom, 0, 20, root_text);
	add_event(inc, &rule_peer, 1, 31, "peer rank 0 gone");
	inc->answer.first = 1;
	inc->answer.first_role = ROLE_ROOT;
	inc->answer.domain = DOMAIN_CODE;
	inc->answer.group = GROUP_CAPACITY;
	inc->answer.scope = SCOPE_ONE;
	inc->answer.summary = xstrdup(summary);
	inc->answer.explanation = xstrdup("the first error in time");
	inc->answer.ckpt = CKPT_SAFE;
	inc->answer.last_safe_step = 40;
	inc->start = inc->events[0].time;
	inc->end = inc->events[2].time;
	inc->lines = 2001;
	inc->bytes = 200001;
	fingerprint_incident(inc);
	return inc;
}

/* What store_events handed back. */
struct seen {
	size_t		  n;
	size_t		  progress;	/* events with the step rule */
	char		**text;		/* each event's text, owned */
	char		 *last_sig;	/* the last event's signature */
	int64_t		  last_line;
	bool		  timed;	/* the first had the expected time */
};

/* store_events' callback: keep what the checks look at. */
static void
seen_cb(void *arg, const struct store_event *e)
{
	struct seen	*s = arg;
	const char	*sig = e->signature, *time = e->time, *text = e->text;
	int64_t		 line = e->line;
	if (s->n == 0)
		s->timed = time != NULL &&
		    strncmp(time, "2026-12-02T", 11) == 0;
	s->text = xreallocarray(s->text, s->n + 1, sizeof *s->text);
	s->text[s->n++] = xstrdup(text != NULL ? text : "(null)");
	if (sig != NULL && strcmp(sig, "progress.step") == 0)
		s->progress++;
	free(s->last_sig);
	s->last_sig = sig != NULL ? xstrdup(sig) : NULL;
	s->last_line = line;
}

/* Free what seen_cb kept. */
static void
seen_free(struct seen *s)
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		free(s->text[i]);
	free(s->text);
	free(s->last_sig);
	memset(s, 0, sizeof *s);
}

/* Open a database in the test folder; NULL (and a failed check) if not. */
static struct store *
open_db(const char *name)
{
	struct store	*st;
	char		*path, *cause = NULL;

	path = tmp_path(name);
	if (!ok(store_open(path, &st, &cause) == 0, "open %s", name)) {
		printf("#   %s\n", cause);
		free(cause);
		st = NULL;
	}
	free(path);
	return st;
}

/* The mode bits of a path, or -1. */
static int
mode_of(const char *path)
{
	struct stat	sb;

	return stat(path, &sb) == 0 ? (int)(sb.st_mode & 07777) : -1;
}

/* XDG_DATA_HOME when absolute, else HOME. */
static void
test_default_path(void)
{
	char	*p;

	setenv("XDG_DATA_HOME", "/data/xdg", 1);
	p = store_default_path();
	is_str(p, "/data/xdg/rankline/incidents.db", "default path: XDG");
	free(p);
	setenv("XDG_DATA_HOME", "relative/dir", 1);
	setenv("HOME", "/home/eng", 1);
	p = store_default_path();
	is_str(p, "/home/eng/.local/share/rankline/incidents.db",
	    "default path: relative XDG is ignored for HOME");
	free(p);
	unsetenv("XDG_DATA_HOME");
}

/* 0600 and 0700 whatever the umask, the WAL included. */
static void
test_modes(void)
{
	struct store	*st;
	char		*db, *a, *b, *wal, *cause = NULL;
	mode_t		 old;

	db = tmp_path("a/b/incidents.db");
	a = tmp_path("a");
	b = tmp_path("a/b");
	/* With no umask at all, nothing may come out wider. */
	old = umask(0);
	ok(store_open(db, &st, &cause) == 0, "open creates the folders");
	umask(old);
	is_int(mode_of(db), 0600, "database is 0600");
	xasprintf(&wal, "%s-wal", db);
	is_int(mode_of(wal), 0600, "its WAL, made by the migration, is 0600");
	free(wal);
	is_int(mode_of(a), 0700, "new parent folder is 0700");
	is_int(mode_of(b), 0700, "new folder is 0700");
	is_int(store_user_version(st), STORE_VERSION, "new database migrated");
	store_close(st);

	/* A umask that takes the owner's bits must not lock us out. */
	free(db);
	db = tmp_path("c/incidents.db");
	old = umask(0277);
	ok(store_open(db, &st, &cause) == 0, "open under umask 0277");
	umask(old);
	is_int(mode_of(db), 0600, "database still 0600 under umask 0277");
	store_close(st);
	ok(store_open(db, &st, &cause) == 0, "reopen an existing database");
	is_int(store_user_version(st), STORE_VERSION, "reopened at version");
	store_close(st);
	free(db);
	free(a);
	free(b);
}

/* What cannot be opened says why, naming the path. */
static void
test_open_errors(void)
{
	struct store	*st = (struct store *)1;
	char		*file, *db, *cause = NULL;
	FILE		*f;

	file = tmp_path("plain");
	touch(file);
	xasprintf(&db, "%s/incidents.db", file);
	ok(store_open(db, &st, &cause) == -1 && st == NULL,
	    "folder that is a file: fails");
	ok(cause != NULL && strstr(cause, file) != NULL &&
	    strstr(cause, "Not a directory") != NULL, "cause names it: %s",
	    cause);
	free(cause);
	free(db);

	/* Someone's notes, not a database. */
	if ((f = fopen(file, "w")) != NULL) {
		fputs("this is not a database, it is a long enough text file "
		    "to have a header's worth of bytes in it, and more.\n", f);
		fclose(f);
	}
	cause = NULL;
	ok(store_open(file, &st, &cause) == -1 && st == NULL,
	    "text file: fails");
	ok(cause != NULL && strstr(cause, file) != NULL &&
	    strstr(cause, "not a database") != NULL, "cause says so: %s",
	    cause);
	free(cause);
	free(file);

	cause = NULL;
	ok(store_open("", &st, &cause) == -1 && cause != NULL,
	    "empty path: fails");
	free(cause);
}

/* The same logs again: the same row, updated, its notes kept. */
static void
test_save_update(void)
{
	struct store		*st;
	struct rl_incident	*inc;
	struct store_list	 list;
	struct store_row	 row;
	struct seen		 s = { 0 };
	char			*p0, *p1, *cause = NULL;
	const char		*paths[2], *swapped[2];
	int64_t			 id = -1, id2 = -2;
	bool			 updated;

	if ((st = open_db("save.db")) == NULL)
		return;
	p0 = tmp_path("rank0.log");
	p1 = tmp_path("rank1.log");
	touch(p0);
	paths[0] = swapped[1] = p0;
	paths[1] = swapped[0] = p1;	/* rank1.log is absent: kept as given */

	inc = make_incident(paths, 2, "rank 0 ran out of GPU memory",
	    "torch.OutOfMemoryError: CUDA out of memory");
	ok(store_save(st, inc, &id, &updated, &cause) == 0 && !updated,
	    "first save inserts");
	incident_free(inc);
	ok(store_note(st, id, NOTE_DIAGNOSIS, "bumped the batch down", &cause) == 0,
	    "note added");
	ok(store_note(st, id, NOTE_DIAGNOSIS, "fixed by a smaller batch", &cause) == 0,
	    "second note added");

	/* The same logs named in another order are the same incident. */
	inc = make_incident(swapped, 2, "rank 0 ran out of GPU memory, again",
	    "torch.OutOfMemoryError: CUDA out of memory");
	inc->events[1].rank = 1;
	ok(store_save(st, inc, &id2, &updated, &cause) == 0 && updated,
	    "second save updates");
	is_int(id2, id, "same id");
	incident_free(inc);

	ok(store_list(st, NULL, 0, &list, &cause) == 0, "list");
	is_int(list.n, 1, "one row");
	store_list_free(&list);

	ok(store_get(st, id, &row, &cause) == 0, "get");
	is_str(row.signature, "torch.cuda_oom", "signature is the root rule");
	is_str(row.summary, "rank 0 ran out of GPU memory, again",
	    "summary replaced");
	is_str(row.text, "torch.OutOfMemoryError: CUDA out of memory",
	    "root line");
	is_int(row.rank, 1, "rank of the new root");
	is_str(row.host, "gpu-node-07", "host");
	is_str(row.domain, "code", "domain");
	ok(row.fingerprint != NULL && strncmp(row.fingerprint, "1:", 2) == 0,
	    "fingerprint of scheme 1: %s", row.fingerprint);
	is_str(row.template, "torch.OutOfMemoryError: CUDA out of memory",
	    "template");
	is_str(row.started, "2026-12-02T13:06:43.133", "started as clock.c");
	is_int(row.nranks, 2, "nranks");
	ok(row.sources != NULL && strstr(row.sources, "(+1 more)") != NULL,
	    "sources: %s", row.sources);
	is_str(row.note, "fixed by a smaller batch", "notes kept, newest one");
	ok(row.created != NULL && row.updated != NULL &&
	    strcmp(row.updated, row.created) >= 0, "created %s, updated %s",
	    row.created, row.updated);
	store_row_free(&row);

	ok(store_events(st, id, seen_cb, &s, &cause) == 0, "events");
	is_int(s.n, 3, "events replaced, not added");
	ok(s.timed, "event time formatted");
	is_str(s.last_sig, "nccl.peer_gone", "events in order");
	is_int(s.last_line, 31, "event line");
	seen_free(&s);

	free(p0);
	free(p1);
	store_close(st);
}

/* An unknown id is an error with a cause, never a crash or an empty row. */
static void
test_missing(void)
{
	struct store		*st;
	struct store_row	 row;
	struct seen		 s = { 0 };
	char			*cause = NULL;
	int			 rc;

	if ((st = open_db("missing.db")) == NULL)
		return;
	/* Each call before its check: argument order is unspecified. */
	rc = store_get(st, 42, &row, &cause);
	ok(rc == -1 && cause != NULL && strstr(cause, "no incident 42") != NULL,
	    "get unknown: %s", cause);
	free(cause);
	cause = NULL;
	rc = store_note(st, 42, NOTE_DIAGNOSIS, "x", &cause);
	ok(rc == -1 && cause != NULL, "note on unknown: %s", cause);
	free(cause);
	cause = NULL;
	rc = store_events(st, 42, seen_cb, &s, &cause);
	ok(rc == -1 && cause != NULL && s.n == 0, "events of unknown: %s",
	    cause);
	free(cause);
	store_close(st);
}

/* Hostile text in and out byte for byte; LIKE's characters are literal. */
static void
test_hostile(void)
{
	struct store		*st;
	struct rl_incident	*inc;
	struct store_list	 list;
	struct store_row	 row;
	struct seen		 s = { 0 };
	const char		*paths[1] = { "/no/such/'); DROP TABLE x; --" };
	const char		*plain[1] = { "/no/such/plain.log" };
	char			*cause = NULL;
	int64_t			 id = -1, other = -2;
	bool			 updated;

	if ((st = open_db("hostile.db")) == NULL)
		return;
	inc = make_incident(paths, 1, HOSTILE, HOSTILE);
	ok(store_save(st, inc, &id, &updated, &cause) == 0, "hostile saved");
	incident_free(inc);
	inc = make_incident(plain, 1, "disk 1000 full, axb", "plain");
	ok(store_save(st, inc, &other, &updated, &cause) == 0, "plain saved");
	incident_free(inc);
	ok(store_note(st, id, NOTE_DIAGNOSIS, HOSTILE, &cause) == 0, "hostile note");

	ok(store_get(st, id, &row, &cause) == 0, "hostile read back");
	ok(row.summary != NULL && strcmp(row.summary, HOSTILE) == 0,
	    "summary byte-identical");
	ok(row.text != NULL && strcmp(row.text, HOSTILE) == 0,
	    "root line byte-identical");
	ok(row.note != NULL && strcmp(row.note, HOSTILE) == 0,
	    "note byte-identical");
	is_str(row.sources, paths[0], "source path byte-identical");
	store_row_free(&row);

	ok(store_events(st, id, seen_cb, &s, &cause) == 0 && s.n == 3 &&
	    strcmp(s.text[1], HOSTILE) == 0, "event text byte-identical");
	seen_free(&s);

	/* LIKE's own characters match themselves only. */
	ok(store_list(st, "100%", 0, &list, &cause) == 0 && list.n == 1 &&
	    list.rows[0].id == id, "'100%%' matches only 100%%");
	store_list_free(&list);
	ok(store_list(st, "a_b", 0, &list, &cause) == 0 && list.n == 1 &&
	    list.rows[0].id == id, "'a_b' does not match axb");
	store_list_free(&list);
	ok(store_list(st, "'); DROP TABLE", 0, &list, &cause) == 0 &&
	    list.n == 1, "SQL in a query is text");
	store_list_free(&list);
	ok(store_list(st, "DISK 1000", 0, &list, &cause) == 0 && list.n == 1 &&
	    list.rows[0].id == other, "query ignores ASCII case");
	store_list_free(&list);
	ok(store_list(st, "GPU-NODE", 0, &list, &cause) == 0 && list.n == 2,
	    "query matches the host");
	store_list_free(&list);
	ok(store_list(st, "no such words", 0, &list, &cause) == 0 &&
	    list.n == 0 && list.rows == NULL, "query matching nothing");
	store_list_free(&list);
	ok(store_list(st, NULL, 1, &list, &cause) == 0 && list.n == 1 &&
	    list.rows[0].id == other, "limit 1: the newest");
	store_list_free(&list);
	ok(store_list(st, "", 0, &list, &cause) == 0 && list.n == 2,
	    "empty query is all; tables all there");
	store_list_free(&list);
	store_close(st);
}

/* Search the notes: a note's words find its incident. */
static void
test_note_search(void)
{
	struct store		*st;
	struct rl_incident	*inc;
	struct store_list	 list;
	const char		*paths[1] = { "/no/such/job.log" };
	char			*cause = NULL;
	int64_t			 id = -1;
	bool			 updated = false;

	if ((st = open_db("notes.db")) == NULL)
		return;
	inc = make_incident(paths, 1, "oom", "oom");
	store_save(st, inc, &id, &updated, &cause);
	incident_free(inc);
	store_note(st, id, NOTE_DIAGNOSIS, "ticket INFRA-2231", &cause);
	ok(store_list(st, "infra-2231", 0, &list, &cause) == 0 &&
	    list.n == 1 && list.rows[0].id == id, "found by its note");
	store_list_free(&list);
	store_close(st);
}

/* A big job: thousands of steps and peers, stored within the caps. */
static void
test_caps(void)
{
	struct store		*st;
	struct rl_incident	*inc;
	struct seen		 s = { 0 };
	const char		*paths[1] = { "/no/such/big.log" };
	char			*cause = NULL;
	int64_t			 id = -1;
	uint64_t		 line = 100;
	bool			 updated, root = false;
	size_t			 i;
	int			 first;

	if ((st = open_db("caps.db")) == NULL)
		return;
	inc = make_incident(paths, 1, "big", "seed");
	for (i = 0; i < 10000; i++)
		add_event(inc, &rule_step, (int)i, line++, "step");
	first = (int)inc->nevents;
	add_event(inc, &rule_oom, 7, line++, "the root of it all");
	for (i = 0; i < 3000; i++)
		add_event(inc, &rule_peer, (int)i, line++, "peer gone");
	add_event(inc, &rule_step, 0, line++, "the very last step");
	inc->answer.first = first;
	ok(store_save(st, inc, &id, &updated, &cause) == 0, "big saved");
	ok(store_events(st, id, seen_cb, &s, &cause) == 0, "big events");
	ok(s.n < 2000, "stored %zu of %zu events", s.n, inc->nevents);
	ok(s.progress <= 256, "progress capped: %zu", s.progress);
	for (i = 0; i < s.n; i++)
		root |= strcmp(s.text[i], "the root of it all") == 0;
	ok(root, "the first failure is kept");
	is_str(s.text[s.n - 1], "the very last step", "latest progress kept");
	seen_free(&s);
	incident_free(inc);
	store_close(st);
}

/* Save n incidents with distinct paths from first on; how many failed. */
static int
save_many(struct store *st, const char *who, int first, int n)
{
	struct rl_incident	*inc;
	char			*path, *cause = NULL;
	const char		*paths[1];
	int64_t			 id = -1;
	bool			 updated = false;
	int			 i, failed = 0;

	for (i = first; i < first + n; i++) {
		xasprintf(&path, "/no/such/%s/%d.log", who, i);
		paths[0] = path;
		inc = make_incident(paths, 1, who, "oom");
		if (store_save(st, inc, &id, &updated, &cause) != 0) {
			printf("# %s: %s\n", who, cause);
			free(cause);
			cause = NULL;
			failed++;
		}
		incident_free(inc);
		free(path);
	}
	return failed;
}

/* Two connections in one process, writes interleaved. */
static void
test_two_handles(void)
{
	struct store		*a, *b;
	struct rl_incident	*inc;
	struct store_list	 list;
	const char		*paths[1] = { "/no/such/shared.log" };
	char			*cause = NULL;
	int64_t			 ida = -1, idb = -2;
	bool			 upa = true, upb = false;
	int			 i, rc, failed = 0;

	a = open_db("two.db");
	b = open_db("two.db");
	if (a == NULL || b == NULL) {
		store_close(a);
		store_close(b);
		return;
	}
	for (i = 0; i < 10; i++) {
		failed += save_many(a, "a", i, 1);
		failed += save_many(b, "b", i, 1);
	}
	is_int(failed, 0, "interleaved saves all succeed");
	inc = make_incident(paths, 1, "shared", "oom");
	ok(store_save(a, inc, &ida, &upa, &cause) == 0 &&
	    store_save(b, inc, &idb, &upb, &cause) == 0, "same logs by both");
	ok(ida == idb && !upa && upb, "one row, second is an update");
	incident_free(inc);
	rc = store_list(b, NULL, 0, &list, &cause);
	ok(rc == 0 && list.n == 21, "b sees a's rows: %zu", list.n);
	store_list_free(&list);
	store_close(a);
	store_close(b);
}

/* A child process writing while the parent writes. */
static void
test_fork(void)
{
	struct store		*st;
	struct store_list	 list;
	char			*path, *cause = NULL;
	pid_t			 pid;
	int			 status, failed, rc;

	path = tmp_path("fork.db");
	/* Nothing open across fork: SQLite connections must not be shared. */
	fflush(stdout);
	if ((pid = fork()) == 0) {
		failed = 1;
		if (store_open(path, &st, &cause) == 0) {
			failed = save_many(st, "child", 0, 50);
			store_close(st);
		} else {
			printf("# child: %s\n", cause);
			free(cause);
		}
		free(path);
		exit(failed == 0 ? 0 : 1);
	}
	failed = -1;
	if (store_open(path, &st, &cause) == 0) {
		failed = save_many(st, "parent", 0, 50);
		store_close(st);
	} else {
		printf("# %s\n", cause);
		free(cause);
		cause = NULL;
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "child's saves all succeed");
	is_int(failed, 0, "parent's saves all succeed");
	if (store_open(path, &st, &cause) == 0) {
		rc = store_list(st, NULL, 0, &list, &cause);
		ok(rc == 0 && list.n == 100, "both writers' rows: %zu",
		    list.n);
		store_list_free(&list);
		store_close(st);
	} else
		free(cause);
	free(path);
}

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

/* nftw's callback: remove what it walks, children first. */
static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove the test folder and all the store left in it. */
static void
rm_tmp(const char *dir)
{
	if (nftw(dir, rm_one, 8, FTW_DEPTH|FTW_PHYS) != 0)
		printf("# could not remove %s\n", dir);
}

/* Run every test in one fresh folder, then remove it. */
int
main(void)
{
	char	templ[] = "/tmp/test-store.XXXXXX";

	if ((tmp = mkdtemp(templ)) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_default_path();
	test_modes();
	test_open_errors();
	test_save_update();
	test_missing();
	test_hostile();
	test_note_search();
	test_caps();
	test_two_handles();
	test_fork();
	test_versions();
	rm_tmp(tmp);
	return tap_done();
}
