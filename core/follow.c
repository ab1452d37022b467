/*
 * follow.c: the sources named on the command line read once and then
 * followed on the caller's libuv loop, the way `tail -F` follows a name:
 * files and folders watched, commands (--cmd) and a piped standard input
 * read as they write.  It is one object, started and stopped by its owner:
 * `analyze --follow` and `cat --follow` run it until a signal or a quiet
 * spell, and the console runs it beside the keyboard, diagnosing again when
 * data_cb says that bytes came.  It takes no signals and prints nothing: what
 * ends it is the owner's business (end_cb says when nothing more will come).
 *
 * A file is watched through its folder: one uv_fs_event (inotify) per
 * folder hears appends, truncation, renames, deletion and creation of every
 * name in it, so a rotated file's new inode needs no new watch.  inotify
 * cannot hear other hosts' writes on a network file system (NFS, Lustre,
 * CIFS, FUSE, GPFS...), so there, or with --poll, each file and each
 * watched folder has a uv_fs_poll instead.  A one-second sweep catches
 * writes to a file renamed out of its folder and any missed event.
 *
 * Each file keeps (dev, ino, size, offset): a size below the offset is a
 * truncation (copytruncate: read again from 0); another inode at the path
 * is a rotation (drain the old fd to its end, then read the new file from
 * 0); a renamed-away file stays open until a new one takes its name.  The
 * inodes read are remembered, so a rotated file that appears under a new
 * name in a watched folder is not read twice.  For the console (renew),
 * the file after a rotation or a truncation is a source of its own, so
 * that its lines are numbered from 1 and not labelled as the old file's.
 * A partial last line is held and flushed after FOLLOW_QUIET_MS without
 * bytes.
 *
 * Files are held open up to a budget: the limit of open files less
 * FOLLOW_FD_RESERVE for the console's terminal, the store and commands.
 * Past it a file is closed once read ("shut") and looked at by name, at
 * its folder's events, its poll or the sweep: the same inode grown is
 * opened again at its offset; another file at the name, or this one
 * truncated, is read from its start.  What a shut file got between the
 * last look and a rotation is not read: the cost of following more files
 * than the system lets one process hold.
 *
 * Ownership: the follow owns its files and folders, which embed their
 * handles; each is freed in the close callback of its last handle, and the
 * follow itself in the close callback of its own last handle, so that once
 * follow_stop was called the loop runs to its end with nothing left on it.
 * The incident is the caller's and outlives the follow.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "engine.h"
#include "follow.h"

#define FOLLOW_QUIET_MS	500	/* a partial line is complete after this */
#define FOLLOW_REST_MS	30000	/* and a file rests (ingest_rest) after
				   this: a live rank that logs every few
				   seconds does not rest and wake each time */
#define FOLLOW_POLL_MS	50	/* stat interval on network file systems */
#define FOLLOW_SWEEP_MS	1000	/* safety net for missed events */
#define FOLLOW_DEPTH	32	/* folders deeper than this are not watched */
#define FOLLOW_FD_RESERVE 128	/* descriptors left to the rest: the
				   console's terminal, the store, commands */

/* A folder: the parent of followed files, or a folder argument. */
struct follow_dir {
	struct follow	*f;		/* borrowed: its owner */
	char		*path;		/* without a trailing slash */
	int		 depth;		/* below the argument it came from */
	bool		 scan;		/* new regular files in it are sources */
	bool		 rescan;	/* an event named a new entry: scan it
					   whole at the sweep, for the missed */
	bool		 poll;		/* a network file system, or --poll */
	bool		 watching;	/* a handle was started */
	bool		 fell_back;	/* inotify refused: polled, event unused */
	dev_t		 dev;		/* its identity (ino 0: not known), */
	ino_t		 ino;		/* so that a link to it is not taken */
	uv_fs_event_t	 event;		/* when !poll */
	uv_fs_poll_t	 fspoll;	/* when poll (and scan) */
	struct follow_dir *next;
};

/* A followed file. */
struct follow_file {
	struct follow	*f;		/* borrowed: its owner */
	struct rl_source *src;		/* borrowed from the incident */
	struct follow_dir *dir;		/* its folder, borrowed */
	const char	*name;		/* its name in dir, inside src->path */
	int		 fd;		/* or -1 between files */
	dev_t		 dev;		/* of the open file */
	ino_t		 ino;
	uint64_t	 size;		/* at the last look */
	uint64_t	 offset;	/* bytes read from the open file */
	bool		 done;		/* compressed or binary: read once */
	bool		 shut;		/* past the open files' budget: closed
					   between looks, opened again at its
					   offset when its path's file grows */
	bool		 rested;	/* quiet at its end: its reading gave
					   back what it held for more
					   (ingest_rest), until bytes come */
	int		 nhandles;	/* open handles; freed at 0 */
	uv_fs_poll_t	 fspoll;	/* when dir->poll */
	uv_timer_t	 quiet;		/* flushes a held partial line */
	struct follow_file *next;
	struct follow_file *same_path;	/* an older file at its path */
	struct follow_file *same_name;	/* an older file with its dir, name */
};

