/*
 * test-store.c: the incident database, against real files in a fresh
 * temporary folder.
 *
 * What matters is what the store promises the console: a database nobody
 * else can read, one row per set of logs however often they are analysed,
 * hostile log text kept byte for byte and never run as SQL, writers in two
 * processes both succeeding, and a database from a newer rankline refused
 * with a cause that says so.  The test speaks SQL only to build a database
 * as an older rankline left it (running that version's DDL, copied here
 * as released), to check that the store walks it forward.  Every test
 * closes all it opened, so ASan sees no leak.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <sqlite3.h>

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
	ev->text = incident_own(inc, xstrdup(text));
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
	inc->start = inc->events[0]->time;
	inc->end = inc->events[2]->time;
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
	inc->events[1]->rank = 1;
	ok(store_save(st, inc, &id2, &updated, &cause) == 0 && updated,
	    "second save updates");
	is_int(id2, id, "same id");
	incident_free(inc);

	ok(store_list(st, NULL, 0, &list, &cause) == 0, "list");
	is_int(list.n, 1, "one row");
	store_list_clear(&list);

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
	store_row_clear(&row);

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
	store_row_clear(&row);

	ok(store_events(st, id, seen_cb, &s, &cause) == 0 && s.n == 3 &&
	    strcmp(s.text[1], HOSTILE) == 0, "event text byte-identical");
	seen_free(&s);

	/* LIKE's own characters match themselves only. */
	ok(store_list(st, "100%", 0, &list, &cause) == 0 && list.n == 1 &&
	    list.rows[0].id == id, "'100%%' matches only 100%%");
	store_list_clear(&list);
	ok(store_list(st, "a_b", 0, &list, &cause) == 0 && list.n == 1 &&
	    list.rows[0].id == id, "'a_b' does not match axb");
	store_list_clear(&list);
	ok(store_list(st, "'); DROP TABLE", 0, &list, &cause) == 0 &&
	    list.n == 1, "SQL in a query is text");
	store_list_clear(&list);
	ok(store_list(st, "DISK 1000", 0, &list, &cause) == 0 && list.n == 1 &&
	    list.rows[0].id == other, "query ignores ASCII case");
	store_list_clear(&list);
	ok(store_list(st, "GPU-NODE", 0, &list, &cause) == 0 && list.n == 2,
	    "query matches the host");
	store_list_clear(&list);
	ok(store_list(st, "no such words", 0, &list, &cause) == 0 &&
	    list.n == 0 && list.rows == NULL, "query matching nothing");
	store_list_clear(&list);
	ok(store_list(st, NULL, 1, &list, &cause) == 0 && list.n == 1 &&
	    list.rows[0].id == other, "limit 1: the newest");
	store_list_clear(&list);
	ok(store_list(st, "", 0, &list, &cause) == 0 && list.n == 2,
	    "empty query is all; tables all there");
	store_list_clear(&list);
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
	store_list_clear(&list);
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
	store_list_clear(&list);
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
		store_list_clear(&list);
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
	history_free(&h);
	incident_free(inc);
	store_close(st);
}

