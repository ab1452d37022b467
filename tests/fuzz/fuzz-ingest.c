/*
 * fuzz-ingest.c: bytes in random chunks through ingestion, the diagnosis
 * and every report, as analyze, analyze --follow and cat drive them, with
 * the shipped packs.
 *
 * The input: a flags byte, a byte that seeds the chunk sizes, then log
 * text.  A line "==> PATH <==" (what tail prints between files) starts a
 * new source named PATH, so that one input can be a job's folder: per-rank
 * files whose paths name ranks and hosts, a tee'd console, a launcher's
 * log.  Paths are put under a folder that does not exist, so that nothing
 * the diagnosis looks up on disk (checkpoint folders) is found there.
 *
 * Flags: CAT reads every line through a line callback, as `cat` does;
 * FOLLOW leaves the incident unsettled, feeds the sources in turns and
 * diagnoses half-way as well, as the console does; HISTORY gives the
 * reports a past (matches and repeat offenders whose words come from the
 * input); the top bits cap the chunk size.
 *
 * Checked beyond the sanitizers: the JSON report parses (jansson), and no
 * byte of the text report or of a `cat` line is a control byte other than
 * the newline, or breaks UTF-8.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fuzz.h"

#define F_CAT		0x01
#define F_FOLLOW	0x02
#define F_HISTORY	0x04
#define MAX_SOURCES	8
#define ROOT		"/nonexistent-rankline-fuzz/"

static struct ruleset	*fuzz_parent;	/* the shipped packs, never matched with */

/* One source of the input: its path and its bytes. */
struct fsrc {
	char		*path;
	const char	*p;
	size_t		 n;
	size_t		 off;		/* fed so far */
};

/* A terminal's text: newlines, and printable UTF-8 without C1 controls. */
static void
check_text(const char *what, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i, k, len;
	uint32_t		 cp;

	for (i = 0; i < n; i += len) {
		len = 1;
		if (p[i] == '\n' || (p[i] >= 0x20 && p[i] < 0x7f))
			continue;
		if (p[i] < 0x80)
			fuzz_fail("%s: byte 0x%02x at %zu", what, p[i], i);
		len = p[i] >= 0xf0 ? 4 : p[i] >= 0xe0 ? 3 : 2;
		cp = p[i] & (0x7f >> len);
		if (p[i] < 0xc2 || p[i] > 0xf4 || i + len > n)
			fuzz_fail("%s: bad UTF-8 at %zu", what, i);
		for (k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				fuzz_fail("%s: bad UTF-8 at %zu", what, i);
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if (cp <= 0x9f)
			fuzz_fail("%s: C1 control U+%04X at %zu", what, cp, i);
	}
}

/* cat's view of a line: its time, and its text made safe both ways. */
static void
fuzz_line_cb(void *arg, const struct rl_source *s, uint64_t line,
    const struct rl_time *t, const struct rl_process *p, const char *text,
    size_t len)
{
	struct buf	*b = arg;
	char		 ts[64];
	json_error_t	 err;
	json_t		*v;

	(void)s;
	(void)line;
	buf_reset(b);
	clock_format(t, ts, sizeof ts);
	buf_adds(b, ts);
	if (p->host != NULL)
		sanitize_terminal(b, p->host, strlen(p->host));
	sanitize_terminal(b, text, len);
	check_text("cat line", b->p, b->len);
	buf_reset(b);
	buf_addc(b, '"');
	sanitize_json(b, text, len);
	buf_addc(b, '"');
	if ((v = json_loadb(b->p, b->len, JSON_DECODE_ANY |
	    JSON_ALLOW_NUL, &err)) == NULL)
		fuzz_fail("cat --json line: %s", err.text);
	json_decref(v);
}

/* Cut the text into sources at tail's "==> PATH <==" lines. */
static size_t
fuzz_sources(const char *p, size_t n, struct fsrc *v)
{
	const char	*line = p, *nl, *end = p + n;
	size_t		 ns = 0, k;
	char		*path;

	v[0].path = xstrdup(ROOT "console.log");
	v[0].p = p;
	while (line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		k = (size_t)(nl - line);
		if (ns + 1 < MAX_SOURCES && k > 8 &&
		    memcmp(line, "==> ", 4) == 0 &&
		    memcmp(nl - 4, " <==", 4) == 0) {
			v[ns].n = (size_t)(line - v[ns].p);
			/* No way out of the folder that is not there. */
			path = xstrndup(line + 4, k - 8);
			for (char *q = path; (q = strstr(q, "..")) != NULL;)
				q[0] = q[1] = '_';
			ns++;
			xasprintf(&v[ns].path, ROOT "%s", path);
			free(path);
			v[ns].p = nl < end ? nl + 1 : end;
		}
		line = nl + 1;
	}
	v[ns].n = (size_t)(end - v[ns].p);
	return ns + 1;
}

/* The next chunk's size: 1 to max bytes, from the seed's sequence. */
static size_t
fuzz_chunk(uint32_t *seed, size_t max)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 17;
	*seed ^= *seed << 5;
	return 1 + *seed % max;
}

/* Feed one chunk of a source; true while it has more. */
static bool
fuzz_feed(struct rl_source *src, struct fsrc *f, uint32_t *seed, size_t max)
{
	size_t	k = fuzz_chunk(seed, max);

	if (k > f->n - f->off)
		k = f->n - f->off;
	ingest_more(src->ingest, f->off + k < f->n);
	ingest_feed(src->ingest, f->p + f->off, k);
	f->off += k;
	return f->off < f->n;
}

