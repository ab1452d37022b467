/*
 * clock.h: timestamps as the stacks of distributed GPU jobs print them.
 *
 * A log line's time is kept as it was written: a wall-clock reading in
 * milliseconds (broken down as if it were UTC) plus, when the log named a
 * zone, the offset.  Nothing is converted to the reader's zone until two
 * times must be compared (clock_utc_ms), so `rankline cat` can print a time
 * exactly as the log wrote it.
 */
#ifndef RANKLINE_CLOCK_H
#define RANKLINE_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* rl_time flags. */
#define RL_TIME_VALID	0x1	/* the line carried a time */
#define RL_TIME_ZONED	0x2	/* tz_min is meaningful (the log named a zone or an epoch) */
#define RL_TIME_BOOT	0x4	/* seconds since boot (raw dmesg): order only */

/* The forms the parser knows; CLOCK_NFORMS last. */
enum clock_form {
	CLOCK_NONE = 0,
	CLOCK_ISO,		/* 2026-12-02T13:06:43.123+00:00, 2026-12-02 13:06:43.123456 */
	CLOCK_PYLOG,		/* 2026-12-02 13:06:43,123 */
	CLOCK_BRACKET,		/* [2026-12-02 13:06:43,123] DeepSpeed, Ray, NCCL >= 2.26 */
	CLOCK_US,		/* 12/02/2026 13:06:43 (HF example scripts) */
	CLOCK_VLLM,		/* INFO 12-02 13:06:43 (no year) */
	CLOCK_GLOG,		/* I1202 13:06:43.123456, W20261202 13:06:43.1 */
	CLOCK_C10,		/* [E1202 13:06:43.123456789 File.cpp:N] (unpadded, monotonic fraction) */
	CLOCK_ELASTIC,		/* time      : 2026-12-02_13:06:43 */
	CLOCK_SYSLOG,		/* Dec  2 13:06:43 (no year) */
	CLOCK_DMESG_T,		/* [Wed Dec  2 13:06:43 2026] */
	CLOCK_DMESG,		/* [12345.678901] seconds since boot */
	CLOCK_EPOCH,		/* "time_ms": 1764680803000, [1764680803.5] */
	CLOCK_CLOCK12,		/* 2026-12-02 01:06:43 PM */
	CLOCK_NFORMS
};

/* One parsed time. */
struct rl_time {
	int64_t		 ms;		/* wall clock as written, ms since 1970 read as UTC */
	int16_t		 tz_min;	/* offset east of UTC, with RL_TIME_ZONED */
	uint8_t		 flags;		/* RL_TIME_* */
	uint8_t		 form;		/* enum clock_form that produced it */
};

/* Per-source parsing state: the reference for missing years and the form seen. */
struct clock_ctx {
	int64_t		 ref_ms;	/* file mtime or now, as local wall clock ms;
					   then the source's last dated line */
	int64_t		 boot_ms;	/* boot, as ref_ms is, for raw dmesg; 0 unknown */
	uint8_t		 form;		/* last form that matched: tried first */
	bool		 ref_dated;	/* ref_ms is a line's own date */
	bool		 yearless;	/* a yearless line was read */
	uint8_t		 form2;		/* the one before it, tried next: two
					   writers of a console alternate */
	uint32_t	 seen[CLOCK_NFORMS];	/* how many lines matched each form */
};

/*
 * clock.c
 *
 * clock_init: zero the context; ref_epoch_s (mtime, or now for a stream)
 *   decides missing years: a yearless time gets the year that puts it
 *   closest to the reference but not more than a day after it.  When the
 *   source wrote a line with its year before any yearless one, that line
 *   is the reference and the closest year wins: a log copied in another
 *   year keeps its own.
 * clock_probe: before a source's first line, with its first bytes: when
 *   a yearless line comes before the first dated one, that dated line is
 *   the reference for missing years from the start.
 * clock_parse: the time of one line of len bytes (not NUL-terminated, never
 *   read past len).  Line prefixes ([rankN]:, [defaultN]:, "(Name pid=N) ",
 *   Slurm "  3: ", "node07: ") are skipped if still there.  On false *out is
 *   left as it was, so a caller may keep the last time in it.
 * clock_parse_msg: the time of a line whose prefixes a caller peeled up
 *   to off: its message's, else the whole line's (a prefix may carry it).
 * clock_message: where a line's message starts, past what a screen that
 *   shows its time, rank and level elsewhere need not repeat: the prefixes
 *   clock_parse skips, a leading date and time, a level word, a "[rankN]";
 *   0 when that would leave nothing.
 * clock_utc_ms: the instant, for ordering: zoned by tz_min, unzoned in the
 *   process's local zone, boot times as they are; INT64_MAX if not VALID.
 * clock_format: YYYY-MM-DDTHH:MM:SS.mmm, then Z or +HH:MM when ZONED; a boot
 *   time as seconds since boot, "+12345.678"; "" if not VALID.  Returns the
 *   length written (truncated to fit sz, always NUL-terminated if sz > 0).
 * clock_form_name: a stable short name ("iso", "dmesg-T", ...; "none").
 * clock_form_main: the form most lines parsed had, or CLOCK_NONE.
 * clock_cmp: by clock_utc_ms; a time that is not VALID sorts last.
 *   Two valid wall-clock times without a zone, the pair a sort of a job's
 *   events meets nearly always, compare inline; clock_cmp_any does the rest.
 */
void		 clock_init(struct clock_ctx *, int64_t ref_epoch_s);
void		 clock_probe(struct clock_ctx *, const char *, size_t);
bool		 clock_parse(struct clock_ctx *, const char *, size_t,
		     struct rl_time *);
bool		 clock_parse_msg(struct clock_ctx *, const char *, size_t,
		     size_t, struct rl_time *);
size_t		 clock_message(const char *, size_t);
int64_t		 clock_utc_ms(const struct rl_time *);
size_t		 clock_format(const struct rl_time *, char *, size_t);
const char	*clock_form_name(unsigned);
unsigned	 clock_form_main(const struct clock_ctx *);
int		 clock_cmp_any(const struct rl_time *, const struct rl_time *);

/* Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant). */
static inline int64_t
clock_days(int y, int m, int d)
{
	int64_t	era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (era * 146097 + doe - 719468);
}

/* The date of a day count: the inverse of clock_days. */
static inline void
clock_civil(int64_t z, int *y, int *m, int *d)
{
	int64_t	era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

static inline int
clock_cmp(const struct rl_time *a, const struct rl_time *b)
{
	const unsigned	k = RL_TIME_VALID | RL_TIME_ZONED | RL_TIME_BOOT;

	if ((a->flags & k) == RL_TIME_VALID && (b->flags & k) == RL_TIME_VALID)
		return (a->ms > b->ms) - (a->ms < b->ms);
	return clock_cmp_any(a, b);
}

#endif
