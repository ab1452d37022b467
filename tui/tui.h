/*
 * tui.h: the console.  It reads the incident model from core and draws it
 * with ncurses; it never computes a diagnosis of its own and never speaks
 * SQL.  It runs on the caller's libuv loop so that the sources being
 * followed keep flowing while the engineer reads.
 */
#ifndef RANKLINE_TUI_H
#define RANKLINE_TUI_H

#include <uv.h>

#include "model.h"
#include "cmdline.h"

/* A stored incident as the history view lists it: the caller's copy. */
struct tui_past {
	int64_t		 id;
	char		*when;		/* ISO 8601, as stored */
	char		*signature;	/* the root's rule, or NULL when healthy */
	char		*where;		/* "rank 3 on node1", or NULL */
	char		*message;	/* the root line's message (the
					   exception's text), or NULL */
	char		*summary;	/* the verdict's sentence, or NULL */
	char		*diagnosis;	/* the latest diagnosis note, or NULL */
	char		*resolution;	/* the latest resolution note, or NULL */
};

/*
 * The incident history as the console sees it: the caller's store behind
 * three calls, so that tui/ never speaks SQL.  list fills *v (newest first,
 * the query as `rankline history QUERY` takes it, NULL for all), note
 * records a diagnosis (or with the bool, a resolution), and notes fills
 * *v with the notes of an incident for the report e writes (report.h's,
 * freed by report_notes_free); each returns 0, or -1 with *cause, owned
 * by the caller.
 */
struct report_note;
struct tui_history {
	int		 (*list)(void *, const char *, struct tui_past **,
			     size_t *, char **);
	int		 (*note)(void *, int64_t, bool, const char *, char **);
	int		 (*notes)(void *, int64_t, struct report_note **,
			     size_t *, char **);
	int		 (*open)(void *, int64_t, struct rl_incident **,
			     char **);
	int		 (*report)(void *, int64_t, char **, char **);
	void		*arg;
};
void		 tui_past_free(struct tui_past *, size_t);

struct tui_config {
	const struct tui_history *history;	/* NULL: no store; no note: read only */
	const char	*theme;		/* theme name, or NULL for the default */
	bool		 mono;		/* no colour, whatever the terminal says */
	bool		 ascii;		/* no line-drawing or UTF-8 glyphs */
	const char	*debug_log;	/* file for -v output, or NULL */
	struct follow	*follow;	/* borrowed: the sources followed, or NULL */
	bool		 start_history;	/* no paths: open on the history, and
					   leaving it leaves the console */
	bool		 no_mouse;	/* leave the mouse to the terminal */
};

/*
 * tui.c.  tui_run returns with curses ended and SIGTERM and SIGHUP ignored,
 * so that the caller's last work (storing the incident) is not cut by a
 * second signal; SIGINT is left to its default, for an impatient human.
 */
int		 tui_run(uv_loop_t *, struct rl_incident *,
		     const struct tui_config *, char **);
void		 tui_changed(void);	/* lines came: diagnose again soon */
int		 tui_signal(void);	/* signal that ended the last run, or 0 */

/*
 * Everything below is internal to tui/.  It is kept free of curses types so
 * that main.c can include this header without curses' macros (erase, clear,
 * timeout, lines...) leaking into the rest of the program.
 */

