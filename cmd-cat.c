/*
 * cmd-cat.c: `rankline cat`, every line of every source merged in time
 * order, each with its time and its rank or host: the plain view users pipe
 * into less or grep.
 *
 * The merge never reorders lines within one source (a tee'd console is not
 * in time order, and its own order is the truth); it only interleaves
 * sources, always taking the source whose next line is earliest.
 *
 * A line's rank may be learnt only at the end (a launcher's record names
 * the ranks of its children when they have failed), so the sources are
 * analyzed first, and then read again side by side, a chunk of each at a
 * time, and merged through a heap: memory is a chunk per source, not the
 * logs.  What cannot be read again (a command, standard input, a log read
 * through a decompressor) was kept in its spill by the first reading.  A
 * source with neither, and `cat --follow`, whose files may be rotated
 * while they are read, hold their lines in memory instead.
 *
 * A source is read again through a descriptor opened when its next chunk
 * is wanted and kept while the process's limit allows: at the limit
 * (ulimit -n 256 and 1,000 files) another source's is closed, to be opened
 * again at its offset when its turn comes.  A source whose lines cannot
 * all be printed is named on stderr, and cat exits 3.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "engine.h"
#include "follow.h"
#include "rankline.h"

#define CAT_CHUNK	(64 * 1024)	/* bytes of a source read at a time */
#define CAT_JSON_KEYS	7		/* keys of a cat --json line */

/* One line held for the merge. */
struct cat_line {
	int64_t		 utc;		/* for ordering; INT64_MIN when untimed */
	struct rl_time	 time;
	uint64_t	 line;
	unsigned	 proc;		/* process index, in the reading's incident */
	size_t		 at;		/* its text in the source's arena */
	size_t		 len;
};

/* One source being merged: the lines read from it and not yet printed. */
struct cat_src {
	struct rl_source *src;		/* the first reading's, borrowed */
	struct rl_source *again;	/* the second reading's, or NULL */
	int		 fd;		/* read again from, or -1: not open now */
	bool		 opened;	/* it was opened once: dev and ino */
	dev_t		 dev;		/* are the file's */
	ino_t		 ino;
	uint64_t	 off;		/* where, next (a spill's fd is shared) */
	bool		 eof;		/* no more bytes */
	bool		 lost;		/* lines of it were left out (said) */
	struct cat_line	*v;		/* queued lines */
	size_t		 n;
	size_t		 cap;
	size_t		 next;		/* the first not printed */
	struct buf	 text;		/* their texts */
};

struct cat_state {
	struct rl_incident *inc;	/* the analysis: final ranks */
	struct rl_incident *re;		/* the second reading, or NULL */
	struct cat_src	*src;		/* by source index */
	size_t		 nsrc;
	const struct rl_process **procs;/* the re-reading's process -> the analysis's */
	size_t		 nprocs;
	size_t		*heap;		/* sources with a line queued */
	size_t		 nheap;
	size_t		 shut;		/* the next source whose fd may be closed
					   for another's */
	bool		 json;
	json_t		*row;		/* cat --json's line, reused */
	json_t		*rowv[CAT_JSON_KEYS];/* its values, borrowed */
	bool		 collect;	/* the first reading keeps every line */
	struct buf	 out;
};

/* Room for n sources. */
static void
cat_grow(struct cat_state *cs, size_t n)
{
	size_t	i;

	cs->src = xreallocarray(cs->src, n, sizeof *cs->src);
	memset(cs->src + cs->nsrc, 0, (n - cs->nsrc) * sizeof *cs->src);
	for (i = cs->nsrc; i < n; i++)
		cs->src[i].fd = -1;
	cs->nsrc = n;
}

/* Queue a line for its source. */
static void
cat_line_cb(void *arg, const struct rl_source *s, uint64_t lineno,
    const struct rl_time *t, const struct rl_process *p, const char *text,
    size_t len)
{
	struct cat_state	*cs = arg;
	struct cat_src		*q;
	struct cat_line		*l;

	if (s->index >= cs->nsrc)
		cat_grow(cs, s->index + 1);
	q = &cs->src[s->index];
	q->v = array_grow(q->v, q->n, &q->cap, sizeof *q->v);
	l = &q->v[q->n++];
	l->time = *t;
	l->utc = (t->flags & RL_TIME_VALID) ? clock_utc_ms(t) : INT64_MIN;
	l->line = lineno;
	l->proc = p->index;
	l->at = q->text.len;
	l->len = len;
	buf_add(&q->text, text, len);
}

