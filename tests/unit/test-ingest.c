/*
 * test-ingest.c: bytes to lines to events.  Chunks are cut at every byte
 * boundary to prove that a partial line is held until its newline; CRLF,
 * long lines, NUL bytes and escape sequences break nothing; prefixes give
 * each writer of a tee'd console its own stream, process and time.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "tap.h"

static const char *PACK =
	"[attrib prefix.default]\nkind = prefix\n"
	"pattern = ^\\[default(?<local_rank>\\d+)\\]:\n"
	"[attrib prefix.rank]\nkind = prefix\npattern = ^\\[rank(?<rank>\\d+)\\]:\n"
	"[attrib link.rank]\nkind = link\npattern = \\[rank(?<rank>\\d+)\\] \n"
	"[attrib path.rankfile]\nkind = path\n"
	"pattern = (?:^|/)rank(?<rank>\\d+)\\.log$\n"
	"[attrib path.logdir]\nkind = path\n"
	"pattern = (?<proc>attempt_\\d+/(?<local_rank>\\d+))/std(?:out|err)\\.log$\n"
	"[attrib path.host]\nkind = path\n"
	"pattern = ^(?<host>node\\d+)/\n"
	"[rule py.exc]\npattern = ^(?<exc>\\w+Error): \nliteral = Error: \n"
	"role = root\ndomain = code\n"
	"[rule t.step]\npattern = step (?<step>\\d+)\nrole = progress\nmark = step\n"
	"[rule t.ignored]\npattern = ^Exception ignored in: \nrole = evidence\n"
	"[rule t.assert]\npattern = ^AssertionError: \nrole = root\n"
	"priority = 60\nnot_within = t.ignored 5\n";

/* Lines seen through the line callback. */
struct seen {
	struct buf	 text;		/* each line, '|' separated */
	unsigned	 n;
	int		 ranks[64];	/* process rank per line */
	int		 locals[64];
	int		 pids[64];
	char		 hosts[64][32];
	char		 times[64][32];
};

static void
seen_cb(void *arg, const struct rl_source *s, uint64_t line,
    const struct rl_time *t, const struct rl_process *p, const char *text,
    size_t len)
{
	struct seen	*sn = arg;

	(void)s;
	(void)line;
	buf_add(&sn->text, text, len);
	buf_addc(&sn->text, '|');
	if (sn->n < 64) {
		sn->ranks[sn->n] = p->rank;
		sn->locals[sn->n] = p->local_rank;
		sn->pids[sn->n] = p->pid;
		snprintf(sn->hosts[sn->n], 32, "%s", p->host != NULL ?
		    p->host : "-");
		if (t->flags & RL_TIME_VALID)
			clock_format(t, sn->times[sn->n], 32);
		else
			strcpy(sn->times[sn->n], "-");
	}
	sn->n++;
}

/* A finished ruleset from a pack's text. */
static struct ruleset *
pack_text(const char *text)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };

	if (ruleset_load(rs, "inline", text, strlen(text), &e) != 0)
		printf("# pack error: %s\n", e.v[0]);
	errlist_clear(&e);
	ruleset_finish(rs);
	return rs;
}

/* A ruleset from the inline pack. */
static struct ruleset *
pack(void)
{
	return pack_text(PACK);
}

/* Feed text in chunks of `step` bytes. */
static void
feed(struct rl_incident *inc, struct rl_source *src, const char *t, size_t n,
    size_t step, struct seen *sn)
{
	struct ingest	*in = ingest_create(inc, src);
	size_t		 i;

	clock_init(&src->clock, 1764680000);
	ingest_set_line_cb(in, seen_cb, sn);
	for (i = 0; i < n; i += step)
		ingest_feed(in, t + i, n - i < step ? n - i : step);
	ingest_flush(in);
	ingest_free(in);
	incident_gather(inc);	/* the kept events, as diagnose sees them */
}

static void
test_chunks(void)
{
	const char	*t = "alpha\r\nbeta\n\ngamma without newline";
	struct ruleset	*rs = pack();
	size_t		 step;
	bool		 all = true;

	for (step = 1; step <= strlen(t); step++) {
		struct rl_incident	*inc = incident_create(rs);
		struct rl_source	*src = incident_add_source(inc, "x", SOURCE_FILE);
		struct seen		 sn = { 0 };

		feed(inc, src, t, strlen(t), step, &sn);
		if (strcmp(sn.text.p, "alpha|beta||gamma without newline|") != 0)
			all = false;
		buf_clear(&sn.text);
		incident_free(inc);
	}
	ok(all, "every chunking gives the same lines; CRLF dropped; the last "
	    "partial line is flushed");
	ruleset_free(rs);
}

static void
test_long_and_binary(void)
{
	struct ruleset		*rs = pack();
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src = incident_add_source(inc, "x", SOURCE_FILE);
	struct seen		 sn = { 0 };
	struct buf		 t = { 0 };
	size_t			 i;
	const char		*second;

	for (i = 0; i < 3 * 1024 * 1024; i++)
		buf_addc(&t, 'x');
	buf_adds(&t, "\nValueError: after\n");
	buf_add(&t, "nul\0byte IndexError: x\n", 23);
	buf_adds(&t, "\x1b]0;pwned\x07\x1b[2JKeyError: esc\n");
	feed(inc, src, t.p, t.len, 65536, &sn);
	is_int(sn.n, 4, "a 3 MiB line is one line");
	is_int(src->long_lines, 1, "the long line is counted");
	ok(strstr(sn.text.p, "[rankline: line cut at 1 MiB]") != NULL,
	    "the cut line carries a visible marker");
	second = strchr(sn.text.p, '|');
	ok(second != NULL && (size_t)(second - sn.text.p) < 1024 * 1024 + 64,
	    "the kept part is bounded by the limit");
	is_int(inc->nevents, 2, "lines after the long one still match (NUL "
	    "line is no exception line)");
	ok(inc->nevents == 2 && strcmp(inc->events[1]->rule->id, "py.exc") == 0,
	    "escape sequences are stripped before matching");
	ok(inc->nevents == 2 && strchr(inc->events[1]->text, 0x1b) == NULL,
	    "the event's text has no escape sequence left");
	ok(inc->nevents == 2 && inc->events[1]->offset < t.len &&
	    t.p[inc->events[1]->offset] == 0x1b,
	    "the original bytes stay addressable by the event's offset");
	buf_clear(&t);
	buf_clear(&sn.text);
	incident_free(inc);
	ruleset_free(rs);
}

