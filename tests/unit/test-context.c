/*
 * test-context.c: the lines around a failure, as ingestion keeps them.
 *
 * context_cut is the cut a read at the line's offset made (up to
 * CONTEXT_LINES whole lines each way within CONTEXT_BYTES, a cut first line
 * dropped); the reader (context.c, driven by ingest_feed) must give that
 * same cut whatever the chunks the bytes come in: a line split across
 * chunks, the lines after it in a later read, CR LF, the file's start and
 * end.  Each case feeds a log in pieces of many sizes and compares the
 * model's context with the cut of the whole text.
 */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "ingest-int.h"

static const char *PACK =
	"[rule boom]\npattern = BOOM\nliteral = BOOM\nrole = root\n"
	"domain = code\n"
	"[rule note]\npattern = NOTE\nliteral = NOTE\nrole = evidence\n";

/* Feed text in pieces of `piece` bytes; settle; the incident. */
static struct rl_incident *
feed(struct ruleset *rs, const char *text, size_t piece, size_t upto)
{
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src;
	struct ingest		*in;
	size_t			 o, n;

	src = incident_add_source(inc, "/nonexistent/ctx.log", SOURCE_FILE);
	in = source_ingest(inc, src, NULL, NULL);
	for (o = 0; o < upto; o += n) {
		n = upto - o < piece ? upto - o : piece;
		ingest_feed(in, text + o, n);
	}
	return inc;
}

/* The first event whose text has s. */
static const struct rl_event *
find(const struct rl_incident *inc, const char *s)
{
	size_t	i;

	for (i = 0; i < inc->nevents; i++) {
		if (inc->events[i]->text != NULL &&
		    strstr(inc->events[i]->text, s) != NULL)
			return inc->events[i];
	}
	return NULL;
}

/*
 * The model's context of the line with mark equals the whole text's cut,
 * fed in pieces of every size given.
 */
static void
same_cut(struct ruleset *rs, const char *what, const char *text,
    const char *mark)
{
	static const size_t	 pieces[] = { 1, 2, 3, 7, 64, 1000, 2047,
				     2048, 4097, 1 << 20 };
	const struct rl_event	*e;
	struct rl_incident	*inc;
	const char		*at, *p, *got;
	char			*want;
	int64_t			 wfirst, gfirst;
	uint64_t		 line = 1;
	size_t			 i, bad = 0;

	at = strstr(text, mark);
	while (at > text && at[-1] != '\n')
		at--;
	for (p = text; p < at; p++)
		line += *p == '\n';
	want = cut_whole(text, (size_t)(at - text), line, &wfirst);
	for (i = 0; i < nitems(pieces); i++) {
		inc = feed(rs, text, pieces[i], strlen(text));
		ingest_flush(inc->sources[0]->ingest);
		pipeline_diagnose(inc);
		gfirst = -1;
		got = (e = find(inc, mark)) != NULL ?
		    event_context(inc, e, &gfirst) : NULL;
		if (got == NULL || want == NULL || strcmp(got, want) != 0 ||
		    gfirst != wfirst) {
			printf("# %zu-byte pieces: got \"%s\" (%lld)\n",
			    pieces[i], got != NULL ? got : "(null)",
			    (long long)gfirst);
			bad++;
		}
		incident_free(inc);
	}
	ok(bad == 0 && want != NULL, "%s: the same in pieces of 1 byte to "
	    "1 MiB", what);
	free(want);
}

