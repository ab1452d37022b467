/*
 * test-clock-lnav.c: the timestamp parser against lnav's own samples, read
 * in place from $RL_SHARED (default ../shared) and compared to the times
 * lnav's tests expect; skipped when the folder is absent.  Split from
 * test-clock.c, which tests the lines copied into it.
 *
 * Every line is parsed from a buffer of exactly its length, malloc'd, so
 * that AddressSanitizer catches a parser that reads past the end or relies
 * on a NUL.  The process runs with TZ=UTC unless a check says otherwise.
 */

#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L	/* setenv, localtime_r, stat */
#endif

#include <sys/stat.h>

#include "clock-check.h"

/* One of lnav's samples: the file and the reference its test gives it. */
struct lnav_case {
	char		 file[128];	/* under realdata/lnav */
	char		 mtime[16];	/* touch -t form, "" for none */
	char		 want[32][40];	/* drive_logfile -t lines */
	int		 nwant;		/* used entries of want */
};

/* lnav samples whose time form rankline does not read, and why. */
static const struct {
	const char	*file;		/* under realdata/lnav */
	const char	*why;		/* the SKIP reason */
} lnav_skips[] = {
	{ "logfile_access_log.0", "Apache's access-log time is no GPU form" },
	{ "logfile_tai64n.0", "TAI64N is not a GPU-job form" },
	{ "logfile_strace_log.0", "a time of day with no date is not a form" },
};

#define nitems(a)	(sizeof (a) / sizeof (a)[0])

/* Read a JSON string at p (its opening quote) into out; after it. */
static const char *
json_str(const char *p, char *out, size_t sz)
{
	size_t	i = 0;

	if (p == NULL || *p != '"')
		return (NULL);
	for (p++; *p != '\0' && *p != '"'; p++) {
		if (i + 1 < sz)
			out[i++] = *p;
	}
	out[i] = '\0';
	return (*p == '"' ? p + 1 : NULL);
}

/* Step to the value after the key that starts at p. */
static const char *
json_value(const char *p)
{
	if (p == NULL || (p = strchr(p + 1, '"')) == NULL ||
	    (p = strchr(p, ':')) == NULL)
		return (NULL);
	for (p++; *p == ' ' || *p == '\n'; p++)
		/* nothing */;
	return (p);
}

/* Read the cases of lnav_drive_logfile_expected_timestamps.json. */
static int
lnav_read(const char *js, struct lnav_case *lc, int max)
{
	const char	*p = js;
	int		 n;

	for (n = 0; n < max && (p = strstr(p, "\"file\":")) != NULL; n++) {
		memset(&lc[n], 0, sizeof lc[n]);
		p = json_str(json_value(p), lc[n].file, sizeof lc[n].file);
		if (p == NULL || (p = strstr(p, "\"file_mtime_set_by")) == NULL)
			return (-1);
		if ((p = json_value(p)) != NULL && *p == '"')
			p = json_str(p, lc[n].mtime, sizeof lc[n].mtime);
		if (p == NULL || (p = strstr(p, "\"expected_drive")) == NULL ||
		    (p = strchr(p, '[')) == NULL)
			return (-1);
		for (p++; lc[n].nwant < 32; lc[n].nwant++) {
			p += strspn(p, " \n,");
			if (*p != '"')
				break;
			p = json_str(p, lc[n].want[lc[n].nwant], 40);
			if (p == NULL)
				return (-1);
		}
	}
	return (n);
}

/* Read a whole file into a NUL-terminated buffer; NULL if it cannot. */
static char *
slurp(const char *path, size_t *len)
{
	FILE	*f;
	char	*buf;
	long	 n;

	if ((f = fopen(path, "rb")) == NULL)
		return (NULL);
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (buf = malloc(n + 1)) == NULL) {
		fclose(f);
		return (NULL);
	}
	*len = fread(buf, 1, n, f);
	buf[*len] = '\0';
	fclose(f);
	return (buf);
}

