/*
 * find-read.c: the console's search of every line of every source (/ and
 * ?), read again from the sources a piece at a time.
 *
 * The model keeps the lines a rule named (events), not every line read,
 * so a search that is to find a healthy start-up line reads the sources
 * again, as `rankline cat` does: each source that can be read again (a
 * file, or the spill a command, standard input or a decompressor left) is
 * added to an incident of its own with the same path and clock, and its
 * bytes go through the same ingest, so that prefixes are peeled, ranks
 * labelled and times parsed as they were the first time.  Each line is
 * matched with find.c's bounded pattern, and a match is handed to the
 * caller as a compact hit: source, line number, byte offset, time and the
 * analysis's process (whose rank and host are final).  The text is not
 * kept: find_read_line reads it again when it is drawn.
 *
 * Reading is cut into steps of a byte budget (find_read_step) so that the
 * console runs it from its loop between keys and frames.  A source is read
 * up to the bytes the analysis has read of it, never further, so that a
 * line the analysis has not yet made an event of is not taken for one
 * that is none; a followed source that grows is read on from where the
 * search stopped when the caller steps again.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "find.h"

#define FIND_READ_CHUNK	(64 * 1024)	/* bytes read at a time */

/* One source of the analysis, as the search reads it again. */
struct find_src {
	struct rl_source *again;	/* the second reading's, or NULL */
	uint64_t	 off;		/* bytes of it read again */
	bool		 opened;	/* dev and ino are its file's */
	dev_t		 dev;
	ino_t		 ino;
	bool		 events_only;	/* cannot be read again: its events */
	bool		 settled;	/* read to the end once */
};

struct find_read {
	struct rl_incident *inc;	/* borrowed: the analysis */
	struct rl_incident *re;		/* the second reading, owned */
	struct find	*find;		/* borrowed */
	find_read_cb	 cb;
	void		*arg;
	struct find_src	*src;		/* by source index */
	size_t		 nsrc;
	size_t		 next;		/* the source being read */
	int		 fd;		/* its descriptor, or -1 */
	char		*chunk;		/* FIND_READ_CHUNK bytes, owned */
	uint64_t	 at;		/* the offset of the line being read */
	uint64_t	 lines;		/* lines matched */
	uint64_t	 limited;	/* lines the match limits stopped */
	bool		 follow;	/* the sources may grow: a last line
					   without its newline waits for it */
};

/*
 * Set up the second reading of source s in re: the same path (so the same
 * attribution), the same clock reference with its form to be found again.
 * `rankline cat` reads a source again the same way.
 */
struct rl_source *
source_again(struct rl_incident *re, const struct rl_source *s,
    ingest_line_cb cb, void *arg)
{
	struct rl_source	*a;

	a = incident_add_source(re, s->path, SOURCE_FILE);
	a->clock = s->clock;
	a->clock.form = 0;
	memset(a->clock.seen, 0, sizeof a->clock.seen);
	source_ingest(re, a, cb, arg);
	return a;
}

/* How far the analysis has read source s: where a search reads to. */
static uint64_t
find_read_end(const struct rl_source *s)
{
	return s->spill != -1 ? s->spill_end : s->bytes;
}

/* A line of the second reading: match it, and hand a hit on. */
static void
find_read_line_cb(void *arg, const struct rl_source *s, uint64_t lineno,
    const struct rl_time *t, const struct rl_process *p, const char *text,
    size_t len)
{
	struct find_read	*fr = arg;
	const struct rl_process	*q;
	struct find_hit		 h;
	int			 m;

	fr->lines++;
	if ((m = find_match(fr->find, text, len)) < 0)
		fr->limited++;
	if (m <= 0)
		return;
	q = incident_process_find(fr->inc, p->key);
	h.source = (uint32_t)fr->next;	/* s is the second reading's */
	h.proc = q != NULL ? q->index : FIND_NO_PROC;
	h.line = lineno;
	h.offset = ingest_offset(s->ingest);
	h.time = *t;
	h.len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	h.tail = (uint32_t)hash_bytes(HASH_FNV_OFFSET, text + (len > FIND_TAIL ?
	    len - FIND_TAIL : 0), len > FIND_TAIL ? FIND_TAIL : len);
	fr->cb(fr->arg, &h);
}

/* Room for the analysis's sources, new ones waiting to be read. */
static void
find_read_grow(struct find_read *fr)
{
	size_t	n = fr->inc->nsources;

	if (n <= fr->nsrc)
		return;
	fr->src = xreallocarray(fr->src, n, sizeof *fr->src);
	memset(fr->src + fr->nsrc, 0, (n - fr->nsrc) * sizeof *fr->src);
	fr->nsrc = n;
}

/* Start a search of every line of inc's sources; hits go to cb. */
struct find_read *
find_read_create(struct rl_incident *inc, struct find *f, bool follow,
    find_read_cb cb, void *arg)
{
	struct find_read	*fr;

	fr = xcalloc(1, sizeof *fr);
	fr->inc = inc;
	fr->re = incident_create(inc->rules);
	fr->re->lines_only = true;
	fr->find = f;
	fr->cb = cb;
	fr->arg = arg;
	fr->follow = follow;
	fr->fd = -1;
	fr->chunk = xmalloc(FIND_READ_CHUNK);
	find_read_grow(fr);
	return fr;
}