/* Semantic colour roles; themes name these, never the views' colours. */
enum tui_role {
	TR_NORMAL = 0,	/* plain text */
	TR_TITLE,		/* the top line when no failure is named */
	TR_FAILURE,		/* the top line naming the first failure */
	TR_VERDICT,		/* the verdict line */
	TR_LABEL,		/* "domain", "checkpoint" and other labels */
	TR_SAFE,		/* checkpoint safe */
	TR_UNSAFE,		/* checkpoint unsafe or unknown */
	TR_AXIS,		/* the time axis and its ticks */
	TR_RANK,		/* a rank's label */
	TR_RANK_FIRST,	/* the first failure's rank label */
	TR_SELECTED,	/* the selected row or item */
	TR_LIFE,		/* the line a rank draws while it logs */
	TR_GLYPH_FIRST,	/* the first failure on the timeline */
	TR_GLYPH_FAIL,	/* another failure */
	TR_GLYPH_COLLATERAL,/* caused by a peer */
	TR_GLYPH_WRAPPER,	/* carries a failure raised elsewhere */
	TR_GLYPH_HANG,	/* the rank that went quiet */
	TR_GLYPH_PROGRESS,	/* training steps, readiness */
	TR_GLYPH_CKPT,	/* checkpoint saves */
	TR_GLYPH_EVIDENCE,	/* evidence and harmless lines */
	TR_STATE_OK,	/* rank states, one role each */
	TR_STATE_FAILED,
	TR_STATE_COLLATERAL,
	TR_STATE_HUNG,
	TR_STATE_EXITED,
	TR_PANE,		/* a pane's title line */
	TR_TIME,		/* times in lists */
	TR_SOURCE,		/* source:line in lists */
	TR_DIM,		/* context that matters less */
	TR_HIGHLIGHT,	/* the line the view is about */
	TR_KEY,		/* a key name in hints and help */
	TR_STATUS,		/* the bottom line */
	TR_ERROR,		/* an error in the bottom line */
	TR_NROLES
};

/* What a timeline cell shows, lowest precedence first. */
enum tui_glyph {
	GLYPH_EMPTY = 0,	/* nothing in this bucket */
	GLYPH_EVIDENCE,
	GLYPH_PROGRESS,
	GLYPH_CKPT_BEGIN,
	GLYPH_CKPT,
	GLYPH_WRAPPER,
	GLYPH_COLLATERAL,
	GLYPH_HANG,
	GLYPH_FAIL,
	GLYPH_FIRST,
	GLYPH_NGLYPHS
};

/* Reactions a key handler asks for; handlers never draw. */
#define REACT_NONE	0x0
#define REACT_REDRAW	0x1		/* something changed: draw soon */
#define REACT_QUIT	0x2		/* leave the console */
#define REACT_CLOSE	0x4		/* close this view, back to the one below */
#define REACT_OPEN	0x8		/* open the view in the high bits */
#define REACT_VIEW(id)	(REACT_OPEN | REACT_REDRAW | ((id) << 8))
#define REACT_VIEW_ID(r) ((r) >> 8)

/* The views; view_types[] in tui.c lists one struct view_type for each. */
enum view_id {
	VIEW_TIMELINE = 0,
	VIEW_DETAIL,
	VIEW_HELP,
	VIEW_DIAGNOSIS,
	VIEW_HISTORY,
	VIEW_MERGED,		/* every rank's lines in time order (L) */
	VIEW_MARKS,		/* the marked lines (') */
	VIEW_TEXT,		/* a stored incident's report (history) */
	VIEW_NVIEWS
};

