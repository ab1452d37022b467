/*
 * source-file.c: files and folders named on the command line.
 *
 * A folder is walked recursively (in name order, so runs are repeatable); a
 * path that does not exist but holds glob characters is expanded.  A file
 * that looks binary (a NUL byte near its start, as checkpoint shards have)
 * is listed and skipped; gzip- and zstd-compressed logs are read through
 * zlib and libzstd (zstd also from a pipe); a large file read once is read
 * through a mapping.  A path of "-" is standard input, read the same way.
 * A source keeps its ingest between reads, so a followed file's next bytes
 * continue its lines.  A path that cannot be read is named in the
 * incident's errors and the rest are still read.
 */
#define _GNU_SOURCE		/* memrchr */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "engine.h"

/*
 * A read() fills at most this much.  The kernel's copy into a buffer that
 * fits the core's cache costs half its copy into a megabyte, and the lines
 * are read from cache just after (1,024 files of 1 MB: sys time 0.25 s to
 * 0.18 s, the reports the same).  Half of a 1 MB L2 rather than a quarter:
 * each block's end settles its keeps' latest lines, and fewer blocks do it
 * less often (942M to 921M instructions on 256 files of 1 MB).
 */
#define READ_CHUNK	(512 * 1024)
#define SNIFF_BYTES	4096		/* how far to look for NUL bytes */
#define WALK_DEPTH	32		/* folders deeper than this are skipped */
#define MAP_MIN		(4 * 1024 * 1024) /* a smaller file is read() */
#define MAP_SNIFF	65536		/* read() first, to sniff the format */
#define MAP_WINDOW	(256 * 1024)	/* mapped bytes given to ingest at once */
#define MAP_RELEASE	(4 * 1024 * 1024) /* mapped bytes resident at most */
#define MAP_NONE	UINT64_MAX
#define SPILL_MAX	(256ULL << 20)	/* a spill's bytes at most, by default */

static int source_walk(struct rl_incident *, const char *, int);

