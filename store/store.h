/*
 * store.h: the incident database.  Every analysis is kept in SQLite so that
 * tonight's engineer sees what last month's found.  store/ reads the model
 * from model.h and never includes curses; tui/ calls these functions and
 * never speaks SQL.
 *
 * Ownership: a struct store is opened by store_open (or store_open_flags,
 * which makes nothing and may fall back to read only) and closed by
 * store_close.  Lists returned in a store_list are the caller's, emptied
 * with store_list_clear; a row filled by store_get is the caller's, its
 * strings freed with store_row_clear; a history filled by store_recall is the caller's, freed
 * with history_clear (model.h); the text store_facts gives is the
 * caller's.  The strings store_events, store_ranks and store_notes pass
 * their callbacks are borrowed for the call.  Failures return -1 with
 * a cause naming the database's path (or the import file's, with the line
 * and column).
 */
#ifndef RANKLINE_STORE_H
#define RANKLINE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

/* The schema this build writes; a database from a newer one is refused. */
#define STORE_VERSION	3

struct store;

/* One stored incident, as the history list shows it. */
struct store_row {
	int64_t		 id;		/* rowid, stable across updates */
	char		*uid;		/* identity across databases (export) */
	char		*occurred;	/* ISO 8601: the root's time, else created */
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
	char		*sources;	/* the root's source, "(+N more)" */
	int		 nranks;	/* ranks seen */
	char		*note;		/* the latest note, or NULL */
	char		*diagnosis;	/* the latest diagnosis note, or NULL */
	char		*resolution;	/* the latest resolution note, or NULL */
	char		*template;	/* the root line, masked, or NULL */
	char		*pci;		/* the GPU in the root line, or NULL */
	char		*job_scheduler;	/* the scheduler's job id, or NULL */
	char		*job_run;	/* the launcher's run id, or NULL */
	char		*job_command;	/* the launch command, or NULL */
	char		*explanation;	/* why this root */
	char		*ckpt;		/* checkpoint status */
	int		 last_safe_step;/* or RL_NONE */
	char		*ended;		/* last log time as written, or NULL */
	char		*grp;		/* the verdict's group, or NULL */
	char		*scope;		/* the verdict's scope, or NULL */
};

/* What an engineer writes against an incident. */
enum store_note_kind {
	NOTE_DIAGNOSIS = 0,	/* what it was */
	NOTE_RESOLUTION,	/* what fixed it */
	NOTE_NKINDS
};

/* One stored event, as store_events hands it over (borrowed for the call). */
struct store_event {
	const char	*source;	/* the source's absolute path */
	int64_t		 line;		/* 1-based */
	const char	*time;		/* or NULL */
	const char	*signature;	/* rule id, or NULL */
	const char	*role;
	const char	*text;
	const char	*context;	/* the lines around it, copied in, or NULL */
	int64_t		 context_at;	/* line number of the context's first line */
	bool		 root;		/* the first failure */
	int		 rank;		/* or RL_NONE */
};

/* One stored rank, as store_ranks hands it over (borrowed for the call). */
struct store_rank {
	int		 rank;		/* or RL_NONE */
	const char	*host;		/* or NULL */
	const char	*state;		/* rank_state_name's */
	const char	*first;		/* its first line's time, or NULL */
	const char	*last;		/* its last line's time, or NULL */
	int		 last_step;	/* or RL_NONE */
	const char	*first_signature;/* its judged first error's rule, or NULL */
	const char	*first_error;	/* and that error's time, or NULL */
	bool		 first_root;	/* that error is the first failure */
	const char	*progress;	/* its last progress line's time, or NULL */
};

/* A host, GPU or rank in the root of several incidents. */
struct store_offender {
	char		*kind;		/* "host", "gpu" or "rank" */
	char		*name;
	int64_t		 count;		/* incidents with it in their root */
	char		*first;		/* ISO 8601 of the first of them */
	char		*last;		/* and of the latest */
	char		*incidents;	/* their ids, newest first, comma-separated */
};

struct store_offenders {
	struct store_offender *v;
	size_t		 n;
};

/* What an import did. */
struct store_import_stats {
	size_t		 added;		/* incidents new to this database */
	size_t		 known;		/* incidents it already held */
	size_t		 notes;		/* notes added */
};

struct store_list {
	struct store_row *rows;		/* newest first, or NULL */
	size_t		 n;		/* rows */
};

/* store_open_flags: open only what is there, and read it if not writable. */
#define STORE_EXISTING	0x1	/* make nothing: STORE_ABSENT if missing */
#define STORE_READ	0x2	/* read only where it cannot be written */
#define STORE_ABSENT	1	/* store_open_flags: no database at the path */
#define STORE_NOWHERE	2	/* store_open_at: no default path (no HOME) */

/* store.c */
int		 store_open(const char *, struct store **, char **);
int		 store_open_flags(const char *, int, struct store **, char **);
void		 store_close(struct store *);
char		*store_default_path(void);
int		 store_open_at(const char *, int, struct store **, char **);
int		 store_save(struct store *, const struct rl_incident *,
		     int64_t *, bool *, char **);
int		 store_list(struct store *, const char *, int,
		     struct store_list *, char **);
int		 store_get(struct store *, int64_t, struct store_row *,
		     char **);
int		 store_find(struct store *, const struct rl_incident *, int64_t *,
		     char **);
int		 store_user_version(struct store *);

/* store-history.c */
int		 store_note(struct store *, int64_t, enum store_note_kind,
		     const char *, char **);
const char	*store_note_kind_name(enum store_note_kind);
int		 store_notes(struct store *, int64_t,
		     void (*)(void *, const char *, const char *, const char *),
		     void *, char **);
int		 store_events(struct store *, int64_t,
		     void (*)(void *, const struct store_event *), void *,
		     char **);
int		 store_ranks(struct store *, int64_t,
		     void (*)(void *, const struct store_rank *), void *,
		     char **);
int		 store_recall(struct store *, const struct rl_incident *,
		     int64_t, struct rl_history *, char **);
int		 store_recall_stored(struct store *, int64_t,
		     struct rl_history *, char **);
int		 store_source_paths(struct store *, int64_t, char ***, size_t *,
		     char **);
int		 store_offenders(struct store *, int64_t,
		     struct store_offenders *, char **);
void		 store_offenders_clear(struct store_offenders *);
void		 store_row_clear(struct store_row *);
void		 store_list_clear(struct store_list *);

/* store-facts.c: what a report from the store alone needs (schema 3). */
int		 store_facts(struct store *, int64_t, char **, char **);
const char	*store_facts_part_name(int);

/* store-export.c: the history as JSON, to share between machines. */
int		 store_export(struct store *, const char *, char **);
int		 store_import(struct store *, const char *,
		     struct store_import_stats *, char **);

/*
 * store-migrate.c, for store.c only: bring a freshly opened connection to
 * STORE_VERSION.  Declared with sqlite's own struct tag so that this header
 * stays free of sqlite3.h for tui/.
 */
struct sqlite3;
int		 store_migrate(struct sqlite3 *, const char *, char **);

#endif
