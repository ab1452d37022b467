/*
 * test-wording.c: the answer's words (wording.c) for incidents diagnosed
 * here: a failure with a checkpoint at risk, a hang, clock offsets, no
 * failure and a job; each item's role and indent, the log text kept raw
 * for the renderer to escape, and the text report, the timeline's and
 * `show`'s checkpoint sentences made of the same words.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wording.h"
#include "engine.h"	/* job_clear */
#include "fixture.h"

static const char *PACK =
	"[attrib prefix.default]\nkind = prefix\n"
	"pattern = ^\\[default(?<local_rank>\\d+)\\]:\n"
	"[rule py.exc]\npattern = ^(?<exc>\\w+Error): \nliteral = Error: \n"
	"role = root\ndomain = code\npriority = 10\n"
	"explain = A Python exception ended the rank.\n"
	"action = Read the traceback above it.\n"
	"[rule watchdog]\npattern = Watchdog caught collective operation timeout: "
	"WorkNCCL\\(SeqNum=(?<seq>\\d+)\nrole = collateral\n"
	"domain = infrastructure\ngroup = communication\n"
	"[rule ckpt.begin]\npattern = saving checkpoint at iteration +(?<step>\\d+)\n"
	"role = progress\nmark = ckpt-begin\n"
	"[rule ckpt.end]\npattern = successfully saved checkpoint from iteration "
	"+(?<step>\\d+)\nrole = progress\nmark = ckpt-end\n";

#define T(n, s)	"[default" #n "]:2026-12-02 13:20:" s " INFO "

/* The first item of a section with this role, or NULL. */
static const struct wd_item *
find(const struct wd_section *s, enum wd_role role)
{
	size_t	i;

	for (i = 0; i < s->n; i++) {
		if (s->items[i].role == role)
			return &s->items[i];
	}
	return NULL;
}

/* Whether item i of s has this role, indent and text (a prefix of it). */
static bool
item_is(const struct wd_section *s, size_t i, enum wd_role role, int indent,
    const char *prefix)
{
	return i < s->n && s->items[i].role == role &&
	    s->items[i].indent == indent &&
	    strncmp(s->items[i].text, prefix, strlen(prefix)) == 0;
}

/* The text report of inc, NUL-ended; the caller frees it. */
static char *
text_of(const struct rl_incident *inc)
{
	struct buf	b = { 0 };

	report_text(inc, &b);
	return b.p != NULL ? b.p : xstrdup("");
}

/*
 * Every item the text report prints is a line of it, in order, written
 * as indent, mark, where it points and the item's words.
 */
static bool
text_renders(const struct wording *w, const struct rl_incident *inc,
    const char *text)
{
	static const enum wd_part parts[] = {
		WD_PART_FIRST, WD_PART_VERDICT, WD_PART_HISTORY,
		WD_PART_SIGNATURES, WD_PART_MEANINGS, WD_PART_CHECKPOINT,
		WD_PART_CLOCKS, WD_PART_CAPACITY, WD_PART_ADVICE,
		WD_PART_WARNINGS
	};
	const struct wd_item	*it;
	const char		*at = text;
	struct buf		 line = { 0 };
	size_t			 k, i;
	bool			 all = true;

	for (k = 0; k < nitems(parts); k++) {
		for (i = 0; i < w->part[parts[k]].n; i++) {
			it = &w->part[parts[k]].items[i];
			if (it->role == WD_DETAIL)
				continue;
			buf_reset(&line);
			buf_printf(&line, "%*s%s", it->indent, "",
			    it->role == WD_FOR ? "+ " : it->role == WD_AGAINST ||
			    it->role == WD_MISSING ? "- " : "");
			if (it->source != RL_NONE)
				buf_printf(&line, it->line > 0 ? "%s:%llu: " :
				    "%s: ", inc->sources[it->source]->path,
				    (unsigned long long)it->line);
			sanitize_terminal(&line, it->text, strlen(it->text));
			buf_adds(&line, it->role == WD_TITLE ? ":\n" : "\n");
			if (strncmp(at, line.p, line.len) != 0) {
				all = false;
				break;
			}
			at += line.len;
		}
	}
	buf_clear(&line);
	return all && *at == '\0';
}

