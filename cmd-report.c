/*
 * cmd-report.c: `rankline report`, the incident written for the
 * postmortem as Markdown, HTML or JSON (core/report.h).  From paths it
 * reads and diagnoses them as analyze does, keeps the incident, and
 * reports it with the notes the store holds; the file it writes is
 * private (0600), as the database is: it holds log lines.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "rankline.h"
#include "report.h"
#include "store/store.h"

/* The notes, gathered from store_notes' callback. */
struct report_notes {
	struct report_note *v;
	size_t		 n;
	size_t		 cap;
};

static void
report_note_cb(void *arg, const char *created, const char *kind,
    const char *text)
{
	struct report_notes	*l = arg;
	struct report_note	*nt;

	l->v = array_grow(l->v, l->n + 1, &l->cap, sizeof *l->v);
	nt = &l->v[l->n++];
	nt->time = xstrdup(created != NULL ? created : "");
	nt->kind = xstrdup(kind != NULL ? kind : "");
	nt->text = xstrdup(text != NULL ? text : "");
}

/*
 * The notes written against incident id, into *v (the caller's, freed by
 * report_notes_free): the report's and the console's e's.  None, and 0,
 * without a store; -1 with *cause when the store fails.
 */
int
report_notes_read(const struct options *o, int64_t id, struct report_note **v,
    size_t *n, char **cause)
{
	struct report_notes	 l = { 0 };
	struct store		*st;
	int			 rv = 0;

	*v = NULL;
	*n = 0;
	if (id <= 0 || o->no_store)
		return 0;
	if (store_open_at(o->db, 0, &st, cause) != 0)
		return -1;
	if (store_notes(st, id, report_note_cb, &l, cause) != 0)
		rv = -1;
	store_close(st);
	*v = l.v;
	*n = l.n;
	return rv;
}

/*
 * Write b to path, created 0600 (an existing file is made 0600 too: it
 * is about to hold log lines), or to stdout without one.
 */
int
report_write(const char *path, const struct buf *b)
{
	size_t	off = 0;
	ssize_t	n;
	int	fd;

	if (path == NULL || strcmp(path, "-") == 0) {
		if (fwrite(b->p, 1, b->len, stdout) != b->len ||
		    fflush(stdout) != 0) {
			/* A reader that stopped (| head) wanted no more. */
			if (errno == EPIPE)
				return 0;
			fprintf(stderr, "rankline: stdout: %s\n",
			    strerror(errno));
			return -1;
		}
		return 0;
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) < 0 || fchmod(fd, 0600) != 0) {
		fprintf(stderr, "rankline: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (off < b->len) {
		if ((n = write(fd, b->p + off, b->len - off)) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "rankline: %s: %s\n", path,
			    strerror(errno));
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	if (close(fd) != 0) {
		fprintf(stderr, "rankline: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The format: --format, else -o's extension, else Markdown. */
static int
report_format_pick(const struct options *o, enum report_format *f)
{
	*f = REPORT_MD;
	if (o->format != NULL) {
		if ((*f = report_format_parse(o->format)) == REPORT_NFORMATS) {
			fprintf(stderr, "rankline: --format wants md, html or "
			    "json, not %s\n", o->format);
			return -1;
		}
	} else if (o->output != NULL &&
	    (*f = report_format_of_path(o->output)) == REPORT_NFORMATS)
		*f = REPORT_MD;
	return 0;
}

static const char *const report_stop_words[] = {
	" while reading the logs: nothing was stored or written\n",
	" while storing the incident: the database keeps what it held "
	    "before\n",
	" after the incident was stored, before the report was written\n"
};

int
cmd_report(const struct options *o, int argc, char **argv)
{
	struct report_opts	 ro = { 0 };
	struct report_note	*notes = NULL;
	size_t			 nnotes = 0;
	enum report_format	 f;
	struct ruleset		*rs;
	struct rl_incident	*inc;
	struct rl_history	 h;
	struct buf		 b = { 0 };
	char			*cause = NULL;
	int			 bad = 0, rv = 0;

	if (report_format_pick(o, &f) != 0)
		return EXIT_USAGE;
	if (o->report_incident > 0 || o->report_last) {
		if (argc > 0) {
			fprintf(stderr, "rankline: report takes paths or "
			    "--incident N or --last, not both\n");
			return EXIT_USAGE;
		}
		return report_stored(o, f);
	}
	if (argc == 0 && o->ncmds == 0) {
		fprintf(stderr, "usage: rankline %s\n", REPORT_USAGE);
		return EXIT_USAGE;
	}
	stop_trap(report_stop_words, nitems(report_stop_words));
	rs = rules_load_or_warn();
	inc = analyze_paths(o, rs, argc, argv, NULL, NULL, &bad);
	analyze_warn(inc);
	stop_phase(1);
	if (analyze_store(o, inc, &h) != 0)
		rv = 1;
	stop_phase(2);
	ro.redact = !o->no_redact;
	ro.version = PACKAGE_VERSION;
	ro.incident = h.incident;
	if (report_notes_read(o, h.incident, &notes, &nnotes, &cause) != 0) {
		fprintf(stderr, "rankline: %s\n", cause);
		free(cause);
	}
	ro.notes = notes;
	ro.nnotes = nnotes;
	report_render(inc, f, &ro, &b);
	if (report_write(o->output, &b) != 0)
		rv = 1;
	else if (o->output != NULL && strcmp(o->output, "-") != 0)
		fprintf(stderr, "rankline: wrote %s (%s, %zu bytes%s)\n",
		    o->output, report_format_name(f), b.len, ro.redact ?
		    "" : ", not redacted");
	if (rv == 0 && bad)
		rv = EXIT_PARTIAL;
	buf_clear(&b);
	report_notes_free(notes, nnotes);
	incident_free(inc);
	history_clear(&h);
	ruleset_free(rs);
	return rv;
}