/* The cut itself, on texts whose answer is plain. */
static void
test_cut(void)
{
	char	*s;
	int64_t	 first;

	context_cut("a\nb\nc\nd\nBOOM\nf\ng\nh\ni\n", 23, 8, false, 5, &s,
	    &first);
	is_str(s, "b\nc\nd\nBOOM\nf\ng\nh", "three lines before and after");
	is_int(first, 2, "numbered from the first line kept");
	free(s);
	context_cut("BOOM\nf\n", 7, 0, false, 1, &s, &first);
	is_str(s, "BOOM\nf", "at the file's start: none before");
	is_int(first, 1, "line 1 first");
	free(s);
	context_cut("a\nBOOM", 6, 2, false, 2, &s, &first);
	is_str(s, "a\nBOOM", "at the file's end, without its newline");
	free(s);
	context_cut("xx cut\nb\nBOOM\n", 14, 9, true, 40, &s, &first);
	is_str(s, "b\nBOOM", "a first line the window cut is dropped");
	is_int(first, 39, "and not counted");
	free(s);
	context_cut("a\r\nBOOM\r\nc\r\n", 12, 3, false, 2, &s, &first);
	is_str(s, "a\r\nBOOM\r\nc", "CR LF: the last line's end trimmed");
	free(s);
	is_int(context_cut("ab", 2, 2, false, 1, &s, &first), -1,
	    "nothing of the line: no context");
	ok(s == NULL, "and no text");
}

/* Lines of n bytes each (n >= 8), numbered, with BOOM at line k. */
static char *
lines_of(size_t count, size_t n, size_t k, const char *eol)
{
	struct buf	b = { 0 };
	size_t		i, j;

	for (i = 1; i <= count; i++) {
		buf_printf(&b, "%s%05zu", i == k ? "BOOM " : "line ", i);
		for (j = 10; j < n; j++)
			buf_addc(&b, (char)('a' + j % 26));
		buf_adds(&b, eol);
	}
	return buf_steal(&b);
}

static void
test_reader(struct ruleset *rs)
{
	char	*t;

	t = lines_of(20, 40, 10, "\n");
	same_cut(rs, "a failure mid-file", t, "BOOM");
	free(t);
	t = lines_of(20, 40, 1, "\n");
	same_cut(rs, "a failure on the first line", t, "BOOM");
	free(t);
	t = lines_of(20, 40, 20, "\n");
	same_cut(rs, "a failure on the last line", t, "BOOM");
	free(t);
	t = lines_of(20, 40, 10, "\r\n");
	same_cut(rs, "CR LF lines", t, "BOOM");
	free(t);
	/* Lines of 900 bytes: the byte limits cut before the line limits. */
	t = lines_of(30, 900, 15, "\n");
	same_cut(rs, "long lines: the byte limit, a cut first line dropped",
	    t, "BOOM");
	free(t);
	/* The failure's line longer than the window: held across chunks. */
	t = lines_of(12, 6000, 6, "\n");
	same_cut(rs, "a failure's line longer than the window", t, "BOOM");
	free(t);
}

/* The lines after a failure come in a later read of a followed file. */
static void
test_later(struct ruleset *rs)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	const char		*got;
	char			*t, *want;
	int64_t			 first = 0, wfirst;
	size_t			 upto;

	t = lines_of(20, 40, 10, "\n");
	/* Read up to the failure's line and one more. */
	upto = strstr(t, "BOOM") - t + 2 * 40 + 2;
	inc = feed(rs, t, 64, upto);
	pipeline_diagnose(inc);
	got = (e = find(inc, "BOOM")) != NULL ? event_context(inc, e, &first) :
	    NULL;
	ok(got != NULL && strstr(got, "line 00011") != NULL &&
	    strstr(got, "line 00012") == NULL, "read so far: one line after "
	    "the failure");
	ingest_feed(inc->sources[0]->ingest, t + upto, strlen(t) - upto);
	pipeline_diagnose(inc);
	want = cut_whole(t, (size_t)(strstr(t, "BOOM") - t), 10, &wfirst);
	got = (e = find(inc, "BOOM")) != NULL ? event_context(inc, e, &first) :
	    NULL;
	is_str(got, want, "the next read brings the lines after it");
	is_int(first, wfirst, "numbered the same");
	free(want);
	incident_free(inc);
	free(t);
}