struct follow {
	uv_loop_t	*loop;		/* borrowed */
	struct rl_incident *inc;	/* borrowed */
	struct follow_config cfg;	/* a copy; cmds is not kept past the start */
	struct follow_file *files;	/* owned */
	struct keymap	 by_path;	/* (NULL, path) -> the newest file */
	struct keymap	 by_name;	/* (dir, name) -> the newest file,
					   the others by same_*: what a
					   folder's entry or event names is
					   found without a look at each */
	struct follow_dir *dirs;	/* owned */
	struct keymap	 dirs_by_path;	/* (NULL, path) -> its folder */
	struct fileset	 dirs_scanned;	/* the folders scanned, by inode:
					   10,000 folders (one per node) were
					   each looked for in a list of all */
	struct fileset	 inodes;	/* files read, so a rotated name is
					   not read again */
	uv_timer_t	 idle;		/* --until-idle, and a batch with nothing to run */
	uv_timer_t	 sweep;
	struct source_cmds *cmds;	/* commands and stdin, or NULL */
	uint64_t	 bytes;		/* read since the start */
	uint64_t	 last_data;	/* uv_now of the last bytes, or 0 */
	int		 nhandles;	/* its own open handles; freed at 0 */
	bool		 ended;		/* end_cb was called */
	bool		 stopping;	/* follow_stop was called */
	bool		 closed;	/* its last reads are done, handles closing */
	bool		 said_watches;	/* the inotify limit was reported */
	bool		 said_files;	/* the open-files limit was reported */
	bool		 said_shut;	/* files looked at by name: reported */
	int		 watches;	/* inotify watches started */
	size_t		 nopen;		/* followed files held open */
	size_t		 maxopen;	/* at most; the rest are shut */
};

static void	follow_file_check(struct follow_file *);
static void	follow_dir_scan(struct follow_dir *);
static void	follow_dir_entry(struct follow_dir *, const char *);
static void	follow_quiet_cb(uv_timer_t *);

/* File system magic numbers that inotify cannot hear remote writes on. */
static const uint32_t follow_remote_fs[] = {
	0x6969,		/* NFS */
	0x0BD00BD0,	/* Lustre */
	0xFF534D42,	/* CIFS */
	0xFE534D42,	/* SMB2 */
	0x517B,		/* SMB */
	0x65735546,	/* FUSE */
	0x47504653,	/* GPFS */
	0x00C36400,	/* Ceph */
	0x5346414F,	/* AFS */
	0x01021997,	/* 9P */
	0x19830326,	/* BeeGFS */
	0xAAD7AAEA,	/* PanFS */
	0x01161970,	/* GFS2 */
	0x7461636F,	/* OCFS2 */
};

/* Is this folder on a file system that needs polling? */
static bool
follow_remote(const char *path)
{
	struct statfs	sf;
	size_t		i;

	if (statfs(path, &sf) != 0)
		return false;
	for (i = 0; i < sizeof follow_remote_fs / sizeof *follow_remote_fs; i++) {
		if (((unsigned long)sf.f_type & 0xffffffffUL) ==
		    follow_remote_fs[i])
			return true;
	}
	return false;
}

/* Nothing more will come: tell the owner, once; it calls follow_stop. */
static void
follow_end(struct follow *f)
{
	if (f->ended || f->stopping)
		return;
	f->ended = true;
	if (f->cfg.end_cb != NULL)
		f->cfg.end_cb(f->cfg.cb_arg);
}

/*
 * Bytes arrived (n of them), or a held line was let go (0, which is no
 * activity for --until-idle): tell the owner.
 */
static void
follow_activity(struct follow *f, uint64_t n)
{
	f->bytes += n;
	if (n > 0)
		f->last_data = uv_now(f->loop);
	if (n > 0 && f->cfg.until_idle_ms > 0 && !f->stopping)
		uv_timer_again(&f->idle);
	if (f->cfg.data_cb != NULL)
		f->cfg.data_cb(f->cfg.cb_arg);
}

/* The folder record for a path, made (not yet watched) if new. */
static struct follow_dir *
follow_dir_get(struct follow *f, const char *path, int depth)
{
	struct follow_dir	*d;
	struct stat		 sb;
	size_t			 len = strlen(path);
	char			*key;

	while (len > 1 && path[len - 1] == '/')
		len--;
	key = xstrndup(path, len);
	if ((d = keymap_get(&f->dirs_by_path, NULL, key)) != NULL) {
		free(key);
		return d;
	}
	d = xcalloc(1, sizeof *d);
	d->f = f;
	d->path = key;
	keymap_put(&f->dirs_by_path, NULL, d->path, d);
	d->depth = depth;
	if (stat(d->path, &sb) == 0) {
		d->dev = sb.st_dev;
		d->ino = sb.st_ino;
	}
	d->poll = f->cfg.poll || follow_remote(d->path);
	d->next = f->dirs;
	f->dirs = d;
	return d;
}