/* The analysis's process for a line: where the final rank and host are. */
static const struct rl_process *
cat_process(struct cat_state *cs, unsigned proc)
{
	const struct rl_process	*p, *q;
	size_t			 i, n;

	if (cs->re == NULL)
		return cs->inc->procs[proc];
	if (proc >= cs->nprocs) {
		/* Doubled: one more each time copies them all, at 100,000. */
		n = 2 * cs->nprocs > proc + 1 ? 2 * cs->nprocs : proc + 1;
		cs->procs = xreallocarray(cs->procs, n, sizeof *cs->procs);
		for (i = cs->nprocs; i < n; i++)
			cs->procs[i] = NULL;
		cs->nprocs = n;
	}
	if (cs->procs[proc] == NULL) {
		p = cs->re->procs[proc];
		/* The same paths and lines make the same process keys. */
		q = incident_process_find(cs->inc, p->key);
		cs->procs[proc] = q != NULL ? q : p;
	}
	return cs->procs[proc];
}

/* The keys of a cat --json line, in order. */
static const char *const cat_json_keys[CAT_JSON_KEYS] = {
	"source", "line", "time", "rank", "host", "pid", "text"
};

/* Set value k of the row to n bytes of s, or null, in place if it can. */
static void
cat_json_str(struct cat_state *cs, int k, const char *s, size_t n)
{
	json_t	*v = cs->rowv[k];

	if (s != NULL && json_is_string(v)) {
		json_string_setn_nocheck(v, s, n);
		return;
	}
	if (s == NULL && json_is_null(v))
		return;
	v = s != NULL ? json_stringn_nocheck(s, n) : json_null();
	json_object_set_new_nocheck(cs->row, cat_json_keys[k], v);
	cs->rowv[k] = v;
}

/* Set value k of the row to an int, or null, in place if it can. */
static void
cat_json_int(struct cat_state *cs, int k, long long n, bool none)
{
	json_t	*v = cs->rowv[k];

	if (!none && json_is_integer(v)) {
		json_integer_set(v, n);
		return;
	}
	if (none && json_is_null(v))
		return;
	v = none ? json_null() : json_integer(n);
	json_object_set_new_nocheck(cs->row, cat_json_keys[k], v);
	cs->rowv[k] = v;
}

/*
 * One line as a JSON object on a line of its own, through the one JSON
 * printer: its source, line, time, rank, host, pid and text.  The row is
 * made once and its values set in place, each held by the row and
 * borrowed in rowv: cat prints millions of them.
 */
static void
cat_json(struct cat_state *cs, const struct cat_src *q,
    const struct cat_line *l, const struct rl_process *p, const char *text,
    const char *t)
{
	int	k;

	if (cs->row == NULL) {
		cs->row = json_object();
		for (k = 0; k < CAT_JSON_KEYS; k++) {
			cs->rowv[k] = json_null();
			json_object_set_new_nocheck(cs->row, cat_json_keys[k],
			    cs->rowv[k]);
		}
	}
	cat_json_str(cs, 0, q->src->path, strlen(q->src->path));
	cat_json_int(cs, 1, (long long)l->line, false);
	cat_json_str(cs, 2, t[0] != '\0' ? t : NULL, strlen(t));
	cat_json_int(cs, 3, p->rank, p->rank == RL_NONE);
	cat_json_str(cs, 4, p->host, p->host != NULL ? strlen(p->host) : 0);
	cat_json_int(cs, 5, p->pid, p->pid == RL_NONE);
	cat_json_str(cs, 6, text, l->len);
	report_json_print(&cs->out, cs->row, NULL, 0, NULL);
	buf_addc(&cs->out, '\n');
}

/* Print one line. */
static void
cat_print(struct cat_state *cs, const struct cat_src *q,
    const struct cat_line *l)
{
	const struct rl_process	*p = cat_process(cs, l->proc);
	const char		*text = q->text.p + l->at;
	struct buf		*b = &cs->out;
	char			 t[64] = "";

	buf_reset(b);
	if (l->time.flags & RL_TIME_VALID)
		clock_format(&l->time, t, sizeof t);
	if (cs->json) {
		cat_json(cs, q, l, p, text, t);
	} else {
		buf_printf(b, "%-23s ", t[0] != '\0' ? t : "-");
		if (p->rank != RL_NONE)
			buf_printf(b, "r%-4d ", p->rank);
		else if (p->host != NULL) {
			sanitize_terminal(b, p->host, strlen(p->host));
			buf_addc(b, ' ');
		} else
			buf_adds(b, "-     ");
		sanitize_terminal(b, text, l->len);
		buf_addc(b, '\n');
	}
	fwrite(b->p, 1, b->len, stdout);
}

