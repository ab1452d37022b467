/*
 * test-context-file.c: a lean reading's texts and contexts, held by
 * reference.
 *
 * Plain files read to their end by a wide lean reading (analyze of
 * LEAN_SOURCES files or more) can be read again at an offset, so their
 * contexts keep where their lines are instead of a copy of them
 * (context.c's context_unhold), and their events' texts are let go
 * (EVENT_TEXT_AWAY); both are read back when a reader asks.  They must
 * be what a reading that kept them holds; a file that changed since it
 * was read must give no context rather than another line's; and a few
 * files keep everything, so that nothing opens a log twice.  One file of
 * as many writers (an srun --label console) is as lean.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "report.h"

static const char *PACK =
	"[rule boom]\npattern = BOOM\nliteral = BOOM\nrole = root\n"
	"domain = code\n";

static char	dir[] = "/tmp/rankline-ctxfile-XXXXXX";
static char	path[64];

/* Write the file afresh. */
static void
put(const char *text)
{
	int	fd;

	if ((fd = open(path, O_WRONLY | O_TRUNC)) == -1 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fatal("cannot write %s", path);
	close(fd);
}

/* Read the folder as analyze does, lean or not, or the one file. */
static struct rl_incident *
analyze(struct ruleset *rs, bool lean, bool one)
{
	struct rl_incident	*inc = incident_create(rs);
	char			*argv[] = { one ? path : dir };

	inc->lean = lean;
	is_int(pipeline_read(inc, 1, argv, NULL, NULL, 1), 0,
	    "the logs are read");
	pipeline_diagnose(inc);
	return inc;
}

/* The source of the file with the failures. */
static const struct rl_source *
boom_source(const struct rl_incident *inc)
{
	size_t	i;

	for (i = 0; i < inc->nsources; i++) {
		if (strcmp(inc->sources[i]->path, path) == 0)
			return inc->sources[i];
	}
	return NULL;
}

/* Contexts of src held as copies, and its events' texts held. */
static void
held(const struct rl_incident *inc, const struct rl_source *src,
    size_t *ctx, size_t *texts, size_t *away)
{
	size_t	i;

	*ctx = *texts = *away = 0;
	for (i = 0; i < src->ncontexts; i++)
		*ctx += src->contexts[i].span != NULL ||
		    !src->contexts[i].byref;
	for (i = 0; i < inc->nevents; i++) {
		if (inc->events[i]->source != src->index)
			continue;
		*texts += inc->events[i]->text != NULL;
		*away += (inc->events[i]->tform & EVENT_TEXT_AWAY) != 0;
	}
}

/*
 * A capacity verdict looks at every event for the limits that decide the
 * memory budget, and the budget reads its numbers from the lines of a few
 * rules.  A lean reading notes the limits as it lets the texts go and
 * keeps the budget's lines: the logs are not read again for them, so the
 * diagnosis has them even when the logs are gone by the time it is made.
 */
static void
limits_noted(void)
{
	static const char	*pack =
	    "[rule oom]\npattern = OOM HERE\nrole = root\ndomain = config\n"
	    "group = capacity\nchecklist = memory\n"
	    "[rule args]\npattern = engine args\nrole = evidence\n"
	    "[rule kv]\npattern = KV cache (?<kv_gib>[0-9.]+) GiB\n"
	    "role = evidence\nchecklist = memory\n";
	struct ruleset		*rs = rules_inline(pack);
	struct rl_incident	*inc;
	const struct rl_evlist	*ev;
	char			*argv[1], name[32], *log;
	size_t			 i, found, other;
	bool			 lean;

	for (lean = false; ; lean = true) {
		tree_create();
		log = xstrdup(tree_put("rank0.log", "boot\n"
		    "engine args: max_num_seqs=256, max_model_len=8192\n"
		    "engine args: dtype=auto\nKV cache 12.5 GiB\nOOM HERE\n"));
		for (i = 1; i < (lean ? LEAN_SOURCES : 2); i++) {
			snprintf(name, sizeof name, "rank%zu.log", i);
			tree_put(name, "boot\nengine args: seed=0\n");
		}
		inc = incident_create(rs);
		inc->lean = lean;
		argv[0] = tree_root;
		is_int(pipeline_read(inc, 1, argv, NULL, NULL, 1), 0,
		    "%s: the folder is read", lean ? "lean" : "whole");
		/* Gone before the diagnosis asks: held or noted, not read. */
		tree_empty();
		pipeline_diagnose(inc);
		ev = &inc->answer.verdict_evidence;
		for (i = found = other = 0; i < ev->n; i++) {
			found += (int)ev->v[i].source >= 0 &&
			    strcmp(inc->sources[ev->v[i].source]->path,
			    log) == 0 && ev->v[i].line == 2 &&
			    strstr(ev->v[i].shows, "limits") != NULL;
			other += ev->v[i].line == 3 || (ev->v[i].text != NULL &&
			    strstr(ev->v[i].text, "seed") != NULL);
		}
		ok(found == 1, "%s reading: the line of limits "
		    "is the verdict's evidence, its file removed since it was "
		    "read", lean ? "a lean" : "a whole");
		ok(other == 0, "%s reading: lines without limits are not",
		    lean ? "a lean" : "a whole");
		ok(inc->answer.capacity.present &&
		    inc->answer.capacity.kv_gib == 12.5, "%s reading: the "
		    "budget's number, its file removed since it was read",
		    lean ? "a lean" : "a whole");
		incident_free(inc);
		tree_remove();
		free(log);
		if (lean)
			break;
	}
	ruleset_free(rs);
}

/*
 * One file of many writers, an srun --label console: from its
 * LEAN_SOURCES-th writer on it is as lean as as many files would be, its
 * texts never copied, read back as a full reading held them; a console
 * of fewer writers keeps them, so that it is not opened twice.
 */
static void
console_lean(void)
{
	static const char	*abc = "abcdefghijklmnopqrstuvwxyz"
	    "abcdefghijklmnopqrstuvwxyz";
	static const char	*pack =
	    "[attrib prefix.slurm_label]\nkind = prefix\n"
	    "pattern = ^ {0,4}(?<rank>\\d{1,5}):[ ]\n"
	    "[rule boom]\npattern = BOOM\nliteral = BOOM\nrole = root\n"
	    "domain = code\n"
	    "[rule ready]\npattern = ready at\nliteral = ready\n"
	    "role = evidence\n";
	struct ruleset		*rs = rules_inline(pack);
	struct rl_incident	*inc, *full;
	const struct rl_source	*src;
	struct buf		 b = { 0 };
	char			*argv[1];
	size_t			 i, j, writers, nctx, ntext, naway, bad, nboom;

	for (writers = LEAN_SOURCES - 1; writers <= LEAN_SOURCES; writers++) {
		tree_create();
		buf_clear(&b);
		for (i = 0; i < writers; i++)
			buf_printf(&b, "%3zu: rank %zu ready at 09:00\n", i, i);
		for (i = nboom = 0; i < writers; i += 97, nboom++)
			buf_printf(&b, "%3zu: BOOM on rank %zu, %.*s\n", i, i,
			    (int)(i % 50), abc);
		argv[0] = xstrdup(tree_put("console.log", b.p));
		full = incident_create(rs);
		is_int(pipeline_read(full, 1, argv, NULL, NULL, 1), 0,
		    "%zu writers: the console is read whole", writers);
		pipeline_diagnose(full);
		inc = incident_create(rs);
		inc->lean = true;
		is_int(pipeline_read(inc, 1, argv, NULL, NULL, 1), 0,
		    "%zu writers: the console is read lean", writers);
		pipeline_diagnose(inc);
		src = inc->sources[0];
		held(inc, src, &nctx, &ntext, &naway);
		if (writers < LEAN_SOURCES)
			ok(!src->lean && naway == 0 &&
			    ntext == inc->nevents && inc->nevents > writers,
			    "a console of %zu writers keeps its %zu texts",
			    writers, ntext);
		else
			/* But those the diagnosis read back: the failures'. */
			ok(src->lean && naway == inc->nevents &&
			    ntext <= nboom && inc->nevents > writers,
			    "a console of %zu writers holds %zu of its %zu "
			    "texts", writers, ntext, naway);
		bad = inc->nevents != full->nevents;
		for (i = 0; i < inc->nevents && !bad; i++) {
			for (j = 0; j < full->nevents &&
			    full->events[j]->line != inc->events[i]->line; j++)
				;
			bad += j == full->nevents || strcmp(event_text(inc,
			    inc->events[i]), full->events[j]->text) != 0;
		}
		ok(bad == 0, "%zu writers: each of the %zu texts reads back "
		    "as the whole reading's", writers, inc->nevents);
		incident_free(inc);
		incident_free(full);
		free(argv[0]);
		tree_remove();
	}
	buf_clear(&b);
	ruleset_free(rs);
}

/*
 * A process's last timed line (a hang's evidence: where a rank went
 * quiet) is not copied by a lean reading but read back when asked, as
 * the whole reading holds it.
 */
static void
last_lines(void)
{
	struct ruleset		*rs = rules_inline(PACK);
	struct rl_incident	*inc[2];
	struct buf		 b = { 0 };
	char			*argv[1], name[32], *x, *y;
	size_t			 i, k, held = 0, bad = 0, n = 0;

	tree_create();
	for (i = 0; i < LEAN_SOURCES; i++) {
		buf_clear(&b);
		for (k = 0; k < 3 + i % 5; k++)
			buf_printf(&b, "2026-12-02 09:00:%02zu,000 INFO rank %zu "
			    "step %zu%.*s\n", k, i, k, (int)(i % 40),
			    "----------------------------------------");
		buf_printf(&b, "an untimed line after it\n");
		snprintf(name, sizeof name, "rank%zu.log", i);
		tree_put(name, b.p);
	}
	argv[0] = tree_root;
	for (k = 0; k < 2; k++) {
		inc[k] = incident_create(rs);
		inc[k]->lean = k == 1;
		is_int(pipeline_read(inc[k], 1, argv, NULL, NULL, 1), 0,
		    "%s: %d logs are read", k ? "lean" : "whole", LEAN_SOURCES);
	}
	is_int((int)inc[1]->nprocs, (int)inc[0]->nprocs,
	    "both readings have the same processes");
	for (i = 0; i < inc[1]->nprocs && i < inc[0]->nprocs; i++) {
		held += inc[1]->procs[i]->last_text != NULL;
		x = process_last_line(inc[0], inc[0]->procs[i]);
		y = process_last_line(inc[1], inc[1]->procs[i]);
		n += *x != '\0';
		bad += strcmp(x, y) != 0 || strstr(x, "step") == NULL;
		free(x);
		free(y);
	}
	is_int((int)held, 0, "the lean reading copied none of them");
	ok(bad == 0 && n == inc[0]->nprocs, "each of the %zu last lines reads "
	    "back as the whole reading holds it", n);
	for (k = 0; k < 2; k++)
		incident_free(inc[k]);
	tree_remove();
	buf_clear(&b);
	ruleset_free(rs);
}

/*
 * A process's last line has the lines around it, whether its window was
 * kept raw until the end (a console of a few hundred writers) or cut at
 * once (past a thousand, as a pdsh stream of many hosts is), read whole
 * or lean: each the cut the whole file gives.
 */
static void
many_writers(void)
{
	static const size_t	 hosts[] = { 100, 1100 };
	struct ruleset		*rs = rules_inline(
	    "[attrib prefix.pdsh_host]\nkind = prefix\n"
	    "pattern = ^(?<host>host\\d+): \n" "[rule boom]\n"
	    "pattern = BOOM\nliteral = BOOM\nrole = root\ndomain = code\n");
	struct rl_incident	*inc;
	const struct rl_process	*p;
	struct rl_event		 e;
	struct buf		 b = { 0 };
	const char		*got;
	char			*argv[1], *want, *nl;
	int64_t			 first, wfirst;
	size_t			 h, i, k, bad, n;
	bool			 lean;

	for (h = 0; h < nitems(hosts); h++) {
		tree_create();
		buf_clear(&b);
		for (k = 0; k < 3; k++)
			for (i = 0; i < hosts[h]; i++)
				buf_printf(&b, "host%04zu: 2026-12-02 09:00:%02zu,"
				    "%03zu INFO step %zu of host %zu\n", i, k,
				    i % 1000, k, i);
		argv[0] = xstrdup(tree_put("pdsh.log", b.p));
		for (lean = false; ; lean = true) {
			inc = incident_create(rs);
			inc->lean = lean;
			is_int(pipeline_read(inc, 1, argv, NULL, NULL, 1), 0,
			    "%zu hosts, %s: the stream is read", hosts[h],
			    lean ? "lean" : "whole");
			for (i = bad = n = 0; i < inc->nprocs; i++) {
				p = inc->procs[i];
				if (p->last_source != 0)
					continue;
				n++;
				memset(&e, 0, sizeof e);
				e.offset = p->last_offset;
				e.process = (int)p->index;
				e.text = xstrndup(b.p + p->last_offset,
				    (size_t)((nl = strchr(b.p +
				    p->last_offset, '\n')) - b.p) -
				    p->last_offset);
				want = cut_whole(b.p, p->last_offset,
				    p->last_line, &wfirst);
				got = event_context(inc, &e, &first);
				bad += got == NULL || want == NULL ||
				    strcmp(got, want) != 0 || first != wfirst;
				free(want);
				free(e.text);
			}
			ok(bad == 0 && n == hosts[h], "%zu hosts, %s: each of "
			    "the %zu last lines has the lines around it",
			    hosts[h], lean ? "lean" : "whole", n);
			incident_free(inc);
			if (lean)
				break;
		}
		free(argv[0]);
		tree_remove();
	}
	buf_clear(&b);
	ruleset_free(rs);
}

/*
 * The memory budget of a lean reading is the whole reading's, while the
 * texts of the lines it reads its numbers from are let go with the rest:
 * what the capacity reads of each (named captures, argument keys) is had
 * as the text goes.  Each rank's numbers differ, and one rank fails
 * midway, so that which lines count, and which of them is the latest, are
 * both asked.
 */
static void
capacity_lean(void)
{
	static const char	*pack =
	    "[rule kv]\npattern = GPU KV cache size: (?<kv_tokens>[0-9,]+) "
	    "tokens\nrole = evidence\nchecklist = memory\ngroup = capacity\n"
	    "domain = unknown\n"
	    "[rule args]\npattern = non-default args: \nrole = evidence\n"
	    "checklist = args\ndomain = unknown\n"
	    "[rule oom]\npattern = needs (?<needed_gib>[0-9.]+) GiB KV cache"
	    ", (?<available_gib>[0-9.]+) GiB available\nrole = root\n"
	    "group = capacity\ndomain = config\n";
	struct ruleset		*rs = rules_inline(pack);
	struct rl_incident	*inc[2];
	const struct rl_capacity *c[2];
	const struct rl_event	*e;
	struct buf		 b = { 0 };
	char			*argv[1], name[32];
	size_t			 i, k, held[2] = { 0, 0 }, away = 0, bad = 0;

	tree_create();
	for (i = 0; i < LEAN_SOURCES; i++) {
		buf_clear(&b);
		buf_printf(&b, "2026-12-02 09:%02zu:%02zu,000 INFO non-default "
		    "args: model=m, max_model_len=%zu, "
		    "gpu_memory_utilization=0.%zu, max_num_seqs=%zu\n",
		    i / 60, i % 60, 4096 + i, 50 + i % 40, 16 + i);
		buf_printf(&b, "2026-12-02 09:%02zu:%02zu,500 INFO GPU KV cache "
		    "size: %zu,%03zu tokens\n", i / 60, i % 60, 100 + i, i);
		if (i == 300)
			buf_printf(&b, "2026-12-02 09:05:00,750 ERROR needs "
			    "1.5 GiB KV cache, 0.%zu GiB available\n", i % 9);
		snprintf(name, sizeof name, "rank%zu.log", i);
		argv[0] = (char *)tree_put(name, b.p);
	}
	argv[0] = tree_root;
	for (k = 0; k < 2; k++) {
		inc[k] = incident_create(rs);
		inc[k]->lean = k == 1;
		is_int(pipeline_read(inc[k], 1, argv, NULL, NULL, 1), 0,
		    "%d rank logs read %s", LEAN_SOURCES, k ? "lean" : "whole");
		pipeline_diagnose(inc[k]);
		c[k] = &inc[k]->answer.capacity;
		for (i = 0; i < inc[k]->nevents; i++) {
			e = inc[k]->events[i];
			if (strcmp(e->rule->id, "oom") == 0)
				continue;
			held[k] += e->text != NULL;
			away += k == 1 && (e->tform & EVENT_TEXT_AWAY);
		}
	}
	ok(c[0]->nlines > 0 && c[0]->max_model_len == 4096 + 300 &&
	    c[0]->kv_tokens == 400300 && c[0]->max_num_seqs == 16 + 300,
	    "whole: the budget from the failing rank's own lines, the "
	    "latest by 09:05 (%zu lines)", c[0]->nlines);
	bad = c[0]->nlines != c[1]->nlines || c[0]->nwhatif != c[1]->nwhatif ||
	    c[0]->evidence.n != c[1]->evidence.n;
	for (i = 0; i < c[0]->nlines && !bad; i++)
		bad += strcmp(c[0]->lines[i], c[1]->lines[i]) != 0;
	for (i = 0; i < c[0]->nwhatif && !bad; i++)
		bad += strcmp(c[0]->whatif[i], c[1]->whatif[i]) != 0;
	for (i = 0; i < c[0]->evidence.n && !bad; i++)
		bad += c[0]->evidence.v[i].line != c[1]->evidence.v[i].line ||
		    c[0]->evidence.v[i].source != c[1]->evidence.v[i].source ||
		    strcmp(c[0]->evidence.v[i].text != NULL ?
		    c[0]->evidence.v[i].text : "", c[1]->evidence.v[i].text !=
		    NULL ? c[1]->evidence.v[i].text : "") != 0;
	ok(bad == 0 && memcmp(&c[0]->total_gib, &c[1]->total_gib,
	    offsetof(struct rl_capacity, lines) -
	    offsetof(struct rl_capacity, total_gib)) == 0,
	    "lean: the same numbers, budget, what-ifs and evidence");
	ok(held[0] == 2 * LEAN_SOURCES && away == 2 * LEAN_SOURCES &&
	    held[1] <= 8, "the whole reading holds its %zu texts; the lean "
	    "one holds %zu, those of the evidence shown", held[0], held[1]);
	for (k = 0; k < 2; k++)
		incident_free(inc[k]);
	buf_clear(&b);
	tree_remove();
	ruleset_free(rs);
}

/*
 * A report quotes the first failure of each signature with its lines
 * around it, and asks for no other's: every rank failing alike had each
 * rank's lines made a string the context held, and read again from a
 * file a lean reading let go, for the one quoted.
 */
static void
quotes_lean(void)
{
	struct ruleset		*rs = rules_inline(PACK);
	struct rl_incident	*inc;
	const struct rl_source	*src;
	const struct rl_event	*e;
	struct buf		 b = { 0 };
	char			*argv[1], name[32];
	size_t			 i, j, v[REPORT_QUOTES], n, made = 0;
	int64_t			 first;

	tree_create();
	for (i = 0; i < LEAN_SOURCES; i++) {
		buf_clear(&b);
		for (j = 0; j < 12; j++)
			buf_printf(&b, "2026-12-02 09:00:%02zu,000 %s %zu\n", j,
			    j == 6 ? "BOOM on rank" : "step", i);
		snprintf(name, sizeof name, "rank%zu.log", i);
		tree_put(name, b.p);
	}
	argv[0] = tree_root;
	inc = incident_create(rs);
	inc->lean = true;
	is_int(pipeline_read(inc, 1, argv, NULL, NULL, 1), 0,
	    "%d ranks failing alike read lean", LEAN_SOURCES);
	pipeline_diagnose(inc);
	n = report_quotes(inc, v);
	for (i = 0; i < inc->nsources; i++) {
		src = inc->sources[i];
		for (j = 0; j < src->ncontexts; j++)
			made += src->contexts[j].text != NULL;
	}
	e = n == 1 ? inc->events[v[0]] : NULL;
	for (i = 0; e != NULL && i < v[0]; i++)
		if (event_failing(inc->events[i]))
			e = NULL;
	ok(e != NULL && event_context(inc, e, &first) != NULL && made == 1,
	    "one signature: its first failure quoted, and its context alone "
	    "made (%zu of %d)", made, LEAN_SOURCES);
	incident_free(inc);
	buf_clear(&b);
	tree_remove();
	ruleset_free(rs);
}

int
main(void)
{
	static const size_t	 booms[] = { 3, 40, 41, 90, 200 };
	struct ruleset		*rs;
	struct rl_incident	*inc, *full;
	const struct rl_source	*src;
	const struct rl_event	*ev;
	struct buf		 b = { 0 };
	const char		*got;
	char			*want, mark[16], *other, name[80];
	int64_t			 first, wfirst;
	size_t			 i, j, bad = 0, nctx, ntext, naway, n;
	int			 fd;

	rs = rules_inline(PACK);
	if (mkdtemp(dir) == NULL)
		fatal("mkdtemp");
	snprintf(path, sizeof path, "%s/boom.log", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) == -1)
		fatal("cannot make %s", path);
	close(fd);
	for (i = 1; i <= 220; i++) {
		for (j = 0; j < nitems(booms) && booms[j] != i; j++)
			;
		buf_printf(&b, "%s %05zu ", j < nitems(booms) ? "BOOM" :
		    "line", i);
		for (j = 0; j < (i == 90 ? 5000 : i % 70); j++)
			buf_addc(&b, (char)('a' + (i + j) % 26));
		buf_addc(&b, '\n');
	}
	put(b.p);
	/* As many more quiet logs as make a wide reading. */
	for (i = 1; i < LEAN_SOURCES; i++) {
		snprintf(name, sizeof name, "%s/quiet%zu.log", dir, i);
		if ((fd = open(name, O_WRONLY | O_CREAT, 0600)) == -1 ||
		    write(fd, "line\n", 5) != 5)
			fatal("cannot make %s", name);
		close(fd);
	}

	full = analyze(rs, false, true);
	src = boom_source(full);
	held(full, src, &nctx, &ntext, &naway);
	ok(nctx == nitems(booms) && naway == 0 && ntext == full->nevents,
	    "one file keeps its %zu contexts and %zu texts", nctx, ntext);
	incident_free(full);
	full = analyze(rs, false, false);
	src = boom_source(full);
	held(full, src, &nctx, &ntext, &naway);
	ok(nctx == nitems(booms) && naway == 0,
	    "so do %d files when the reading is not lean (the console)",
	    LEAN_SOURCES);

	inc = analyze(rs, true, false);
	src = boom_source(inc);
	held(inc, src, &nctx, &ntext, &naway);
	n = naway;
	/* The root's text alone was read again, by the fingerprint. */
	ok(src->ncontexts == nitems(booms) && nctx == 0 && ntext == 1 &&
	    naway == nitems(booms), "a lean reading of %d files holds the "
	    "%zu contexts and %zu texts by reference (%zu copies, %zu texts "
	    "read again)", LEAN_SOURCES, src->ncontexts, naway, nctx, ntext);
	for (i = 0; i < nitems(booms); i++) {
		snprintf(mark, sizeof mark, "BOOM %05zu", booms[i]);
		want = cut_whole(b.p, (size_t)(strstr(b.p, mark) - b.p),
		    booms[i], &wfirst);
		for (j = 0; j < inc->nevents &&
		    (inc->events[j]->source != src->index ||
		    inc->events[j]->line != booms[i]); j++)
			;
		ev = j < inc->nevents ? inc->events[j] : NULL;
		got = ev != NULL ? event_context(inc, ev, &first) : NULL;
		if (got == NULL || want == NULL || strcmp(got, want) != 0 ||
		    first != wfirst)
			bad++;
		if (ev == NULL || j >= full->nevents ||
		    full->events[j]->line != ev->line ||
		    strcmp(event_text(inc, ev), full->events[j]->text) != 0)
			bad++;
		free(want);
	}
	ok(bad == 0, "read back, each context is the whole file's cut and "
	    "each text the one a full reading held (one cut at its limit)");
	for (j = 0; j < full->nevents && full->events[j]->line != 90; j++)
		;
	ok(n > 0 && j < full->nevents &&
	    strstr(full->events[j]->text, TEXT_MARK) != NULL,
	    "(the cut one ends with the mark)");
	incident_free(inc);
	incident_free(full);

	/* The same bytes but the failures' lines: no context, not theirs. */
	inc = analyze(rs, true, false);
	other = xstrdup(b.p);
	for (i = 0; (want = strstr(other, "BOOM")) != NULL; i++)
		memcpy(want, "bOOM", 4);
	put(other);
	for (i = 0; i < inc->nevents && inc->events[i]->line != 40; i++)
		;
	ev = i < inc->nevents ? inc->events[i] : NULL;
	ok(ev != NULL && event_context(inc, ev, &first) == NULL,
	    "a file changed since it was read gives no context");
	incident_free(inc);

	/*
	 * Rotated by renaming: another file at the path, with a failure at
	 * the same place.  Its line is not the event's: no text, no context.
	 */
	put(b.p);
	inc = analyze(rs, true, false);
	snprintf(name, sizeof name, "%s.1", path);
	if (rename(path, name) != 0 || (fd = open(path, O_WRONLY | O_CREAT,
	    0600)) == -1)
		fatal("cannot rotate %s", path);
	close(fd);
	for (i = 0; (want = strstr(other, "bOOM")) != NULL; i++)
		memcpy(want, "BOOX", 4);
	put(other);
	for (i = 0; i < inc->nevents && inc->events[i]->line != 40; i++)
		;
	ev = i < inc->nevents ? inc->events[i] : NULL;
	ok(ev != NULL && strcmp(event_text(inc, ev), "") == 0 &&
	    event_context(inc, ev, &first) == NULL, "a file rotated by "
	    "renaming since it was read gives neither the new file's line "
	    "nor its lines around");
	incident_free(inc);
	unlink(name);
	free(other);

	for (i = 1; i < LEAN_SOURCES; i++) {
		snprintf(name, sizeof name, "%s/quiet%zu.log", dir, i);
		unlink(name);
	}
	unlink(path);
	rmdir(dir);
	buf_clear(&b);
	ruleset_free(rs);
	limits_noted();
	console_lean();
	capacity_lean();
	quotes_lean();
	last_lines();
	many_writers();
	return tap_done();
}
