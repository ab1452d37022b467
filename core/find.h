/*
 * find.h: the console's search of the model's lines (/ and ?), in core so
 * that its pattern handling is tested without a terminal and pcre2 stays
 * behind core's include path.
 */
#ifndef RANKLINE_FIND_H
#define RANKLINE_FIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"

struct find;
struct buf;
struct rl_incident;
struct rl_source;

/* A line of a source that matched, as find-read.c hands it on. */
#define FIND_NO_PROC	UINT32_MAX	/* the analysis has no such process */
#define FIND_LINE_MAX	4096		/* bytes of a line read again */
#define FIND_TAIL	24		/* last bytes of a line hashed, to tell
					   a tee'd copy */
struct find_hit {
	uint64_t	 line;		/* 1-based line number in its source */
	uint64_t	 offset;	/* byte offset of the line */
	struct rl_time	 time;		/* its own, or its stream's last */
	uint32_t	 source;	/* the analysis's source index */
	uint32_t	 proc;		/* the analysis's process, or
					   FIND_NO_PROC */
	uint32_t	 len;		/* bytes of the line */
	uint32_t	 tail;		/* hash of its last FIND_TAIL bytes */
};
typedef void	(*find_read_cb)(void *, const struct find_hit *);
struct find_read;

struct find	*find_compile(const char *, char **);
int		 find_match(struct find *, const char *, size_t);
bool		 find_caseless(const struct find *);
bool		 find_smart_caseless(const char *);
const char	*find_pattern(const struct find *);
void		 find_free(struct find *);

/* find-read.c: every line of every source, read again in steps. */
struct find_read *find_read_create(struct rl_incident *, struct find *, bool,
		     find_read_cb, void *);
bool		 find_read_step(struct find_read *, size_t);
size_t		 find_read_progress(const struct find_read *, size_t *);
bool		 find_read_events_only(const struct find_read *, unsigned);
uint64_t	 find_read_lines(const struct find_read *, uint64_t *);
void		 find_read_free(struct find_read *);
int		 find_read_line(const struct rl_source *, uint64_t, struct buf *);

#endif