/* A source's lines are left out from here: say so, once. */
static void
cat_lost(struct cat_src *q, const char *why)
{
	struct buf	b = { 0 };

	q->eof = true;
	if (q->lost)
		return;
	q->lost = true;
	sanitize_terminal(&b, q->src->path, strlen(q->src->path));
	fprintf(stderr, "rankline: %s: %s: its lines from byte %llu on are "
	    "left out\n", b.p, why, (unsigned long long)q->off);
	buf_clear(&b);
}

/* Close the descriptor of a source other than q, if one is open. */
static bool
cat_close_other(struct cat_state *cs, const struct cat_src *q)
{
	struct cat_src	*o;
	size_t		 i;

	for (i = 0; i < cs->nsrc; i++) {
		o = &cs->src[cs->shut];
		cs->shut = (cs->shut + 1) % cs->nsrc;
		if (o != q && o->fd != -1) {
			close(o->fd);
			o->fd = -1;
			return true;
		}
	}
	return false;
}

/*
 * Open a source to read it again (see the top of the file), closing
 * another's when no descriptor is left.  A file replaced since it was last
 * opened is not read as if it were the same.  Returns its fd, or -1 with
 * the reason said.
 */
static int
cat_open(struct cat_state *cs, struct cat_src *q)
{
	struct stat	sb;

	if (q->fd != -1)
		return q->fd;
	errno = 0;	/* stays 0 for a source that cannot be reopened */
	while ((q->fd = source_reopen(q->src)) == -1) {
		if ((errno != EMFILE && errno != ENFILE) ||
		    !cat_close_other(cs, q)) {
			cat_lost(q, errno == 0 ? "cannot be read again" :
			    strerror(errno));
			return -1;
		}
	}
	if (fstat(q->fd, &sb) != 0 || (q->opened && (sb.st_dev != q->dev ||
	    sb.st_ino != q->ino))) {
		close(q->fd);
		q->fd = -1;
		cat_lost(q, "replaced while it was read");
		return -1;
	}
	q->opened = true;
	q->dev = sb.st_dev;
	q->ino = sb.st_ino;
	return q->fd;
}

/*
 * Read a source again until a line is queued or it ends.  A failed read
 * ends the source, and is said.
 */
static void
cat_fill(struct cat_state *cs, struct cat_src *q)
{
	char	*chunk;
	ssize_t	 n;

	if (q->again == NULL || q->eof)
		return;
	q->n = q->next = 0;
	buf_reset(&q->text);
	chunk = xmalloc(CAT_CHUNK);
	while (q->n == 0 && !q->eof) {
		if (cat_open(cs, q) == -1)
			break;
		n = pread(q->fd, chunk, CAT_CHUNK, (off_t)q->off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			cat_lost(q, strerror(errno));
			break;
		}
		if (n == 0) {
			q->eof = true;
			if (q->src->spill != -1 && q->src->spill_full &&
			    q->off < q->src->bytes)
				cat_lost(q, "the copy of its lines ends here "
				    "(see above)");
			break;
		}
		q->off += (uint64_t)n;
		ingest_feed(q->again->ingest, chunk, (size_t)n);
	}
	if (q->eof) {
		ingest_flush(q->again->ingest);
		if (q->fd != -1)
			close(q->fd);
		q->fd = -1;
	}
	free(chunk);
}

/* Does source a's next line come before source b's? */
static bool
cat_before(const struct cat_state *cs, size_t a, size_t b)
{
	const struct cat_line	*x = &cs->src[a].v[cs->src[a].next];
	const struct cat_line	*y = &cs->src[b].v[cs->src[b].next];

	/* An untimed line goes with its source's last one: now. */
	if (x->utc != y->utc)
		return x->utc < y->utc;
	return a < b;
}

/* Restore the heap from slot i down. */
static void
cat_sift(struct cat_state *cs, size_t i)
{
	size_t	l, r, m, t;

	for (;;) {
		l = 2 * i + 1;
		r = l + 1;
		m = i;
		if (l < cs->nheap && cat_before(cs, cs->heap[l], cs->heap[m]))
			m = l;
		if (r < cs->nheap && cat_before(cs, cs->heap[r], cs->heap[m]))
			m = r;
		if (m == i)
			return;
		t = cs->heap[i];
		cs->heap[i] = cs->heap[m];
		cs->heap[m] = t;
		i = m;
	}
}