/* drive_logfile -t's line for a time: "%b %d %H:%M:%S %Y -- ms", local. */
static void
lnav_show(const struct rl_time *t, char *buf, size_t sz)
{
	int64_t		ms = clock_utc_ms(t);
	time_t		s = (time_t)(ms / 1000);
	struct tm	tm;
	size_t		n;

	localtime_r(&s, &tm);
	n = strftime(buf, sz, "%b %d %H:%M:%S %Y", &tm);
	snprintf(buf + n, sz - n, " -- %03d", (int)(ms % 1000));
}

/*
 * The times of a file's messages as drive_logfile prints them.  A line
 * without a time continues the message before it, as in lnav.  lnav also
 * gives a message that goes back in time the time of the one before it
 * (logfile.cc, set_time_skew); that is a view's policy, not the parser's,
 * so it is applied here and clock_parse keeps the time as written.
 */
static int
lnav_times(const char *path, int64_t ref, char out[][40], int max)
{
	struct clock_ctx	 ctx;
	struct rl_time		 t, last;
	char			*data, *p, *nl, *end;
	size_t			 len;
	int			 n = 0;

	if ((data = slurp(path, &len)) == NULL)
		return (-1);
	clock_init(&ctx, ref);
	for (p = data, end = data + len; p < end && n < max; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (!parse_exact(&ctx, p, nl - p, &t))
			continue;
		if (n > 0 && clock_cmp(&t, &last) < 0)
			t = last;
		lnav_show(&t, out[n++], 40);
		last = t;
	}
	free(data);
	return (n);
}

/* Is this lnav sample one whose form we do not read? Then why. */
static const char *
lnav_skipped(const char *file)
{
	size_t	i;

	for (i = 0; i < nitems(lnav_skips); i++) {
		if (strcmp(file, lnav_skips[i].file) == 0)
			return (lnav_skips[i].why);
	}
	return (NULL);
}

/* Compare one lnav sample, read in place, with lnav's expectations. */
static void
lnav_case(const char *dir, const struct lnav_case *lc)
{
	char		path[4096], got[32][40];
	struct stat	st;
	int64_t		ref;
	int		n, i;

	if (!join(path, sizeof path, dir, lc->file))
		path[0] = '\0';
	if (lc->mtime[0] != '\0')
		ref = ref_of(lc->mtime);
	else
		ref = stat(path, &st) == 0 ? (int64_t)st.st_mtime : 0;
	n = lnav_times(path, ref, got, 32);
	is_int(n, lc->nwant, "lnav %s: messages with a time", lc->file);
	for (i = 0; i < lc->nwant; i++) {
		is_str(i < n ? got[i] : NULL, lc->want[i],
		    "lnav %s: message %d", lc->file, i + 1);
	}
}

/* lnav's drive_logfile -t expectations, its files read in place. */
static void
test_lnav(const char *dir)
{
	struct lnav_case	*lc;
	char			 path[4096], *js;
	const char		*why;
	size_t			 len;
	int			 n, i;

	if (!join(path, sizeof path, dir,
	    "lnav_drive_logfile_expected_timestamps.json") ||
	    (js = slurp(path, &len)) == NULL) {
		tap_skip("lnav expectations not found (set RL_SHARED)");
		return;
	}
	if ((lc = calloc(16, sizeof *lc)) == NULL)
		abort();
	n = lnav_read(js, lc, 16);
	ok(n >= 9, "lnav expectations read (%d cases)", n);
	for (i = 0; i < n; i++) {
		if ((why = lnav_skipped(lc[i].file)) != NULL)
			tap_skip(why);
		else
			lnav_case(dir, &lc[i]);
	}
	free(lc);
	free(js);
}