/*
 * Open source i to read it again, or mark it read through its events
 * only; a file replaced since it was first opened is not read as if it
 * were the same.
 */
static int
find_read_open(struct find_read *fr, size_t i)
{
	struct find_src		*q = &fr->src[i];
	const struct rl_source	*s = fr->inc->sources[i];
	struct stat		 sb;

	if (s->binary || s->error != NULL || (s->spill != -1 &&
	    s->spill_full) || (fr->fd = source_reopen(s)) == -1) {
		q->events_only = true;
		return -1;
	}
	if (fstat(fr->fd, &sb) != 0 || (q->opened && (sb.st_dev != q->dev ||
	    sb.st_ino != q->ino))) {
		close(fr->fd);
		fr->fd = -1;
		q->events_only = true;
		return -1;
	}
	q->opened = true;
	q->dev = sb.st_dev;
	q->ino = sb.st_ino;
	if (q->again == NULL)
		q->again = source_again(fr->re, s, find_read_line_cb, fr);
	return fr->fd;
}

/* Done with the source being read: close it and go to the next. */
static void
find_read_next(struct find_read *fr)
{
	if (fr->fd != -1)
		close(fr->fd);
	fr->fd = -1;
	if (fr->next < fr->nsrc)
		fr->src[fr->next].settled = true;
	fr->next++;
}

/*
 * Read about `budget` bytes more.  Returns true while bytes the analysis
 * has read are still unsearched, false when the search has caught up
 * (a followed source that grows makes it true again).
 */
bool
find_read_step(struct find_read *fr, size_t budget)
{
	struct find_src		*q;
	const struct rl_source	*s;
	uint64_t		 end;
	size_t			 want, done = 0;
	ssize_t			 n;

	find_read_grow(fr);
	while (done < budget) {
		if (fr->next >= fr->nsrc) {
			/* Caught up: grown sources are read on, first to last. */
			for (fr->next = 0; fr->next < fr->nsrc; fr->next++) {
				q = &fr->src[fr->next];
				if (!q->events_only && q->off <
				    find_read_end(fr->inc->sources[fr->next]))
					break;
			}
			if (fr->next >= fr->nsrc)
				return false;
		}
		q = &fr->src[fr->next];
		s = fr->inc->sources[fr->next];
		end = find_read_end(s);
		if (q->events_only || q->off >= end) {
			find_read_next(fr);
			continue;
		}
		if (fr->fd == -1 && find_read_open(fr, fr->next) == -1) {
			find_read_next(fr);
			continue;
		}
		want = end - q->off < FIND_READ_CHUNK ? (size_t)(end - q->off) :
		    FIND_READ_CHUNK;
		if (want > budget - done)
			want = budget - done;
		n = pread(fr->fd, fr->chunk, want, (off_t)q->off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* Cut short or unreadable now: its events stand. */
			if (n == -1)
				q->events_only = true;
			q->off = end;
			find_read_next(fr);
			continue;
		}
		q->off += (uint64_t)n;
		done += (size_t)n;
		ingest_feed(q->again->ingest, fr->chunk, (size_t)n);
		if (q->off >= end) {
			/*
			 * A last line without its newline is one when the
			 * reading is over; a followed source may finish it.
			 */
			if (!fr->follow)
				ingest_flush(q->again->ingest);
			find_read_next(fr);
		}
	}
	return true;
}

/* Sources read to their end at least once, of how many (*total). */
size_t
find_read_progress(const struct find_read *fr, size_t *total)
{
	size_t	i, n = 0;

	*total = fr->inc->nsources;
	for (i = 0; i < fr->nsrc; i++)
		n += fr->src[i].settled || fr->src[i].events_only;
	return n;
}

/* Is source i searched only through its events (cannot be read again)? */
bool
find_read_events_only(const struct find_read *fr, unsigned i)
{
	return i < fr->nsrc && fr->src[i].events_only;
}

/* Lines matched so far, and how many the match limits stopped. */
uint64_t
find_read_lines(const struct find_read *fr, uint64_t *limited)
{
	*limited = fr->limited;
	return fr->lines;
}

/* Stop and free a search's reading. */
void
find_read_free(struct find_read *fr)
{
	if (fr == NULL)
		return;
	if (fr->fd != -1)
		close(fr->fd);
	incident_free(fr->re);
	free(fr->src);
	free(fr->chunk);
	free(fr);
}

/*
 * The text of the line at byte offset off of source s, read again, into
 * b (reset first): at most FIND_LINE_MAX bytes, without its newline or
 * CR, colour codes stripped.  Returns 0, or -1 when it cannot be read.
 */
int
find_read_line(const struct rl_source *s, uint64_t off, struct buf *b)
{
	char	*nl;
	ssize_t	 n;
	int	 fd;

	buf_reset(b);
	if ((fd = source_reopen(s)) == -1)
		return -1;
	buf_grow(b, FIND_LINE_MAX);
	do
		n = pread(fd, b->p, FIND_LINE_MAX, (off_t)off);
	while (n == -1 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -1;
	b->len = (size_t)n;
	if ((nl = memchr(b->p, '\n', b->len)) != NULL)
		b->len = (size_t)(nl - b->p);
	if (b->len > 0 && b->p[b->len - 1] == '\r')
		b->len--;
	b->len = strip_ansi(b->p, b->len);
	b->p[b->len] = '\0';
	return 0;
}