/* Add every entry of a folder. */
static int
source_walk_dir(struct rl_incident *inc, const char *dir, int depth)
{
	char		**names, *p;
	size_t		  n, i;
	int		  rv = 0;

	if ((names = paths_list(dir, NULL, &n)) == NULL) {
		errlist_add(&inc->errors, "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(dir, ".") == 0)
			p = xstrdup(names[i]);
		else
			xasprintf(&p, "%s%s%s", dir,
			    dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
		if (source_walk(inc, p, depth + 1) != 0)
			rv = -1;
		free(p);
		free(names[i]);
	}
	free(names);
	return rv;
}

/* Add a file, or the files under a folder. */
static int
source_walk(struct rl_incident *inc, const char *path, int depth)
{
	struct rl_source	*src;
	struct stat		 sb;

	if (stat(path, &sb) != 0) {
		errlist_add(&inc->errors, "%s: %s", path, strerror(errno));
		return -1;
	}
	/*
	 * A folder reached again (a link to a parent, "latest -> run_17"
	 * beside run_17, a path given twice) is walked once, and a file read
	 * once: two links to ".." made the walk 2^32 paths.
	 */
	if ((S_ISDIR(sb.st_mode) || S_ISREG(sb.st_mode)) &&
	    !fileset_add(&inc->walked, sb.st_dev, sb.st_ino))
		return 0;
	if (S_ISDIR(sb.st_mode)) {
		if (depth >= WALK_DEPTH) {
			errlist_add(&inc->errors, "%s: deeper than %d folders, "
			    "skipped", path, WALK_DEPTH);
			return -1;
		}
		return source_walk_dir(inc, path, depth);
	}
	/*
	 * A pipe or a device met in a folder is no log: opening a pipe waits
	 * for a writer that may never come, and the whole reading with it.
	 * Named on the command line it is read (a <(kubectl logs ...)).
	 */
	if (depth > 0 && !S_ISREG(sb.st_mode)) {
		errlist_add(&inc->errors, "%s: %s in a folder, skipped (name it "
		    "to read it)", path, S_ISFIFO(sb.st_mode) ? "a named pipe" :
		    S_ISSOCK(sb.st_mode) ? "a socket" : "a device");
		return 0;
	}
	if (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode) &&
	    !S_ISCHR(sb.st_mode)) {
		errlist_add(&inc->errors, "%s: not a file or folder", path);
		return -1;
	}
	src = incident_add_source(inc, path, SOURCE_FILE);
	src->walk_size = S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
	src->walk_mtime = (int64_t)sb.st_mtime;
	if (S_ISREG(sb.st_mode)) {
		src->walk_dev = (uint64_t)sb.st_dev;
		src->walk_ino = (uint64_t)sb.st_ino;
	}
	return 0;
}

/*
 * Add the sources a command-line path names.  Returns 0, or -1 when the
 * path (or part of a folder) could not be read; the reason is in
 * inc->errors and the rest is still added.
 */
int
source_add_path(struct rl_incident *inc, const char *path)
{
	glob_t	g;
	size_t	i;
	int	rv = 0;

	if (strcmp(path, "-") == 0) {
		incident_add_source(inc, path, SOURCE_STDIN);
		return 0;
	}
	/* A path with no glob character costs no access() (on NFS, a trip). */
	if (strpbrk(path, "*?[") != NULL && access(path, F_OK) != 0) {
		if (glob(path, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
			errlist_add(&inc->errors, "%s: no file matches", path);
			return -1;
		}
		for (i = 0; i < g.gl_pathc; i++) {
			if (source_walk(inc, g.gl_pathv[i], 0) != 0)
				rv = -1;
		}
		globfree(&g);
		return rv;
	}
	return source_walk(inc, path, 0);
}

/*
 * Does this first chunk look like a binary file rather than a log?  A NUL
 * byte near its start says so (checkpoint shards, archives), unless the
 * other bytes are a log's: lines of text, hardly a control byte among
 * them, where a crashed node's log holds runs of zeros it never wrote.
 * Only zeros so far are such a log's too.
 */
static bool
looks_binary(const char *p, size_t n)
{
	size_t		i, text = 0, ctl = 0, nl = 0;
	unsigned char	c;

	if (n > SNIFF_BYTES)
		n = SNIFF_BYTES;
	if (memchr(p, '\0', n) == NULL)
		return false;
	for (i = 0; i < n; i++) {
		if ((c = (unsigned char)p[i]) == '\0')
			continue;
		text++;
		if (c == '\n')
			nl++;
		else if ((c < 0x20 && c != '\t' && c != '\r' && c != 0x1b &&
		    c != '\b' && c != '\f') || c == 0x7f)
			ctl++;
	}
	return text > 0 && (nl == 0 || ctl * 100 > text);
}

/* Read a gzip-compressed file through zlib, to its end. */
static int
source_read_gzip(struct rl_incident *inc, struct ingest *in,
    struct rl_source *src, int fd, char *chunk)
{
	gzFile	gz;
	int	n, err;

	if ((fd = dup(fd)) == -1 || (gz = gzdopen(fd, "rb")) == NULL) {
		xasprintf(&src->error, "%s: cannot open as gzip", src->path);
		if (fd != -1)
			close(fd);
		return -1;
	}
	gzbuffer(gz, 256 * 1024);
	while ((n = gzread(gz, chunk, READ_CHUNK)) > 0)
		source_feed(inc, src, in, chunk, (size_t)n);
	if (n < 0) {
		xasprintf(&src->error, "%s: %s", src->path, gzerror(gz, &err));
		gzclose(gz);
		return -1;
	}
	gzclose(gz);
	return 0;
}

/*
 * Read a zstd-compressed stream to its end: the first chunk, already read,
 * then the rest of the fd, so that a pipe works too.  Frames may follow
 * one another, as `zstd` and `cat a.zst b.zst` write them.
 */
static int
source_read_zstd(struct rl_incident *inc, struct ingest *in,
    struct rl_source *src, int fd, char *chunk,
    size_t n)
{
	ZSTD_DStream	*z;
	ZSTD_inBuffer	 ib;
	ZSTD_outBuffer	 ob;
	char		*out;
	size_t		 rc = 0, outsz = ZSTD_DStreamOutSize();
	ssize_t		 r;
	int		 rv = 0;

	if ((z = ZSTD_createDStream()) == NULL)
		fatal("out of memory for zstd");
	out = xmalloc(outsz);
	ZSTD_initDStream(z);
	for (;;) {
		ib.src = chunk;
		ib.size = n;
		ib.pos = 0;
		/* Until the input is used and the output did not fill up. */
		do {
			ob.dst = out;
			ob.size = outsz;
			ob.pos = 0;
			rc = ZSTD_decompressStream(z, &ob, &ib);
			if (ZSTD_isError(rc)) {
				xasprintf(&src->error, "%s: zstd: %s", src->path,
				    ZSTD_getErrorName(rc));
				rv = -1;
				goto out;
			}
			if (ob.pos > 0)
				source_feed(inc, src, in, out, ob.pos);
		} while (ib.pos < ib.size || ob.pos == ob.size);
		do
			r = read(fd, chunk, READ_CHUNK);
		while (r == -1 && errno == EINTR);
		if (r == -1) {
			xasprintf(&src->error, "%s: %s", src->path,
			    strerror(errno));
			rv = -1;
			goto out;
		}
		if (r == 0)
			break;
		n = (size_t)r;
	}
	/* rc is 0 when the last frame ended: anything else was cut. */
	if (ZSTD_isError(rc) || rc != 0) {
		xasprintf(&src->error, "%s: zstd: the stream is cut short",
		    src->path);
		rv = -1;
	}
out:
	free(out);
	ZSTD_freeDStream(z);
	return rv;
}

/*
 * How much a spill may hold: RANKLINE_SPILL_MAX (bytes, or with K, M or G),
 * else 256 MiB or half the free space of its file system, the smaller: a
 * fast command followed for long (`yes` wrote 3.1 GB in 6 s) must not
 * fill the disk.  0 is no limit.
 */
static uint64_t
source_spill_max(int fd)
{
	struct statvfs	 sv;
	const char	*s = getenv("RANKLINE_SPILL_MAX");
	char		*end;
	uint64_t	 max, half;

	if (s != NULL && *s != '\0') {
		max = strtoull(s, &end, 10);
		switch (*end) {
		case 'G': case 'g':
			max <<= 10;
			/* FALLTHROUGH */
		case 'M': case 'm':
			max <<= 10;
			/* FALLTHROUGH */
		case 'K': case 'k':
			max <<= 10;
		}
		return max == 0 ? UINT64_MAX : max;
	}
	max = SPILL_MAX;
	if (fstatvfs(fd, &sv) == 0) {
		half = (uint64_t)sv.f_bavail * sv.f_frsize / 2;
		if (half < max)
			max = half;
	}
	return max;
}

/*
 * Keep what a source that cannot be read again gives (a command's output,
 * standard input, a log read through a decompressor) in a temporary file,
 * unlinked at once, so that its lines can be shown again by their offsets
 * (the console's detail, the store's context) without being held in
 * memory.  Without one (no room in $TMPDIR) nothing is lost but that.
 */
void
source_spill_start(struct rl_incident *inc, struct rl_source *src)
{
	const char	*dir = getenv("TMPDIR");
	char		*path;
	int		 fd;

	if (src->spill != -1)
		return;
	xasprintf(&path, "%s/rankline-spill.XXXXXX", dir != NULL &&
	    *dir != '\0' ? dir : "/tmp");
	if ((fd = mkstemp(path)) == -1) {
		errlist_add(&inc->errors, "%s: no temporary file to keep its "
		    "lines in (%s): they are not shown again", src->path,
		    strerror(errno));
		free(path);
		return;
	}
	unlink(path);
	free(path);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
		close(fd);
		return;
	}
	src->spill = fd;
	src->spill_end = 0;
	src->spill_max = source_spill_max(fd);
}

/*
 * Append bytes read to a source's spill.  At its cap it keeps whole lines
 * only, and then no more; a failed write (a full disk) ends it too.  What
 * it holds stays readable, and the reason is said once in the errors: the
 * lines past it are still analyzed (the events keep their text, a
 * process its last line) but cannot be shown again.
 */
void
source_spill_write(struct rl_incident *inc, struct rl_source *src,
    const char *p, size_t n)
{
	const char	*nl;
	ssize_t		 w;
	bool		 cap = false;

	if (src->spill == -1 || src->spill_full)
		return;
	if (n > src->spill_max - src->spill_end) {
		n = (size_t)(src->spill_max - src->spill_end);
		nl = memrchr(p, '\n', n);
		n = nl != NULL ? (size_t)(nl - p) + 1 : 0;
		cap = true;
	}
	while (n > 0) {
		if ((w = write(src->spill, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			src->spill_full = true;
			errlist_add(&inc->errors, "%s: writing the copy of its "
			    "lines failed at byte %llu (%s): the later lines "
			    "are analyzed but not shown again", src->path,
			    (unsigned long long)src->spill_end,
			    strerror(errno));
			return;
		}
		p += w;
		n -= (size_t)w;
		src->spill_end += (uint64_t)w;
	}
	if (cap) {
		src->spill_full = true;
		errlist_add(&inc->errors, "%s: the copy of its lines reached "
		    "its cap of %llu bytes (RANKLINE_SPILL_MAX) at byte %llu: "
		    "the later lines are analyzed but not shown again",
		    src->path, (unsigned long long)src->spill_max,
		    (unsigned long long)src->spill_end);
	}
}

/* Does the spill hold a source's bytes before `end`? */
bool
source_spilled(const struct rl_source *src, uint64_t end)
{
	return src->spill != -1 && (!src->spill_full || end <= src->spill_end);
}

/*
 * Feed bytes read from a source to its ingest, kept first in its spill
 * when it has one (commands, standard input, decompressed logs): the
 * reader keeps its copy, and ingestion only reads what it is given.
 */
void
source_feed(struct rl_incident *inc, struct rl_source *src,
    struct ingest *in, const char *p, size_t n)
{
	if (src->spill != -1)
		source_spill_write(inc, src, p, n);
	ingest_feed(in, p, n);
}

/*
 * A descriptor to read a source's bytes at the offsets its lines were read
 * from (the caller closes it), or -1: a plain file again, or the spill of
 * one that cannot be read twice.  O_NONBLOCK, so that a FIFO given as a
 * log cannot hang the reader.
 */
int
source_reopen(const struct rl_source *src)
{
	struct stat	sb;
	int		fd;

	if (src->spill != -1)
		return fcntl(src->spill, F_DUPFD_CLOEXEC, 0);
	if (src->kind != SOURCE_FILE || src->compressed || src->transient ||
	    src->binary)
		return -1;
	if ((fd = open(src->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY)) == -1)
		return -1;
	/*
	 * A log rotated by renaming since it was read (another file at its
	 * path now) is not that source: its bytes at an event's offset would
	 * be another line, shown as the event's.
	 */
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (src->walk_ino != 0 && ((uint64_t)sb.st_ino != src->walk_ino ||
	    (uint64_t)sb.st_dev != src->walk_dev))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Read n bytes of a source again at offset off into buf, as source_reopen
 * allows; returns how many were had (fewer at the file's end, 0 where it
 * cannot be read again).
 */
size_t
source_pread(const struct rl_source *src, void *buf, size_t n, uint64_t off)
{
	size_t	have = 0;
	ssize_t	k;
	int	fd;

	if ((fd = source_reopen(src)) == -1)
		return 0;
	while (have < n && (k = pread(fd, (char *)buf + have, n - have,
	    (off_t)(off + have))) > 0)
		have += (size_t)k;
	close(fd);
	return have;
}

/* The source's ingest, made on first use and kept between reads. */
struct ingest *
source_ingest(struct rl_incident *inc, struct rl_source *src,
    ingest_line_cb cb, void *arg)
{
	if (src->ingest == NULL) {
		if (src->kind != SOURCE_FILE)
			source_spill_start(inc, src);
		attrib_path(inc->rules, src);
		src->ingest = ingest_create(inc, src);
		ingest_set_line_cb(src->ingest, cb, arg);
	}
	return src->ingest;
}

/*
 * Open a file source (standard input for SOURCE_STDIN) and start its clock
 * from the file's time; *size (if size is not NULL) is a regular file's
 * size, else 0.  Returns the fd, or -1 with the reason noted.
 */
int
source_file_open(struct rl_incident *inc, struct rl_source *src,
    uint64_t *size)
{
	struct stat	sb;
	bool		reg;
	int		fd;

	if (src->kind == SOURCE_STDIN)
		fd = STDIN_FILENO;
	else if (src->early_fd != -1) {
		/* The learning's: a file is opened once. */
		fd = src->early_fd;
		src->early_fd = -1;
	} else if ((fd = open(src->path, O_RDONLY | O_CLOEXEC)) == -1) {
		free(src->error);
		xasprintf(&src->error, "%s: %s", src->path, strerror(errno));
		errlist_add(&inc->errors, "%s", src->error);
		return -1;
	}
	/* A follow's reopen wants neither: no fstat for it. */
	if (size == NULL && src->ingest != NULL)
		return fd;
	/*
	 * A regular file the walk saw moments ago is taken as it was then,
	 * for a reading to its end (a follow stats what it opens): a second
	 * stat of each of 10,000 rank logs says nothing new.
	 */
	if (size != NULL && src->kind == SOURCE_FILE && src->walk_size != 0) {
		reg = true;
		sb.st_size = (off_t)src->walk_size;
		sb.st_mtime = (time_t)src->walk_mtime;
	} else
		reg = fd != STDIN_FILENO && fstat(fd, &sb) == 0 &&
		    S_ISREG(sb.st_mode);
	if (reg)
		src->file_size = (int64_t)sb.st_size;
	if (size != NULL)
		*size = reg ? (uint64_t)sb.st_size : 0;
	if (src->ingest == NULL)
		clock_init(&src->clock, reg ? (int64_t)sb.st_mtime :
		    (int64_t)time(NULL));
	return fd;
}

/*
 * The first chunk of a file: a gzip stream is read whole (from the start,
 * which only a file that can seek allows), a zstd stream too (from this
 * chunk on, so from a pipe as well), and a binary file is skipped.
 * Returns 1 when the chunk was dealt with, 0 to feed it, -1 on error.
 */
static int
source_first_chunk(struct rl_incident *inc, struct ingest *in,
    struct rl_source *src, int fd, char *chunk, size_t n)
{
	if (n >= 2 && (uint8_t)chunk[0] == 0x1f && (uint8_t)chunk[1] == 0x8b &&
	    lseek(fd, 0, SEEK_SET) == 0) {
		src->compressed = true;
		source_spill_start(inc, src);
		return source_read_gzip(inc, in, src, fd, chunk) == 0 ? 1 : -1;
	}
	if (n >= 4 && (uint8_t)chunk[0] == 0x28 && (uint8_t)chunk[1] == 0xb5 &&
	    (uint8_t)chunk[2] == 0x2f && (uint8_t)chunk[3] == 0xfd) {
		src->compressed = true;
		source_spill_start(inc, src);
		return source_read_zstd(inc, in, src, fd, chunk, n) == 0 ? 1 : -1;
	}
	if (looks_binary(chunk, n)) {
		src->binary = true;
		return 1;
	}
	clock_probe(&src->clock, chunk, n);
	return 0;
}

/*
 * This thread's one read buffer, for every source it reads: a fresh
 * buffer for each of 1,024 files costs the kernel as many zeroed pages
 * each.  It is the reading's, not the model's: whoever drives a reading on
 * a thread (a batch worker, the pipeline, a follow) frees it with
 * source_readbuf_free when that reading ends, and a later read makes it
 * again.
 */
static _Thread_local char *source_buf;

static char *
source_readbuf(void)
{
	if (source_buf == NULL)
		source_buf = xmalloc(READ_CHUNK);
	return source_buf;
}

/* Free this thread's read buffer (source_readbuf). */
void
source_readbuf_free(void)
{
	free(source_buf);
	source_buf = NULL;
}

/*
 * Read an open source from *offset to its end (or, for a pipe that would
 * block, to what is there now) into its ingest; a partial last line stays
 * held.  size is the file's size when known (else 0): the bytes before it
 * follow each other at once.  Returns the bytes read, or -1 with
 * src->error set.
 */
int64_t
source_fd_drain(struct rl_incident *inc, struct rl_source *src, int fd,
    uint64_t *offset, uint64_t size)
{
	struct ingest	*in = source_ingest(inc, src, NULL, NULL);
	char		*chunk;
	ssize_t		 n;
	int64_t		 total = 0;
	int		 rv;

	if (src->binary || src->compressed)
		return 0;
	chunk = source_readbuf();
	for (;;) {
		if ((n = read(fd, chunk, READ_CHUNK)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			free(src->error);
			xasprintf(&src->error, "%s: %s", src->path,
			    strerror(errno));
			total = -1;
			break;
		}
		if (n == 0)
			break;
		if (*offset == 0 && src->bytes == 0 && (rv =
		    source_first_chunk(inc, in, src, fd, chunk, (size_t)n)) != 0) {
			total = rv < 0 ? -1 : total + n;
			break;
		}
		ingest_more(in, *offset + (uint64_t)n < size);
		source_feed(inc, src, in, chunk, (size_t)n);
		*offset += (uint64_t)n;
		total += n;
		/*
		 * A regular file's short read met its end: the read() that
		 * would say so again is one system call per file, 10,000 of
		 * them for a wide job's rank logs.
		 */
		if (size != 0 && (size_t)n < READ_CHUNK && *offset >= size)
			break;
	}
	return total;
}

/*
 * A large regular file read once from start to end is read through a
 * mapping: the kernel's copy into a read() buffer is a fifth of the time
 * of a batch read.  A mapping has one hazard read() has not: when the file
 * shrinks under it (copytruncate, or another host truncating it on a
 * network file system), touching a page past the new end raises SIGBUS.
 * The handler maps zero pages over the rest of the mapping and says so,
 * and the reader stops there and drops the zeros it was given, as if
 * read() had met the new end.  A guard page of zeros after the mapping
 * keeps a vector load near the file's last byte inside the mapping.
 */
static _Thread_local struct {
	char			*base;	/* the file's part of the mapping */
	size_t			 len;
	volatile sig_atomic_t	 shrank;
} mapped;
static struct sigaction	map_oldbus;
static size_t		map_page;
static pthread_once_t	map_once = PTHREAD_ONCE_INIT;
static bool		map_ready;

static void
map_bus(int sig, siginfo_t *si, void *uc)
{
	char	*a = si->si_addr, *page;

	(void)uc;
	if (si->si_code <= 0 || mapped.base == NULL || a < mapped.base ||
	    a >= mapped.base + mapped.len) {
		/* Not ours: the old handler has it, now or when it recurs. */
		sigaction(SIGBUS, &map_oldbus, NULL);
		if (si->si_code <= 0)
			raise(sig);
		return;
	}
	page = mapped.base + ((size_t)(a - mapped.base) & ~(map_page - 1));
	if (mmap(page, (size_t)(mapped.base + mapped.len - page), PROT_READ,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		sigaction(SIGBUS, &map_oldbus, NULL);
		return;
	}
	mapped.shrank = 1;
}

static void
map_init(void)
{
	struct sigaction	sa;
	long			ps = sysconf(_SC_PAGESIZE);

	if (ps <= 0 || (ps & (ps - 1)) != 0)
		return;
	map_page = (size_t)ps;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = map_bus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &map_oldbus) == 0)
		map_ready = true;
}

/*
 * Feed bytes [from, size) of a regular file through a mapping.  Returns
 * the offset where reading stopped (size, or the new end of a file that
 * shrank), or MAP_NONE when the file could not be mapped and nothing was
 * fed.
 */
static uint64_t
source_map_feed(struct rl_incident *inc, struct rl_source *src, int fd,
    uint64_t from, uint64_t size)
{
	struct ingest	*in = src->ingest;
	struct stat	 sb;
	char		*area, *p;
	size_t		 len = (size_t)(size - from), o, n, done;
	uint64_t	 end = size;

	pthread_once(&map_once, map_init);
	if (!map_ready || (from & (map_page - 1)) != 0 ||
	    (area = mmap(NULL, len + map_page, PROT_READ, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return MAP_NONE;
	if ((p = mmap(area, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
	    (off_t)from)) == MAP_FAILED) {
		munmap(area, len + map_page);
		return MAP_NONE;
	}
	madvise(p, len, MADV_SEQUENTIAL);
	mapped.base = p;
	mapped.len = len;
	mapped.shrank = 0;
	ingest_keep_fed(in, true);
	for (o = 0, done = 0; o < len && !mapped.shrank; o += n) {
		n = len - o < MAP_WINDOW ? len - o : MAP_WINDOW;
		ingest_more(in, o + n < len);
		source_feed(inc, src, in, p + o, n);
		/*
		 * Pages read stay resident in the mapping, and count in the
		 * process's memory, until they are let go.  The window just
		 * fed is let go only after the next one: ingest points to its
		 * bytes until then (ingest_keep_fed), and pages it touched
		 * again once let go would stay, 2 MB at 50 MB read.
		 */
		if (o - done >= MAP_RELEASE) {
			madvise(p + done, o - done, MADV_DONTNEED);
			done = o;
		}
	}
	/* Before the mapping goes: what ingest points to is copied. */
	ingest_keep_fed(in, false);
	if (mapped.shrank) {
		end = fstat(fd, &sb) == 0 && (uint64_t)sb.st_size < size ?
		    (uint64_t)sb.st_size : from;
		/* What lies past the new end came from zero pages. */
		ingest_drop_zeros(in, o - (end > from ? (size_t)(end - from) :
		    0));
		errlist_add(&inc->errors, "%s: the file shrank while it was "
		    "read (truncated, or rotated by copying): read to byte %llu",
		    src->path, (unsigned long long)end);
	}
	mapped.base = NULL;
	mapped.len = 0;
	munmap(area, len + map_page);
	return end;
}

/*
 * Read a large regular file: its first bytes with read(), to sniff its
 * format, then the rest through a mapping.  Returns 1 when the file is
 * read (or is not text), 0 when read() is to go on from *offset (what the
 * mapping did not cover, or all of it), -1 with src->error set.
 */
static int
source_map_read(struct rl_incident *inc, struct rl_source *src, int fd,
    uint64_t size, uint64_t *offset)
{
	char	*buf = source_readbuf();
	ssize_t	 n;
	uint64_t end;
	int	 rv;

	do
		n = read(fd, buf, MAP_SNIFF);
	while (n == -1 && errno == EINTR);
	if (n == MAP_SNIFF) {
		if ((rv = source_first_chunk(inc, src->ingest, src, fd, buf,
		    MAP_SNIFF)) != 0)
			return rv < 0 ? -1 : 1;
		ingest_more(src->ingest, true);
		source_feed(inc, src, src->ingest, buf, MAP_SNIFF);
		*offset = MAP_SNIFF;
		if ((end = source_map_feed(inc, src, fd, MAP_SNIFF, size)) !=
		    MAP_NONE) {
			if (end < size)
				return 1;	/* it shrank: read to its end */
			*offset = end;
		}
	}
	if (lseek(fd, (off_t)*offset, SEEK_SET) == -1) {
		free(src->error);
		xasprintf(&src->error, "%s: %s", src->path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Read a file (or standard input) to its end through the line pipeline. */
int
source_file_read(struct rl_incident *inc, struct rl_source *src,
    ingest_line_cb cb, void *arg)
{
	uint64_t	 offset = 0, size;
	int		 fd, rv = 0;

	if ((fd = source_file_open(inc, src, &size)) == -1)
		return -1;
	source_ingest(inc, src, cb, arg);
	if (size >= MAP_MIN)
		rv = source_map_read(inc, src, fd, size, &offset);
	if (rv == 0)
		rv = source_fd_drain(inc, src, fd, &offset, size) < 0 ? -1 : 0;
	else if (rv > 0)
		rv = 0;
	if (fd != STDIN_FILENO)
		close(fd);
	/* Nothing more follows at once, wherever the reading stopped. */
	ingest_more(src->ingest, false);
	ingest_flush(src->ingest);
	if (rv != 0)
		errlist_add(&inc->errors, "%s", src->error);
	return rv;
}
