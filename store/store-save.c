/*
 * store-save.c: an incident kept in the database.
 *
 * Besides the answer, a save keeps what makes the incident useful once the
 * logs are gone: each failure's line with the lines around it, the job's
 * identity, the root's template, fingerprint, host, GPU and rank (the
 * offenders), all from the model, which kept them as the logs were read
 * (no log is opened here); and the two search indexes (store_index).  The
 * same logs saved again update their row in place (its key: a hash of
 * their sorted absolute paths), so that a console that is stored on every
 * quit and an analyze of the same run make one incident.
 */
#include <sys/stat.h>

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "report.h"

#define CONTEXT_EVENTS	64		/* failures given context, root included */

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

/* What one save works from. */
struct store_save {
	const struct rl_incident *inc;	/* borrowed */
	const struct rl_event *root;	/* the first failure, or NULL */
	char		**paths;	/* each source's absolute path, owned */
	char		 key[17];	/* hex FNV-1a 64 of the sorted paths */
	char		 now[32];	/* ISO 8601 UTC */
	int64_t		 id;
	bool		 updated;	/* the key was already stored */
	char		*old_fp;	/* its fingerprint before, owned, or NULL */
	char		 occurred[64];	/* the root's time, else now */
	size_t		 ncontext;	/* events given context so far */
};

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
	uint64_t	  h = HASH_FNV_OFFSET;
	size_t		  i;

	sorted = xreallocarray(NULL, n, sizeof *sorted);
	if (n != 0) {
		memcpy(sorted, paths, n * sizeof *sorted);
		qsort(sorted, n, sizeof *sorted, store_path_cmp);
	}
	for (i = 0; i < n; i++) {
		/* Each with its NUL, so that "ab","c" is not "a","bc". */
		h = hash_bytes(h, sorted[i], strlen(sorted[i]) + 1);
	}
	free(sorted);
	snprintf(key, len, "%016" PRIx64, h);
}

/* The folder last resolved by store_real, and what it resolved to. */
struct real_dir {
	char	*dir;
	char	*real;		/* or NULL: it could not be */
};

/*
 * A file's real path, or NULL: its folder's, resolved once for all the
 * files of one folder, and its name, where the name is no symbolic link.
 * realpath asks the kernel of every part of every path, and 10,000 rank
 * files of one folder were 50,000 system calls.
 */
static char *
store_real(const char *path, struct real_dir *rd)
{
	const char	*slash = strrchr(path, '/'), *base;
	char		*dir, *real;
	struct stat	 sb;

	base = slash != NULL ? slash + 1 : path;
	if (*base == '\0' || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0 || lstat(path, &sb) != 0 ||
	    S_ISLNK(sb.st_mode))
		return realpath(path, NULL);
	dir = slash == NULL ? xstrdup(".") : slash == path ? xstrdup("/") :
	    xstrndup(path, (size_t)(slash - path));
	if (rd->dir == NULL || strcmp(rd->dir, dir) != 0) {
		free(rd->dir);
		free(rd->real);
		rd->dir = dir;
		rd->real = realpath(dir, NULL);
	} else
		free(dir);
	if (rd->real == NULL)
		return realpath(path, NULL);
	xasprintf(&real, "%s%s%s", rd->real,
	    strcmp(rd->real, "/") == 0 ? "" : "/", base);
	return real;
}

/* Each source's absolute path (a file's real path; others as given). */
static char **
store_paths(const struct rl_incident *inc)
{
	struct real_dir	  rd = { NULL, NULL };
	char		**paths, *real;
	size_t		  i;

	paths = xcalloc(inc->nsources + 1, sizeof *paths);
	for (i = 0; i < inc->nsources; i++) {
		real = NULL;
		if (inc->sources[i]->kind == SOURCE_FILE)
			real = store_real(inc->sources[i]->path, &rd);
		paths[i] = real != NULL ? real :
		    xstrdup(inc->sources[i]->path);
	}
	free(rd.dir);
	free(rd.real);
	return paths;
}