/* No context for what is no failure, nor for a line changed in its text. */
static void
test_none(struct ruleset *rs)
{
	struct rl_incident	*inc;
	const struct rl_event	*e;
	int64_t			 first;
	const char		*t = "a\nNOTE here\n\x1b[31mBOOM\x1b[0m red\nz\n";

	inc = feed(rs, t, 1 << 20, strlen(t));
	pipeline_diagnose(inc);
	e = find(inc, "NOTE");
	ok(e != NULL && event_context(inc, e, &first) == NULL,
	    "an evidence line has no context");
	e = find(inc, "BOOM");
	ok(e != NULL && event_context(inc, e, &first) == NULL,
	    "a failure whose text lost its colour codes has none, as a read "
	    "at its offset found none");
	incident_free(inc);
}

/* A process's last context as a string, or NULL. */
static char *
last_context(const struct rl_incident *inc)
{
	const struct rl_context	*c;

	if (inc->nprocs == 0 || (c = inc->procs[0]->last_context) == NULL)
		return NULL;
	if (c->text != NULL)
		return xstrdup(c->text);
	return c->span != NULL ? xstrndup(c->span->bytes + c->at, c->len) :
	    NULL;
}

/*
 * Read text to a line's end at upto, ask for the model, maybe rest, read
 * on, and say what the reading made: the failure's context (and its first
 * line's number), the last timed line and its context.
 */
static char *
read_resting(struct ruleset *rs, const char *text, size_t upto, bool rest,
    size_t *shrunk, size_t *wants)
{
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src;
	struct ingest		*in;
	const struct rl_event	*e;
	struct buf		 b = { 0 };
	const char		*got;
	char			*s;
	const struct context_want *w;
	int64_t			 first = -1;
	size_t			 i, o, n, len = strlen(text), before, nls;

	src = incident_add_source(inc, "/nonexistent/rest.log", SOURCE_FILE);
	in = source_ingest(inc, src, NULL, NULL);
	for (o = 0; o < upto; o += n) {
		n = upto - o < 64 ? upto - o : 64;
		ingest_feed(in, text + o, n);
	}
	if (rest) {
		ingest_rest(in);
		for (i = 0; i < in->ctx.nwant; i++) {
			w = in->ctx.want[i];
			before = (size_t)(w->offset - w->from);
			for (o = nls = 0; o < before && o < w->have; o++)
				nls += w->win[o] == '\n';
			(*wants)++;
			*shrunk += w->room < CONTEXT_WINDOW &&
			    nls <= CONTEXT_LINES;
		}
	}
	pipeline_diagnose(inc);
	ingest_feed(in, text + upto, len - upto);
	ingest_flush(in);
	pipeline_diagnose(inc);
	got = (e = find(inc, "BOOM")) != NULL ? event_context(inc, e, &first) :
	    NULL;
	buf_printf(&b, "context (%lld) %s\n", (long long)first,
	    got != NULL ? got : "none");
	/* A keep made before the rest is found again after it. */
	buf_printf(&b, "keeps %zu\n", inc->nkeeps);
	s = inc->nprocs > 0 ? process_last_line(inc, inc->procs[0]) : NULL;
	buf_printf(&b, "last %s\n", s != NULL ? s : "none");
	free(s);
	s = last_context(inc);
	buf_printf(&b, "last context %s\n", s != NULL ? s : "none");
	free(s);
	incident_free(inc);
	return buf_steal(&b);
}

/*
 * A followed file gone quiet at a line's end rests (ingest_rest): its
 * windows keep only the bytes they have, its processes' slots and saved
 * bytes go.  Resting after any line, asked for the model then, and read
 * on, the reading must make what one that did not rest makes.
 */
