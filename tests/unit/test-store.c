/*
 * test-store.c: the incident database, against real files in a fresh
 * temporary folder.
 *
 * What matters is what the store promises the console: a database nobody
 * else can read, one row per set of logs however often they are analysed,
 * hostile log text kept byte for byte and never run as SQL, writers in two
 * processes both succeeding.  Databases from another rankline, newer or
 * older, are test-store-migrate.c's.  Every test closes all it opened, so
 * ASan sees no leak.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store-fixture.h"

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
	history_clear(&h);
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
		history_clear(&h);
		store_note(st, first, NOTE_DIAGNOSIS, pairs[i][0], &cause);
		second = corpus_save(st, rs, shared, pairs[i][1], &h);
		ok(second != first, "%s is another incident", pairs[i][1]);
		is_int(h.seen_before, 1, "%s: seen once before", pairs[i][1]);
		ok(h.nmatches > 0 && h.matches[0].exact &&
		    h.matches[0].incident == first && h.matches[0].diagnosis
		    != NULL && strcmp(h.matches[0].diagnosis, pairs[i][0]) == 0,
		    "%s meets %s's incident and diagnosis", pairs[i][1],
		    pairs[i][0]);
		history_clear(&h);
	}
	/* mat1 and mat2: another exception of the same rule. */
	other = corpus_save(st, rs, shared, "code-2", &h);
	ok(other != 0 && h.seen_before == 0, "code-2, another failure, is new");
	for (i = 0; i < h.nmatches; i++)
		ok(!h.matches[i].exact && h.matches[i].score < 1,
		    "anything else is only near (%.2f)", h.matches[i].score);
	history_clear(&h);
	/* Analysed again, an incident is not its own earlier match. */
	second = corpus_save(st, rs, shared, "code-2", &h);
	ok(second == other && h.seen_before == 0,
	    "code-2 again: still not seen before");
	history_clear(&h);
	store_close(st);
}

/* Run every test in one fresh folder, then remove it. */
/*
 * Each file's real path is stored, its folder's resolved once for all its
 * files: the same as realpath through a linked folder, for a linked file,
 * a relative path, a folder's dots, and a path kept as given where the
 * file is not there.
 */
static void
test_real_paths(void)
{
	static const char *const names[] = {
		"real/d/rank0.log", "link/rank0.log", "real/d/alias.log",
		"real/d/../d/./rank1.log", "link/../real/d/rank1.log",
		"real/d/absent.log", "gone/rank0.log", "real/d/sub/..",
		"/", "real//d//rank1.log"
	};
	struct store		*st;
	struct rl_incident	*inc;
	const char		*paths[nitems(names) + 1];
	char			*given[nitems(names) + 1], *want, *cwd;
	char			*real, **got = NULL, *d, *cause = NULL;
	size_t			 i, n = 0, bad = 0;
	int64_t			 id = -1;
	bool			 updated;

	if ((st = open_db("real.db")) == NULL)
		return;
	d = tmp_path("real");
	mkdir(d, 0700);
	free(d);
	d = tmp_path("real/d");
	mkdir(d, 0700);
	real = tmp_path("real/d/sub");
	mkdir(real, 0700);
	free(real);
	real = tmp_path("link");
	if (symlink(d, real) != 0)
		fatal("symlink %s", real);
	free(real);
	free(d);
	for (i = 0; i < 2; i++) {
		real = tmp_path(i == 0 ? "real/d/rank0.log" :
		    "real/d/rank1.log");
		touch(real);
		free(real);
	}
	real = tmp_path("real/d/alias.log");
	if (symlink("rank1.log", real) != 0)
		fatal("symlink %s", real);
	free(real);
	/* Relative to where the store is asked from, as a user's are. */
	cwd = getcwd(NULL, 0);
	if (chdir(tmp) != 0)
		fatal("chdir %s", tmp);
	for (i = 0; i < nitems(names); i++)
		paths[i] = given[i] = i % 2 == 0 ? xstrdup(names[i]) :
		    tmp_path(names[i]);
	inc = make_incident(paths, nitems(names), "real paths", "oom");
	if (store_save(st, inc, &id, &updated, &cause) != 0 ||
	    store_source_paths(st, id, &got, &n, &cause) != 0) {
		printf("# %s\n", cause);
		free(cause);
	}
	ok(n == nitems(names), "the %zu paths stored", nitems(names));
	for (i = 0; i < n && i < nitems(names); i++) {
		want = realpath(given[i], NULL);
		if (want == NULL)
			want = xstrdup(given[i]);
		if (strcmp(got[i], want) != 0) {
			printf("# %s: %s, not %s\n", given[i], got[i], want);
			bad++;
		}
		free(want);
	}
	ok(bad == 0, "each is realpath's, or as given where it fails");
	if (cwd == NULL || chdir(cwd) != 0)
		fatal("chdir back");
	free(cwd);
	for (i = 0; i < n; i++)
		free(got[i]);
	free(got);
	for (i = 0; i < nitems(names); i++)
		free(given[i]);
	incident_free(inc);
	store_close(st);
}

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
	test_offenders();
	test_roundtrip();
	test_real_paths();
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