/* Free what store_paths made. */
static void
store_paths_free(char **paths, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* Resolve the paths, make the key, pick the root, read the job. */
static void
store_save_init(struct store_save *s, const struct rl_incident *inc)
{
	memset(s, 0, sizeof *s);
	s->inc = inc;
	s->paths = store_paths(inc);
	store_key(s->paths, inc->nsources, s->key, sizeof s->key);
	store_now(s->now, sizeof s->now);
	snprintf(s->occurred, sizeof s->occurred, "%s", s->now);
	if (inc->answer.first != RL_NONE) {
		assert((size_t)inc->answer.first < inc->nevents);
		s->root = inc->events[inc->answer.first];
		if ((s->root->time.flags & RL_TIME_VALID) &&
		    !(s->root->time.flags & RL_TIME_BOOT))
			clock_format(&s->root->time, s->occurred,
			    sizeof s->occurred);
	}
}

/* Free what store_save_init made. */
static void
store_save_clear(struct store_save *s)
{
	store_paths_free(s->paths, s->inc->nsources);
	free(s->old_fp);
}

/* The row of these logs: its id, or 0 when they were never stored. */
static int
store_lookup(struct store *st, const char *key, int64_t *id, char **old_fp,
    char **cause)
{
	struct store_q	q;
	int		rc;

	*id = 0;
	if (store_q_start(st, STMT_FIND, &q, cause) != 0)
		return -1;
	store_q_text(&q, key);
	if ((rc = store_q_step(st, &q, cause)) == 1) {
		*id = sqlite3_column_int64(q.stmt, 0);
		if (old_fp != NULL)
			*old_fp = store_column(q.stmt, 1);
	}
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}

/* The id the same logs were stored under, or 0: what recall leaves out. */
int
store_find(struct store *st, const struct rl_incident *inc, int64_t *id,
    char **cause)
{
	char	**paths, key[17];
	int	  rc;

	paths = store_paths(inc);
	store_key(paths, inc->nsources, key, sizeof key);
	rc = store_lookup(st, key, id, NULL, cause);
	store_paths_free(paths, inc->nsources);
	return rc;
}

/* Find the incident by key, or make its row; either way s->id is set. */
static int
store_save_find(struct store *st, struct store_save *s, char **cause)
{
	struct store_q	q;

	if (store_lookup(st, s->key, &s->id, &s->old_fp, cause) != 0)
		return -1;
	if ((s->updated = (s->id != 0)))
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
	char				*facts;

	if (store_q_start(st, STMT_UPDATE, &q, cause) != 0)
		return -1;
	store_q_text(&q, s->now);
	store_q_time(&q, &inc->start);
	store_q_time(&q, &inc->end);
	store_q_text(&q, s->occurred);
	store_q_text(&q, s->inc->sig.rule);
	store_q_text(&q, s->inc->sig.fingerprint);
	store_q_maybe(&q, root != NULL ? s->inc->sig.scheme : RL_NONE);
	store_q_text(&q, s->inc->sig.template);
	store_q_maybe(&q, root != NULL ? root->rank : RL_NONE);
	store_q_text(&q, s->inc->sig.host);
	store_q_text(&q, s->inc->sig.pci);
	store_q_text(&q, root != NULL ? role_name(a->first_role) : NULL);
	store_q_text(&q, domain_name(a->domain));
	store_q_text(&q, group_name(a->group));
	store_q_text(&q, scope_name(a->scope));
	store_q_text(&q, a->summary);
	store_q_text(&q, a->explanation);
	store_q_text(&q, ckpt_status_name(a->ckpt));
	store_q_maybe(&q, a->last_safe_step);
	store_q_text(&q, root != NULL ? event_text(s->inc, root) : NULL);
	store_q_count(&q, inc->nsources);
	store_q_count(&q, inc->nranks);
	store_q_count(&q, inc->nevents);
	store_q_count(&q, inc->lines);
	store_q_count(&q, inc->bytes);
	store_q_text(&q, s->inc->job.fact[JOB_ID].value);
	store_q_text(&q, s->inc->job.fact[JOB_RUN].value);
	store_q_text(&q, s->inc->job.fact[JOB_COMMAND].value);
	facts = store_facts_make(inc);
	store_q_text(&q, facts);
	free(facts);
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

/*
 * Replace the incident's ranks: one row each, the map of who did what,
 * with each rank's row of the report's timeline (its judged first error,
 * its last progress line), which the stored events cannot give back: they
 * are capped, and at 1,024 ranks most ranks' errors are not among them.
 */
static int
store_save_ranks(struct store *st, struct store_save *s, char **cause)
{
	const struct rl_rank	*r;
	const struct report_rank *tr;
	struct report_timeline	 t;
	struct store_q		 q;
	size_t			 i;
	int			 rc = 0;

	report_timeline_build(&t, s->inc);
	assert(t.n == s->inc->nranks);
	for (i = 0; rc == 0 && i < s->inc->nranks; i++) {
		r = &s->inc->ranks[i];
		tr = &t.ranks[i];
		if (store_q_start(st, STMT_ADD_RANK, &q, cause) != 0) {
			rc = -1;
			break;
		}
		store_q_int(&q, s->id);
		store_q_maybe(&q, r->rank);
		store_q_text(&q, r->host);
		store_q_text(&q, rank_state_name(r->state));
		store_q_time(&q, &r->first);
		store_q_time(&q, &r->last);
		store_q_count(&q, r->lines);
		store_q_maybe(&q, r->last_step);
		store_q_text(&q, tr->signature);
		if (tr->first != NULL)
			store_q_time(&q, &tr->first->time);
		else
			store_q_text(&q, NULL);
		store_q_int(&q, tr->first != NULL && tr->first == s->root);
		store_q_time(&q, &tr->progress);
		rc = store_q_run(st, &q, cause);
	}
	report_timeline_clear(&t);
	return rc;
}


/* Store one event, with its context when it is a failure. */
static int
store_save_event(struct store *st, struct store_save *s,
    const struct rl_event *ev, char **cause)
{
	struct store_q	 q;
	const char	*context = NULL;
	int64_t		 at = 0;

	assert(ev->source < s->inc->nsources);
	/* The root always; other failures while the budget lasts. */
	if (event_failing(ev) && (ev == s->root ||
	    s->ncontext < CONTEXT_EVENTS - 1) &&
	    (context = event_context(s->inc, ev, &at)) != NULL)
		s->ncontext++;
	if (store_q_start(st, STMT_ADD_EVENT, &q, cause) != 0)
		return -1;
	store_q_int(&q, s->id);
	store_q_text(&q, s->paths[ev->source]);
	store_q_count(&q, ev->line);
	store_q_count(&q, ev->offset);
	store_q_time(&q, &ev->time);
	store_q_maybe(&q, ev->rank);
	store_q_text(&q, ev->rule != NULL ? ev->rule->id :
	    (ev->role == ROLE_HANG ? "rankline.hang.quiet" : NULL));
	store_q_text(&q, role_name(ev->role));
	store_q_text(&q, ev->rule != NULL ? domain_name(ev->rule->domain) :
	    NULL);
	store_q_int(&q, ev == s->root);
	store_q_text(&q, event_text(s->inc, ev));
	store_q_text(&q, context);
	if (context != NULL)
		store_q_int(&q, at);
	else
		store_q_maybe(&q, RL_NONE);
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
	size_t			*kept, i, n = 0;
	int			 rc = 0;

	for (i = 0; i < s->inc->nevents; i++) {
		assert(s->inc->events[i]->role < ROLE_NROLES);
		count[s->inc->events[i]->role]++;
	}
	kept = xcalloc(s->inc->nevents + 1, sizeof *kept);
	for (i = 0; i < s->inc->nevents; i++) {
		ev = s->inc->events[i];
		if (store_event_kept(ev->role, seen[ev->role]++,
		    count[ev->role]) || ev == s->root)
			kept[n++] = i;
	}
	/*
	 * Their texts in bulk, a file at a time: one by one, a wide job's
	 * texts let go were an open and a read each, 3,400 at 10,000 ranks.
	 */
	event_texts_hold(s->inc, kept, n);
	for (i = 0; i < n && rc == 0; i++)
		rc = store_save_event(st, s, s->inc->events[kept[i]], cause);
	free(kept);
	return rc;
}

/* Add one offender of the root, when it has a name. */
static int
store_save_offender(struct store *st, struct store_save *s, const char *kind,
    const char *name, char **cause)
{
	struct store_q	q;

	if (name == NULL || *name == '\0')
		return 0;
	if (store_q_start(st, STMT_ADD_OFFENDER, &q, cause) != 0)
		return -1;
	store_q_int(&q, s->id);
	store_q_text(&q, kind);
	store_q_text(&q, name);
	store_q_text(&q, s->occurred);
	return store_q_run(st, &q, cause);
}

/*
 * The root's rank as a repeat offender: "3 on node1 in train-llm".  A rank
 * number alone names a different process in every job, so it is counted
 * only with its host and its job (the job's name, else its command, which
 * stay the same when a job is resubmitted); with neither, not at all.
 */
char *
store_rank_offender(const struct rl_incident *inc)
{
	const char	*host = inc->sig.host;
	const char	*job = inc->job.fact[JOB_NAME].value;
	char		*s;

	if (job == NULL)
		job = inc->job.fact[JOB_COMMAND].value;
	if (inc->sig.rank == RL_NONE || (host == NULL && job == NULL))
		return (NULL);
	xasprintf(&s, "%d%s%s%s%s", inc->sig.rank, host != NULL ? " on " : "",
	    host != NULL ? host : "", job != NULL ? " in " : "",
	    job != NULL ? job : "");
	return (s);
}

/* The root's host, GPU and rank, for the repeat offenders. */
static int
store_save_offenders(struct store *st, struct store_save *s, char **cause)
{
	char	*rank;
	int	 rv;

	if (s->root == NULL)
		return 0;
	if (store_save_offender(st, s, "host", s->inc->sig.host, cause) != 0 ||
	    store_save_offender(st, s, "gpu", s->inc->sig.pci, cause) != 0)
		return -1;
	rank = store_rank_offender(s->inc);
	rv = store_save_offender(st, s, "rank", rank, cause);
	free(rank);
	return rv;
}

/* The id of a fingerprint's row, or 0 for none. */
static int
store_fingerprint_id(struct store *st, const char *fp, int64_t *id,
    char **cause)
{
	struct store_q	q;
	int		rc;

	*id = 0;
	if (store_q_start(st, STMT_FP_ID, &q, cause) != 0)
		return -1;
	store_q_text(&q, fp);
	if ((rc = store_q_step(st, &q, cause)) == 1)
		*id = sqlite3_column_int64(q.stmt, 0);
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}

/*
 * Bring both search indexes up to date for an incident (id, or 0) and a
 * fingerprint (fp, or NULL): the incident's words for history QUERY, and
 * the fingerprint's template and notes for near matches.
 */
int
store_index(struct store *st, int64_t id, const char *fp, char **cause)
{
	int64_t	fid;

	if (id != 0 && (store_run_id(st, STMT_GREP_DELETE, id, cause) != 0 ||
	    store_run_id(st, STMT_GREP_INSERT, id, cause) != 0))
		return -1;
	if (fp == NULL)
		return 0;
	if (store_fingerprint_id(st, fp, &fid, cause) != 0)
		return -1;
	if (fid == 0)
		return 0;
	if (store_run_id(st, STMT_FTS_DELETE, fid, cause) != 0)
		return -1;
	return store_run_id(st, STMT_FTS_INSERT, fid, cause);
}

/* Record the fingerprint's row (its scheme, its template), then index. */
int
store_fingerprint_add(struct store *st, const char *fp, int scheme,
    const char *rule, const char *template, char **cause)
{
	struct store_q	q;

	if (fp == NULL)
		return 0;
	if (store_q_start(st, STMT_FP_ADD, &q, cause) != 0)
		return -1;
	store_q_text(&q, fp);
	store_q_int(&q, scheme);
	store_q_text(&q, rule);
	store_q_text(&q, template);
	return store_q_run(st, &q, cause);
}

/* The fingerprint's row and both indexes, for a saved incident. */
static int
store_save_index(struct store *st, struct store_save *s, char **cause)
{
	if (store_fingerprint_add(st, s->inc->sig.fingerprint, s->inc->sig.scheme,
	    s->inc->sig.rule, s->inc->sig.template, cause) != 0)
		return -1;
	/* A grown log can change the root: the old group loses its notes. */
	if (s->old_fp != NULL && (s->inc->sig.fingerprint == NULL ||
	    strcmp(s->old_fp, s->inc->sig.fingerprint) != 0) &&
	    store_index(st, 0, s->old_fp, cause) != 0)
		return -1;
	return store_index(st, s->id, s->inc->sig.fingerprint, cause);
}

/* Write the whole incident, inside the transaction. */
static int
store_save_all(struct store *st, struct store_save *s, char **cause)
{
	static const enum store_stmt	 clear[] = {
		STMT_CLEAR_SOURCES, STMT_CLEAR_RANKS, STMT_CLEAR_EVENTS,
		STMT_CLEAR_OFFENDERS
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
	    store_save_events(st, s, cause) != 0 ||
	    store_save_offenders(st, s, cause) != 0 ||
	    store_save_index(st, s, cause) != 0)
		return -1;
	return store_commit(st, cause);
}

/*
 * Save an incident in one transaction: a new row, or the row of the same
 * logs updated in place (*updated true).  Nothing is written on failure.
 * Everything saved is in the model: no log is opened again.
 */
int
store_save(struct store *st, const struct rl_incident *inc, int64_t *id,
    bool *updated, char **cause)
{
	struct store_save	s;
	int			rc = 0;

	store_save_init(&s, inc);
	if (store_begin(st, cause) != 0)
		rc = -1;
	else if (store_save_all(st, &s, cause) != 0) {
		store_rollback(st);
		rc = -1;
	}
	if (rc == 0) {
		*id = s.id;
		*updated = s.updated;
	}
	store_save_clear(&s);
	return rc;
}
