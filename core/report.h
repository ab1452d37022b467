/*
 * report.h: `rankline report` and the console's e: the incident written
 * to a file for the postmortem, as Markdown, HTML or JSON.  Every format
 * renders wording.c's sections (the words of analyze and the console) and
 * the per-rank timeline below; none judges anything again.  Log text is
 * redacted (redact.c) and then escaped for its destination.
 */
#ifndef RL_REPORT_H
#define RL_REPORT_H

#include "wording.h"

enum report_format { REPORT_MD = 0, REPORT_HTML, REPORT_JSON, REPORT_NFORMATS };

/* A note the engineer wrote against the incident, from the store. */
struct report_note {
	char		*kind;		/* "diagnosis" or "resolution" */
	char		*time;		/* ISO 8601 */
	char		*text;		/* as written: escape it */
};

struct report_opts {
	bool		 redact;	/* hide secrets (the default) */
	size_t		 hidden;	/* values hidden so far: renderers add */
	int64_t		 incident;	/* its id in the store, or 0 */
	const char	*version;	/* rankline's */
	struct report_note *notes;	/* borrowed */
	size_t		 nnotes;
};

/*
 * The per-rank timeline: one row per rank, and rows that behaved alike
 * (state, signature, the same second) joined into groups.
 */
#define REPORT_TABLE_RANKS	64	/* more than this: groups, not rows */

struct report_rank {
	int		 rank;		/* or RL_NONE */
	const char	*host;		/* borrowed, or NULL */
	enum rank_state	 state;
	const struct rl_event *first;	/* its first failing event, or NULL */
	const char	*signature;	/* of first, or NULL */
	int		 last_step;	/* or RL_NONE */
	struct rl_time	 last;		/* last time seen */
	struct rl_time	 progress;	/* its last progress line's time */
	int		 group;		/* index into the groups */
	char		 at[16];	/* first's HH:MM:SS, or "" */
};

struct report_group {
	char		*ranks;		/* "0-36,38-63", owned */
	size_t		 n;		/* ranks in it */
	enum rank_state	 state;
	const char	*signature;	/* borrowed, or NULL */
	char		 at[32];	/* the first error's time, or "" */
};

struct report_timeline {
	struct report_rank *ranks;	/* owned, in rank order */
	size_t		 n;
	struct report_group *groups;	/* owned, first failure's first */
	size_t		 ngroups;
};

/*
 * Where a wording item points, as a report writes it: the path of one of
 * an incident's sources, or of a stored report's, by the same index.
 */
struct report_where {
	const struct rl_incident *inc;	/* its sources' paths, or NULL */
	char *const	*paths;		/* else these, borrowed */
	size_t		 npaths;
};

/*
 * Called after each part of a report's body with the part just written
 * (or skipped, when empty), for what is not wording's: the timeline after
 * the checkpoint, the tracebacks after the meanings, a stored history.
 */
typedef void	 report_after_fn(void *, struct buf *, enum wd_part);

/* report-doc.c */
const char	*report_where_path(const struct report_where *, int);
void		 report_notes_free(struct report_note *, size_t);
enum report_format report_format_parse(const char *);
enum report_format report_format_of_path(const char *);
const char	*report_format_name(enum report_format);
void		 report_timeline_build(struct report_timeline *,
		     const struct rl_incident *);
void		 report_timeline_clear(struct report_timeline *);
#define REPORT_QUOTES	8	/* distinct failures quoted with context */
size_t		 report_quotes(const struct rl_incident *, size_t *);
const char	*report_raw(struct report_opts *, struct buf *, const char *);
void		 report_time(const struct rl_time *, char *, size_t);
void		 report_window(const struct rl_incident *, char *, char *,
		     size_t);
void		 report_window_of(const struct rl_time *, const struct rl_time *,
		     char *, char *, size_t);
struct json_t	*report_packs_json(const struct rl_incident *);
void		 report_json_redact(struct report_opts *, struct buf *,
		     struct json_t *);
void		 report_time_hms(const struct rl_time *, char *, size_t);
const char	*report_source_path(const struct rl_incident *, int);
void		 report_render(const struct rl_incident *, enum report_format,
		     struct report_opts *, struct buf *);

/* report-json.c */
struct json_t	*report_json_answers(const struct rl_incident *);

/* report-md.c */
void		 report_md(const struct rl_incident *, const struct wording *,
		     struct report_opts *, struct buf *);
void		 sanitize_md(struct buf *, const char *, size_t);
void		 report_md_fence(struct buf *, struct report_opts *,
		     const char *);
void		 report_md_body(struct buf *, struct report_opts *,
		     const struct report_where *, const struct wording *,
		     report_after_fn *, void *);

/* report-html.c */
void		 report_html(const struct rl_incident *, const struct wording *,
		     struct report_opts *, struct buf *);
void		 report_html_begin(struct buf *, struct report_opts *,
		     const char *);
void		 report_html_end(struct buf *, struct report_opts *,
		     const struct buf *, const struct buf *);
void		 report_html_notes(struct buf *, struct report_opts *);
/*
 * The report's per-rank drawing, from what it draws alone, so that the
 * logs' report and the store's draw it one way.  Times are UTC ms,
 * INT64_MIN when unknown; labels are in start's clock.
 */
#define REPORT_SVG_CKPTS 24	/* checkpoint lines drawn at most */
struct report_svg_rank {
	int		 rank;		/* or RL_NONE */
	const char	*state;		/* rank_state_name's */
	const char	*signature;	/* its first error's rule, or NULL */
	int64_t		 first, last;	/* its first and last lines */
	int64_t		 progress;	/* its last progress line */
	int64_t		 error;		/* its first error */
	bool		 root;		/* that error is the first failure */
};
struct report_svg {
	struct report_svg_rank *ranks;
	size_t		 n;
	int64_t		 ckpt[REPORT_SVG_CKPTS];	/* saves completed */
	int64_t		 ckpt_step[REPORT_SVG_CKPTS];	/* or RL_CAP_UNSET */
	size_t		 nckpt;
	int64_t		 t0, t1;	/* the window */
	struct rl_time	 start;		/* its start, as written */
};
void		 report_html_svg(struct buf *, struct report_opts *,
		     const struct report_svg *);
void		 report_html_pre(struct buf *, struct report_opts *,
		     const char *);
void		 report_html_body(struct buf *, struct report_opts *,
		     const struct report_where *, const struct wording *,
		     report_after_fn *, void *);

#endif