/* Write text to a file in the test folder. */
static void
write_file(const char *path, const char *mode, const char *text)
{
	FILE	*f;

	if ((f = fopen(path, mode)) != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * A "schema" this rankline does not know is refused, naming the file and
 * the versions it reads, and nothing is imported.
 */
static void
test_import_schema(struct store *st, const char *file)
{
	static const char *const bad[] = { "99", "1", "0", "-2", "\"2\"",
	    "2.0", NULL };
	struct store_import_stats	 stats;
	struct store_list		 before, after;
	char				*cause = NULL, known[32];
	size_t				 i;

	snprintf(known, sizeof known, "reads schema 2 to %d", STORE_VERSION);
	store_list(st, NULL, 1000, &before, &cause);
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		/* One new incident, which must not be kept. */
		write_file(file, "w", "{\"rankline_history\": 1, ");
		if (bad[i] != NULL) {
			write_file(file, "a", "\"schema\": ");
			write_file(file, "a", bad[i]);
			write_file(file, "a", ", ");
		}
		write_file(file, "a", "\"incidents\": [{\"uid\": \"cc\","
		    " \"key\": \"kc\", \"created\": \"2026\","
		    " \"updated\": \"2026\"}]}\n");
		cause = NULL;
		ok(store_import(st, file, &stats, &cause) == -1 &&
		    cause != NULL && strstr(cause, file) != NULL &&
		    strstr(cause, known + 6) != NULL && stats.added == 0,
		    "schema %s refused", bad[i] != NULL ? bad[i] : "absent");
		printf("#   %s\n", cause != NULL ? cause : "(no cause)");
		free(cause);
	}
	cause = NULL;
	store_list(st, NULL, 1000, &after, &cause);
	is_int((int)after.n, (int)before.n, "no refused import added anything");
	store_list_clear(&before);
	store_list_clear(&after);
}

/* Read, ingest and diagnose paths with the shipped rules. */
static struct rl_incident *
analyze(struct ruleset *rs, const char *const *paths, size_t n)
{
	struct rl_incident	*inc;
	size_t			 i;

	inc = incident_create(rs);
	for (i = 0; i < n; i++)
		source_add_path(inc, paths[i]);
	for (i = 0; i < inc->nsources; i++)
		source_file_read(inc, inc->sources[i], NULL, NULL);
	pipeline_diagnose(inc);
	return inc;
}

/* What store_events saw of the root event. */
struct root_seen {
	char		*context;	/* owned */
	int64_t		 context_at;
	int64_t		 line;
};

/* Keep the root's context. */
static void
root_cb(void *arg, const struct store_event *e)
{
	struct root_seen	*r = arg;

	if (!e->root)
		return;
	free(r->context);
	r->context = e->context != NULL ? xstrdup(e->context) : NULL;
	r->context_at = e->context_at;
	r->line = e->line;
}

/* Reopened logs: unchanged, the same row; grown, updated; gone, still shown. */
static void
test_reopen(struct ruleset *rs)
{
	struct store		*st;
	struct rl_incident	*inc;
	struct store_list	 list;
	struct store_row	 row;
	struct root_seen	 r = { 0 };
	char			*log, *cause = NULL;
	const char		*paths[1];
	int64_t			 id = 0, id2 = 0, nlines;
	bool			 updated;

	if ((st = open_db("reopen.db")) == NULL)
		return;
	log = tmp_path("slurm-4242.out");
	paths[0] = log;
	write_file(log, "w", "SLURM_JOB_ID=4242\n"
	    "2026-12-02 13:00:01,000 INFO [rank0] step 1\n"
	    "2026-12-02 13:00:02,000 INFO [rank0] loading shard 7\n"
	    "Traceback (most recent call last):\n"
	    "  File \"train.py\", line 9, in <module>\n"
	    "ValueError: shard 7 has 0 rows\n"
	    "2026-12-02 13:00:03,000 INFO [rank0] exiting\n");
	inc = analyze(rs, paths, 1);
	ok(store_save(st, inc, &id, &updated, &cause) == 0 && !updated,
	    "first analysis stored");
	nlines = (int64_t)inc->lines;
	incident_free(inc);
	inc = analyze(rs, paths, 1);
	ok(store_save(st, inc, &id2, &updated, &cause) == 0 && updated &&
	    id2 == id, "the same logs again: the same incident");
	incident_free(inc);

	write_file(log, "a", "2026-12-02 13:05:00,000 INFO [rank0] restarted\n"
	    "2026-12-02 13:05:01,000 INFO [rank0] step 2\n");
	inc = analyze(rs, paths, 1);
	ok(store_save(st, inc, &id2, &updated, &cause) == 0 && updated &&
	    id2 == id, "grown logs: the same incident, updated");
	ok((int64_t)inc->lines > nlines, "it read the new lines (%llu)",
	    (unsigned long long)inc->lines);
	incident_free(inc);
	ok(store_list(st, NULL, 0, &list, &cause) == 0 && list.n == 1,
	    "one row after three analyses");
	store_list_clear(&list);

	/* The logs are gone: the evidence and its context are not. */
	unlink(log);
	ok(store_get(st, id, &row, &cause) == 0, "get after the logs are gone");
	is_str(row.job_scheduler, "4242", "the job's id from its environment");
	ok(row.text != NULL && strstr(row.text, "ValueError") != NULL,
	    "the root line: %s", row.text);
	store_row_clear(&row);
	ok(store_events(st, id, root_cb, &r, &cause) == 0 && r.context !=
	    NULL, "the root's context was copied in");
	ok(r.context != NULL && strstr(r.context, "File \"train.py\"") !=
	    NULL && strstr(r.context, "exiting") != NULL,
	    "lines before and after the root");
	is_int(r.context_at, r.line - 3, "context starts 3 lines before");
	free(r.context);
	free(log);
	store_close(st);
}

/* An incident whose root names a GPU, on host, for the offenders. */
static struct rl_incident *
gpu_incident(const char *path, const char *host, const char *text)
{
	static struct rl_rule	 xid = { .id = "nvidia.xid.48",
	    .role = ROLE_ROOT, .domain = DOMAIN_HARDWARE };
	const char		*paths[1] = { path };
	struct rl_incident	*inc;

	inc = make_incident(paths, 1, "double bit ECC", text);
	inc->events[1]->rule = &xid;
	inc->answer.domain = DOMAIN_HARDWARE;
	free(inc->sources[0]->host);
	inc->sources[0]->host = xstrdup(host);
	fingerprint_incident(inc);
	return inc;
}

/* Hosts and GPUs in several roots, whatever form names the GPU. */
static void
test_offenders(void)
{
	struct store		*st;
	struct rl_incident	*inc;
	struct rl_history	 h;
	struct store_offenders	 v;
	char			*cause = NULL;
	int64_t			 id;
	bool			 updated, gpu = false, host = false;
	size_t			 i;

	if ((st = open_db("offenders.db")) == NULL)
		return;
	inc = gpu_incident("/o/a.log", "gpu-b", "NVRM: Xid (PCI:0000:97:00): "
	    "48, pid=1, name=python, Ch 00000008");
	store_save(st, inc, &id, &updated, &cause);
	incident_free(inc);
	inc = gpu_incident("/o/b.log", "gpu-b", "NCCL WARN Cuda failure "
	    "'uncorrectable ECC error encountered' busId 97000");
	ok(store_recall(st, inc, 0, &h, &cause) == 0, "recall");
	for (i = 0; i < h.noffenders; i++) {
		gpu |= h.offenders[i].kind == OFFENDER_GPU &&
		    strcmp(h.offenders[i].name, "0000:97:00") == 0 &&
		    h.offenders[i].count == 1;
		host |= h.offenders[i].kind == OFFENDER_HOST &&
		    strcmp(h.offenders[i].name, "gpu-b") == 0;
	}
	ok(gpu, "Xid's PCI:0000:97:00 and NCCL's busId 97000: one GPU");
	ok(host, "the host failed before");
	history_free(&h);
	store_save(st, inc, &id, &updated, &cause);
	incident_free(inc);
	ok(store_offenders(st, 2, &v, &cause) == 0 && v.n >= 2,
	    "history --hosts: %zu offenders", v.n);
	for (i = 0; i < v.n; i++)
		ok(v.v[i].count == 2 && v.v[i].incidents != NULL &&
		    strchr(v.v[i].incidents, ',') != NULL, "%s %s: %lld (%s)",
		    v.v[i].kind, v.v[i].name, (long long)v.v[i].count,
		    v.v[i].incidents);
	store_offenders_clear(&v);
	store_close(st);
}

/* The bytes of a file, or NULL. */
static char *
slurp(const char *path)
{
	struct buf	 b = { 0 };
	char		 chunk[4096];
	FILE		*f;
	size_t		 n;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return b.p != NULL ? buf_steal(&b) : xstrdup("");
}

/* Export, import into an empty database, export again: the same bytes. */
static void
test_roundtrip(void)
{
	struct store			*a, *b;
	struct rl_incident		*inc;
	struct store_import_stats	 stats;
	const char			*paths[1];
	char				*f1, *f2, *f3, *bad, *x1, *x2, *x3;
	char				*cause = NULL, path[64];
	int64_t				 id;
	bool				 updated;
	int				 i;

	if ((a = open_db("export-a.db")) == NULL ||
	    (b = open_db("export-b.db")) == NULL) {
		store_close(a);
		return;
	}
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "/no/such/export/%d.log", i);
		paths[0] = path;
		inc = make_incident(paths, 1, i == 1 ? HOSTILE : "oom",
		    i == 2 ? HOSTILE : "torch.OutOfMemoryError: CUDA oom");
		store_save(a, inc, &id, &updated, &cause);
		incident_free(inc);
		store_note(a, id, NOTE_DIAGNOSIS, "batch too big", &cause);
		if (i == 0)
			store_note(a, id, NOTE_RESOLUTION, "batch 32", &cause);
	}
	f1 = tmp_path("e1.json");
	f2 = tmp_path("e2.json");
	f3 = tmp_path("e3.json");
	ok(store_export(a, f1, &cause) == 0, "export");
	ok(store_import(b, f1, &stats, &cause) == 0 && stats.added == 3 &&
	    stats.notes == 4, "import into an empty database: %zu, %zu notes",
	    stats.added, stats.notes);
	ok(store_export(b, f2, &cause) == 0, "export it again");
	x1 = slurp(f1);
	x2 = slurp(f2);
	ok(x1 != NULL && x2 != NULL && strcmp(x1, x2) == 0,
	    "the two exports are byte-identical (%zu bytes)",
	    x1 != NULL ? strlen(x1) : 0);
	ok(store_import(b, f1, &stats, &cause) == 0 && stats.added == 0 &&
	    stats.known == 3 && stats.notes == 0, "importing again adds "
	    "nothing: %zu known", stats.known);
	store_export(b, f3, &cause);
	x3 = slurp(f3);
	ok(x3 != NULL && x1 != NULL && strcmp(x1, x3) == 0,
	    "and changes nothing");

	/* A bad file: its name and position, and nothing imported. */
	bad = tmp_path("bad.json");
	write_file(bad, "w", "{\"rankline_history\": 1,\n\"incidents\": [\n"
	    "{\"uid\": \"x\", \"key\": \"k\",, }]}\n");
	ok(store_import(b, bad, &stats, &cause) == -1 && cause != NULL &&
	    strstr(cause, bad) != NULL && strstr(cause, ":3:") != NULL,
	    "syntax error names file:line: %s", cause);
	free(cause);
	cause = NULL;
	/* A good incident then a bad one: the good one is not kept either. */
	write_file(bad, "w", "{\"rankline_history\": 1, \"schema\": 2, "
	    "\"incidents\": [{\"uid\": \"aa\", \"key\": \"ka\", \"created\": \"2026\","
	    " \"updated\": \"2026\"},"
	    "{\"uid\": \"bb\", \"key\": \"kb\", \"created\": 5}]}\n");
	ok(store_import(b, bad, &stats, &cause) == -1 && cause != NULL &&
	    strstr(cause, "incidents[1]") != NULL && strstr(cause, "created")
	    != NULL, "a bad field names the incident: %s", cause);
	free(cause);
	cause = NULL;
	store_export(b, f3, &cause);
	free(x3);
	x3 = slurp(f3);
	ok(x3 != NULL && x1 != NULL && strcmp(x1, x3) == 0,
	    "a failed import changed nothing");
	cause = NULL;
	ok(store_import(b, "/no/such/file.json", &stats, &cause) == -1 &&
	    cause != NULL && strstr(cause, "/no/such/file.json") != NULL,
	    "a missing file is named: %s", cause);
	free(cause);
	test_import_schema(b, bad);
	free(x1);
	free(x2);
	free(x3);
	free(f1);
	free(f2);
	free(f3);
	free(bad);
	store_close(a);
	store_close(b);
}