static void
test_failure(struct ruleset *rs)
{
	struct rl_incident	*inc = run_pipeline(rs,
	    T(0, "01,000") "saving checkpoint at iteration 10 to c\n"
	    T(1, "01,000") "saving checkpoint at iteration 10 to c\n"
	    T(0, "01,100") "successfully saved checkpoint from iteration 10 to c\n"
	    T(1, "01,100") "successfully saved checkpoint from iteration 10 to c\n"
	    T(0, "02,000") "saving checkpoint at iteration 20 to c\n"
	    T(1, "02,000") "saving checkpoint at iteration 20 to c\n"
	    T(0, "02,100") "successfully saved checkpoint from iteration 20 to c\n"
	    "[default1]:OSError: [Errno 28] No space \xff left\n");
	const struct wd_section	*s;
	struct wording		 w = { 0 };
	struct buf		 b = { 0 }, steps = { 0 };
	char			*text;

	wording_build(&w, inc);
	s = &w.part[WD_PART_FIRST];
	ok(item_is(s, 0, WD_FIRST, 0, "First failure: rank 1 at "
	    "2026-12-02T13:20:02"), "the first failure leads, as a heading");
	ok(item_is(s, 1, WD_BODY, 2, "py.exc (root)"), "then its signature");
	ok(item_is(s, 2, WD_LOG, 2, "[default1]:OSError: [Errno 28] No space "
	    "\xff left"), "then its line as written: the invalid byte raw, for "
	    "each renderer to escape");
	ok(s->n > 2 && s->items[2].source == 0 && s->items[2].line == 8,
	    "pointing at its source and line, for each renderer to write");
	ok(find(s, WD_FOR) != NULL && find(s, WD_FOR)->indent == 4,
	    "evidence for it, at 4");
	s = &w.part[WD_PART_VERDICT];
	ok(item_is(s, 0, WD_HEADING, 0, "Verdict: code"), "the verdict heads "
	    "its section");
	ok(item_is(s, s->n - 1, WD_ACTION, 0, "First action: Read the "
	    "traceback"), "the first action ends it");
	s = &w.part[WD_PART_CHECKPOINT];
	is_str(s->n > 0 ? s->items[0].text : NULL, "Checkpoint: unsafe, last "
	    "safe step 10, unsafe: 20", "the checkpoint at risk: status, the "
	    "last safe step and the unsafe one");
	ok(s->n > 0 && s->items[0].role == WD_HEADING, "as a heading");

	/* The timeline draws the status, then the steps' words. */
	buf_adds(&b, "Checkpoint: ");
	buf_adds(&b, ckpt_status_name(inc->answer.ckpt));
	wording_checkpoint_steps(&steps, inc->answer.last_safe_step,
	    inc->answer.unsafe_steps, inc->answer.nunsafe,
	    inc->answer.suspect_steps, inc->answer.nsuspect);
	buf_add(&b, steps.p, steps.len);
	is_str(b.p, s->n > 0 ? s->items[0].text : NULL, "the timeline's "
	    "status and steps are the same words");
	/* show has the status and the last safe step the store kept. */
	buf_reset(&b);
	wording_checkpoint(&b, "unsafe", 10, NULL, 0, NULL, 0);
	is_str(b.p, "unsafe, last safe step 10", "show's sentence, from what "
	    "the store kept");
	ok(s->n > 0 && strncmp(s->items[0].text + strlen("Checkpoint: "), b.p,
	    b.len) == 0, "begins as the report's");

	s = &w.part[WD_PART_ADVICE];
	ok(find(s, WD_MISSING) != NULL && find(s, WD_MISSING)->indent == 2,
	    "what to collect, at 2");
	s = &w.part[WD_PART_CHECKLIST];
	ok(item_is(s, 0, WD_TITLE, 0, "Evidence checklist") && s->n ==
	    CHECK_NITEMS + 1, "the checklist: a title and every item");

	text = text_of(inc);
	ok(text_renders(&w, inc, text), "the text report is these words, line "
	    "for line, and nothing else");
	ok(strstr(text, "No space \\xff left") != NULL, "escaped there for a "
	    "terminal");
	ok(strstr(text, "Checkpoint: unsafe, last safe step 10, unsafe: "
	    "20\n") != NULL, "with the checkpoint sentence");
	free(text);
	buf_clear(&b);
	buf_clear(&steps);

	/* Clock offsets, as skew.c would leave them. */
	inc->answer.skew = xcalloc(2, sizeof *inc->answer.skew);
	inc->answer.nskew = 2;
	inc->answer.skew[0].host = xstrdup("node0");
	inc->answer.skew[0].reference = true;
	inc->answer.skew[1].host = xstrdup("node1");
	inc->answer.skew[1].offset_ms = -3250;
	inc->answer.skew[1].spread_ms = 12;
	inc->answer.skew[1].samples = 17;
	/* No job yet: what job_identity found in the log is set aside. */
	job_clear(&inc->job);
	wording_build(&w, inc);
	s = &w.part[WD_PART_CLOCKS];
	ok(item_is(s, 0, WD_TITLE, 0, "Clocks (from step lines every rank "
	    "printed)") && s->n == 3, "clocks: one heading, one line a host");
	ok(item_is(s, 1, WD_BODY, 2, "node0: reference"), "the reference");
	is_str(s->n > 2 ? s->items[2].text : NULL, "node1: -3.250 s (17 "
	    "samples, spread 0.012 s)", "an offset, its samples and spread");
	text = text_of(inc);
	ok(strstr(text, "Clocks (from step lines every rank printed):\n"
	    "  node0: reference\n  node1: -3.250 s") != NULL &&
	    text_renders(&w, inc, text), "the text report says the same");
	free(text);

	/* The job, for the console; the text report leaves it out. */
	ok(w.part[WD_PART_JOB].n == 0, "no job fact found: no job section");
	inc->job.fact[JOB_ID].value = xstrdup("4242");
	inc->job.fact[JOB_ID].from = xstrdup("slurm-4242.out (its name)");
	wording_build(&w, inc);
	s = &w.part[WD_PART_JOB];
	ok(item_is(s, 0, WD_TITLE, 0, "Job") && item_is(s, 1, WD_BODY, 2,
	    "id: 4242 (slurm-4242.out (its name))") && s->n == 2,
	    "a fact found: the job section says it and where it came from");
	text = text_of(inc);
	ok(strstr(text, "4242") == NULL, "the text report does not change");
	free(text);
	/* The incident's job is the pipeline's to free once it fills it. */
	job_clear(&inc->job);
	memset(&inc->job, 0, sizeof inc->job);
	wording_clear(&w);
	incident_free(inc);
}

