/*
 * export.c: the console's e key: the report of the incident on screen
 * (report.h's Markdown, the words of the diagnosis view) written to a
 * file in the working directory, named by the time, made 0600 as the
 * database is; the status line names the file, or why it failed.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui.h"
#include "report.h"

/* Write b to path, created 0600; -1 with errno set on failure. */
static int
export_write(const char *path, const struct buf *b)
{
	size_t	off = 0;
	ssize_t	n;
	int	fd, e;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0)
		return -1;
	while (off < b->len) {
		if ((n = write(fd, b->p + off, b->len - off)) < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		off += (size_t)n;
	}
	return close(fd);
}

/* e: the report of what is on screen, to rankline-report-TIME.md. */
int
tui_export(struct tui *t)
{
	struct report_opts	 o = { 0 };
	struct buf		 b = { 0 };
	char			 path[64], stamp[32];
	time_t			 now = time(NULL);
	struct tm		 tm;
	int			 k, rc = -1;

	o.redact = true;
	o.version = RL_VERSION;
	report_render(t->inc, REPORT_MD, &o, &b);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	/* A second e within the second gets its own file. */
	for (k = 0; k < 100; k++) {
		if (k == 0)
			snprintf(path, sizeof path, "rankline-report-%s.md",
			    stamp);
		else
			snprintf(path, sizeof path, "rankline-report-%s-%d.md",
			    stamp, k);
		if ((rc = export_write(path, &b)) == 0 || errno != EEXIST)
			break;
	}
	if (rc == 0)
		tui_set_message(t, false, "report written to %s (%zu bytes, "
		    "%zu secrets hidden)", path, b.len, o.hidden);
	else
		tui_set_message(t, true, "report not written: %s: %s", path,
		    strerror(errno));
	buf_clear(&b);
	return REACT_REDRAW;
}
