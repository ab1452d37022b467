/*
 * clock.c: find and read the timestamp of a log line.
 *
 * The stacks of a distributed GPU job print a dozen time forms, several with
 * no year (vLLM, glog, c10, syslog), one with a monotonic fraction that looks
 * like wall clock (c10) and one that is not wall clock at all (raw dmesg).
 * Each form has a hand-written parser in clock_parsers[]: a parser that
 * reads at the start of the line fails on its first byte or two, so a line
 * without a time costs little; the two that search mid-line (JSON epoch
 * keys, and a date after a phrase such as "CANCELLED AT") run last, bounded
 * to CLOCK_SCAN bytes.  The form that matched the previous line is tried
 * first, and the one before it next (the two writers of a console
 * alternate).  Nothing here allocates, and nothing reads past the given
 * length: lines come straight from a read buffer and are not
 * NUL-terminated.
 *
 * A time is kept as its wall clock read as UTC (see clock.h); a missing year
 * is taken from the reference instant of clock_init (file mtime or now).
 *
 * This file picks the parsers to try on a line (clock-forms.c holds them)
 * and peels the line prefixes before them; clock-format.c turns a time
 * into an instant and into text.
 */

#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L	/* localtime_r */
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "clock-int.h"

static bool
clock_tod_at(const char *c)
{
	return (clock_isdigit(c[-2]) && clock_isdigit(c[-1]) &&
	    clock_isdigit(c[1]) && clock_isdigit(c[2]) && c[3] == ':' &&
	    clock_isdigit(c[4]) && clock_isdigit(c[5]));
}

/*
 * Is there an "HH:MM:SS" in [p, end), as clock_tod would read one: two
 * digits, a colon, two digits, a colon, two digits?  Sixteen places at a
 * time are tried for a colon with another three bytes on: a line with no
 * time (an NCCL line's "host:pid:tid") has colons, but seldom so.
 */
static bool
clock_has_tod(const char *p, const char *end)
{
	const char	*c;
#if defined(__SSE2__)
	const __m128i	 colon = _mm_set1_epi8(':');
	__m128i		 a, b;
	unsigned	 m;
#endif

	if (end - p < 8)
		return (false);
	c = p + 2;
#if defined(__SSE2__)
	/* The last place tried, c + 15, must have its c[5] before end. */
	for (; end - c >= 21; c += 16) {
		a = _mm_loadu_si128((const __m128i *)(const void *)c);
		b = _mm_loadu_si128((const __m128i *)(const void *)(c + 3));
		m = (unsigned)_mm_movemask_epi8(_mm_and_si128(
		    _mm_cmpeq_epi8(a, colon), _mm_cmpeq_epi8(b, colon)));
		for (; m != 0; m &= m - 1) {
			if (clock_tod_at(c + __builtin_ctz(m)))
				return (true);
		}
	}
#endif
	for (; end - c >= 6; c++) {
		if (*c == ':' && clock_tod_at(c))
			return (true);
	}
	return (false);
}

/*
 * The first digit in [p, end), or end.  Every line whose time is not of
 * the source's form is searched for one, and a line without a time often
 * has none for most of its length: sixteen bytes at a time.
 */
static const char *
clock_first_digit(const char *p, const char *end)
{
#if defined(__SSE2__)
	const __m128i	 lo = _mm_set1_epi8('0' - 1), hi = _mm_set1_epi8('9' + 1);
	__m128i		 v;
	unsigned	 m;

	for (; end - p >= 16; p += 16) {
		v = _mm_loadu_si128((const __m128i *)(const void *)p);
		m = (unsigned)_mm_movemask_epi8(_mm_and_si128(
		    _mm_cmpgt_epi8(v, lo), _mm_cmplt_epi8(v, hi)));
		if (m != 0)
			return (p + __builtin_ctz(m));
	}
#endif
	for (; p < end && !clock_isdigit(*p); p++)
		;
	return (p);
}

/* Step over an ANSI SGR sequence such as ESC[1;36m. */
static const char *
clock_peel_sgr(const char *p, const char *end)
{
	const char	*q = p + 2;

	if (end - p < 3 || p[0] != '\033' || p[1] != '[')
		return (p);
	while (q < end && q - p < 16 && (clock_isdigit(*q) || *q == ';'))
		q++;
	if (q == end || *q < '@' || *q > '~')
		return (p);
	return (q + 1);
}

