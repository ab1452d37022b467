/*
 * cmd-cat.c: `rankline cat`, every line of every source merged in time
 * order, each with its time and its rank or host: the plain view users pipe
 * into less or grep.
 *
 * The merge never reorders lines within one source (a tee'd console is not
 * in time order, and its own order is the truth); it only interleaves
 * sources, always taking the source whose next line is earliest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rankline.h"

/* One line held for the merge. */
struct cat_line {
	int64_t		 utc;		/* for ordering; INT64_MIN when untimed */
	struct rl_time	 time;
	unsigned	 source;
	uint64_t	 line;
	unsigned	 proc;		/* process index */
	char		*text;
	size_t		 len;
};

/* The lines of one source, in its own order. */
struct cat_src {
	struct cat_line	*v;
	size_t		 n;
	size_t		 cap;
	size_t		 next;		/* the merge's position */
};

struct cat_state {
	struct cat_src	*src;		/* by source index */
	size_t		 nsrc;
};

static void
cat_line_cb(void *arg, const struct rl_source *s, uint64_t lineno,
    const struct rl_time *t, const struct rl_process *p, const char *text,
    size_t len)
{
	struct cat_state	*cs = arg;
	struct cat_src		*q;
	struct cat_line		*l;

	if (s->index >= cs->nsrc) {
		cs->src = xreallocarray(cs->src, s->index + 1, sizeof *cs->src);
		memset(cs->src + cs->nsrc, 0, (s->index + 1 - cs->nsrc) *
		    sizeof *cs->src);
		cs->nsrc = s->index + 1;
	}
	q = &cs->src[s->index];
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 256;
		q->v = xreallocarray(q->v, q->cap, sizeof *q->v);
	}
	l = &q->v[q->n++];
	l->time = *t;
	l->utc = (t->flags & RL_TIME_VALID) ? clock_utc_ms(t) : INT64_MIN;
	l->source = s->index;
	l->line = lineno;
	l->proc = p->index;
	l->text = xstrndup(text, len);
	l->len = len;
}

/* Print one line. */
static void
cat_print(const struct rl_incident *inc, const struct cat_line *l, bool json,
    struct buf *b)
{
	const struct rl_process	*p = inc->procs[l->proc];
	char			 t[64] = "";

	buf_reset(b);
	if (l->time.flags & RL_TIME_VALID)
		clock_format(&l->time, t, sizeof t);
	if (json) {
		buf_adds(b, "{\"source\": \"");
		sanitize_json(b, inc->sources[l->source]->path,
		    strlen(inc->sources[l->source]->path));
		buf_printf(b, "\", \"line\": %llu, \"time\": ",
		    (unsigned long long)l->line);
		if (t[0] != '\0')
			buf_printf(b, "\"%s\"", t);
		else
			buf_adds(b, "null");
		buf_adds(b, ", \"rank\": ");
		buf_printf(b, p->rank == RL_NONE ? "null" : "%d", p->rank);
		buf_adds(b, ", \"host\": ");
		if (p->host != NULL) {
			buf_addc(b, '"');
			sanitize_json(b, p->host, strlen(p->host));
			buf_addc(b, '"');
		} else
			buf_adds(b, "null");
		buf_adds(b, ", \"pid\": ");
		buf_printf(b, p->pid == RL_NONE ? "null" : "%d", p->pid);
		buf_adds(b, ", \"text\": \"");
		sanitize_json(b, l->text, l->len);
		buf_adds(b, "\"}\n");
	} else {
		buf_printf(b, "%-23s ", t[0] != '\0' ? t : "-");
		if (p->rank != RL_NONE)
			buf_printf(b, "r%-4d ", p->rank);
		else if (p->host != NULL) {
			sanitize_terminal(b, p->host, strlen(p->host));
			buf_addc(b, ' ');
		} else
			buf_adds(b, "-     ");
		sanitize_terminal(b, l->text, l->len);
		buf_addc(b, '\n');
	}
	fwrite(b->p, 1, b->len, stdout);
}

/*
 * Merge: repeatedly take the source whose next line is earliest.  An untimed
 * line goes with its source's previous line, so it never holds a source back.
 */
static void
cat_merge(const struct rl_incident *inc, struct cat_state *cs, bool json)
{
	struct buf		 b = { 0 };
	struct cat_src		*q, *best;
	struct cat_line		*l;
	size_t			 i;

	for (;;) {
		best = NULL;
		for (i = 0; i < cs->nsrc; i++) {
			q = &cs->src[i];
			if (q->next >= q->n)
				continue;
			l = &q->v[q->next];
			if (l->utc == INT64_MIN) {
				best = q;	/* untimed: print now */
				break;
			}
			if (best == NULL || l->utc < best->v[best->next].utc)
				best = q;
		}
		if (best == NULL)
			break;
		l = &best->v[best->next++];
		cat_print(inc, l, json, &b);
		free(l->text);
	}
	buf_free(&b);
}

int
cmd_cat(const struct options *o, int argc, char **argv)
{
	struct cat_state	 cs = { 0 };
	struct ruleset		*rs;
	struct rl_incident	*inc;
	size_t			 i;
	int			 bad;

	if (argc == 0 && o->ncmds == 0) {
		fprintf(stderr, "usage: rankline %s\n", commands[1].usage);
		return EXIT_USAGE;
	}
	rs = rules_load_or_warn();
	inc = analyze_paths(o, rs, argc, argv, cat_line_cb, &cs, &bad);
	for (i = 0; i < inc->errors.n; i++)
		fprintf(stderr, "rankline: %s\n", inc->errors.v[i]);
	cat_merge(inc, &cs, o->json);
	for (i = 0; i < cs.nsrc; i++)
		free(cs.src[i].v);
	free(cs.src);
	incident_free(inc);
	ruleset_free(rs);
	return 0;
}