/* What a key means; a view's key handler gets the key and its action. */
enum tui_action {
	ACT_NONE = 0,
	ACT_UP,
	ACT_DOWN,
	ACT_PAGE_UP,
	ACT_PAGE_DOWN,
	ACT_HOME,
	ACT_END,
	ACT_LEFT,
	ACT_RIGHT,
	ACT_FIRST,		/* jump to the first failure */
	ACT_NEXT_FAILED,	/* next rank that did not end well */
	ACT_PREV_FAILED,
	ACT_ENTER,
	ACT_BACK,
	ACT_HELP,
	ACT_DIAGNOSIS,		/* the answers' reasons and next steps */
	ACT_HISTORY,		/* past incidents and their notes */
	ACT_SEARCH,		/* history: ask for a query */
	ACT_NOTE,		/* history: write a diagnosis */
	ACT_RESOLVE,		/* history: write what fixed it */
	ACT_THEME,		/* cycle through the themes */
	ACT_REDRAW,
	ACT_PAUSE,		/* hold the screen still, or let it follow again */
	ACT_EXPORT,		/* write the report of the incident to a file */
	ACT_EXPORT_ASK,		/* ask the path (and so the format) first */
	ACT_QUIT,
	ACT_CLICK,		/* button 1 at the tui's click_y, click_x */
	ACT_ZOOM_IN,		/* the timeline: a narrower window */
	ACT_ZOOM_OUT,
	ACT_PAN_LEFT,		/* move the window back in time */
	ACT_PAN_RIGHT,
	ACT_ZOOM_RESET,		/* the whole job again */
	ACT_GOTO_TIME,		/* ask a time, and go there */
	ACT_GROUP,		/* expand or collapse the selected group */
	ACT_GROUP_ALL,		/* collapse every group of alike ranks, or none */
	ACT_FIND,		/* / : search every rank's lines */
	ACT_FIND_BACK,		/* ? : the same, n going backwards */
	ACT_NEXT_HIT,		/* n with a search */
	ACT_PREV_HIT,
	ACT_COMMAND,		/* : the command line */
	ACT_NEXT_FAILURE,	/* ] the next failing line, any rank */
	ACT_PREV_FAILURE,	/* [ */
	ACT_MARK,		/* m mark the selected line, or unmark it */
	ACT_MARKS,		/* ' the marks */
	ACT_PIPE,		/* | the selected line to a shell command */
	ACT_YANK,		/* y copy it (OSC 52) */
	ACT_MERGED,		/* L the merged log */
	ACT_SCROLL_LEFT,	/* < */
	ACT_SCROLL_RIGHT,	/* > */
	ACT_NACTIONS
};

/* Keys are wide characters, or function keys (KEY_*) with TUI_KEYFN set. */
#define TUI_KEYFN	0x1000000
#define TUI_CTRL(c)	((c) & 0x1f)

struct tui;
struct view;

/* A view: a table of callbacks and its state (tmux window_mode). */
struct view_type {
	const char	*name;		/* as the help and status line say it */
	void		 (*init)(struct view *);
	void		 (*free)(struct view *);
	void		 (*resize)(struct view *, int, int);
	void		 (*draw)(struct view *, int, int);
	int		 (*key)(struct view *, int, enum tui_action);
	void		 (*update)(struct view *);	/* the model changed */
};

struct view {
	const struct view_type *type;
	enum view_id	 id;		/* which entry of view_types[] */
	struct tui	*tui;		/* borrowed: the console it belongs to */
	void		*data;		/* the view's own state */
};

extern const struct view_type view_timeline_type;
extern const struct view_type view_detail_type;
extern const struct view_type view_help_type;
extern const struct view_type view_diagnosis_type;
extern const struct view_type view_history_type;
extern const struct view_type view_merged_type;
extern const struct view_type view_marks_type;
extern const struct view_type view_text_type;

/* One display row of the timeline: a rank, or the events no rank claims. */
struct tui_row {
	const struct rl_rank *rank;	/* borrowed, or NULL for the orphan row */
	size_t		 first;		/* its events: index->ev[first..first+n) */
	size_t		 n;
};

/* The console's index of the model, rebuilt whenever the model changes. */
struct tui_index {
	struct tui_row	*rows;		/* one per rank, then maybe the orphans */
	size_t		 nrows;
	unsigned	*ev;		/* event indexes grouped by row, in time order */
	size_t		 nev;
	int		*row_of_event;	/* row of each event, or -1 */
	char		**src_names;	/* each source's shortest unique name */
	size_t		 nsrc_names;
	int		*copy_of;	/* the listed event each tee'd copy is
					   listed as, or -1; see model_dedup */
	unsigned char	*glyph;		/* each event's enum tui_glyph */
	int64_t		*pos;		/* each event's place on the axis: UTC
					   ms, or its index when untimed; see
					   model_positions */
	int		 first_row;	/* row of the first failure, or -1 */
	size_t		 nevents;	/* inc->nevents when built */
	size_t		 nranks;	/* inc->nranks when built */
	size_t		 nranked;	/* of them, with a rank number */
	int64_t		 t0;		/* axis start: UTC ms, or 0 untimed */
	int64_t		 t1;		/* axis end: UTC ms, or the last index */
	int64_t		 shown0;	/* t0 as the logs wrote it, for labels */
	bool		 timed;		/* false: place events by index, not time */
	size_t		 host_width;	/* widest host name, capped */
	int		 max_rank;	/* highest rank number, or -1 */
};

