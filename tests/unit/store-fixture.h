/*
 * store-fixture.h: what test-store.c and test-store-migrate.c share: a
 * fresh temporary folder (tmp, removed by rm_tmp), incidents made by hand
 * with a few rules, databases opened there, and saves in a loop.
 */
#ifndef RL_STORE_FIXTURE_H
#define RL_STORE_FIXTURE_H

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"
#include "engine.h"	/* the incidents made by hand */
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
static inline char *
tmp_path(const char *name)
{
	char	*p;

	xasprintf(&p, "%s/%s", tmp, name);
	return p;
}

/* Make a file so that realpath finds it. */
static inline void
touch(const char *path)
{
	int	fd;

	if ((fd = open(path, O_WRONLY|O_CREAT, 0600)) != -1)
		close(fd);
}

/* Add an event with a rule, a rank, a line and a time. */
static inline struct rl_event *
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
static inline struct rl_incident *
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
static inline void
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
static inline void
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
static inline struct store *
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
static inline int
mode_of(const char *path)
{
	struct stat	sb;

	return stat(path, &sb) == 0 ? (int)(sb.st_mode & 07777) : -1;
}

/* Save n incidents with distinct paths from first on; how many failed. */
static inline int
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

/* nftw's callback: remove what it walks, children first. */
static inline int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove the test folder and all the store left in it. */
static inline void
rm_tmp(const char *dir)
{
	if (nftw(dir, rm_one, 8, FTW_DEPTH|FTW_PHYS) != 0)
		printf("# could not remove %s\n", dir);
}

#endif
