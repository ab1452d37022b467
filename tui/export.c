/*
 * export.c: the console's e and E keys.  e writes the report of the
 * incident on screen (report.h's Markdown, the words of the diagnosis
 * view) to a file in the working directory, named by the time; E asks for
 * the path on the status line, and its extension (.md, .html, .json)
 * picks the format.  Files are made 0600 as the database is; the status
 * line names the file, or why it failed.  Like `rankline report`, the
 * report carries the incident's id in the store and the engineer's notes,
 * which the caller's history callbacks read (tui/ never speaks SQL).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "tui.h"
#include "report.h"

/*
 * Write b to path, created 0600 (with excl, never over a file); -1 with
 * errno set on failure.
 */
static int
export_write(const char *path, const struct buf *b, bool excl)
{
	size_t	off = 0;
	ssize_t	n;
	int	fd, e;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC |
	    (excl ? O_EXCL : O_TRUNC), 0600)) < 0)
		return -1;
	if (!excl && fchmod(fd, 0600) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
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

/*
 * The report of the incident on screen in format f, into b: its id when
 * it is stored, and its notes; the words after the byte count when the
 * notes could not be read, else "".
 */
static const char *
export_render(struct tui *t, enum report_format f, struct report_opts *o,
    struct buf *b)
{
	const struct tui_history *hs = t->cfg->history;
	struct report_note	*notes = NULL;
	size_t			 n = 0;
	char			*cause = NULL;
	const char		*said = "";

	o->redact = true;
	o->version = RL_VERSION;
	o->incident = t->inc->history != NULL ? t->inc->history->incident : 0;
	if (o->incident > 0 && hs != NULL && hs->notes != NULL &&
	    hs->notes(hs->arg, o->incident, &notes, &n, &cause) != 0) {
		free(cause);
		said = ", notes not read";
	}
	o->notes = notes;
	o->nnotes = n;
	report_render(t->inc, f, o, b);
	o->notes = NULL;
	o->nnotes = 0;
	report_notes_free(notes, n);
	return said;
}

/* e: the report of what is on screen, to rankline-report-TIME.md. */
int
tui_export(struct tui *t)
{
	struct report_opts	 o = { 0 };
	struct buf		 b = { 0 };
	char			 path[64], stamp[32];
	const char		*said;
	time_t			 now = time(NULL);
	struct tm		 tm;
	int			 k, rc = -1;

	said = export_render(t, REPORT_MD, &o, &b);
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
		if ((rc = export_write(path, &b, true)) == 0 ||
		    errno != EEXIST)
			break;
	}
	if (rc == 0)
		tui_set_message(t, false, "report written to %s (%zu bytes, "
		    "%zu secrets hidden%s)", path, b.len, o.hidden, said);
	else
		tui_set_message(t, true, "report not written: %s: %s", path,
		    strerror(errno));
	buf_clear(&b);
	return REACT_REDRAW;
}

/* The prompt on the status line, with what is typed so far. */
static void
export_prompt(struct tui *t)
{
	tui_set_message(t, false, "report to (.md .html .json; Enter writes, "
	    "Esc cancels): %s_", t->export_path->p);
}

/* E: ask for the path, a Markdown file named by the time to start with. */
int
tui_export_ask(struct tui *t)
{
	char		 stamp[32];
	time_t		 now = time(NULL);
	struct tm	 tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	tui_export_clear(t);
	t->export_path = xcalloc(1, sizeof *t->export_path);
	buf_printf(t->export_path, "rankline-report-%s.md", stamp);
	export_prompt(t);
	return REACT_REDRAW;
}

/* Write the report to the path typed, in the format its extension says. */
static void
export_to(struct tui *t, const char *path)
{
	struct report_opts	 o = { 0 };
	struct buf		 b = { 0 };
	const char		*said;
	enum report_format	 f = report_format_of_path(path);

	if (f == REPORT_NFORMATS) {
		tui_set_message(t, true, "report not written: %s does not end "
		    "in .md, .html or .json", path);
		return;
	}
	said = export_render(t, f, &o, &b);
	if (export_write(path, &b, false) == 0)
		tui_set_message(t, false, "report written to %s (%s, %zu "
		    "bytes, %zu secrets hidden%s)", path, report_format_name(f),
		    b.len, o.hidden, said);
	else
		tui_set_message(t, true, "report not written: %s: %s", path,
		    strerror(errno));
	buf_clear(&b);
}

/* A key while E asks: edit the path, Enter writes, Esc cancels. */
int
tui_export_key(struct tui *t, int key)
{
	struct buf	*p = t->export_path;
	char		*path;

	if (key == 27) {
		tui_export_clear(t);
		tui_set_message(t, false, "report not written");
		return REACT_REDRAW;
	}
	if (key == '\n' || key == '\r' || key == (TUI_KEYFN | KEY_ENTER)) {
		path = xstrdup(p->p);
		tui_export_clear(t);
		if (path[0] == '\0')
			tui_set_message(t, false, "report not written");
		else
			export_to(t, path);
		free(path);
		return REACT_REDRAW;
	}
	if (key == (TUI_KEYFN | KEY_BACKSPACE) || key == 127 || key == 8) {
		/* Back over one character, UTF-8 continuation bytes and all. */
		while (p->len > 0 && (p->p[--p->len] & 0xc0) == 0x80)
			;
		p->p[p->len] = '\0';
	} else if (key == TUI_CTRL('u')) {
		buf_reset(p);
		buf_addc(p, '\0');
		p->len = 0;
	} else if (key >= 0x20 && key < 0x7f && p->len < 1024) {
		buf_addc(p, (char)key);
		buf_addc(p, '\0');
		p->len--;
	}
	export_prompt(t);
	return REACT_REDRAW;
}

/* Stop asking, and free what was typed. */
void
tui_export_clear(struct tui *t)
{
	if (t->export_path == NULL)
		return;
	buf_clear(t->export_path);
	free(t->export_path);
	t->export_path = NULL;
}