static void
test_hang(struct ruleset *rs)
{
	struct rl_incident	*inc = run_pipeline(rs,
	    T(0, "01,000") "step 1\n" T(1, "01,000") "step 1\n" T(2, "01,000") "step 1\n"
	    T(0, "02,000") "step 2\n" T(1, "02,000") "step 2\n"
	    T(0, "03,000") "step 3\n" T(1, "03,000") "step 3\n"
	    "[default0]:[E1202 13:30:03.1 ProcessGroupNCCL.cpp:1] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)\n"
	    "[default1]:[E1202 13:30:03.1 ProcessGroupNCCL.cpp:1] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)\n");
	const struct wd_section	*s;
	struct wording		 w = { 0 };
	char			*text;

	wording_build(&w, inc);
	s = &w.part[WD_PART_FIRST];
	ok(item_is(s, 0, WD_FIRST, 0, "First failure: rank 2"), "a hang: the "
	    "rank that went quiet leads");
	ok(item_is(s, 1, WD_BODY, 2, "rankline.hang.") && strstr(s->n > 1 ?
	    s->items[1].text : "", " (hang)") != NULL, "named by what found "
	    "it, role hang");
	ok(item_is(s, 2, WD_LOG, 2, "[default2]:") && strstr(s->items[2].text,
	    "step 1") != NULL && s->items[2].line == 3, "its last line");
	text = text_of(inc);
	ok(text_renders(&w, inc, text), "the text report is these words");
	free(text);
	wording_clear(&w);
	incident_free(inc);
}

static void
test_none(struct ruleset *rs)
{
	struct rl_incident	*inc = run_pipeline(rs,
	    T(0, "01,000") "saving checkpoint at iteration 5 to c\n"
	    T(0, "01,100") "successfully saved checkpoint from iteration 5 to c\n");
	const struct wd_section	*s;
	struct wording		 w = { 0 };
	char			*text;

	wording_build(&w, inc);
	s = &w.part[WD_PART_FIRST];
	ok(s->n == 1 && item_is(s, 0, WD_HEADING, 0, "No failure found in 1 "
	    "sources (2 lines)."), "no failure: one sentence");
	ok(w.part[WD_PART_VERDICT].n == 0, "no verdict");
	ok(w.part[WD_PART_ADVICE].n == 0, "nothing to collect");
	is_str(w.part[WD_PART_CHECKPOINT].n ?
	    w.part[WD_PART_CHECKPOINT].items[0].text : NULL,
	    "Checkpoint: none, last safe step 5", "the checkpoint still "
	    "says the last safe step");
	text = text_of(inc);
	ok(text_renders(&w, inc, text), "the text report is these words");
	free(text);
	wording_clear(&w);
	ok(w.part[WD_PART_FIRST].n == 0 && w.part[WD_PART_FIRST].items == NULL,
	    "cleared: empty, and ready to build again");
	incident_free(inc);
}

int
main(void)
{
	struct ruleset	*rs = rules_inline(PACK);

	test_failure(rs);
	test_hang(rs);
	test_none(rs);
	is_str(wording_role_name(WD_MISSING), "missing", "roles have names");
	ruleset_free(rs);
	return tap_done();
}