/* A past for the reports, its words taken from the input. */
static void
fuzz_history(struct rl_history *h, const char *p, size_t n)
{
	size_t	k = n < 120 ? n : 120;

	memset(h, 0, sizeof *h);
	h->looked = true;
	h->incident = 42;
	h->seen_before = 2;
	h->nmatches = 2;
	h->matches = xcalloc(2, sizeof *h->matches);
	h->matches[0].incident = 7;
	h->matches[0].time = xstrdup("2026-11-30T08:00:00Z");
	h->matches[0].fingerprint = xstrndup(p, k);
	h->matches[0].diagnosis = xstrndup(p, k);
	h->matches[0].summary = xstrndup(p + n - k, k);
	h->matches[0].exact = true;
	h->matches[1].incident = 3;
	h->matches[1].time = xstrndup(p, k < 30 ? k : 30);
	h->matches[1].resolution = xstrndup(p + n - k, k);
	h->matches[1].score = 0.75;
	h->noffenders = 3;
	h->offenders = xcalloc(3, sizeof *h->offenders);
	for (size_t i = 0; i < 3; i++) {
		h->offenders[i].kind = (enum rl_offender_kind)i;
		h->offenders[i].name = xstrndup(p + i * k / 3, k / 3);
		h->offenders[i].count = i + 2;
		h->offenders[i].first = xstrdup("2026-11-01T00:00:00Z");
		h->offenders[i].last = xstrndup(p, k < 25 ? k : 25);
		h->offenders[i].last_incident = (int64_t)i + 5;
	}
}

/* Both reports of the incident, each checked. */
static void
fuzz_reports(const struct rl_incident *inc)
{
	struct buf	 b = { 0 };
	json_error_t	 err;
	json_t		*root;
	FILE		*f;
	char		*all = NULL;
	size_t		 nall = 0;

	/* As analyze --json writes it: the events streamed, the rest after. */
	if ((f = open_memstream(&all, &nall)) == NULL)
		fatal("open_memstream");
	report_json(inc, &b, f);
	fwrite(b.p, 1, b.len, f);
	fclose(f);
	if ((root = json_loadb(all, nall, JSON_ALLOW_NUL, &err)) == NULL)
		fuzz_fail("invalid JSON report: %d:%d: %s", err.line,
		    err.column, err.text);
	json_decref(root);
	free(all);
	buf_reset(&b);
	report_text(inc, &b);
	check_text("text report", b.p, b.len);
	/* RL_FUZZ_SHOW=1: what an input came to, to read a finding by. */
	if (getenv("RL_FUZZ_SHOW") != NULL)
		fwrite(b.p, 1, b.len, stderr);
	buf_clear(&b);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Skip lines after 256 bytes, so that short inputs reach the scans. */
	setenv("RANKLINE_WARMUP", "256", 0);
	fuzz_parent = fuzz_rules(NULL);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fsrc		 v[MAX_SOURCES];
	struct rl_source	*src[MAX_SOURCES];
	struct ruleset		*rs;
	struct rl_incident	*inc;
	struct rl_history	 h;
	struct rl_signature	 sig;
	struct rl_job		 job = { 0 };
	struct buf		 line = { 0 };
	uint32_t		 seed;
	size_t			 ns, i, max, left;
	unsigned		 flags;

	if (size < 2)
		return 0;
	flags = data[0];
	seed = 0x9e3779b9u ^ data[1] ^ (uint32_t)size << 8;
	max = (size_t)1 << (1 + (flags >> 4));	/* 2 bytes to 64 KB */
	memset(v, 0, sizeof v);
	ns = fuzz_sources((const char *)data + 2, size - 2, v);

	/* A clone: what matching learns stays out of the next run. */
	rs = ruleset_clone(fuzz_parent);
	inc = incident_create(rs);
	for (i = 0; i < ns; i++) {
		src[i] = incident_add_source(inc, v[i].path, SOURCE_FILE);
		/* Bytes that cannot be read again, as a pipe's or a command's. */
		src[i]->transient = true;
		clock_init(&src[i]->clock, FUZZ_REF_EPOCH);
	}
	if (!(flags & F_FOLLOW)) {
		inc->settled = true;
		inc->width = ns;
	}
	for (i = 0; i < ns; i++)
		source_ingest(inc, src[i], flags & F_CAT ? fuzz_line_cb : NULL,
		    &line);
	if (flags & F_FOLLOW) {
		/* In turns, and a diagnosis when half the bytes are in. */
		bool	half = false;

		do {
			for (i = 0, left = 0; i < ns; i++) {
				if (v[i].off < v[i].n &&
				    fuzz_feed(src[i], &v[i], &seed, max))
					left += v[i].n - v[i].off;
			}
			if (!half && left <= (size - 2) / 2) {
				pipeline_diagnose(inc);
				fuzz_reports(inc);
				half = true;
			}
		} while (left > 0);
	} else {
		for (i = 0; i < ns; i++)
			while (v[i].off < v[i].n &&
			    fuzz_feed(src[i], &v[i], &seed, max))
				;
	}
	for (i = 0; i < ns; i++) {
		ingest_more(src[i]->ingest, false);
		ingest_flush(src[i]->ingest);
	}
	pipeline_diagnose(inc);
	if (flags & F_HISTORY) {
		fuzz_history(&h, (const char *)data + 2, size - 2);
		inc->history = &h;
	}
	fuzz_reports(inc);
	/* What the store keeps of it. */
	fingerprint_signature(inc, &sig);
	fingerprint_signature_clear(&sig);
	job_identity(inc, &job);
	job_clear(&job);

	if (flags & F_HISTORY)
		history_clear(&h);
	incident_free(inc);
	ruleset_free(rs);
	for (i = 0; i < ns; i++)
		free(v[i].path);
	buf_clear(&line);
	return 0;
}
