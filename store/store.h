/*
 * store.h: the incident database.  Every analysis is kept in SQLite so that
 * tonight's engineer sees what last month's found.  store/ reads the model
 * from core.h and never includes curses; tui/ calls these functions and
 * never speaks SQL.
 *
 * Ownership: a struct store is opened by store_open and closed by
 * store_close.  Lists returned in a store_list are the caller's, freed with
 * store_list_free; a row filled by store_get is the caller's, freed with
 * store_row_free.  The strings store_events passes its callback are
 * borrowed for the call.  Failures return -1 with a cause naming the
 * database's path.
 */
#ifndef RANKLINE_STORE_H
#define RANKLINE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

/* The schema this build writes; a database from a newer one is refused. */
#define STORE_VERSION	1

struct store;

/* One stored incident, as the history list shows it. */
struct store_row {
	int64_t		 id;		/* rowid, stable across updates */
	char		*created;	/* ISO 8601 UTC, when first stored */
	char		*updated;	/* ISO 8601 UTC, when last stored */
	char		*started;	/* first log time as written, or NULL */
	char		*signature;	/* root rule id, or NULL if healthy */
	char		*fingerprint;	/* or NULL */
	int		 rank;		/* first failing rank, or RL_NONE */
	char		*host;		/* or NULL */
	char		*domain;	/* verdict domain name */
	char		*summary;	/* the verdict's one sentence */
	char		*text;		/* the root line, sanitized */
	char		*sources;	/* first source path, "(+N more)" */
	int		 nranks;	/* ranks seen */
	char		*note;		/* the latest note, or NULL */
};

struct store_list {
	struct store_row *rows;		/* newest first, or NULL */
	size_t		 n;		/* rows */
};

/* store.c */
int		 store_open(const char *, struct store **, char **);
void		 store_close(struct store *);
char		*store_default_path(void);
int		 store_save(struct store *, const struct rl_incident *,
		     int64_t *, bool *, char **);
int		 store_list(struct store *, const char *, int,
		     struct store_list *, char **);
int		 store_get(struct store *, int64_t, struct store_row *,
		     char **);
int		 store_note(struct store *, int64_t, const char *, char **);
int		 store_events(struct store *, int64_t,
		     void (*)(void *, const char *, int64_t, const char *,
		     const char *, const char *), void *, char **);
void		 store_row_free(struct store_row *);
void		 store_list_free(struct store_list *);
int		 store_user_version(struct store *);

/*
 * store-migrate.c, for store.c only: bring a freshly opened connection to
 * STORE_VERSION.  Declared with sqlite's own struct tag so that this header
 * stays free of sqlite3.h for tui/.
 */
struct sqlite3;
int		 store_migrate(struct sqlite3 *, const char *, char **);

#endif