/*
 * How long ago the open file was last written, in ms; -1 if not known.
 * After FOLLOW_QUIET_MS its partial last line is complete already: an old
 * file's last line is read with the rest, as a batch run reads it, not
 * FOLLOW_QUIET_MS later.
 */
static int64_t
follow_file_age(const struct follow_file *ff)
{
	struct stat	 sb;
	struct timespec	 now;

	if (fstat(ff->fd, &sb) != 0 || clock_gettime(CLOCK_REALTIME, &now) != 0)
		return -1;
	return ((int64_t)now.tv_sec - (int64_t)sb.st_mtim.tv_sec) * 1000 +
	    ((int64_t)now.tv_nsec - (int64_t)sb.st_mtim.tv_nsec) / 1000000;
}

/* Read what a file has past its offset. */
static void
follow_file_drain(struct follow_file *ff)
{
	struct follow	*f = ff->f;
	int64_t		 n, age = -1;

	if (ff->fd == -1 || ff->done)
		return;
	n = source_fd_drain(f->inc, ff->src, ff->fd, &ff->offset, 0);
	if (ff->src->compressed || ff->src->binary)
		ff->done = true;
	if (n > 0)
		ff->rested = false;
	/*
	 * Written a quiet spell ago: a held partial line is complete; a long
	 * one ago, the reading rests, once, not at each of the sweep's looks.
	 */
	if (!ff->rested && (age = follow_file_age(ff)) >= FOLLOW_REST_MS) {
		ingest_rest(ff->src->ingest);
		ff->rested = true;
	} else if (age >= FOLLOW_QUIET_MS && ingest_pending(ff->src->ingest))
		ingest_flush(ff->src->ingest);
	if (n > 0)
		follow_activity(f, (uint64_t)n);
	if (f->closed)
		return;		/* data_cb stopped the follow */
	if (ingest_pending(ff->src->ingest))
		uv_timer_start(&ff->quiet, follow_quiet_cb, FOLLOW_QUIET_MS, 0);
	else
		uv_timer_stop(&ff->quiet);
}

/* The held partial line is complete: nothing came for a while. */
static void
follow_quiet_cb(uv_timer_t *h)
{
	struct follow_file	*ff = h->data;

	ingest_flush(ff->src->ingest);
	follow_activity(ff->f, 0);
}

/* Close the file being read, its partial line ending with it. */
static void
follow_file_close(struct follow_file *ff)
{
	struct stat	sb;

	if (ff->fd == -1) {
		if (ff->shut) {
			ingest_flush(ff->src->ingest);
			ff->shut = false;
			ff->offset = 0;
		}
		return;
	}
	ingest_flush(ff->src->ingest);
	if (fstat(ff->fd, &sb) == 0 && sb.st_nlink == 0)
		fileset_del(&ff->f->inodes, ff->dev, ff->ino);
	close(ff->fd);
	ff->fd = -1;
	ff->f->nopen--;
	ff->offset = 0;
}

/*
 * Every followed file was held open, and past the limit of open files the
 * rest went unread, and the console could open neither its terminal nor
 * the store: at 10,000 ranks under a hard limit of 4,096 it did not start.
 * Past the budget (the limit less what the rest needs), a file read to its
 * end is closed and looked at by name, at its folder's events and at the
 * sweep; its inode and offset kept, it is opened again when it grows.
 */
static void
follow_file_shut(struct follow_file *ff)
{
	struct follow	*f = ff->f;
	struct rlimit	 rl;

	if (ff->fd == -1 || f->nopen <= f->maxopen || f->closed)
		return;
	close(ff->fd);
	ff->fd = -1;
	f->nopen--;
	ff->shut = true;
	if (!f->said_shut) {
		f->said_shut = true;
		if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
			rl.rlim_cur = rl.rlim_max = 0;
		errlist_add(&f->inc->errors, "the limit of open files (%llu, "
		    "hard limit %llu) holds %zu followed files open: the "
		    "others are looked at by name and read when they grow, and "
		    "one rotated between two looks loses the lines written to "
		    "it after the first; raise it (ulimit -n, or limits.conf) "
		    "to hold them all open", (unsigned long long)rl.rlim_cur,
		    (unsigned long long)rl.rlim_max, f->maxopen);
	}
}

/*
 * A shut file, looked at by name.  Returns false when there is nothing
 * more to do; else the file at the path is open at the offset read (the
 * same inode grew), or it is another file, or this one truncated, and the
 * caller opens it from its start.
 */