static void
test_prefix_streams(void)
{
	const char *t =
	    "[default0]:2026-12-02 13:19:50,000 INFO [rank0] step 1\n"
	    "[default1]:2026-12-02 13:19:51,000 INFO [rank1] step 1\n"
	    "[default1]:Traceback (most recent call last):\n"
	    "[default0]:2026-12-02 13:19:52,000 INFO [rank0] step 2\n"
	    "[default1]:IndexError: list index out of range\n"
	    "launcher line\n";
	struct ruleset		*rs = pack();
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src = incident_add_source(inc, "console.log",
				    SOURCE_FILE);
	struct seen		 sn = { 0 };

	feed(inc, src, t, strlen(t), 7, &sn);
	is_int(sn.n, 6, "six lines");
	is_int(sn.locals[2], 1, "[default1] names local rank 1");
	is_str(sn.times[4], "2026-12-02T13:19:51.000",
	    "an untimed line inherits its own writer's time, not the "
	    "interleaved neighbour's");
	is_int(inc->nevents >= 1 ? inc->events[inc->nevents - 1]->rank : -2,
	    RL_NONE, "the event's rank is resolved later, by its process");
	ok(inc->nevents >= 1 && inc->procs[inc->events[inc->nevents - 1]->process]->rank == 1,
	    "the link [rank1] in the text named the process's global rank");
	ok(src->multiplexed, "a source with writer prefixes is multiplexed");
	buf_clear(&sn.text);
	incident_free(inc);
	ruleset_free(rs);
}

static void
test_paths(void)
{
	struct ruleset		*rs = pack();
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*a, *b, *c;

	a = incident_add_source(inc, "node1/logs/j/attempt_0/2/stderr.log",
	    SOURCE_FILE);
	b = incident_add_source(inc, "./node1/logs/j/attempt_0/2/stdout.log",
	    SOURCE_FILE);
	c = incident_add_source(inc, "logs/rank3.log", SOURCE_FILE);
	attrib_path(rs, a);
	attrib_path(rs, b);
	attrib_path(rs, c);
	is_str(a->host, "node1", "a per-host folder names the host");
	is_int(a->local_rank, 2, "torchrun's --log-dir names the local rank");
	ok(a->proc_key != NULL && b->proc_key != NULL &&
	    strcmp(a->proc_key, b->proc_key) == 0,
	    "stdout.log and stderr.log of one folder are one process");
	is_int(c->rank, 3, "rank3.log names rank 3");
	incident_free(inc);
	ruleset_free(rs);
}

/* An exception at the top of stderr.log is timed by the next timed line. */
static void
test_pending_time(void)
{
	const char *t = "ValueError: early\n2026-12-02 13:00:05,000 late\n";
	struct ruleset		*rs = pack();
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src = incident_add_source(inc, "x", SOURCE_FILE);
	struct seen		 sn = { 0 };
	char			 s[32] = "";

	feed(inc, src, t, strlen(t), 4096, &sn);
	if (inc->nevents == 1)
		clock_format(&inc->events[0]->time, s, sizeof s);
	is_str(s, "2026-12-02T13:00:05.000",
	    "an event before any time takes the next timed line's time");
	ok(inc->nevents == 1 && !inc->events[0]->timed,
	    "and is marked as not carrying its own time");
	buf_clear(&sn.text);
	incident_free(inc);
	ruleset_free(rs);
}

/* A traceback Python printed for an ignored exception is harmless. */
static void
test_not_within(void)
{
	const char *t = "Exception ignored in: <function __del__>\n"
	    "Traceback (most recent call last):\n  File \"x.py\"\n"
	    "AssertionError: can only test a child process\n"
	    "a\nb\nc\nd\ne\nf\n"
	    "AssertionError: a real one\n";
	struct ruleset		*rs = pack();
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src = incident_add_source(inc, "x", SOURCE_FILE);
	struct seen		 sn = { 0 };

	feed(inc, src, t, strlen(t), 4096, &sn);
	ok(inc->nevents == 3 && inc->events[1]->harmless,
	    "the exception right after 'Exception ignored in:' is harmless");
	ok(inc->nevents == 3 && !inc->events[2]->harmless,
	    "one further down is not");
	buf_clear(&sn.text);
	incident_free(inc);
	ruleset_free(rs);
}

/*
 * journalctl -o json: each line is its MESSAGE, written by _HOSTNAME's
 * _PID at __REALTIME_TIMESTAMP; escapes are decoded (a colour code then
 * stripped), a non-UTF-8 MESSAGE comes as an array of bytes, json-seq's RS
 * is allowed, and other JSON is left as it is.
 */