/* A timeline row's identity, to find it again after the ranks are remade. */
struct tui_rowkey {
	bool		 valid;		/* a row was selected */
	bool		 orphan;	/* the row of events no rank claims */
	int		 rank;		/* its rank, or RL_NONE */
	char		*host;		/* an unranked row's host, owned, or NULL */
};

/*
 * The timeline's window on the axis (zoom.c): the whole job, or the part
 * the engineer zoomed into.  In the axis' units: UTC ms, or event indexes
 * when nothing is timed.
 */
struct tui_zoom {
	bool		 on;		/* a window is set; else the whole axis */
	int64_t		 w0;		/* its first instant */
	int64_t		 w1;		/* its last */
	unsigned	 gen;		/* changes with it: bucket again */
	struct buf	*ask;		/* T's time as it is typed, owned, or
					   NULL: not asking */
};

/*
 * Ranks that behave alike, shown as one row (groups.c): the timeline's
 * display entries are rows, or groups of rows of one state and one first
 * failure's rule, so that among thousands of ranks the odd one stands out.
 */
struct tui_group {
	size_t		 first;		/* its rows: members[first..first+n) */
	size_t		 n;
	int		 kind;		/* what its rows share: their state, */
	const void	*rule;		/* and their first failure's rule */
	bool		 open;		/* expanded: its rows are entries */
	char		*ranks;		/* "0-36,38-63", owned */
};

/* One line of a folded group's event list: alike lines of its members. */
struct group_line {
	unsigned	 ev;		/* the one shown: the earliest */
	size_t		 count;		/* lines it stands for */
	size_t		 nranks;	/* on how many ranks */
	char		*ranks;		/* which: "0-8518,8520-9999", owned */
};

/*
 * A folded group's event list (group-list.c), built when it is selected,
 * a slice at a time between frames (build is the slices' state, NULL once
 * it is done).
 */
struct group_list {
	size_t		 group;		/* the group's index in its groups */
	size_t		 events;	/* its members' lines, all told */
	struct group_line *v;		/* in time order */
	size_t		 n;
	int		*line_of;	/* each event's line, or -1 */
	struct gl_build	*build;		/* owned while it is being built */
};

struct tui_groups {
	int		*disp;		/* entries: a row, or -(group + 1) */
	size_t		 ndisp;
	int		*disp_of_row;	/* each row's entry */
	struct tui_group *v;
	size_t		 n;
	int		*members;	/* rows, grouped */
	bool		 forced;	/* Z chose: collapse is what it says */
	bool		 collapse;	/* with forced: collapse, or never */
	bool		 folded;	/* collapsed at the last build */
	struct {
		int		 kind;
		const void	*rule;
	}		*opened;	/* groups z opened, across rebuilds */
	size_t		 nopened;
	size_t		 copened;
	size_t		 label_w;	/* the widest entry label */
	struct group_list *list;	/* the selected folded group's lines,
					   owned, or NULL (group-list.c) */
};

/* The console while its sources are followed (live.c). */
struct tui_live {
	struct follow	*follow;	/* borrowed, or NULL: read once */
	uv_timer_t	 timer;		/* the next capped diagnosis */
	uv_timer_t	 tick;		/* once a second: the line rate */
	bool		 stale;		/* lines came since the last diagnosis */
	bool		 paused;	/* the screen holds still */
	uint64_t	 diag_at;	/* uv_now of the last diagnosis */
	uint64_t	 diag_ms;	/* what the last diagnosis cost */
	uint64_t	 diagnoses;	/* how many were run, for -v */
	uint64_t	 shown_lines;	/* inc->lines at the last diagnosis */
	uint64_t	 tick_lines;	/* inc->lines at the last tick */
	uint64_t	 rate;		/* lines read in the last second */
	size_t		 errors_shown;	/* inc->errors said in the status line */
};