/* Step over [rank3]: or [default3]: (torch, torchrun --tee). */
static const char *
clock_peel_rank(const char *p, const char *end)
{
	const char	*q;
	int64_t		 v;
	size_t		 n;

	if (p == end || *p != '[')
		return (p);
	if (end - p > 6 && memcmp(p, "[rank", 5) == 0)
		q = p + 5;
	else if (end - p > 9 && memcmp(p, "[default", 8) == 0)
		q = p + 8;
	else
		return (p);
	n = clock_run(q, end, 7, &v);
	if (n == 0 || end - q < (ptrdiff_t)n + 2 || q[n] != ']' ||
	    q[n + 1] != ':')
		return (p);
	return (q + n + 2);
}

/* Step over "(Name pid=N) " of vLLM and Ray workers, maybe in colour. */
static const char *
clock_peel_proc(const char *p, const char *end)
{
	const char	*q, *close, *s;

	if (p == end || *p != '(')
		return (p);
	/* The name within 96 bytes, and a pid in it. */
	if ((q = memchr(p + 1, ')', (size_t)(end - p - 1 < 95 ? end - p - 1 :
	    95))) == NULL)
		return (p);
	/* A "pid=" in it: at an '=', of which a name has few. */
	for (s = p + 1; s < q && (s = memchr(s, '=', (size_t)(q - s))) !=
	    NULL; s++) {
		if (s - p >= 4 && s[-3] == 'p' && s[-2] == 'i' && s[-1] == 'd')
			break;
	}
	if (s == NULL || s >= q)
		return (p);
	close = clock_peel_sgr(q + 1, end);
	if (close == end || *close != ' ')
		return (p);
	return (close + 1);
}

/*
 * The bytes of a label clock_peel_label steps over: 1 for each, 3 for a
 * digit (letters, digits, '-', '.', '_').
 */