static void
test_journal(void)
{
	const char *t =
	    "{\"__REALTIME_TIMESTAMP\":\"1764683203123456\",\"_HOSTNAME\":"
	    "\"node07\",\"MESSAGE\":\"NVRM: Xid 79, \\\"fallen\\\" off\","
	    "\"_PID\":\"0\"}\n"
	    "{\"__REALTIME_TIMESTAMP\":\"1764683204000000\",\"_HOSTNAME\":"
	    "\"node07\",\"_PID\":\"4242\",\"MESSAGE\":\"[rank3]:"
	    "\\u001b[31mIndexError: \\u001b[0mlist\"}\n"
	    "\x1e{\"__REALTIME_TIMESTAMP\":\"1764683205000000\",\"_HOSTNAME\":"
	    "\"node08\",\"_PID\":\"77\",\"MESSAGE\":[104,105,255]}\n"
	    "{\"level\":\"info\",\"msg\":\"not a journal line\"}\n";
	struct ruleset		*rs = pack();
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src = incident_add_source(inc, "journal.json",
				    SOURCE_FILE);
	struct seen		 sn = { 0 };
	size_t			 i;
	bool			 exc = false;

	feed(inc, src, t, strlen(t), 5, &sn);
	is_int(sn.n, 4, "four lines");
	is_str(sn.text.p, "NVRM: Xid 79, \"fallen\" off|[rank3]:IndexError: list|"
	    "hi\xff|{\"level\":\"info\",\"msg\":\"not a journal line\"}|",
	    "each journal line is its MESSAGE, decoded and colour stripped; "
	    "other JSON stays");
	is_str(sn.hosts[0], "node07", "_HOSTNAME names the host");
	is_int(sn.pids[1], 4242, "_PID names the process");
	is_int(sn.ranks[1], 3, "a [rank3]: prefix in the message names the rank");
	is_str(sn.times[0], "2025-12-02T13:46:43.123Z",
	    "__REALTIME_TIMESTAMP is the time, in UTC, to the millisecond");
	is_str(sn.hosts[2], "node08", "json-seq's RS and a byte-array MESSAGE");
	for (i = 0; i < inc->nevents; i++)
		exc = exc || strcmp(inc->events[i]->rule->id, "py.exc") == 0;
	ok(exc, "the rules see the message: the IndexError is an event");
	buf_clear(&sn.text);
	incident_free(inc);
	ruleset_free(rs);
}

/*
 * A large file is read through a mapping.  When it shrinks under the
 * reader (copytruncate), the pages past its new end would raise SIGBUS:
 * the read must stop at the new end as read() would, with the lines
 * before it whole, no zero bytes for the rest, and a note that says so.
 */
#define SHRINK_LINES	100000
#define SHRINK_AT	30000		/* the line that truncates the file */
#define SHRINK_KEEP	40000		/* whole lines left after it */

struct shrink {
	int		 fd;
	off_t		 cut;		/* 0: the file is left whole */
	uint64_t	 lines;
	uint64_t	 fnv;		/* of every line and its newline */
	bool		 nul;		/* a line held a NUL byte */
	char		 last[64];
};

static uint64_t
fnv(uint64_t h, const char *p, size_t n)
{
	while (n-- > 0)
		h = (h ^ (uint8_t)*p++) * 0x100000001b3ULL;
	return h;
}

static void
shrink_cb(void *arg, const struct rl_source *s, uint64_t line,
    const struct rl_time *t, const struct rl_process *p, const char *text,
    size_t len)
{
	struct shrink	*sh = arg;

	(void)s;
	(void)t;
	(void)p;
	sh->lines = line;
	sh->fnv = fnv(sh->fnv, text, len);
	sh->fnv = fnv(sh->fnv, "\n", 1);
	if (memchr(text, '\0', len) != NULL)
		sh->nul = true;
	snprintf(sh->last, sizeof sh->last, "%.*s", (int)(len < 63 ? len : 63),
	    text);
	if (line == SHRINK_AT && sh->cut > 0 && ftruncate(sh->fd, sh->cut) != 0)
		sh->nul = true;
}

static void
test_mapped_shrink(void)
{
	struct ruleset		*rs = pack();
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src;
	struct shrink		 sh;
	char			 path[] = "/tmp/rankline-test-shrink.XXXXXX";
	char			 line[80];
	struct buf		 b = { 0 };
	size_t			 i, k;
	off_t			 cut;
	bool			 noted = false;

	memset(&sh, 0, sizeof sh);
	for (i = 1; i <= SHRINK_LINES; i++) {
		if (i == SHRINK_KEEP + 1)
			sh.cut = (off_t)b.len + 10;
		snprintf(line, sizeof line, "line %06zu of a log that is "
		    "copied and truncated while it is read\n", i);
		buf_adds(&b, line);
	}
	if ((sh.fd = mkstemp(path)) == -1 ||
	    write(sh.fd, b.p, b.len) != (ssize_t)b.len) {
		ok(0, "a temporary file for the shrinking log");
		return;
	}
	/* Whole, the mapped read gives every line as the bytes hold them. */
	src = incident_add_source(inc, path, SOURCE_FILE);
	cut = sh.cut;
	sh.cut = 0;
	sh.fnv = 0xcbf29ce484222325ULL;
	source_file_read(inc, src, shrink_cb, &sh);
	is_int(sh.lines, SHRINK_LINES, "a mapped read gives every line");
	ok(sh.fnv == fnv(0xcbf29ce484222325ULL, b.p, b.len) &&
	    inc->errors.n == 0, "and each line's bytes, with no error");
	incident_free(inc);
	inc = incident_create(rs);

	sh.cut = cut;
	sh.lines = 0;
	src = incident_add_source(inc, path, SOURCE_FILE);
	source_file_read(inc, src, shrink_cb, &sh);
	is_int(sh.lines, SHRINK_KEEP + 1, "a file that shrank while mapped is "
	    "read to its new end: %d whole lines and the cut one",
	    SHRINK_KEEP);
	is_str(sh.last, "line 04000", "the cut line keeps its bytes before the "
	    "new end and gains no zeros");
	ok(!sh.nul, "no line holds the zero pages that stood in for the lost "
	    "ones");
	for (k = 0; k < inc->errors.n; k++)
		noted |= strstr(inc->errors.v[k], "shrank while it was read") !=
		    NULL;
	ok(noted, "the incident's errors say the file shrank while read");
	unlink(path);
	close(sh.fd);
	buf_clear(&b);
	incident_free(inc);
	ruleset_free(rs);
}