/* The console. */
struct tui {
	uv_loop_t	*loop;		/* borrowed: the caller's */
	struct rl_incident *inc;	/* borrowed: the model */
	const struct tui_config *cfg;	/* borrowed */

	uv_signal_t	 sig[4];	/* SIGWINCH, SIGINT, SIGTERM, SIGHUP */
	uv_poll_t	 poll;		/* the keyboard */
	uv_prepare_t	 prepare;	/* draws once per loop turn */
	uv_timer_t	 timer;		/* wakes the loop for a capped redraw */
	uv_idle_t	 search_idle;	/* reads a search's lines (search.c) */
	uv_idle_t	 group_idle;	/* builds a group's list (group-list.c) */
	struct tui_live	 live;		/* following: diagnosis cadence, pause */
	int		 nhandles;	/* still open; freed when it reaches 0 */

	int		 in_fd;		/* our own open of the tty, for reading */
	int		 out_fd;	/* fd curses writes to */
	int		 in_flags;	/* in_fd's flags before uv_poll set them */
	void		*in_fp;		/* FILE * of in_fd */
	void		*out_fp;	/* FILE * of out_fd, when we opened it */
	void		*screen;	/* SCREEN * from newterm */
	void		*log_fp;	/* FILE * of the -v log, or NULL */
	bool		 curses;	/* curses is running */

	bool		 utf8;		/* draw UTF-8 glyphs and text */
	bool		 mono;		/* attributes only */
	bool		 dirty;		/* something must be drawn */
	bool		 urgent;	/* drawn now, not after the cap */
	bool		 quitting;	/* handles are being closed */
	uint64_t	 last_draw;	/* uv_now() of the last doupdate */
	unsigned	 empty_wakes;	/* keyboard wake-ups that read nothing */
	int		 signal;	/* signal that ended the run, or 0 */

	int		 sx;		/* screen columns */
	int		 sy;		/* screen lines */

	struct view	*views[8];	/* the stack; views[nviews - 1] is on top */
	int		 nviews;

	struct tui_index index;		/* rows and per-row events */
	struct tui_groups *groups;	/* the timeline's, borrowed, or NULL:
					   the detail names a folded group's
					   ranks from it */
	int		 sel_row;	/* selected timeline row */
	int		 sel_event;	/* selected event index, or RL_NONE */
	uint64_t	 sel_seq;	/* its seq, to find it again after a rebuild */
	struct rl_incident *home;	/* borrowed: the console's own incident
					   while a stored one (inc, owned)
					   is open, else NULL */
	char		*text;		/* for the text view it opens, owned */
	char		*text_title;
	int64_t		 open_id;	/* the stored incident open, or 0 */
	int		 click_y;	/* where button 1 was pressed last */
	int		 click_x;
	bool		 sel_auto;	/* no key moved it yet: it follows the answer */
	struct tui_rowkey sel_key;	/* the selected row, across a diagnosis */

	char		*message;	/* status line message, owned, or NULL */
	struct buf	*export_path;	/* E's path as it is typed, owned, or
					   NULL: not asking (export.c) */
	bool		 message_error;	/* drawn as an error */
	struct tui_zoom	 zoom;		/* the timeline's window (zoom.c) */
	char		*theme;		/* current theme name, owned */

	struct tui_filter filter;	/* what the rows show (cmdline.h) */
	struct tui_search *search;	/* the last / or ?, or NULL (search.c) */
	struct tui_prompt *prompt;	/* the command line typed, or NULL */
	uint64_t	*marks;		/* seqs of the marked events, sorted */
	size_t		 nmarks;
	size_t		 cmarks;	/* room in marks */
};