/* Read the lines of an expected-output file that hold a time. */
static int
lnav_out(const char *path, char out[][40], int max)
{
	char	*data, *p, *nl;
	size_t	 len;
	int	 n = 0;

	if ((data = slurp(path, &len)) == NULL)
		return (-1);
	for (p = data; *p != '\0' && n < max; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p);
		if (*p >= '0' && *p <= 'z' && nl - p < 40) {
			memcpy(out[n], p, nl - p);
			out[n++][nl - p] = '\0';
		}
		if (*nl == '\0')
			break;
	}
	free(data);
	return (n);
}

/*
 * lnav's logfile_with_zones.0 mixes Z and +03:00; its expected output gives
 * the instants in three zones, which clock_utc_ms must reproduce.
 */
static void
test_lnav_zones(const char *dir)
{
	static const struct {
		const char	*tz;		/* TZ for the run */
		int		 hour;		/* 1970-01-01 00:00Z there */
		const char	*out;		/* expected/ file */
	} runs[] = {
		{ "UTC", 0, "341e491abcf8772422bafb8b0eaea6492da230f6" },
		{ "America/Los_Angeles", 16,
		  "f171f265d8d45a2707e8b9f53e938f574c614d25" },
		{ "America/New_York", 19,
		  "ccb0d31813367c8d9dc5b5df383fac5b780711c1" },
	};
	char		path[4096], name[128], want[8][40], got[8][40];
	struct tm	tm;
	time_t		zero = 0;
	size_t		i;
	int		n, m, k;

	for (i = 0; i < nitems(runs); i++) {
		snprintf(name, sizeof name, "expected/test_logfile.sh_%s.out",
		    runs[i].out);
		set_tz(runs[i].tz);
		localtime_r(&zero, &tm);
		if (!join(path, sizeof path, dir, name) ||
		    (n = lnav_out(path, want, 8)) <= 0 ||
		    tm.tm_hour != runs[i].hour ||
		    !join(path, sizeof path, dir, "logfile_with_zones.0")) {
			tap_skip("lnav zones output or zoneinfo not found");
			continue;
		}
		m = lnav_times(path, 0, got, 8);
		for (k = 0; k < n; k++)
			is_str(k < m ? got[k] : NULL, want[k],
			    "lnav zones, TZ=%s, message %d", runs[i].tz, k + 1);
	}
	set_tz("UTC");
}

/* lnav's logfile_yday.0 uses ISO ordinal dates (2012-025). */
static void
test_lnav_yday(const char *dir)
{
	char			 path[4096], want[8][40], got[64], *data;
	struct clock_ctx	 ctx;
	struct rl_time		 t;
	const char		*p, *nl;
	size_t			 len;
	int			 n, k = 0;

	n = -1;
	if (join(path, sizeof path, dir, "expected/test_logfile.sh_"
	    "bcf123ebd1c59c46a513f3fadd442bb7ab345843.out"))
		n = lnav_out(path, want, 8);
	if (n <= 0 || !join(path, sizeof path, dir, "logfile_yday.0") ||
	    (data = slurp(path, &len)) == NULL) {
		tap_skip("lnav yday output not found");
		return;
	}
	clock_init(&ctx, 0);
	for (p = data; p < data + len && k < n; p = nl + 1, k++) {
		if ((nl = memchr(p, '\n', data + len - p)) == NULL)
			nl = data + len;
		if (parse_exact(&ctx, p, nl - p, &t))
			clock_format(&t, got, sizeof got);
		else
			strcpy(got, "(none)");
		got[10] = ' ';
		ok(strncmp(got, want[k], 23) == 0, "lnav yday %d: %s", k + 1,
		    want[k]);
	}
	free(data);
}

int
main(void)
{
	char	lnav[4096];

	set_tz("UTC");
	if (!join(lnav, sizeof lnav, shared_dir(), "realdata/lnav"))
		lnav[0] = '\0';
	test_lnav(lnav);
	test_lnav_zones(lnav);
	test_lnav_yday(lnav);
	return (tap_done());
}