/*
 * A peel decided past the 32nd byte: a label, then a word that is a host
 * only if a digit and ": " end it, 40 bytes in.  Lines of both kinds share
 * their first 32 bytes (digits aside), so the memo must key each on as
 * many bytes as decided it, or a line of one kind would peel as the other
 * and the rule anchored at the message would match the wrong lines.
 */
static void
test_peel_far(void)
{
	static const char *far =
	    "[attrib prefix.label]\nkind = prefix\n"
	    "pattern = ^ {0,4}(?<rank>\\d+):[ ]\n"
	    "[attrib prefix.host]\nkind = prefix\n"
	    "pattern = ^(?<host>[A-Za-z][A-Za-z0-9-]*[0-9][A-Za-z0-9.-]*):[ ]\n"
	    "[rule t.at]\npattern = ^step (?<count>\\d+)\nrole = evidence\n";
	struct ruleset		*rs = pack_text(far);
	struct rl_incident	*inc;
	struct rl_source	*src;
	struct seen		 sn = { 0 };
	struct buf		 b = { 0 };
	size_t			 i, right = 0;

	inc = incident_create(rs);
	src = incident_add_source(inc, "labels.log", SOURCE_FILE);
	/* The hostless kind first, so that it is the one remembered. */
	for (i = 0; i < 40; i++) {
		buf_printf(&b, "%3zu: abcdefghijklmnopqrstuvwxyzabcdefghijk "
		    "step %zu\n", i % 8, i);
		buf_printf(&b, "%3zu: abcdefghijklmnopqrstuvwxyzabcdefghij%zu: "
		    "step %zu\n", i % 8, i % 10, i);
	}
	feed(inc, src, b.p, b.len, b.len, &sn);
	for (i = 0; i < inc->nevents; i++)
		right += inc->events[i]->line % 2 == 0;
	is_int((int)sn.n, 80, "80 lines");
	is_int((int)inc->nevents, 40, "a rule anchored at the message matches "
	    "the 40 lines whose host was peeled");
	is_int((int)right, 40, "and none of the 40 without a host");
	buf_clear(&b);
	buf_clear(&sn.text);
	incident_free(inc);
	ruleset_free(rs);
}

/*
 * Feed text in chunks of `step` bytes, and one cut at `cut` besides; each
 * chunk but the last says that more follow.
 */
static void
feed_more(struct rl_incident *inc, struct rl_source *src, const char *t,
    size_t n, size_t step, size_t cut)
{
	struct ingest	*in = ingest_create(inc, src);
	size_t		 i, k;

	clock_init(&src->clock, 1764680000);
	for (i = 0; i < n; i += k) {
		k = n - i < step ? n - i : step;
		if (i < cut && i + k > cut)
			k = cut - i;
		ingest_more(in, i + k < n);
		ingest_feed(in, t + i, k);
	}
	ingest_flush(in);
	ingest_free(in);
	incident_gather(inc);
}

/*
 * One writer's lines of many shapes, interleaved as a vLLM worker's are
 * (throughput lines, progress bars, warnings).  Read while skipping, where
 * ingest_line_quick peels each line by a prefix kept for its shape, every
 * rule line is counted and its number read, as when every line is read
 * whole (a line callback turns skipping off).
 */