static bool
follow_file_unshut(struct follow_file *ff, const struct stat *at)
{
	struct stat	cur;
	int		fd;

	if (at->st_dev == ff->dev && at->st_ino == ff->ino &&
	    (uint64_t)at->st_size == ff->offset)
		return false;	/* nothing new */
	ff->shut = false;
	if (at->st_dev == ff->dev && at->st_ino == ff->ino &&
	    (uint64_t)at->st_size > ff->offset &&
	    (fd = open(ff->src->path, O_RDONLY | O_CLOEXEC)) != -1) {
		if (fstat(fd, &cur) == 0 && cur.st_dev == ff->dev &&
		    cur.st_ino == ff->ino &&
		    lseek(fd, (off_t)ff->offset, SEEK_SET) != -1) {
			ff->fd = fd;
			ff->f->nopen++;
			return true;
		}
		close(fd);
	}
	/* Another file at the name, or this one truncated: anew. */
	ingest_flush(ff->src->ingest);
	ff->src->transient = true;
	ff->offset = 0;
	return true;
}

/* Read this open file from its start; it is closed if not a file. */
static void
follow_file_adopt(struct follow_file *ff, int fd)
{
	struct stat	sb;

	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return;
	}
	ff->fd = fd;
	ff->f->nopen++;
	ff->dev = sb.st_dev;
	ff->ino = sb.st_ino;
	ff->size = (uint64_t)sb.st_size;
	ff->offset = 0;
	fileset_add(&ff->f->inodes, sb.st_dev, sb.st_ino);
}

/*
 * Open the file now at the path, from its start.  A path that was not
 * there when the follow started has no reader yet: it gets one, and its
 * clock, as a file there from the start does, and is no longer in error.
 */
static void
follow_file_open(struct follow_file *ff)
{
	struct follow	*f = ff->f;
	int		 fd;

	if (ff->src->ingest == NULL) {
		if ((fd = source_file_open(f->inc, ff->src, NULL)) == -1)
			return;
		free(ff->src->error);
		ff->src->error = NULL;
		follow_file_adopt(ff, fd);
		source_ingest(f->inc, ff->src, f->cfg.line_cb, f->cfg.line_arg);
		return;
	}
	if ((fd = open(ff->src->path, O_RDONLY | O_CLOEXEC)) != -1)
		follow_file_adopt(ff, fd);
}

/*
 * The path holds a new file: another inode (rotated), or the same one
 * written again from its start (truncated).  What comes is a source of
 * its own, its lines numbered from 1 and its generation counted, so that
 * its lines are not labelled as the old file's; the old source keeps the
 * lines read from it, under its name.  Nothing read yet: nothing to keep.
 */
static void
follow_file_renew(struct follow_file *ff)
{
	struct rl_source	*old = ff->src, *src;
	const char		*slash;

	if (!ff->f->cfg.renew || old->ingest == NULL ||
	    (old->lines == 0 && old->bytes == 0))
		return;
	ingest_flush(old->ingest);
	old->transient = true;
	src = incident_add_source(ff->f->inc, old->path, old->kind);
	src->generation = old->generation + 1;
	ff->src = src;
	slash = strrchr(src->path, '/');
	ff->name = slash != NULL ? slash + 1 : src->path;
}

/*
 * Look at a file again.  The order matters: a truncation is seen before
 * reading (else the new bytes below the old offset are skipped), and the
 * old file is drained to its end before a new one at its path is opened,
 * so no line is lost or read twice.
 */
static void
follow_file_check(struct follow_file *ff)
{
	struct stat	 at, cur;
	bool		 exists, same;

	if (ff->done || ff->f->closed)
		return;
	exists = stat(ff->src->path, &at) == 0 && S_ISREG(at.st_mode);
	/* Gone while shut: what it had was read. */
	if (ff->shut && (!exists || !follow_file_unshut(ff, &at)))
		return;
	if (ff->fd != -1 && fstat(ff->fd, &cur) == 0 &&
	    (uint64_t)cur.st_size < ff->offset) {
		/* Truncated in place (copytruncate): read again from 0. */
		if (ff->f->cfg.renew) {
			follow_file_close(ff);
			follow_file_renew(ff);
			follow_file_open(ff);
		} else {
			ingest_flush(ff->src->ingest);
			lseek(ff->fd, 0, SEEK_SET);
			ff->offset = 0;
			ff->src->transient = true;
		}
	}
	if (ff->fd != -1 && fstat(ff->fd, &cur) == 0) {
		ff->size = (uint64_t)cur.st_size;
		follow_file_drain(ff);
		if (ff->f->closed)
			return;	/* data_cb stopped the follow */
		same = exists && at.st_dev == ff->dev && at.st_ino == ff->ino;
		/* Renamed away with no successor yet: writers may still add. */
		if (!same && (exists || cur.st_nlink == 0)) {
			/* The path's next file is not at the offsets read. */
			ff->src->transient = true;
			follow_file_close(ff);
		}
	}
	if (ff->fd == -1 && exists) {
		follow_file_renew(ff);
		follow_file_open(ff);
		follow_file_drain(ff);
	}
	follow_file_shut(ff);
}

/* The last handle of a file closed: free it. */
static void
follow_file_close_cb(uv_handle_t *h)
{
	struct follow_file	*ff = h->data;

	if (--ff->nhandles == 0)
		free(ff);
}

