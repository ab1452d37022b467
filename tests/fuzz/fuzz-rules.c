/*
 * fuzz-rules.c: the rule-pack parser and the INI layer under it, which
 * themes share (tui/theme.c's own reading of a role's value needs curses,
 * which no harness links).  A pack is data a user writes, in a hurry.
 *
 * The input is a pack's text.  It goes through ini_parse alone, with a
 * callback that checks what the layer promises it (line numbers that
 * never go back, a key only inside a section), then through what `rankline
 * rules check` and `rules test` do (load, finish, check, test), and, when
 * it loads, through the engine: a log made of its rules' own examples is
 * read, diagnosed and reported, as a user's pack would be.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* What the INI callback saw. */
struct ini_seen {
	unsigned	 line;		/* the last key's */
	size_t		 keys;
};

static int
ini_check_cb(void *arg, const char *file, unsigned line, const char *section,
    const char *key, const char *value, char **cause)
{
	struct ini_seen	*is = arg;

	(void)file;
	if (key == NULL) {
		/* A header: no value, nowhere to put a cause. */
		if (value != NULL || cause != NULL || section == NULL)
			fuzz_fail("ini: header %u with a value or cause", line);
		return 0;
	}
	if (section == NULL || *section == '\0' || value == NULL || *key == '\0')
		fuzz_fail("ini: key at %u outside a section or empty", line);
	if (line < is->line || line == 0)
		fuzz_fail("ini: key at line %u after one at %u", line, is->line);
	is->line = line;
	is->keys++;
	/* Reject some, as a theme rejects an unknown role, with a cause. */
	if (strlen(value) % 7 == 3) {
		xasprintf(cause, "rejected %s", key);
		return -1;
	}
	return 0;
}

/* Read, diagnose and report a log of the pack's own examples. */
static void
rules_run(struct ruleset *rs)
{
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src;
	const struct rl_rule	*r;
	struct buf		 log = { 0 }, out = { 0 };
	size_t			 i, k;

	for (i = 0; i < ruleset_nrules(rs) && log.len < 65536; i++) {
		r = ruleset_rule(rs, i);
		for (k = 0; k < r->nexample; k++) {
			buf_printf(&log, "[default%zu]:2026-12-02 13:20:%02zu,000 "
			    "INFO ", i % 4, (i + k) % 60);
			buf_adds(&log, r->example[k]);
			buf_addc(&log, '\n');
		}
	}
	src = incident_add_source(inc, "console.log", SOURCE_FILE);
	src->transient = true;
	clock_init(&src->clock, FUZZ_REF_EPOCH);
	inc->settled = true;
	source_ingest(inc, src, NULL, NULL);
	ingest_more(src->ingest, false);
	if (log.len > 0)
		ingest_feed(src->ingest, log.p, log.len);
	ingest_flush(src->ingest);
	pipeline_diagnose(inc);
	report_json(inc, &out, NULL);
	buf_reset(&out);
	report_text(inc, &out);
	buf_clear(&out);
	buf_clear(&log);
	incident_free(inc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct errlist	 e = { 0 };
	struct ini_seen	 is = { 0 };
	struct ruleset	*rs;
	unsigned	 checks = 0;
	int		 nerr;

	ini_parse("fuzz.theme", (const char *)data, size, ini_check_cb, &is,
	    &e);
	errlist_clear(&e);

	rs = ruleset_create();
	nerr = ruleset_load(rs, "fuzz.rules", (const char *)data, size, &e);
	ruleset_finish(rs);
	ruleset_check(rs, &e);
	ruleset_test(rs, &e, &checks);
	if (nerr == 0)
		rules_run(rs);
	errlist_clear(&e);
	ruleset_free(rs);
	return 0;
}