static void
test_quick_shapes(void)
{
	static const char *kinds =
	    "[attrib prefix.process_name]\nkind = prefix\n"
	    "pattern = ^\\((?<proc>[A-Za-z_][A-Za-z0-9_]*) pid=(?<pid>\\d+)\\)[ ]\n"
	    "[rule t.step]\npattern = ^[0-9-]+ [0-9:,]+ step (?<count>\\d+) \n"
	    "role = evidence\n"
	    "[rule t.eval]\npattern = ^[0-9-]+ [0-9:,]+ eval (?<count>\\d+) \n"
	    "role = evidence\n"
	    "[rule t.tput]\npattern = ^[0-9-]+ [0-9:,]+ [a-z]+ throughput "
	    "(?<count>\\d+) \nrole = progress\n";
	struct ruleset		*rs = pack_text(kinds);
	struct rl_incident	*inc;
	struct rl_source	*src;
	struct seen		 sn = { 0 };
	struct buf		 b = { 0 };
	const struct rl_rule	*r[3];
	unsigned		 x = 4242, k, w;
	int64_t			 want_n[3] = { 0, 0, 0 };
	int64_t			 want_sum[3] = { 0, 0, 0 };
	size_t			 i, j, pass;
	int			 good;

	r[0] = ruleset_find(rs, "t.step");
	r[1] = ruleset_find(rs, "t.eval");
	r[2] = ruleset_find(rs, "t.tput");
	for (i = 0; i < 8000; i++) {
		x = x * 1103515245u + 12345u;
		k = (x >> 16) % 26;
		/*
		 * A second writer, late: its line has a kept line's shape
		 * (digits aside), but not its prefix bytes.
		 */
		buf_adds(&b, i == 7000 ? "(Worker_TP1 pid=4243) " :
		    "(Worker_TP0 pid=4242) ");
		/* Timed, or the events would wait for a time, unskipped. */
		buf_printf(&b, "2026-12-02 10:%02zu:%02zu,000 ", i / 600 % 60,
		    i / 10 % 60);
		if (k < 2) {
			buf_printf(&b, "%s %zu of the run\n", k == 0 ? "step" :
			    "eval", i);
			want_n[k]++;
			want_sum[k] += (int64_t)i;
			continue;
		}
		/* 24 shapes of message: words of one letter, of k % 5 + 3. */
		for (w = 0; w < k % 5 + 3; w++)
			buf_addc(&b, (char)('a' + k));
		buf_printf(&b, " throughput %zu tokens/s\n", i * 7);
		want_n[2]++;
		want_sum[2] += (int64_t)i * 7;
	}
	for (pass = 0; pass < 2; pass++) {
		inc = incident_create(rs);
		src = incident_add_source(inc, "worker.log", SOURCE_FILE);
		if (pass == 0)
			feed_more(inc, src, b.p, b.len, b.len, b.len);
		else
			feed(inc, src, b.p, b.len, b.len, &sn);
		good = inc->ntally > r[0]->index && inc->ntally > r[1]->index &&
		    inc->ntally > r[2]->index;
		for (j = 0; good && j < 3; j++) {
			if (inc->tally[r[j]->index].lines != (uint64_t)want_n[j] ||
			    inc->tally[r[j]->index].count != want_sum[j]) {
				printf("# %s: %llu lines, sum %lld; want %lld, "
				    "%lld\n", r[j]->id, (unsigned long long)
				    inc->tally[r[j]->index].lines, (long long)
				    inc->tally[r[j]->index].count,
				    (long long)want_n[j], (long long)want_sum[j]);
				good = 0;
			}
		}
		ok(good, "%s: the %lld step, %lld eval and %lld throughput lines "
		    "of 26 shapes are each counted, with their numbers",
		    pass == 0 ? "skipping" : "every line read",
		    (long long)want_n[0], (long long)want_n[1],
		    (long long)want_n[2]);
		for (j = 0, good = 0; j < inc->nprocs; j++)
			good |= inc->procs[j]->pid == 4243 &&
			    inc->procs[j]->lines == 1;
		ok(good, "and the second writer's one line is its own");
		incident_free(inc);
	}
	buf_clear(&b);
	buf_clear(&sn.text);
	ruleset_free(rs);
}

/* 2026-12-02 10:00:00 UTC, in ms: the step lines below count from it. */
#define STEP_T0		1796205600000LL

/* Step i of a log, ms after STEP_T0, in Python logging's form. */
static void
step_line(struct buf *b, unsigned ms, size_t i)
{
	buf_printf(b, "2026-12-02 10:%02u:%02u,%03u INFO step %zu\n",
	    ms / 60000 % 60, ms / 1000 % 60, ms % 1000, i);
}

/* The time ms after STEP_T0, as written without a zone. */
static struct rl_time
step_time(int64_t ms)
{
	struct rl_time	t;

	memset(&t, 0, sizeof t);
	t.ms = STEP_T0 + ms;
	t.flags = RL_TIME_VALID;
	return t;
}

/*
 * A file read in parts that follow each other at once (ingest_more) ends
 * as the file read whole: the same events at the same times.  A root
 * without a time of its own, first in its part, has its writer's time from
 * the end of the part before; the process's latest time is the last
 * step's.  Half a megabyte, so that lines are skipped past the first 64 KB.
 */
static void
test_more_blocks(void)
{
	struct ruleset		*rs = pack();
	struct rl_incident	*whole, *parts;
	struct rl_source	*sw, *sp;
	struct buf		 b = { 0 };
	char			 last[32] = "", root[32] = "", proc[32] = "";
	size_t			 i, same = 0, cut = 0;
	unsigned		 ms;

	for (i = 0; i < 12000; i++) {
		ms = (unsigned)i * 100;
		step_line(&b, ms, i);
		if (i % 50 == 0)
			buf_printf(&b, "  File \"x.py\", line %zu, in f\n", i);
		if (i == 7000) {
			cut = b.len;
			buf_printf(&b, "ValueError: boom\n");
		}
	}
	whole = incident_create(rs);
	sw = incident_add_source(whole, "rank0.log", SOURCE_FILE);
	feed_more(whole, sw, b.p, b.len, b.len, b.len);
	parts = incident_create(rs);
	sp = incident_add_source(parts, "rank0.log", SOURCE_FILE);
	feed_more(parts, sp, b.p, b.len, 100000, cut);

	is_int((int)parts->nevents, (int)whole->nevents,
	    "read in parts: as many events as read whole");
	for (i = 0; i < whole->nevents && i < parts->nevents; i++) {
		same += whole->events[i]->line == parts->events[i]->line &&
		    whole->events[i]->time.ms == parts->events[i]->time.ms &&
		    whole->events[i]->rule == parts->events[i]->rule;
	}
	is_int((int)same, (int)whole->nevents, "the same events, at the same "
	    "lines and times");
	for (i = 0; i < parts->nevents; i++) {
		if (strcmp(parts->events[i]->rule->id, "py.exc") == 0)
			clock_format(&parts->events[i]->time, root, sizeof root);
		else
			clock_format(&parts->events[i]->time, last, sizeof last);
	}
	is_str(root, "2026-12-02T10:11:40.000", "a root first in its part has "
	    "the time of the part before's last line");
	is_str(last, "2026-12-02T10:19:59.900", "the last step kept is the "
	    "last line's");
	if (parts->nprocs > 0)
		clock_format(&parts->procs[0]->last, proc, sizeof proc);
	is_str(proc, "2026-12-02T10:19:59.900", "the process's latest time is "
	    "the last step's");
	ok(whole->lines == parts->lines && parts->lines == 12000 + 240 + 1,
	    "every line counted once");
	buf_clear(&b);
	incident_free(whole);
	incident_free(parts);
	ruleset_free(rs);
}