static void
test_rest(struct ruleset *rs)
{
	struct buf	 b = { 0 }, w = { 0 };
	char		*want, *got, *cut;
	const char	*p, *nl;
	int64_t		 first;
	size_t		 i, j, bad = 0, lines = 0, shrunk = 0, wants = 0;
	size_t		 whole = 0;

	/*
	 * Timed lines past the failure to the last timed one; then untimed.
	 * Notes before and after any rest, for one keep.
	 */
	for (i = 1; i <= 40; i++) {
		if (i <= 25)
			buf_printf(&b, "2024-01-01 00:00:%02zu ", i);
		buf_printf(&b, "%s %05zu", i == 20 ? "BOOM" : i % 10 == 3 ?
		    "NOTE" : "line", i);
		for (j = 0; j < 60; j++)
			buf_addc(&b, (char)('a' + (i + j) % 26));
		buf_addc(&b, '\n');
	}
	/* The last timed line's context, as a reading of the whole has it. */
	p = strstr(b.p, "2024-01-01 00:00:25");
	cut = cut_whole(b.p, (size_t)(p - b.p), 25, &first);
	buf_printf(&w, "last context %s\n", cut != NULL ? cut : "(none)");
	for (p = b.p; (nl = strchr(p, '\n')) != NULL && nl[1] != '\0';
	    p = nl + 1) {
		lines++;
		want = read_resting(rs, b.p, (size_t)(nl + 1 - b.p), false,
		    NULL, NULL);
		got = read_resting(rs, b.p, (size_t)(nl + 1 - b.p), true,
		    &shrunk, &wants);
		if (strcmp(got, want) != 0 || strstr(got, "BOOM 00020") ==
		    NULL || strstr(got, "last 2024-01-01 00:00:25") == NULL) {
			printf("# rested after line %zu:\n%s# where the "
			    "reading that did not rest made:\n%s", lines, got,
			    want);
			bad++;
		}
		whole += strstr(got, w.p) != NULL;
		free(want);
		free(got);
	}
	ok(bad == 0 && lines == 39, "a reading that rests after any line and "
	    "reads on: the failure's context, the last line and its context, "
	    "and its keeps are those of one that did not rest");
	ok(cut != NULL && whole == lines, "the last timed line's context is "
	    "the whole's, asked for after any line of pieces of 64 bytes (%zu "
	    "of %zu)", whole, lines);
	ok(wants > 0 && shrunk == wants, "a window still filling keeps only "
	    "the bytes it has from its cut's first line while the source "
	    "rests (%zu of %zu)", shrunk, wants);
	free(cut);
	buf_clear(&w);
	buf_clear(&b);
}

/*
 * The rules that look back (only_after, not_within) see across a rest:
 * the lines seen by rule are kept while the source rests and its tables
 * by rule go.
 */
static void
test_rest_rules(void)
{
	static const char	*pack =
	    "[rule early]\npattern = EARLY\nliteral = EARLY\n"
	    "role = evidence\n"
	    "[rule late]\npattern = LATE\nliteral = LATE\nrole = root\n"
	    "domain = code\nonly_after = early\n"
	    "[rule near]\npattern = NEAR\nliteral = NEAR\nrole = root\n"
	    "domain = code\nnot_within = early 3\n";
	static const char	*head = "EARLY one\nplain\n";
	static const char	*tail = "NEAR two\nLATE three\n";
	struct ruleset		*rs = rules_inline(pack);
	struct rl_incident	*inc;
	struct rl_source	*src;
	struct ingest		*in;
	char			 got[2][128];
	int			 rest;
	size_t			 i;

	for (rest = 0; rest < 2; rest++) {
		inc = incident_create(rs);
		src = incident_add_source(inc, "/nonexistent/rules.log",
		    SOURCE_FILE);
		in = source_ingest(inc, src, NULL, NULL);
		ingest_feed(in, head, strlen(head));
		if (rest)
			ingest_rest(in);
		ok((in->seen == NULL) == (rest == 1) && (rest == 0 ||
		    (in->keep == NULL && in->kfind == NULL &&
		    in->quick == NULL)), "%s", rest ? "resting, the tables "
		    "by rule and of the keeps made, and the peels kept, let go" :
		    "read on at once");
		ingest_feed(in, tail, strlen(tail));
		ingest_flush(in);
		pipeline_diagnose(inc);
		got[rest][0] = '\0';
		for (i = 0; i < inc->nevents; i++) {
			snprintf(got[rest] + strlen(got[rest]),
			    sizeof got[rest] - strlen(got[rest]), "%s%s ",
			    inc->events[i]->rule->id,
			    inc->events[i]->harmless ? "(harmless)" : "");
		}
		incident_free(inc);
	}
	is_str(got[1], got[0], "across a rest, the same events");
	ok(strstr(got[1], "late ") != NULL &&
	    strstr(got[1], "near(harmless)") != NULL,
	    "only_after and not_within saw the line before the rest (%s)",
	    got[1]);
	ruleset_free(rs);
}

