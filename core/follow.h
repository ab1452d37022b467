/*
 * follow.h: the follow API (follow.c), for the commands and the console
 * that follow their logs on a uv loop.
 *
 * follow.c: the sources named on the command line read, then followed on
 * the caller's uv loop (files and folders watched, commands and a piped
 * stdin read as they write) until the caller calls follow_stop.  analyze
 * --follow, cat --follow and the console each run one.
 */
#ifndef RANKLINE_FOLLOW_H
#define RANKLINE_FOLLOW_H

#include "model.h"

struct uv_loop_s;
struct follow;
struct follow_config {
	uint64_t	 until_idle_ms;	/* end_cb after this long without bytes, or 0 */
	bool		 poll;		/* --poll: stat, never inotify */
	bool		 batch;		/* no watching: run the commands to their end */
	char		**cmds;		/* --cmd COMMAND, borrowed for follow_start */
	size_t		 ncmds;
	bool		 restart;	/* --restart: run a command again when it exits */
	bool		 renew;		/* a rotated or truncated file's next
					   lines are a source of their own (the
					   console), not more of the old one's */
	ingest_line_cb	 line_cb;	/* for `cat`, or NULL */
	void		*line_arg;
	void		(*data_cb)(void *);	/* bytes were read in, or NULL */
	void		(*end_cb)(void *);	/* nothing more will come: stop it */
	void		*cb_arg;	/* for data_cb and end_cb */
};
struct follow_stats {
	size_t		 files;		/* text files followed, open or awaiting their name */
	size_t		 polled;	/* of those, polled (network file system, --poll) */
	size_t		 dirs;		/* folders watched for new files */
	int		 cmds;		/* commands not ended for good */
	bool		 in;		/* standard input is still read */
	uint64_t	 bytes;		/* read since the start */
	uint64_t	 last_data;	/* uv_now of the last bytes, or 0 */
};
struct follow	*follow_start(struct uv_loop_s *, struct rl_incident *,
		     const struct follow_config *, int, char **, int *);
void		 follow_stop(struct follow *);
void		 follow_stats(const struct follow *, struct follow_stats *);


#endif