/*
 * Bursts of events without a time of their own (a traceback's lines, a
 * communicator's set-up), read while skipping: each event has the time of
 * the last timed line before it, whether the burst lies in one block or
 * across two, and whether the line before it is an event or not.
 */
static void
test_when_bursts(void)
{
	struct ruleset		*rs = pack();
	struct rl_incident	*inc;
	struct rl_source	*src;
	struct buf		 b = { 0 };
	uint64_t		*when = NULL;	/* per line: the time it has */
	size_t			 i, k, line = 0, step, bad, exc;
	unsigned		 ms = 0;
	char			 got[32], want[32];
	struct rl_time		 t;

	for (i = 0; i < 3000; i++) {
		ms += 100;
		step_line(&b, ms, i);
		when = xreallocarray(when, ++line + 1, sizeof *when);
		when[line] = ms;
		if (i < 2000 || i % 97 != 0)
			continue;
		/* A burst: errors, some with a traceback line between. */
		for (k = 0; k < 40; k++) {
			if (k % 7 == 3)
				buf_printf(&b, "  File \"x.py\", line %zu\n", k);
			else
				buf_printf(&b, "ValueError: burst %zu\n", k);
			when = xreallocarray(when, ++line + 1, sizeof *when);
			when[line] = ms;
		}
	}
	for (step = 0; step < 2; step++) {
		inc = incident_create(rs);
		src = incident_add_source(inc, "rank0.log", SOURCE_FILE);
		feed_more(inc, src, b.p, b.len, step == 0 ? b.len : 65536,
		    b.len);
		for (i = 0, bad = 0, exc = 0; i < inc->nevents; i++) {
			if (strcmp(inc->events[i]->rule->id, "py.exc") != 0)
				continue;
			exc++;
			t = step_time((int64_t)when[inc->events[i]->line]);
			clock_format(&t, want, sizeof want);
			clock_format(&inc->events[i]->time, got, sizeof got);
			if (strcmp(got, want) != 0 && bad++ == 0)
				printf("# line %llu: %s, want %s\n",
				    (unsigned long long)inc->events[i]->line,
				    got, want);
		}
		ok(exc > 20 && bad == 0, "bursts read %s: each of %zu errors "
		    "kept has the time of the timed line before it",
		    step == 0 ? "whole" : "in 64 KB parts", exc);
		incident_free(inc);
	}
	free(when);
	buf_clear(&b);
	ruleset_free(rs);
}

/*
 * Step lines are sampled (a keep of a few, thinned as more come); those
 * read while skipping get their times and texts at the end of their
 * block.  Each sample kept is its own line, with its own time and step,
 * read whole or in parts (the last of them, the keep's latest, replaced
 * line after line), and the tally's last time is the last step's.
 */
static void
test_samples_deferred(void)
{
	struct ruleset		*rs = pack();
	struct rl_incident	*inc;
	struct rl_source	*src;
	struct buf		 b = { 0 };
	const struct rl_event	*e;
	char			 want[96], got[32], tw[32];
	size_t			 i, step, n, bad;
	unsigned		 ms;
	struct rl_time		 t;

	for (i = 0; i < 20000; i++) {
		ms = (unsigned)i * 100;
		step_line(&b, ms, i);
	}
	for (step = 0; step < 2; step++) {
		inc = incident_create(rs);
		src = incident_add_source(inc, "rank0.log", SOURCE_FILE);
		feed_more(inc, src, b.p, b.len, step == 0 ? b.len : 65536,
		    b.len);
		for (i = 0, n = 0, bad = 0; i < inc->nevents; i++) {
			e = inc->events[i];
			if (strcmp(e->rule->id, "t.step") != 0)
				continue;
			n++;
			ms = (unsigned)(e->line - 1) * 100;
			snprintf(want, sizeof want, "2026-12-02 10:%02u:%02u,%03u "
			    "INFO step %llu", ms / 60000 % 60, ms / 1000 % 60,
			    ms % 1000, (unsigned long long)(e->line - 1));
			t = step_time(ms);
			clock_format(&t, tw, sizeof tw);
			clock_format(&e->time, got, sizeof got);
			if ((e->text == NULL || strcmp(e->text, want) != 0 ||
			    strcmp(got, tw) != 0 || !e->timed ||
			    event_cap(e, CAP_STEP) != (int64_t)e->line - 1 ||
			    e->ord != e->line - 1) && bad++ == 0)
				printf("# line %llu: \"%s\" at %s\n",
				    (unsigned long long)e->line,
				    e->text != NULL ? e->text : "(null)", got);
		}
		ok(n >= 8 && bad == 0, "read %s: each of the %zu step samples "
		    "kept is its own line, at its own time, with its own step",
		    step == 0 ? "whole" : "in 64 KB parts", n);
		t = step_time(19999 * 100LL);
		for (i = 0, bad = 1; i < inc->ntally; i++) {
			if (inc->tally[i].lines == 20000)
				bad = inc->tally[i].last != clock_utc_ms(&t);
		}
		ok(bad == 0, "and the steps' last time is the last step's");
		incident_free(inc);
	}
	buf_clear(&b);
	ruleset_free(rs);
}