/* A case of the corpus, analysed and stored; its id. */
static int64_t
corpus_save(struct store *st, struct ruleset *rs, const char *dir,
    const char *name, struct rl_history *h)
{
	struct rl_incident	*inc;
	char			*path, *cause = NULL;
	const char		*paths[1];
	int64_t			 id = 0;
	bool			 updated;

	xasprintf(&path, "%s/corpus/torch/%s", dir, name);
	paths[0] = path;
	inc = analyze(rs, paths, 1);
	if (store_save(st, inc, &id, &updated, &cause) != 0 ||
	    store_recall(st, inc, id, h, &cause) != 0) {
		printf("# %s: %s\n", name, cause);
		free(cause);
	}
	incident_free(inc);
	free(path);
	return id;
}

/*
 * Two runs of one failure in the corpus (a worker killed by SIGKILL: other
 * ranks, pids and times; an IndexError under torchrun's prefix and
 * without it) share a fingerprint and meet each other's diagnosis; a
 * different failure does not.
 */
static void
test_corpus(struct ruleset *rs)
{
	static const char *const pairs[][2] = {
		{ "killed-1", "killed-2" }, { "code-1", "skew-1" },
	};
	struct store		*st;
	struct rl_history	 h;
	struct stat		 sb;
	const char		*shared = getenv("RL_SHARED");
	char			*dir, *cause = NULL;
	int64_t			 first, second, other;
	size_t			 i;

	if (shared == NULL)
		shared = "../shared";
	xasprintf(&dir, "%s/corpus/torch", shared);
	if (stat(dir, &sb) != 0) {
		printf("ok %d # SKIP no corpus at %s\n", ++tap_n, dir);
		free(dir);
		return;
	}
	free(dir);
	if ((st = open_db("corpus.db")) == NULL)
		return;
	for (i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		first = corpus_save(st, rs, shared, pairs[i][0], &h);
		is_int(h.seen_before, 0, "%s: new", pairs[i][0]);
		history_free(&h);
		store_note(st, first, NOTE_DIAGNOSIS, pairs[i][0], &cause);
		second = corpus_save(st, rs, shared, pairs[i][1], &h);
		ok(second != first, "%s is another incident", pairs[i][1]);
		is_int(h.seen_before, 1, "%s: seen once before", pairs[i][1]);
		ok(h.nmatches > 0 && h.matches[0].exact &&
		    h.matches[0].incident == first && h.matches[0].diagnosis
		    != NULL && strcmp(h.matches[0].diagnosis, pairs[i][0]) == 0,
		    "%s meets %s's incident and diagnosis", pairs[i][1],
		    pairs[i][0]);
		history_free(&h);
	}
	/* mat1 and mat2: another exception of the same rule. */
	other = corpus_save(st, rs, shared, "code-2", &h);
	ok(other != 0 && h.seen_before == 0, "code-2, another failure, is new");
	for (i = 0; i < h.nmatches; i++)
		ok(!h.matches[i].exact && h.matches[i].score < 1,
		    "anything else is only near (%.2f)", h.matches[i].score);
	history_free(&h);
	/* Analysed again, an incident is not its own earlier match. */
	second = corpus_save(st, rs, shared, "code-2", &h);
	ok(second == other && h.seen_before == 0,
	    "code-2 again: still not seen before");
	history_free(&h);
	store_close(st);
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
	char		 templ[] = "/tmp/test-store.XXXXXX";
	struct ruleset	*rs;
	struct errlist	 errs = { 0 };

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
	test_migrate_v1();
	test_offenders();
	test_roundtrip();
	rs = ruleset_create();
	if (ruleset_load_defaults(rs, &errs) != 0)
		printf("# rules: %s\n", errs.n ? errs.v[0] : "?");
	ruleset_finish(rs);
	errlist_clear(&errs);
	test_reopen(rs);
	test_corpus(rs);
	ruleset_free(rs);
	rm_tmp(tmp);
	return tap_done();
}