/* Add a source with a queued line to the heap. */
static void
cat_push(struct cat_state *cs, size_t s)
{
	size_t	i = cs->nheap++, p, t;

	cs->heap[i] = s;
	while (i > 0) {
		p = (i - 1) / 2;
		if (!cat_before(cs, cs->heap[i], cs->heap[p]))
			break;
		t = cs->heap[i];
		cs->heap[i] = cs->heap[p];
		cs->heap[p] = t;
		i = p;
	}
}

/* Merge: always print the line of the source whose next line is earliest. */
static void
cat_merge(struct cat_state *cs)
{
	struct cat_src	*q;
	size_t		 i, s;

	cs->heap = xcalloc(cs->nsrc + 1, sizeof *cs->heap);
	for (i = 0; i < cs->nsrc; i++) {
		q = &cs->src[i];
		if (q->next == q->n && q->again != NULL)
			cat_fill(cs, q);
		if (q->next < q->n)
			cat_push(cs, i);
	}
	while (cs->nheap > 0) {
		s = cs->heap[0];
		q = &cs->src[s];
		cat_print(cs, q, &q->v[q->next++]);
		if (q->next == q->n)
			cat_fill(cs, q);
		if (q->next < q->n)
			cat_sift(cs, 0);
		else {
			cs->heap[0] = cs->heap[--cs->nheap];
			cat_sift(cs, 0);
		}
	}
	free(cs->heap);
}

/*
 * Set up the second reading: every source of the analysis that can be
 * read again is added to an incident of its own, with the same path (so
 * the same attribution) and the same clock reference.
 */
static void
cat_again(struct cat_state *cs, struct ruleset *rs)
{
	struct rl_incident	*inc = cs->inc;
	struct rl_source	*s;
	struct cat_src		*q;
	size_t			 i;

	cs->re = incident_create(rs);
	if (cs->nsrc < inc->nsources)
		cat_grow(cs, inc->nsources);
	for (i = 0; i < inc->nsources; i++) {
		s = inc->sources[i];
		q = &cs->src[i];
		q->src = s;
		q->fd = -1;
		q->eof = true;
		if (s->binary || s->error != NULL || s->lines == 0) {
			/* Its place in the second reading's sources. */
			incident_add_source(cs->re, s->path, SOURCE_FILE);
			continue;
		}
		q->eof = false;
		if (cat_open(cs, q) == -1) {
			incident_add_source(cs->re, s->path, SOURCE_FILE);
			continue;
		}
		q->again = source_again(cs->re, s, cat_line_cb, cs);
	}
}

int
cmd_cat(const struct options *o, int argc, char **argv)
{
	struct cat_state	 cs = { 0 };
	struct ruleset		*rs;
	size_t			 i;
	int			 bad;

	if (argc == 0 && o->ncmds == 0) {
		fprintf(stderr, "usage: rankline %s\n", commands[1].usage);
		return EXIT_USAGE;
	}
	rs = rules_load_or_warn();
	cs.json = o->json;
	cs.collect = o->follow;
	cs.inc = analyze_paths(o, rs, argc, argv, cs.collect ? cat_line_cb :
	    NULL, &cs, &bad);
	analyze_warn(cs.inc);
	if (!cs.collect)
		cat_again(&cs, rs);
	else {
		if (cs.nsrc < cs.inc->nsources)
			cat_grow(&cs, cs.inc->nsources);
		for (i = 0; i < cs.nsrc; i++) {
			cs.src[i].src = cs.inc->sources[i];
			cs.src[i].eof = true;
		}
	}
	cat_merge(&cs);
	fflush(stdout);
	for (i = 0; i < cs.nsrc; i++) {
		if (cs.src[i].lost)
			bad = 1;
		if (cs.src[i].fd != -1)
			close(cs.src[i].fd);
		free(cs.src[i].v);
		buf_clear(&cs.src[i].text);
	}
	free(cs.src);
	free(cs.procs);
	buf_clear(&cs.out);
	json_decref(cs.row);
	incident_free(cs.re);
	incident_free(cs.inc);
	ruleset_free(rs);
	return bad ? EXIT_PARTIAL : 0;
}
