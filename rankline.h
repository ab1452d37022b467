/*
 * rankline.h: the commands.  main.c parses the common options and picks a
 * command from the table; each cmd-*.c file holds one family of commands.
 */
#ifndef RANKLINE_H
#define RANKLINE_H

#include "model.h"

/* Options every command shares. */
struct options {
	bool		 json;		/* --json */
	const char	*db;		/* --db PATH, or NULL for the default */
	bool		 no_store;	/* --no-store */
	bool		 no_mouse;	/* --no-mouse */
	const char	*theme;		/* --theme NAME */
	bool		 mono;		/* --mono */
	bool		 ascii;		/* --ascii */
	const char	*debug_log;	/* -v FILE */
	bool		 follow;	/* --follow (analyze, cat) */
	bool		 no_follow;	/* --no-follow: the console reads once */
	uint64_t	 until_idle_ms;	/* --until-idle SECONDS, or 0 */
	bool		 poll;		/* --poll */
	char		**cmds;		/* --cmd COMMAND, repeatable */
	size_t		 ncmds;
	bool		 restart;	/* --restart */
	bool		 hosts;		/* history --hosts */
	const char	*export_file;	/* history --export FILE */
	const char	*import_file;	/* history --import FILE */
	bool		 resolution;	/* note --resolution */
	int		 jobs;		/* --jobs N: threads reading files, 0 all */
	const char	*format;	/* report --format md|html|json */
	const char	*output;	/* report -o FILE */
	bool		 no_redact;	/* report --no-redact */
	int64_t		 report_incident;/* report --incident N, or 0 */
	bool		 report_last;	/* report --last */
};

/* A command: its name, a one-line usage, and its function. */
struct command {
	const char	*name;
	const char	*usage;
	int		(*exec)(const struct options *, int, char **);
};

extern const struct command commands[];

/* cmd-analyze.c */
int	cmd_analyze(const struct options *, int, char **);
int	cmd_console(const struct options *, int, char **);
struct rl_incident *analyze_paths(const struct options *, struct ruleset *,
	    int, char **, ingest_line_cb, void *, int *);
int	analyze_store(const struct options *, struct rl_incident *,
	    struct rl_history *);
bool	analyze_partial(const struct rl_incident *);
void	analyze_warn(const struct rl_incident *);
void	stop_trap(const char *const *, size_t);
void	stop_phase(int);

/* cmd-cat.c */
int	cmd_cat(const struct options *, int, char **);

/* cmd-rules.c */
int	cmd_rules(const struct options *, int, char **);
struct ruleset *rules_load_or_warn(void);

/* cmd-report.c */
#define REPORT_USAGE	"report [--format md|html|json] [-o FILE] " \
	"[--no-redact] (PATH... | --incident N | --last)"
struct report_note;
int	cmd_report(const struct options *, int, char **);
int	report_write(const char *, const struct buf *);
int	report_notes_read(const struct options *, int64_t,
	    struct report_note **, size_t *, char **);

/* cmd-report-stored.c */
int	report_stored(const struct options *, int);
int	report_stored_text(const struct options *, int64_t, int, struct buf *,
	    char **);

/* cmd-history.c */
int	cmd_history(const struct options *, int, char **);
int	cmd_show(const struct options *, int, char **);
int	cmd_note(const struct options *, int, char **);

#define EXIT_USAGE	2
#define EXIT_PARTIAL	3	/* the report was made, but a source was not
				   read in full (each named on stderr) */

#endif
