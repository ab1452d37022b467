/*
 * store-int.h: what the store's own files share and nobody else sees: the
 * connection, the table of statements, and the helpers that bind
 * parameters (every value reaches SQLite as a bound parameter, never as
 * SQL text).  tui/ and the commands include store.h only.
 */
#ifndef RANKLINE_STORE_INT_H
#define RANKLINE_STORE_INT_H

#include <sqlite3.h>

#include "store.h"

/*
 * What `history QUERY` searches in an incident, as one text for the
 * trigram index: a row of incidents is in scope as "incidents".
 */
#define STORE_GREP_BODY							\
	"ifnull(signature, '') || char(10) || ifnull(summary, '') ||"	\
	" char(10) || ifnull(text, '') || char(10) || ifnull(host, '') ||" \
	" ' ' || ifnull(pci, '') || char(10) || ifnull(job_scheduler, '')" \
	" || ' ' || ifnull(job_run, '') || char(10) || ifnull((SELECT"	\
	" group_concat(n.text, char(10)) FROM notes n WHERE"		\
	" n.incident_id = incidents.id), '')"

/* Every statement the store runs; the SQL is in store_sql (store.c). */
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
	STMT_CLEAR_OFFENDERS,
	STMT_ADD_SOURCE,
	STMT_ADD_RANK,
	STMT_ADD_EVENT,
	STMT_ADD_OFFENDER,
	STMT_FP_ADD,
	STMT_FP_ID,
	STMT_FP_COUNT,
	STMT_FTS_DELETE,
	STMT_FTS_INSERT,
	STMT_GREP_DELETE,
	STMT_GREP_INSERT,
	STMT_FINGERPRINT_OF,
	STMT_GET,
	STMT_LIST,
	STMT_LIST_LIKE,
	STMT_LIST_ESCAPED,
	STMT_EXISTS,
	STMT_NOTE,
	STMT_NOTES,
	STMT_EVENTS,
	STMT_RANKS,
	STMT_FACTS,
	STMT_SEEN,
	STMT_EXACT,
	STMT_VOCAB,
	STMT_NEAR,
	STMT_NEAR_LATEST,
	STMT_OFFENDER,
	STMT_OFFENDER_LAST,
	STMT_OFFENDER_OF,
	STMT_PATHS,
	STMT_OFFENDERS,
	STMT_N
};

struct store {
	sqlite3		*db;			/* the connection, owned */
	char		*path;			/* as opened, for causes */
	sqlite3_stmt	*stmt[STMT_N];		/* prepared on first use */
	bool		 readonly;		/* opened read only (STORE_READ) */
};

/* One use of a cached statement: its parameters are bound in order. */
struct store_q {
	sqlite3_stmt	*stmt;		/* borrowed from the store */
	int		 n;		/* parameters bound so far */
	int		 rc;		/* first bind error, or SQLITE_OK */
};

/* store-export.c */
struct json_t	*store_json_text(const unsigned char *, size_t);

/* store-facts.c */
char		*store_facts_make(const struct rl_incident *);

/* store.c */
const char	*store_os_reason(sqlite3 *);
int		 store_fail(struct store *, char **);
void		 store_now(char *, size_t);
int		 store_q_start(struct store *, enum store_stmt,
		     struct store_q *, char **);
void		 store_q_end(struct store_q *);
void		 store_q_text(struct store_q *, const char *);
void		 store_q_int(struct store_q *, int64_t);
void		 store_q_count(struct store_q *, uint64_t);
void		 store_q_maybe(struct store_q *, int);
void		 store_q_double(struct store_q *, double);
void		 store_q_time(struct store_q *, const struct rl_time *);
int		 store_q_step(struct store *, struct store_q *, char **);
int		 store_q_run(struct store *, struct store_q *, char **);
int		 store_run_id(struct store *, enum store_stmt, int64_t,
		     char **);
char		*store_column(sqlite3_stmt *, int);
int		 store_index(struct store *, int64_t, const char *, char **);
int		 store_fingerprint_add(struct store *, const char *, int,
		     const char *, const char *, char **);
int		 store_begin(struct store *, char **);
int		 store_commit(struct store *, char **);
void		 store_rollback(struct store *);
char		*store_rank_offender(const struct rl_incident *);

#endif