/* tui.c */
void		 tui_resize(struct tui *);
void		 tui_frame(struct tui *);
int		 tui_bench(struct tui *);	/* bench.c */
void		 tui_bench_report(void);
void		 tui_rebuild(struct tui *);
void		 tui_log(struct tui *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
void		 tui_react(struct tui *, int);
void		 tui_quit(struct tui *, int);
int		 tui_export(struct tui *);	/* export.c */
int		 tui_export_ask(struct tui *);
int		 tui_export_key(struct tui *, int);
void		 tui_export_clear(struct tui *);
void		 tui_set_message(struct tui *, bool, const char *, ...)
		     __attribute__((format(printf, 3, 4)));
void		 tui_select_event(struct tui *, int);
void		 tui_select_row(struct tui *, int);

/* crash.c */
void		 crash_save_tty(int);
void		 crash_arm(int);
void		 crash_disarm(void);
void		 crash_mouse(void);
int		 tui_open(struct tui *, struct rl_incident *, int64_t);
int		 tui_open_close(struct tui *);
bool		 crash_test_key(int);

/* live.c */
void		 live_start(struct tui *);
void		 live_changed(struct tui *);
void		 live_refresh(struct tui *);
int		 live_pause(struct tui *);
const char	*live_status(struct tui *, char *, size_t);

/* model.c */
void		 model_keep(struct tui *);
void		 model_build(struct tui *);
void		 model_clear(struct tui_index *);
int		*model_source_rows(const struct rl_incident *);
const char	*model_row_label(const struct tui_row *, char *, size_t);
const char	*model_event_label(const struct tui *, unsigned, char *,
		     size_t);
enum tui_glyph	 model_glyph(const struct rl_incident *, size_t);
enum rank_state	 model_row_state(const struct tui_row *);
bool		 model_row_failing(const struct tui *, const struct tui_row *);
const char	*model_message(const struct rl_event *);
int		 model_event_pos(const struct tui *, unsigned);
int		 model_row_default(const struct tui *, int);
const char	*model_source_name(const struct tui *, unsigned);
void		 model_time_short(const struct rl_time *, char *, size_t, bool);

/* filter.c */
void		 filter_apply(struct tui *);

/* search.c */
int		 search_start(struct tui *, const char *, bool);
void		 search_update(struct tui *);
int		 search_next(struct tui *, int);
bool		 search_active(const struct tui *);
bool		 search_is_hit(const struct tui *, unsigned);
bool		 search_row_hit(struct tui *, int);
void		 search_free(struct tui *);
bool		 search_cancel(struct tui *);
const int64_t	*search_row_lines(struct tui *, int, size_t *);
/* A line hit that is no event, as the merged log draws it. */
struct search_line {
	int64_t		 key;		/* its place in time (search_key) */
	int64_t		 pos;		/* on the axis, as index.pos */
	int		 row;		/* the row it is on */
	unsigned	 source;
	uint64_t	 line;
	struct rl_time	 time;
	const struct rl_process *proc;	/* borrowed, or NULL */
	bool		 selected;	/* the selection is this line */
};
size_t		 search_lines(struct tui *);
int64_t		 search_key(const struct rl_time *);
void		 search_line(const struct tui *, size_t, struct search_line *);
int		 search_line_text(const struct tui *, size_t, struct buf *);
void		 search_line_select(struct tui *, size_t);
void		 search_line_unselect(struct tui *);
long		 search_line_selected(const struct tui *);

/* prompt.c */
int		 prompt_open(struct tui *, int);
int		 prompt_key(struct tui *, int);
void		 prompt_free(struct tui *);

/* lines.c */
int		 lines_key(struct tui *, enum view_id, enum tui_action);
enum tui_action	 lines_action(const struct tui *, enum view_id,
		     enum tui_action);
int		 lines_command(struct tui *, const char *);
int		 lines_event_at(const struct tui *, unsigned, uint64_t);
int		 lines_source(const struct tui *, const char *, char **);
bool		 lines_listed(const struct tui *, unsigned);
bool		 lines_marked(const struct tui *, uint64_t);
void		 lines_free(struct tui *);
void		 lines_banner(struct tui *, int, int);

/* pipe.c */
int		 pipe_run(struct tui *, const char *);
int		 pipe_yank(struct tui *);
int		 pipe_osc52(const char *, const char *, size_t, struct buf *);

/* screen.c */
void		 screen_init(struct tui *);
void		 screen_erase(void);
int		 screen_put(int, int, int, enum tui_role, const char *, size_t);
int		 screen_puts(int, int, int, enum tui_role, const char *);
int		 screen_printf(int, int, int, enum tui_role, const char *, ...)
		     __attribute__((format(printf, 5, 6)));
int		 screen_cut(int, int, int, enum tui_role, const char *);
int		 screen_cut_left(int, int, int, enum tui_role, const char *);
void		 screen_fill(int, int, int, enum tui_role);
void		 screen_glyph(int, int, enum tui_glyph, enum tui_role);
const char	*screen_glyph_text(enum tui_glyph);
const char	*screen_sym(const char *, const char *);
int		 screen_width(const char *, size_t);
size_t		 screen_fit(const char *, size_t, int);
size_t		 screen_wrap(const char *, size_t, int);
void		 screen_too_small(int, int);
void		 screen_status(struct tui *, int, const char *, const char *);

/* groups.c */
void		 groups_build(struct tui *, struct tui_groups *, int);
void		 groups_clear(struct tui_groups *);
int		 groups_key(struct tui *, struct tui_groups *, enum tui_action);
int		 groups_row(const struct tui_groups *, size_t);
const struct tui_group *groups_of(const struct tui_groups *, int);
int		 groups_kind(const struct tui *, int);

/* group-list.c */
const struct group_list *group_list_get(struct tui *, struct tui_groups *,
		     const struct tui_group *);
void		 group_list_free(struct group_list *);
void		 group_list_draw(struct tui *, const struct group_list *, int,
		     int, int, int, int *);
int		 group_list_step(struct tui *, const struct group_list *, int);
int		 group_list_click(struct tui *, const struct group_list *, int);
const struct group_line *group_list_selected(const struct tui *, int);
int		 group_list_done(const struct group_list *, int *);

/* view-header.c: the top lines, above the ranks. */
bool		 header_history_news(const struct tui *);
void		 header_draw_failure(struct tui *, int);
void		 header_draw_verdict(struct tui *, int);
void		 header_draw_history(struct tui *, int, int);

/* zoom.c */
void		 zoom_window(const struct tui *, int64_t *, int64_t *);
int		 zoom_col(const struct tui *, int64_t, int);
int64_t		 zoom_scale_factor(int64_t, int64_t, int);
/* The column of p in a window starting at a, inside [a, b]. */
#define ZOOM_COL(p, a, scale, w)					\
	((int)((((p) - (a)) * (scale)) >> 32) < (w) ?			\
	    (int)((((p) - (a)) * (scale)) >> 32) : (w) - 1)
int		 zoom_key(struct tui *, enum tui_action, int);
int		 zoom_focus_first(struct tui *);
int		 zoom_ask_key(struct tui *, int);
void		 zoom_clear(struct tui *);
const char	*zoom_scale(const struct tui *, int, char *, size_t);
int		 zoom_parse(const struct tui *, const char *, int64_t *);
void		 zoom_draw_axis(struct tui *, int, int, int);
void		 zoom_draw_activity(struct tui *, int, int, int, int,
		     const unsigned *, unsigned);

/* theme.c */
int		 theme_load(struct tui *, const char *);
void		 theme_next(struct tui *);
unsigned long	 theme_attr(enum tui_role);
enum tui_role	 theme_glyph_role(enum tui_glyph);
void		 theme_free(void);

/* input.c */
void		 input_drain(struct tui *, bool);
enum tui_action	 input_action(enum view_id, int);
bool		 input_scroll(int *, enum tui_action, int, int);
size_t		 input_nbindings(void);
int		 input_binding(size_t, enum view_id, const char **,
		     const char **);

#endif