/*
 * A mapped file's windows stay readable while it is read, and the bytes
 * the next window needs of the last one (a process's last timed line and
 * the lines around it) are pointed to in them, not copied, until
 * ingest_keep_fed(false) copies them.  The text is fed from a copy that is
 * overwritten after that: what the model keeps must be the bytes fed.
 */
static void
test_kept_fed(struct ruleset *rs)
{
	static const size_t	 pieces[] = { 7, 64, 1000, 4097 };
	struct rl_incident	*inc;
	struct rl_source	*src;
	struct ingest		*in;
	const struct rl_event	*e;
	struct buf		 b = { 0 };
	const char		*got;
	char			*copy, *want, *last;
	int64_t			 first, wfirst;
	size_t			 i, j, o, n, len, bad = 0;

	/* Timed lines up to the failure, the last timed one; then untimed. */
	for (i = 1; i <= 40; i++) {
		if (i <= 20)
			buf_printf(&b, "2024-01-01 00:00:%02zu ", i);
		buf_printf(&b, "%s %05zu", i == 20 ? "BOOM" : "line", i);
		for (j = 0; j < 60; j++)
			buf_addc(&b, (char)('a' + (i + j) % 26));
		buf_addc(&b, '\n');
	}
	len = b.len;
	o = (size_t)(strstr(b.p, "2024-01-01 00:00:20") - b.p);
	want = cut_whole(b.p, o, 20, &wfirst);
	for (i = 0; i < nitems(pieces); i++) {
		inc = incident_create(rs);
		src = incident_add_source(inc, "/nonexistent/kept.log",
		    SOURCE_FILE);
		in = source_ingest(inc, src, NULL, NULL);
		copy = xmalloc(len);
		memcpy(copy, b.p, len);
		ingest_keep_fed(in, true);
		for (o = 0; o < len; o += n) {
			n = len - o < pieces[i] ? len - o : pieces[i];
			ingest_feed(in, copy + o, n);
		}
		ingest_keep_fed(in, false);
		memset(copy, 'X', len);
		ingest_flush(in);
		pipeline_diagnose(inc);
		first = -1;
		got = (e = find(inc, "BOOM")) != NULL ?
		    event_context(inc, e, &first) : NULL;
		last = inc->nprocs > 0 ?
		    process_last_line(inc, inc->procs[0]) : NULL;
		if (got == NULL || want == NULL || strcmp(got, want) != 0 ||
		    first != wfirst || last == NULL ||
		    strstr(last, "BOOM 00020") == NULL) {
			printf("# %zu-byte pieces: got \"%s\", last \"%s\"\n",
			    pieces[i], got != NULL ? got : "(null)",
			    last != NULL ? last : "(null)");
			bad++;
		}
		free(last);
		free(copy);
		incident_free(inc);
	}
	ok(bad == 0 && want != NULL, "bytes pointed to while the feeder keeps "
	    "them: the last line and its context are the bytes fed");
	free(want);
	buf_clear(&b);
}

/*
 * Failures near each other share one copy of the lines around them (a
 * span), and each is still the cut of the whole text.
 */
