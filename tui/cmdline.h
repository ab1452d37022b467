/*
 * cmdline.h: what the console's command line (:) says, parsed without a
 * terminal: rank sets ("3,5-7"), the filters and the jumps.  Pure C, so
 * that tests/unit/test-cmdline checks it line by line.
 */
#ifndef RANKLINE_CMDLINE_H
#define RANKLINE_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "base.h"

#define RANKSET_MAX	4096	/* ranges in one set */

/* A set of ranks as sorted, merged, inclusive ranges. */
struct rankset {
	struct rankset_range {
		int	 lo;
		int	 hi;
	}		*v;		/* owned */
	size_t		 n;
};

int		 rankset_parse(struct rankset *, const char *, char **);
bool		 rankset_has(const struct rankset *, int);
void		 rankset_format(const struct rankset *, struct buf *);
void		 rankset_clear(struct rankset *);

/* One command typed after ':'. */
enum cmdline_kind {
	CMD_RANKS,		/* filter: these ranks only */
	CMD_HOST,		/* filter: this host only ("" clears it) */
	CMD_SIG,		/* filter: this signature only ("" clears it) */
	CMD_FAILURES,		/* filter: failing lines only (on) */
	CMD_PROGRESS,		/* filter: show progress lines (on) */
	CMD_CLEAR,		/* every filter off */
	CMD_RANK,		/* jump to a rank */
	CMD_LINE,		/* jump to a line of the selected source */
	CMD_GOTO,		/* jump to FILE:LINE */
	CMD_NOSEARCH,		/* forget the search */
	CMD_NKINDS
};

struct cmdline {
	enum cmdline_kind kind;
	struct rankset	 set;		/* CMD_RANKS */
	char		*arg;		/* host, signature or file, owned */
	long long	 n;		/* rank or line */
	bool		 on;		/* CMD_FAILURES, CMD_PROGRESS */
};

int		 cmdline_parse(struct cmdline *, const char *, char **);
void		 cmdline_clear(struct cmdline *);
const char	*cmdline_usage(void);

/* What the rows show: every part off is everything. */
struct tui_filter {
	struct rankset	 ranks;		/* n 0: every rank */
	char		*host;		/* or NULL */
	char		*sig;		/* a rule id or its prefix, or NULL */
	bool		 failures;	/* failing lines only */
	bool		 no_progress;	/* progress lines hidden */
};

bool		 filter_active(const struct tui_filter *);
int		 filter_command(struct tui_filter *, struct cmdline *);
void		 filter_describe(const struct tui_filter *, const char *,
		     struct buf *);
bool		 filter_sig_match(const char *, const char *);
void		 filter_clear(struct tui_filter *);

#endif