/*
 * A signature's last time is its last line's that was not harmless, also
 * when that line, read while skipping, was followed in its block by a
 * harmless one of the same signature (an AssertionError right after an
 * "Exception ignored in:"), which took its place as the keep's latest.
 */
static void
test_last_not_harmless(void)
{
	struct ruleset		*rs = pack();
	struct rl_incident	*inc;
	struct rl_source	*src;
	struct buf		 b = { 0 };
	struct rl_time		 t;
	const struct rl_rule	*r;
	size_t			 i;
	unsigned		 ms = 0;
	int64_t			 want = 0;
	bool			 found = false;

	for (i = 0; i < 6000; i++) {
		ms += 100;
		step_line(&b, ms, i);
		/* 70 failures early: the keep keeps 64, then only the latest. */
		if (i < 70 || i == 5000)
			buf_printf(&b, "AssertionError: check %zu\n", i);
		if (i == 5000) {
			t = step_time(ms);
			want = clock_utc_ms(&t);
		}
		if (i == 5001)
			buf_printf(&b, "Exception ignored in: <f>\n"
			    "AssertionError: during shutdown\n");
	}
	inc = incident_create(rs);
	src = incident_add_source(inc, "rank0.log", SOURCE_FILE);
	feed_more(inc, src, b.p, b.len, b.len, b.len);
	r = ruleset_find(rs, "t.assert");
	for (i = 0; r != NULL && i < inc->ntally; i++) {
		if (i == r->index) {
			found = true;
			is_int(inc->tally[i].last, want, "the last time of a "
			    "signature is its last line's that was not "
			    "harmless");
			is_int((int)inc->tally[i].lines, 71, "the harmless one "
			    "is not counted");
		}
	}
	ok(found, "the signature has a tally");
	buf_clear(&b);
	incident_free(inc);
	ruleset_free(rs);
}

/*
 * A command's spill stops at its cap (RANKLINE_SPILL_MAX) on a whole line,
 * and at a failed write (/dev/full's ENOSPC); what it holds stays
 * readable, the reason is in the errors, and a process's last line past
 * it is kept in memory.  A followed `yes` once grew one by 3.1 GB in 6 s.
 */
static void
test_spill_cap(void)
{
	struct ruleset		*rs = pack();
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src;
	struct ingest		*in;
	const char		*line = "[rank0]: 2026-12-02 13:00:01,000 x\n";
	char			 got[256], *last;
	ssize_t			 n;
	int			 i;

	/* Two lines and a part of a third. */
	setenv("RANKLINE_SPILL_MAX", "80", 1);
	src = incident_add_source(inc, "cmd:yes", SOURCE_CMD);
	in = source_ingest(inc, src, NULL, NULL);
	unsetenv("RANKLINE_SPILL_MAX");
	ok(src->spill != -1, "a command's lines are spilled");
	for (i = 0; i < 5; i++)
		source_feed(inc, src, in, line, strlen(line));
	ingest_flush(in);
	is_int((int)src->spill_end, 2 * strlen(line), "the spill stops at its "
	    "cap of 80 bytes on a whole line");
	ok(src->spill_full, "and holds no more");
	n = pread(src->spill, got, sizeof got, 0);
	is_int((int)n, 2 * strlen(line), "what it holds can be read back");
	ok(inc->errors.n == 1 && strstr(inc->errors.v[0],
	    "cmd:yes: the copy of its lines reached its cap of 80 bytes") !=
	    NULL, "the cap is named in the errors");
	is_int((int)src->lines, 5, "every line is still analyzed");
	last = process_last_line(inc, inc->procs[0]);
	is_str(last, "[rank0]: 2026-12-02 13:00:01,000 x", "a last line past "
	    "the cap is kept in memory");
	free(last);

	src = incident_add_source(inc, "cmd:full", SOURCE_CMD);
	in = source_ingest(inc, src, NULL, NULL);
	close(src->spill);
	src->spill = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (src->spill == -1)
		ok(1, "# SKIP no /dev/full");
	else {
		source_feed(inc, src, in, line, strlen(line));
		ok(src->spill_full && inc->errors.n == 2 &&
		    strstr(inc->errors.v[1], "cmd:full: writing the copy of its "
		    "lines failed at byte 0 (No space left on device)") != NULL,
		    "a full disk is named in the errors");
		source_feed(inc, src, in, line, strlen(line));
		is_int((int)inc->errors.n, 2, "once");
	}
	incident_free(inc);
	ruleset_free(rs);
}

/*
 * Writers taking turns, in two consoles read one after the other with
 * one ruleset: the slot of a prefix's bytes remembers its writer for the
 * console being read only (the other's writers went with its reading).
 */
static void
test_writer_turns(void)
{
	struct ruleset		*rs = pack();
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src[2];
	struct seen		 sn = { 0 };
	struct buf		 b = { 0 };
	size_t			 i, k, bad = 0;

	for (i = 0; i < 40; i++)
		buf_printf(&b, "[default%zu]:2026-12-02 13:19:%02zu,000 INFO "
		    "step %zu\n", i % 4, i, i / 4);
	src[0] = incident_add_source(inc, "node1/console.log", SOURCE_FILE);
	src[1] = incident_add_source(inc, "node2/console.log", SOURCE_FILE);
	for (k = 0; k < 2; k++) {
		attrib_path(rs, src[k]);
		feed(inc, src[k], b.p, b.len, b.len, &sn);
	}
	is_int(sn.n, 80, "two consoles of 40 lines");
	is_int(inc->nprocs, 8, "four writers in each, a process each");
	for (i = 0; i < inc->nprocs; i++) {
		bad += inc->procs[i]->lines != 10;
		for (k = 0; k < inc->nprocs; k++)
			bad += k != i && inc->procs[k]->local_rank ==
			    inc->procs[i]->local_rank &&
			    inc->procs[k]->host != NULL &&
			    inc->procs[i]->host != NULL &&
			    strcmp(inc->procs[k]->host, inc->procs[i]->host) == 0;
	}
	is_int((int)bad, 0, "each wrote its own 10 lines in its own console");
	buf_clear(&b);
	buf_clear(&sn.text);
	incident_free(inc);
	ruleset_free(rs);
}