static void
test_shared(struct ruleset *rs)
{
	static const size_t	 booms[] = { 10, 11, 12, 14 };
	struct rl_incident	*inc;
	const struct rl_source	*src;
	const struct rl_event	*e;
	const struct context_span *sp = NULL;
	struct buf		 b = { 0 };
	const char		*got;
	char			*want, mark[16];
	int64_t			 first, wfirst;
	size_t			 i, j, bad = 0, sum = 0;
	bool			 one = true;

	for (i = 1; i <= 30; i++) {
		for (j = 0; j < nitems(booms) && booms[j] != i; j++)
			;
		buf_printf(&b, "%s %05zu", j < nitems(booms) ? "BOOM" : "line",
		    i);
		for (j = 0; j < 50; j++)
			buf_addc(&b, (char)('a' + (i + j) % 26));
		buf_addc(&b, '\n');
	}
	inc = feed(rs, b.p, 1000, b.len);
	ingest_flush(inc->sources[0]->ingest);
	pipeline_diagnose(inc);
	src = inc->sources[0];
	for (i = 0; i < nitems(booms); i++) {
		snprintf(mark, sizeof mark, "BOOM %05zu", booms[i]);
		want = cut_whole(b.p, (size_t)(strstr(b.p, mark) - b.p),
		    booms[i], &wfirst);
		got = (e = find(inc, mark)) != NULL ?
		    event_context(inc, e, &first) : NULL;
		if (got == NULL || want == NULL || strcmp(got, want) != 0 ||
		    first != wfirst)
			bad++;
		free(want);
	}
	ok(bad == 0, "four failures within seven lines: each its own cut");
	for (i = 0; i < src->ncontexts; i++) {
		if (src->contexts[i].span == NULL)
			continue;
		sum += src->contexts[i].len;
		if (sp != NULL && src->contexts[i].span != sp)
			one = false;
		sp = src->contexts[i].span;
	}
	ok(src->ncontexts == nitems(booms) && one && sp != NULL &&
	    sp->len < sum, "and one copy of their lines: %zu bytes for %zu",
	    sp != NULL ? (size_t)sp->len : 0, sum);
	incident_free(inc);
	buf_clear(&b);
}

/*
 * A flood of one failure (each line replacing its keep's latest, its
 * context dropped) holds a bounded copy of the lines, not the flood's.
 */
static void
test_flood(struct ruleset *rs)
{
	struct rl_incident	*inc;
	const struct rl_source	*src;
	const struct context_span *seen[256];
	struct buf		 b = { 0 };
	size_t			 i, j, n = 0, bytes = 0;

	for (i = 1; i <= 5000; i++)
		buf_printf(&b, "BOOM %05zu and some more words\n", i);
	inc = feed(rs, b.p, 4096, b.len);
	ingest_flush(inc->sources[0]->ingest);
	pipeline_diagnose(inc);
	src = inc->sources[0];
	for (i = 0; i < src->ncontexts && n < nitems(seen); i++) {
		if (src->contexts[i].span == NULL)
			continue;
		for (j = 0; j < n && seen[j] != src->contexts[i].span; j++)
			;
		if (j == n) {
			seen[n++] = src->contexts[i].span;
			bytes += src->contexts[i].span->cap;
		}
	}
	ok(n > 0 && bytes <= CONTEXT_SPAN_MAX + CONTEXT_WINDOW,
	    "5,000 failing lines of 180 KB: %zu bytes of lines kept in %zu "
	    "copies", bytes, n);
	incident_free(inc);
	buf_clear(&b);
}

int
main(void)
{
	struct ruleset	*rs = rules_inline(PACK);

	test_cut();
	test_reader(rs);
	test_later(rs);
	test_none(rs);
	test_kept_fed(rs);
	test_rest(rs);
	test_rest_rules();
	test_shared(rs);
	test_flood(rs);
	ruleset_free(rs);
	return tap_done();
}
