/*
 * cmd-report-stored.h: what the report made from the store alone
 * (cmd-report-stored.c) shares with its timeline and history
 * (cmd-report-ranks.c): the stored events, ranks, groups and notes as
 * read back, and the calls between the two files.
 */
#ifndef RL_CMD_REPORT_STORED_H
#define RL_CMD_REPORT_STORED_H

#include <jansson.h>

#include "rankline.h"
#include "report.h"
#include "store/store.h"

#define STORED_EVENTS	64	/* events written at most; the rest counted */

/* The events as store_events hands them over, copied. */
struct stored_event {
	char		*source, *time, *signature, *role, *text, *context;
	int64_t		 line, context_at;
	bool		 root;
};

/*
 * A stored rank: since schema 3 with its row of the timeline as stored,
 * before it with what its stored events say of it.
 */
struct stored_rank {
	int		 rank;		/* or RL_NONE */
	char		*host, *state, *last;	/* or NULL */
	char		*first;		/* its first line's time, or NULL */
	char		*sig, *at;	/* its first failure's rule and time */
	char		*progress;	/* its last progress line's time */
	int		 last_step;	/* or RL_NONE */
	int		 group;
	int		 weight;	/* sig's stored_weight, 0 for none */
	bool		 root;		/* its first error is the first failure */
};

/* Ranks that behaved alike: state, first failure, its second. */
struct stored_group {
	char		*ranks;		/* "0-36,38-63", owned */
	size_t		 n;
	size_t		 first;		/* its first rank's index */
};

struct stored {
	json_t		*facts;		/* the facts document (schema 3), or NULL */
	struct wording	 w;		/* its words, rebuilt */
	char		**paths;	/* where w's items point, owned */
	size_t		 npaths, pathcap;
	struct stored_rank *r;		/* in stored order: by rank */
	size_t		 nr, rcap;
	size_t		 nranked;	/* the ranked ones, first */
	struct stored_group *g;
	size_t		 ng, gcap;
	struct rl_history h;		/* the fingerprint's history */
	struct stored_event *v;
	size_t		 n, cap;
	size_t		 more;		/* events past STORED_EVENTS */
	int64_t		 ckpt[REPORT_SVG_CKPTS];	/* saves completed (UTC
					   ms), a second apart at least */
	size_t		 nckpt;
	struct report_notes_l {
		struct report_note *v;
		size_t		 n, cap;
	}		 notes;
};


/* cmd-report-ranks.c */
int64_t		 report_stored_ms(const char *, struct rl_time *);

/* cmd-report-stored.c */
void		 report_stored_put(struct buf *, struct report_opts *,
		     void (*)(struct buf *, const char *, size_t), const char *);
json_t		*report_stored_jstr(struct report_opts *, struct buf *,
		     const char *);

/* cmd-report-facts.c */
extern const char report_facts_missing[];
int		 report_facts_load(struct store *, int64_t, struct stored *,
		     char **);
void		 report_facts_md_job(struct buf *, struct report_opts *,
		     const struct stored *);
void		 report_facts_md_packs(struct buf *, struct report_opts *,
		     const struct stored *);
void		 report_facts_html_job(struct buf *, struct report_opts *,
		     const struct stored *);
void		 report_facts_html_packs(struct buf *, struct report_opts *,
		     const struct stored *);
void		 report_facts_md_quotes(struct buf *, struct report_opts *,
		     const struct stored *);
void		 report_facts_html_quotes(struct buf *, struct report_opts *,
		     const struct stored *);
void		 report_facts_json(json_t *, json_t *, struct report_opts *,
		     struct buf *, const struct stored *, const char *);

/* cmd-report-ranks.c */
void		 report_ranks_group(struct stored *);
void		 report_ranks_md(struct buf *, struct report_opts *,
		     const struct stored *);
void		 report_ranks_html(struct buf *, struct report_opts *,
		     const struct stored *);
void		 report_ranks_json(json_t *, struct report_opts *, struct buf *,
		     const struct stored *);
void		 report_history_lines(struct buf *, struct report_opts *,
		     void (*)(struct buf *, const char *, size_t), const char *,
		     const char *, const struct rl_history *);
json_t		*report_history_json(struct report_opts *, struct buf *,
		     const struct rl_history *);

#endif