static const uint8_t clock_label_bytes[256] = {
	['-'] = 1, ['.'] = 1, ['_'] = 1,
	['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3,
	['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
	['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
	['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
	['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
	['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
};

/*
 * Step over "  3: " (srun -l) or "node07: " (pdsh, clush): a label of
 * digits, or a host name with a digit in it, then ": ".  A word without a
 * digit ("slurmstepd: ", "RuntimeError: ") is a message and stays.
 */
static const char *
clock_peel_label(const char *p, const char *end)
{
	const char	*q = p, *lim = end - p > 64 ? p + 64 : end;
	unsigned	 k, seen = 0;

	while (q < end && *q == ' ' && q - p < 6)
		q++;
	/* Every line is tried: a table, not a chain of ranges, per byte. */
	for (; q < lim && ((k = clock_label_bytes[(unsigned char)*q]) & 1);
	    q++)
		seen |= k;
	if (!(seen & 2) || end - q < 2 || q[0] != ':' || q[1] != ' ')
		return (p);
	return (q + 2);
}

/*
 * Skip the line prefixes attrib.c peels, in case a caller has not: they
 * would hide a time that starts the payload.
 */
static const char *
clock_peel(const char *p, const char *end)
{
	const char	*q;
	int		 i;

	for (i = 0; i < CLOCK_PEELS; i++) {
		q = clock_peel_sgr(p, end);
		q = clock_peel_rank(q, end);
		q = clock_peel_proc(q, end);
		q = clock_peel_label(q, end);
		if (q == p)
			break;
		p = q;
	}
	return (p);
}

/* The forms that always carry their year (glog's may or may not). */
#define CLOCK_DATED	(1u << CLOCK_ISO | 1u << CLOCK_PYLOG |		\
			 1u << CLOCK_BRACKET | 1u << CLOCK_US |		\
			 1u << CLOCK_ELASTIC | 1u << CLOCK_DMESG_T |	\
			 1u << CLOCK_EPOCH | 1u << CLOCK_CLOCK12)
#define CLOCK_MONTH_MS	(30 * 86400 * INT64_C(1000))
#define CLOCK_PROBE_BYTES	(64 * 1024)	/* clock_probe looks this far */
#define CLOCK_PROBE_LINES	1000

/* Start a source: no form seen yet, and the reference for missing years. */
void
clock_init(struct clock_ctx *ctx, int64_t ref_epoch_s)
{
	struct tm	tm;
	time_t		t = (time_t)ref_epoch_s;

	memset(ctx, 0, sizeof *ctx);
	if (localtime_r(&t, &tm) == NULL) {
		ctx->ref_ms = ref_epoch_s * 1000;
		return;
	}
	ctx->ref_ms = (clock_days(tm.tm_year + 1900, tm.tm_mon + 1,
	    tm.tm_mday) * 86400 + tm.tm_hour * 3600 + tm.tm_min * 60 +
	    tm.tm_sec) * 1000;
}

/*
 * Find the time of a line from p, past its prefixes.  The last form is
 * tried first: a source keeps to one form, so most lines cost one parser.
 */
static inline __attribute__((always_inline)) bool
clock_parse_at(struct clock_ctx *ctx, const char *p, const char *end,
    struct rl_time *out)
{
	const char	*q;
	clock_fn	 first = NULL, second = NULL;
	struct rl_time	 t;
	size_t		 i;
	bool		 tod;

	if (ctx->form < CLOCK_NFORMS)
		first = clock_forms[ctx->form].parser;
	if (ctx->form2 < CLOCK_NFORMS)
		second = clock_forms[ctx->form2].parser;
	if (second == first)
		second = NULL;
	if ((first == NULL || !first(ctx, p, end, &t)) &&
	    (second == NULL || !second(ctx, p, end, &t))) {
		/* Every form has a digit: a line without one has no time. */
		if ((q = clock_first_digit(p, end)) == end)
			return (false);
		tod = clock_has_tod(q, end);
		for (i = 0; i < nitems(clock_parsers); i++) {
			if ((tod || !clock_parsers[i].tod) &&
			    clock_parsers[i].fn != first &&
			    clock_parsers[i].fn != second &&
			    clock_parsers[i].fn(ctx, p, end, &t))
				break;
		}
		if (i == nitems(clock_parsers))
			return (false);
	}
	if (t.form != ctx->form) {
		ctx->form2 = ctx->form;
		ctx->form = t.form;
	}
	ctx->seen[t.form]++;
	/*
	 * A line with its year is the reference for the yearless ones after
	 * it (vLLM's beside Ray's, glog's beside Python's): the file's mtime
	 * is a copy's, not the log's.  Only when no yearless line came first,
	 * for those were read against the mtime and one source's yearless
	 * lines keep one reference.  Moved only when a month away, so the
	 * year is not worked out again line after line.
	 */
	if (!(CLOCK_DATED >> t.form & 1))
		ctx->yearless = ctx->yearless || t.form != CLOCK_DMESG;
	else if (!(t.flags & RL_TIME_BOOT) &&
	    (ctx->ref_dated ? t.ms - ctx->ref_ms > CLOCK_MONTH_MS ||
	    ctx->ref_ms - t.ms > CLOCK_MONTH_MS : !ctx->yearless)) {
		ctx->ref_ms = t.ms;
		ctx->ref_dated = true;
	}
	*out = t;
	return (true);
}

bool
clock_parse(struct clock_ctx *ctx, const char *s, size_t len,
    struct rl_time *out)
{
	if (s == NULL || len == 0)
		return (false);
	return (clock_parse_at(ctx, clock_peel(s, s + len), s + len, out));
}

/*
 * The time of a line whose message starts at off, past prefixes a caller
 * peeled: the message's, else the whole line's (syslog's and journald's
 * prefixes carry the time).  Where both come to the same place once this
 * file's peels are done, the line is not read twice: a parse that failed
 * changed nothing, so it would fail again.
 */
bool
clock_parse_msg(struct clock_ctx *ctx, const char *line, size_t len,
    size_t off, struct rl_time *out)
{
	const char	*end = line + len, *p = NULL, *q;

	if (line == NULL || len == 0)
		return (false);
	if (off < len &&
	    clock_parse_at(ctx, p = clock_peel(line + off, end), end, out))
		return (true);
	if (off == 0 || (q = clock_peel(line, end)) == p)
		return (false);
	return (clock_parse_at(ctx, q, end, out));
}

/*
 * Before a source's first line: when its first timed line has no year and
 * a dated one follows within the first bytes (torch.distributed's glog
 * lines before NeMo's or the launcher's dated ones), that dated line is
 * the reference from the start, so that the lines before it are not read
 * in the year of a copy's mtime and the timeline spans seconds, not years.
 * The look stops at the first timed line when that one is dated: it costs
 * a parse or two for most files.
 */
void
clock_probe(struct clock_ctx *ctx, const char *buf, size_t len)
{
	struct clock_ctx	 scratch = *ctx;
	struct rl_time		 t;
	const char		*p = buf, *end, *nl;
	bool			 yearless = false;
	int			 lines;

	end = buf + (len < CLOCK_PROBE_BYTES ? len : CLOCK_PROBE_BYTES);
	for (lines = 0; p < end && lines < CLOCK_PROBE_LINES; lines++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;		/* a cut line: not read here */
		if (clock_parse(&scratch, p, (size_t)(nl - p), &t) &&
		    !(t.flags & RL_TIME_BOOT) && t.form != CLOCK_DMESG) {
			if (CLOCK_DATED >> t.form & 1) {
				if (!yearless)
					return;
				ctx->ref_ms = t.ms;
				ctx->ref_dated = true;
				return;
			}
			yearless = true;
		}
		p = nl + 1;
	}
}

/*
 * The form most of a source's timed lines had: what the source is said to
 * be written in (the last form met may be a stray line's).
 */
unsigned
clock_form_main(const struct clock_ctx *ctx)
{
	unsigned	i, best = CLOCK_NONE;

	for (i = 1; i < CLOCK_NFORMS; i++) {
		if (ctx->seen[i] > ctx->seen[best])
			best = i;
	}
	return (best);
}

/* The stable name of a form, as stored and shown. */
const char *
clock_form_name(unsigned form)
{
	if (form >= CLOCK_NFORMS)
		return ("none");
	return (clock_forms[form].name);
}

/* The log levels a message may start with, after its time. */
static const char *const clock_levels[] = {
	"INFO", "WARNING", "WARN", "ERROR", "DEBUG", "CRITICAL", "FATAL",
	"NOTICE", "TRACE",
};

/* Step over a leading date and time ("[2026-12-02 13:00:03,000]", ...). */
static const char *
clock_skip_stamp(const char *p, const char *end)
{
	const char	*q = p;
	bool		 open = false, colon = false;

	if (q < end && *q == '[') {
		open = true;
		q++;
	}
	if (q == end || !clock_isdigit(*q))
		return (p);
	while (q < end && (clock_isdigit(*q) || strchr("-:.,T+Z/", *q) !=
	    NULL || (*q == ' ' && q + 1 < end && clock_isdigit(q[1])))) {
		colon |= *q == ':';
		q++;
	}
	/* A time of day has a colon; a bare number is the message's. */
	if (!colon || q - p < 8)
		return (p);
	if (open) {
		if (q == end || *q != ']')
			return (p);
		q++;
	}
	return (q);
}

/* Step over a level word ("INFO", "[ERROR]", "WARNING:"), if one is next. */
static const char *
clock_skip_level(const char *p, const char *end)
{
	const char	*q = p;
	size_t		 i, n;

	if (q < end && *q == '[')
		q++;
	for (i = 0; i < nitems(clock_levels); i++) {
		n = strlen(clock_levels[i]);
		if ((size_t)(end - q) > n && memcmp(q, clock_levels[i], n) == 0 &&
		    strchr(" :]", q[n]) != NULL)
			break;
	}
	if (i == nitems(clock_levels) || (p[0] == '[') != (q[n] == ']'))
		return (p);
	q += n + 1;
	return (q);
}

/*
 * Step over a source location in brackets, "[loggers.py:123]" (vLLM's
 * after its time) or "[logging.py:96:log_dist]" (DeepSpeed's), and the
 * blanks after it.
 */
static const char *
clock_skip_where(const char *p, const char *end)
{
	const char	*q = p + 1, *name;

	if (p == end || *p != '[')
		return (p);
	for (name = q; q < end && (clock_isword(*q) || clock_isdigit(*q) ||
	    (*q != '\0' && strchr("_./-", *q) != NULL)); q++)
		;
	if (q == name || q == end || *q != ':' || ++q == end ||
	    !clock_isdigit(*q))
		return (p);
	while (q < end && clock_isdigit(*q))
		q++;
	if (q < end && *q == ':')
		while (++q < end && (clock_isword(*q) || clock_isdigit(*q) ||
		    *q == '_'))
			;
	if (q == end || *q != ']')
		return (p);
	for (q++; q < end && *q == ' '; q++)
		;
	return (q);
}

/*
 * Step over glog's and c10's header, a level letter glued to the date,
 * the time, a thread id and where: "W0501 22:04:48.360000 1396 api.py:906] "
 * (torch.distributed's), "[E1202 13:06:43.123456789 File.cpp:414] " and
 * the older "[E ProcessGroupNCCL.cpp:414] ".
 */
static const char *
clock_skip_glog(const char *p, const char *end)
{
	const char	*q = p;
	size_t		 n;

	if (q < end && *q == '[')
		q++;
	if (q == end || strchr("IWEF", *q) == NULL || ++q == end)
		return (p);
	if (*q != ' ') {
		for (n = 0; q < end && clock_isdigit(*q); q++)
			n++;
		if ((n != 4 && n != 8) || q == end || *q != ' ')
			return (p);
		while (q < end && *q == ' ')
			q++;
		if (end - q < 8 || !clock_isdigit(q[0]) || q[2] != ':' ||
		    q[5] != ':')
			return (p);
		q += 8;
		if (q < end && *q == '.')
			while (++q < end && clock_isdigit(*q))
				;
	}
	while (q < end && *q == ' ')
		q++;
	/* The thread id glog writes, if one. */
	if (q < end && clock_isdigit(*q)) {
		while (q < end && clock_isdigit(*q))
			q++;
		if (q == end || *q != ' ')
			return (p);
		while (q < end && *q == ' ')
			q++;
	}
	/* Where, up to the "] " that ends the header. */
	while (q < end && *q != ' ' && *q != ']')
		q++;
	if (q == end || *q != ']' || q[-1] < '0' || q[-1] > '9')
		return (p);
	for (q++; q < end && *q == ' '; q++)
		;
	return (q);
}

size_t
clock_message(const char *s, size_t len)
{
	const char	*end = s + len, *p, *q, *l;

	p = clock_peel(s, end);
	if ((q = clock_skip_glog(p, end)) != p)
		return (q < end ? (size_t)(q - s) : 0);
	q = clock_skip_stamp(p, end);
	/* A level word alone, without a time before it, is the message's. */
	if (q != p) {
		while (q < end && (*q == ' ' || *q == '-' || *q == '|'))
			q++;
		q = clock_skip_level(q, end);
		while (q < end && *q == ' ')
			q++;
		q = clock_skip_where(q, end);
	} else if ((l = clock_skip_level(p, end)) != p) {
		/* vLLM's "INFO 10-14 13:42:14 [loggers.py:123] ". */
		while (l < end && *l == ' ')
			l++;
		if ((q = clock_skip_stamp(l, end)) != l) {
			while (q < end && *q == ' ')
				q++;
			q = clock_skip_where(q, end);
		} else
			q = p;
	}
	while (q < end && (*q == ' ' || *q == ':' || *q == '-' || *q == '|'))
		q++;
	if (q != p)
		q = clock_peel(q, end);
	while (q < end && *q == ' ')
		q++;
	/* "[rank4] " after the level (Megatron's), not followed by ':'. */
	if (end - q > 7 && memcmp(q, "[rank", 5) == 0) {
		p = q + 5;
		while (p < end && clock_isdigit(*p))
			p++;
		if (p > q + 5 && p < end && *p == ']') {
			q = p + 1;
			while (q < end && *q == ' ')
				q++;
		}
	}
	return (q < end ? (size_t)(q - s) : 0);
}