/*
 * An event keeps its captures' values alone, in its pattern's order: which
 * each is comes from the pattern that matched, so a capture that pattern
 * does not name, or that the line did not have, reads as unset, whichever
 * of the rule's patterns matched and wherever the value sits among them.
 */
static void
test_captures(void)
{
	static const char	*text =
	    "worker exit signal 9\n"
	    "worker exit code 3 signal 15\n"
	    "lost rank 7 pid 5000000000\n";
	struct ruleset		*rs = pack_text(
	    "[rule t.exit]\n"
	    "pattern = exit (?:code (?<exitcode>\\d+) )?signal (?<signal>\\d+)\n"
	    "pattern = lost rank (?<rank>\\d+) pid (?<pid>\\d+)\n"
	    "role = root\ndomain = infrastructure\n");
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src;
	struct rl_event		*e[3] = { NULL };
	struct seen		 sn = { 0 };
	size_t			 i;

	src = incident_add_source(inc, "worker.log", SOURCE_FILE);
	feed(inc, src, text, strlen(text), 7, &sn);
	is_int((int)inc->nevents, 3, "three lines, three events");
	for (i = 0; i < inc->nevents && i < 3; i++)
		e[inc->events[i]->line - 1] = inc->events[i];
	ok(e[0] != NULL && e[1] != NULL && e[2] != NULL, "one for each line");
	if (e[0] == NULL || e[1] == NULL || e[2] == NULL)
		goto out;
	ok(event_cap(e[0], CAP_EXITCODE) == RL_CAP_UNSET &&
	    event_cap(e[0], CAP_SIGNAL) == 9,
	    "a capture the line lacks is unset, the one after it is had");
	ok(event_cap(e[1], CAP_EXITCODE) == 3 &&
	    event_cap(e[1], CAP_SIGNAL) == 15 &&
	    event_cap(e[1], CAP_RANK) == RL_CAP_UNSET,
	    "both of the pattern's, and none it does not name");
	ok(event_cap(e[2], CAP_RANK) == 7 &&
	    event_cap(e[2], CAP_PID) == INT64_C(5000000000) &&
	    event_cap(e[2], CAP_SIGNAL) == RL_CAP_UNSET &&
	    event_cap(e[2], CAP_EXITCODE) == RL_CAP_UNSET,
	    "the second pattern's own captures, 64 bits wide");
out:
	buf_clear(&sn.text);
	incident_free(inc);
	ruleset_free(rs);
}

/*
 * A keep's latest line, read while skipping and alone of its keep in its
 * block, goes to the keep's tail and has its time and text at the block's
 * end, from the line's own length: here one step in some 1,000 lines of
 * other writing, read in 64 KB parts, so that each part holds one at most.
 */
static void
test_tail_alone(void)
{
	struct ruleset		*rs = pack();
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src;
	struct buf		 b = { 0 };
	const struct rl_event	*e, *last = NULL;
	char			 want[96], got[32], tw[32];
	size_t			 i, steps = 0;
	unsigned		 ms;
	struct rl_time		 t;

	for (i = 0; i < 120000; i++) {
		ms = (unsigned)i * 10;
		if (i % 997 == 996)
			step_line(&b, ms, steps++);
		else
			buf_printf(&b, "2026-12-02 10:%02u:%02u,%03u INFO queue "
			    "%zu drained\n", ms / 60000 % 60, ms / 1000 % 60,
			    ms % 1000, i);
	}
	src = incident_add_source(inc, "rank0.log", SOURCE_FILE);
	feed_more(inc, src, b.p, b.len, 65536, b.len);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (strcmp(e->rule->id, "t.step") == 0 &&
		    (last == NULL || e->line > last->line))
			last = e;
	}
	ms = (unsigned)(119 * 997 + 996) * 10;
	snprintf(want, sizeof want, "2026-12-02 10:%02u:%02u,%03u INFO step "
	    "%zu", ms / 60000 % 60, ms / 1000 % 60, ms % 1000, steps - 1);
	t = step_time(ms);
	clock_format(&t, tw, sizeof tw);
	if (last != NULL)
		clock_format(&last->time, got, sizeof got);
	ok(last != NULL && last->line == 119 * 997 + 997 &&
	    last->text != NULL && strcmp(last->text, want) == 0 &&
	    strcmp(got, tw) == 0, "the last of %zu steps, one to a part, is "
	    "its own whole line at its own time", steps);
	if (last != NULL)
		printf("# line %llu: \"%s\" at %s\n",
		    (unsigned long long)last->line,
		    last->text != NULL ? last->text : "(null)", got);
	buf_clear(&b);
	incident_free(inc);
	ruleset_free(rs);
}

int
main(void)
{
	test_tail_alone();
	test_captures();
	test_spill_cap();
	test_mapped_shrink();
	test_journal();
	test_not_within();
	test_chunks();
	test_long_and_binary();
	test_prefix_streams();
	test_writer_turns();
	test_paths();
	test_pending_time();
	test_peel_far();
	test_quick_shapes();
	test_more_blocks();
	test_when_bursts();
	test_samples_deferred();
	test_last_not_harmless();
	return tap_done();
}