/* A polled file's stat changed (or it appeared, or went). */
static void
follow_file_poll_cb(uv_fs_poll_t *h, int status, const uv_stat_t *prev,
    const uv_stat_t *curr)
{
	(void)status;
	(void)prev;
	(void)curr;
	follow_file_check(h->data);
}

/*
 * A file could not be opened for want of descriptors, though the budget
 * had room (something else holds them): say so once, with the limit; each
 * file not followed is named in the errors too.
 */
static void
follow_files_limit(struct follow *f)
{
	struct rlimit	rl;

	f->said_files = true;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		rl.rlim_cur = rl.rlim_max = 0;
	errlist_add(&f->inc->errors, "the limit of open files (%llu, hard "
	    "limit %llu) is reached: the files named below are not followed; "
	    "raise it (ulimit -n, or limits.conf) to follow them",
	    (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
}

/* Watch a source of the incident's path, without opening it yet. */
static struct follow_file *
follow_file_new(struct follow *f, struct rl_source *src, int depth)
{
	struct follow_file	*ff;
	const char		*slash = strrchr(src->path, '/');
	char			*dir;

	ff = xcalloc(1, sizeof *ff);
	ff->f = f;
	ff->src = src;
	ff->fd = -1;
	ff->name = slash != NULL ? slash + 1 : src->path;
	dir = slash == NULL ? xstrdup(".") : slash == src->path ? xstrdup("/") :
	    xstrndup(src->path, (size_t)(slash - src->path));
	ff->dir = follow_dir_get(f, dir, depth);
	free(dir);
	uv_timer_init(f->loop, &ff->quiet);
	ff->quiet.data = ff;
	ff->nhandles = 1;
	if (ff->dir->poll) {
		uv_fs_poll_init(f->loop, &ff->fspoll);
		ff->fspoll.data = ff;
		ff->nhandles++;
		uv_fs_poll_start(&ff->fspoll, follow_file_poll_cb, src->path,
		    FOLLOW_POLL_MS);
	}
	ff->next = f->files;
	f->files = ff;
	ff->same_path = keymap_put(&f->by_path, NULL, src->path, ff);
	ff->same_name = keymap_put(&f->by_name, ff->dir, ff->name, ff);
	return ff;
}

/* Start following a source of the incident; reads what it has now. */
static struct follow_file *
follow_file_add(struct follow *f, struct rl_source *src, int depth)
{
	struct follow_file	*ff;
	int			 fd;

	ff = follow_file_new(f, src, depth);
	if ((fd = source_file_open(f->inc, src, NULL)) != -1) {
		follow_file_adopt(ff, fd);
		source_ingest(f->inc, src, f->cfg.line_cb, f->cfg.line_arg);
		follow_file_drain(ff);
		follow_file_shut(ff);
	} else if ((errno == EMFILE || errno == ENFILE) && !f->said_files)
		follow_files_limit(f);
	return ff;
}

/* The followed file at this path, or NULL. */
static struct follow_file *
follow_file_find(const struct follow *f, const char *path)
{
	return keymap_get(&f->by_path, NULL, path);
}

/*
 * Something changed in a folder: look at the files it names.  A name not
 * followed yet is looked at alone, not the whole folder again (each new
 * rank file's event rescanned the folder: n^2 on a growing one); the
 * sweep scans the folder whole once, for what events did not name
 * (inotify drops events when its queue overflows).
 */
static void
follow_dir_event_cb(uv_fs_event_t *h, const char *name, int events,
    int status)
{
	struct follow_dir	*d = h->data;
	struct follow_file	*ff;
	bool			 known = false;

	(void)status;
	if (name == NULL) {
		for (ff = d->f->files; ff != NULL; ff = ff->next) {
			if (ff->dir != d)
				continue;
			known = true;
			follow_file_check(ff);
		}
		if (d->scan && (!known || (events & UV_RENAME)))
			follow_dir_scan(d);
		return;
	}
	for (ff = keymap_get(&d->f->by_name, d, name); ff != NULL;
	    ff = ff->same_name) {
		known = true;
		follow_file_check(ff);
	}
	if (d->scan && (!known || (events & UV_RENAME))) {
		follow_dir_entry(d, name);
		d->rescan = true;
	}
}

/* A polled folder changed: new names may be in it. */
static void
follow_dir_poll_cb(uv_fs_poll_t *h, int status, const uv_stat_t *prev,
    const uv_stat_t *curr)
{
	(void)status;
	(void)prev;
	(void)curr;
	follow_dir_scan(h->data);
}

/* A number from /proc/sys, for a message, or -1. */
static long
follow_sysctl(const char *path)
{
	FILE	*fp;
	long	 v = -1;

	if ((fp = fopen(path, "re")) != NULL) {
		if (fscanf(fp, "%ld", &v) != 1)
			v = -1;
		fclose(fp);
	}
	return v;
}

/*
 * Start a folder's inotify watch.  RANKLINE_INOTIFY_MAX makes the watches
 * past that many fail as the kernel's limit would, so that tests can
 * reach the limit without changing the machine's.
 */
static int
follow_event_start(struct follow_dir *d)
{
	struct follow	*f = d->f;
	const char	*max = getenv("RANKLINE_INOTIFY_MAX");
	int		 rc;

	if (max != NULL && f->watches >= atoi(max))
		return UV_ENOSPC;
	if ((rc = uv_fs_event_start(&d->event, follow_dir_event_cb, d->path,
	    0)) == 0)
		f->watches++;
	return rc;
}

/*
 * inotify refused a folder (its limits are per user, and other programs
 * use them too): say so, with the limit and how to raise it, and poll the
 * folder and its files instead, as on a network file system.
 */
static void
follow_dir_fall_back(struct follow_dir *d, int rc)
{
	struct follow		*f = d->f;
	struct follow_file	*ff;

	if (rc == UV_ENOSPC || rc == UV_EMFILE || rc == UV_ENOMEM) {
		if (!f->said_watches)
			errlist_add(&f->inc->errors, "%s: inotify's limit is "
			    "reached after %d folders (fs.inotify."
			    "max_user_watches = %ld, max_user_instances = "
			    "%ld): this folder and the next are polled every "
			    "%d ms instead; raise the limits with sysctl to "
			    "watch them", d->path, f->watches,
			    follow_sysctl("/proc/sys/fs/inotify/max_user_watches"),
			    follow_sysctl("/proc/sys/fs/inotify/"
			    "max_user_instances"), FOLLOW_POLL_MS);
		f->said_watches = true;
	} else
		errlist_add(&f->inc->errors, "%s: cannot watch (%s): polled "
		    "instead", d->path, uv_strerror(rc));
	d->fell_back = true;
	d->poll = true;
	uv_fs_poll_init(f->loop, &d->fspoll);
	d->fspoll.data = d;
	uv_fs_poll_start(&d->fspoll, follow_dir_poll_cb, d->path,
	    FOLLOW_POLL_MS);
	for (ff = f->files; ff != NULL; ff = ff->next) {
		if (ff->dir != d)
			continue;
		uv_fs_poll_init(f->loop, &ff->fspoll);
		ff->fspoll.data = ff;
		ff->nhandles++;
		uv_fs_poll_start(&ff->fspoll, follow_file_poll_cb,
		    ff->src->path, FOLLOW_POLL_MS);
	}
}

/* Start the folder's watch, if it needs one and has none. */
static void
follow_dir_watch(struct follow_dir *d)
{
	struct follow	*f = d->f;
	int		 rc;

	if (d->watching || (d->poll && !d->scan))
		return;
	d->watching = true;
	if (d->poll) {
		uv_fs_poll_init(f->loop, &d->fspoll);
		d->fspoll.data = d;
		uv_fs_poll_start(&d->fspoll, follow_dir_poll_cb, d->path,
		    FOLLOW_POLL_MS);
	} else {
		uv_fs_event_init(f->loop, &d->event);
		d->event.data = d;
		if ((rc = follow_event_start(d)) != 0)
			follow_dir_fall_back(d, rc);
	}
}

/* Name order, as the first walk reads folders. */
static int
follow_name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Watch a folder and scan it, once. */
static void
follow_dir_start(struct follow_dir *d)
{
	d->scan = true;
	if (d->dev != 0 || d->ino != 0)
		fileset_add(&d->f->dirs_scanned, d->dev, d->ino);
	follow_dir_watch(d);
	follow_dir_scan(d);
}

/* One entry of a watched folder: a new file or folder is followed. */
static void
follow_dir_entry(struct follow_dir *d, const char *name)
{
	struct follow		*f = d->f;
	struct follow_dir	*sub;
	struct stat		 sb;
	char			*p;

	if (name[0] == '.')
		return;		/* ".", ".." and hidden files, as the walk */
	xasprintf(&p, "%s%s%s", d->path, strcmp(d->path, "/") == 0 ? "" : "/",
	    name);
	if (strcmp(d->path, ".") == 0) {
		free(p);
		p = xstrdup(name);
	}
	if (follow_file_find(f, p) != NULL || stat(p, &sb) != 0) {
		free(p);
		return;
	}
	/* A folder scanned already, under this name or another (a link to
	 * a parent), is not again: two links to ".." made 2^32 folders. */
	if (S_ISDIR(sb.st_mode) && d->depth + 1 < FOLLOW_DEPTH &&
	    !fileset_has(&f->dirs_scanned, sb.st_dev, sb.st_ino)) {
		sub = follow_dir_get(f, p, d->depth + 1);
		if (!sub->scan)
			follow_dir_start(sub);
	} else if (S_ISREG(sb.st_mode) &&
	    !fileset_has(&f->inodes, sb.st_dev, sb.st_ino))
		follow_file_add(f, incident_add_source(f->inc, p, SOURCE_FILE),
		    d->depth);
	free(p);
}

/* Follow the files and folders in a folder that are not followed yet. */
static void
follow_dir_scan(struct follow_dir *d)
{
	struct dirent	**v;
	int		  n, i;

	if (d->f->stopping)
		return;
	d->rescan = false;
	if ((n = scandir(d->path, &v, NULL, follow_name_cmp)) < 0)
		return;
	for (i = 0; i < n; i++) {
		follow_dir_entry(d, v[i]->d_name);
		free(v[i]);
	}
	free(v);
}

/* One of the follow's handles closed; the last frees what it owns. */
static void
follow_release(struct follow *f)
{
	struct follow_dir	*d;

	if (--f->nhandles > 0)
		return;
	while ((d = f->dirs) != NULL) {
		f->dirs = d->next;
		free(d->path);
		free(d);
	}
	fileset_clear(&f->inodes);
	fileset_clear(&f->dirs_scanned);
	keymap_clear(&f->dirs_by_path);
	keymap_clear(&f->by_path);
	keymap_clear(&f->by_name);
	free(f);
}

static void
follow_close_cb(uv_handle_t *h)
{
	follow_release(h->data);
}

/* A folder's handle closed; the folder is freed with the follow. */
static void
follow_dir_close_cb(uv_handle_t *h)
{
	struct follow_dir	*d = h->data;

	follow_release(d->f);
}

/*
 * Stop: read every file one last time, end its partial line, and close
 * every handle.  The folders' handles count as the follow's, so it is
 * freed only after all of them; the caller runs the loop until then and
 * must not use the follow again.
 */
void
follow_stop(struct follow *f)
{
	struct follow_file	*ff, *next;
	struct follow_dir	*d;

	/* First: a data_cb that calls follow_stop again returns at once. */
	if (f->stopping)
		return;
	f->stopping = true;
	for (ff = f->files; ff != NULL; ff = ff->next)
		follow_file_check(ff);
	f->closed = true;
	for (ff = f->files; ff != NULL; ff = next) {
		next = ff->next;
		follow_file_close(ff);
		uv_close((uv_handle_t *)&ff->quiet, follow_file_close_cb);
		if (ff->dir->poll)
			uv_close((uv_handle_t *)&ff->fspoll,
			    follow_file_close_cb);
	}
	f->files = NULL;
	keymap_clear(&f->by_path);	/* the files are freed as they close */
	keymap_clear(&f->by_name);
	/* The loop thread's read buffer: this reading is over. */
	source_readbuf_free();
	for (d = f->dirs; d != NULL; d = d->next) {
		if (!d->watching)
			continue;
		f->nhandles++;
		uv_close(d->poll ? (uv_handle_t *)&d->fspoll :
		    (uv_handle_t *)&d->event, follow_dir_close_cb);
		if (d->fell_back) {
			f->nhandles++;
			uv_close((uv_handle_t *)&d->event, follow_dir_close_cb);
		}
	}
	if (f->cmds != NULL)
		source_cmds_stop(f->cmds);
	uv_close((uv_handle_t *)&f->idle, follow_close_cb);
	uv_close((uv_handle_t *)&f->sweep, follow_close_cb);
}

/* No new bytes for --until-idle seconds, or a batch with nothing to run. */
static void
follow_idle_cb(uv_timer_t *h)
{
	follow_end(h->data);
}

/* The safety net: look at every file, as a missed event would have. */
static void
follow_sweep_cb(uv_timer_t *h)
{
	struct follow		*f = h->data;
	struct follow_file	*ff;
	struct follow_dir	*d;

	for (ff = f->files; ff != NULL; ff = ff->next)
		follow_file_check(ff);
	for (d = f->dirs; d != NULL; d = d->next) {
		if (d->rescan && d->scan)
			follow_dir_scan(d);
	}
}

/* Start the follow's own handles. */
static void
follow_handles_start(struct follow *f)
{
	uv_timer_init(f->loop, &f->idle);
	uv_timer_init(f->loop, &f->sweep);
	f->idle.data = f->sweep.data = f;
	f->nhandles = 2;
	uv_timer_start(&f->sweep, follow_sweep_cb, FOLLOW_SWEEP_MS,
	    FOLLOW_SWEEP_MS);
	if (f->cfg.until_idle_ms > 0)
		uv_timer_start(&f->idle, follow_idle_cb, f->cfg.until_idle_ms,
		    f->cfg.until_idle_ms);
}

/* Bytes came from a command or standard input. */
static void
follow_cmds_activity(void *arg, size_t n)
{
	follow_activity(arg, n);
}

/* Every command and pipe ended (and none restarts): a batch is done. */
static void
follow_cmds_ended(void *arg)
{
	struct follow	*f = arg;

	if (f->cfg.batch)
		follow_end(f);
}

/* The commands' set, made on first use. */
static void
follow_cmds(struct follow *f)
{
	if (f->cmds == NULL)
		f->cmds = source_cmds_create(f->loop, f->inc, f->cfg.restart &&
		    !f->cfg.batch, follow_cmds_activity, follow_cmds_ended, f);
}

/*
 * A named file that is not there (yet), in a folder that is: it is an
 * error until it appears, and then it is read from its start, as tail -F
 * does (a job's rank file is often named before the rank writes it).
 * Returns -1, as the path cannot be read now; 1 if it is not such a path.
 */
static int
follow_add_missing(struct follow *f, const char *path)
{
	struct stat		 sb;
	struct rl_source	*src;
	struct follow_file	*ff;
	const char		*slash = strrchr(path, '/');
	char			*dir;
	bool			 there;

	if (stat(path, &sb) == 0 || errno != ENOENT ||
	    strpbrk(path, "*?[") != NULL || strcmp(path, "-") == 0)
		return 1;
	dir = slash == NULL ? xstrdup(".") : slash == path ? xstrdup("/") :
	    xstrndup(path, (size_t)(slash - path));
	there = stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
	free(dir);
	if (!there || slash == path + strlen(path) - 1)
		return 1;
	src = incident_add_source(f->inc, path, SOURCE_FILE);
	xasprintf(&src->error, "%s: %s", path, strerror(ENOENT));
	errlist_add(&f->inc->errors, "%s; it is followed, and read when it "
	    "appears", src->error);
	ff = follow_file_new(f, src, 0);
	follow_dir_watch(ff->dir);
	return -1;
}

/*
 * How many followed files may be held open: the limit of open files (the
 * soft one, raised to the hard one at start) less what the rest needs, a
 * quarter of it at most.
 */
static size_t
follow_budget(void)
{
	struct rlimit	rl;
	rlim_t		reserve;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	reserve = rl.rlim_cur / 4 < FOLLOW_FD_RESERVE ? rl.rlim_cur / 4 :
	    FOLLOW_FD_RESERVE;
	return rl.rlim_cur > reserve + 1 ? (size_t)(rl.rlim_cur - reserve) : 1;
}

/* Follow one command-line path: a folder, a file, or a glob's files. */
static int
follow_add_arg(struct follow *f, const char *path)
{
	struct stat		 sb;
	size_t			 first = f->inc->nsources, i;
	int			 rv;

	if (!f->cfg.batch && (rv = follow_add_missing(f, path)) <= 0)
		return rv;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		follow_dir_start(follow_dir_get(f, path, 0));
		return 0;
	}
	rv = source_add_path(f->inc, path);
	for (i = first; i < f->inc->nsources; i++) {
		if (f->inc->sources[i]->kind == SOURCE_STDIN) {
			follow_cmds(f);
			source_cmds_add_stdin(f->cmds, f->inc->sources[i]);
			continue;
		}
		follow_file_add(f, f->inc->sources[i], 0);
		follow_dir_watch(f->files->dir);
	}
	return rv;
}

/*
 * Read the paths and start following them, and the commands, on the loop.
 * *bad is set when a path could not be read (it is named in inc->errors;
 * the rest are followed).  The follow runs until its owner calls
 * follow_stop; end_cb says when nothing more will come (--until-idle, or a
 * batch whose commands all ended), never from inside this call.
 */
struct follow *
follow_start(uv_loop_t *loop, struct rl_incident *inc,
    const struct follow_config *cfg, int argc, char **argv, int *bad)
{
	struct follow	*f;
	size_t		 i;
	int		 k;

	f = xcalloc(1, sizeof *f);
	f->loop = loop;
	f->inc = inc;
	f->maxopen = follow_budget();
	f->cfg = *cfg;
	f->cfg.cmds = NULL;
	f->cfg.ncmds = 0;
	follow_handles_start(f);
	for (k = 0; k < argc; k++) {
		if (follow_add_arg(f, argv[k]) != 0)
			*bad = 1;
	}
	for (i = 0; i < cfg->ncmds; i++) {
		follow_cmds(f);
		source_cmds_add(f->cmds, cfg->cmds[i]);
	}
	/* A batch with nothing to wait for ends on the loop's first turn. */
	if (cfg->batch && f->cmds == NULL)
		uv_timer_start(&f->idle, follow_idle_cb, 0, 0);
	return f;
}

/* What is being followed, for the console's status line. */
void
follow_stats(const struct follow *f, struct follow_stats *st)
{
	const struct follow_file	*ff;
	const struct follow_dir		*d;

	memset(st, 0, sizeof *st);
	for (ff = f->files; ff != NULL; ff = ff->next) {
		if (ff->done)
			continue;	/* binary or compressed: read once */
		st->files++;
		if (ff->dir->poll)
			st->polled++;
	}
	for (d = f->dirs; d != NULL; d = d->next) {
		if (d->scan && d->watching)
			st->dirs++;
	}
	if (f->cmds != NULL)
		st->cmds = source_cmds_live(f->cmds, &st->in);
	st->bytes = f->bytes;
	st->last_data = f->last_data;
}
