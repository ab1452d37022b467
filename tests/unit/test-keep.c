/*
 * test-keep.c: what a keep (the events of one rule from one writer in one
 * source) holds, at the size of a wide job's ranks.
 *
 * A keep is made per rule a rank's lines meet, some twenty a rank: at
 * 10,000 ranks, every byte of one is 200 KB of the peak.  Its tail (the
 * latest line it did not keep) is made only when a keep has one, and a
 * source read to its end gives back the slots its keeps grew and did not
 * fill; neither may lose or change an event.
 */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static const char *PACK =
	"[rule boom]\npattern = BOOM\nliteral = BOOM\nrole = root\n"
	"domain = code\n"
	"[rule step]\npattern = step (?<step>\\d+)\nliteral = step\n"
	"role = progress\n"
	"[rule pair]\npattern = at (?<step>\\d+) of (?<total>\\d+)\n"
	"pattern = alone\nliteral = at\nrole = progress\n";

/* Add n events to k, each with its line number and a text of its own. */
static void
add(struct rl_incident *inc, struct rl_keep *k, uint64_t from, size_t n)
{
	struct rl_event	*e;
	char		 t[32];
	size_t		 i;

	for (i = 0; i < n; i++) {
		e = keep_add(inc, k, from + i);
		e->rule = k->rule;
		e->line = from + i;
		snprintf(t, sizeof t, "line %llu", (unsigned long long)(from + i));
		e->text = xstrdup(t);
	}
}

/* A failure's keep: no tail until past its limit; then the latest. */
static void
test_tail(struct ruleset *rs)
{
	struct rl_incident	*inc = incident_create(rs);
	const struct rl_rule	*r = ruleset_find(rs, "boom");
	struct rl_keep		*k;
	struct rl_event		*e;
	uint64_t		 seq;

	k = incident_keep(inc, r, RL_NONE, 0);
	add(inc, k, 1, 3);
	ok(k->n == 3 && k->tail == &keep_no_tail && keep_no_tail.rule == NULL,
	    "three first failures: kept, and no tail made");
	add(inc, k, 4, k->limit);
	ok(k->n == k->limit && k->tail != &keep_no_tail &&
	    k->tail->line == 3 + (uint64_t)k->limit, "past its limit of %u: the tail "
	    "is made and holds the latest (line %llu)", k->limit,
	    (unsigned long long)k->tail->line);
	seq = k->tail->seq;
	e = keep_find(k, seq);
	ok(e == k->tail && strcmp(e->text, "line 67") == 0,
	    "and is found by its number");
	ok(keep_no_tail.rule == NULL, "the shared empty tail is never written");
	incident_free(inc);
}

/* A source's keeps give back their empty slots; the events stay. */
static void
test_shrink(struct ruleset *rs)
{
	struct rl_incident	*inc = incident_create(rs);
	struct rl_keep		*a, *b, *c;
	uint32_t		 i;
	int			 bad = 0;

	a = incident_keep(inc, ruleset_find(rs, "boom"), RL_NONE, 0);
	b = incident_keep(inc, ruleset_find(rs, "boom"), RL_NONE, 1);
	c = incident_keep(inc, ruleset_find(rs, "step"), RL_NONE, 0);
	add(inc, a, 1, 5);
	add(inc, b, 1, 5);
	add(inc, c, 0, 3);
	ok(a->cap == 8 && b->cap == 8, "five events in room for eight");
	keep_shrink(inc, inc->keeps, inc->nkeeps, incident_add_source(inc,
	    "/nonexistent/0.log", SOURCE_FILE), false);
	ok(a->cap == 5 && a->n == 5, "source 0's keep fits them: room for 5");
	ok(b->cap == 8, "source 1's is left as it was");
	for (i = 0; i < a->n; i++)
		bad += keep_at(a, i)->line != i + 1;
	for (i = 0; i < c->n; i++)
		bad += keep_at(c, i)->line != i;
	ok(bad == 0 && c->cap == c->n, "and every event is where it was");
	add(inc, a, 6, 2);
	ok(a->n == 7 && keep_at(a, 6)->line == 7 && a->cap >= 7,
	    "a shrunk keep grows again");
	incident_free(inc);
}

/*
 * A source read to its end: its keeps' events go side by side into the
 * incident's slabs, and a keep that grows again takes them out with it.
 */
static void
test_shrink_done(struct ruleset *rs)
{
	struct rl_incident	*inc = incident_create(rs);
	struct rl_source	*src;
	struct rl_keep		*a, *b;
	char			 t[32];
	uint32_t		 i;
	int			 bad = 0;

	src = incident_add_source(inc, "/nonexistent/0.log", SOURCE_FILE);
	a = incident_keep(inc, ruleset_find(rs, "boom"), RL_NONE, 0);
	b = incident_keep(inc, ruleset_find(rs, "step"), RL_NONE, 0);
	add(inc, a, 1, 5);
	add(inc, b, 0, 3);
	keep_shrink(inc, inc->keeps, inc->nkeeps, src, true);
	ok(a->v_slab && b->v_slab && a->cap == 5 && b->cap == 3 &&
	    b->v == (void *)keep_at(a, 5), "read to its end: the two keeps' "
	    "8 events side by side");
	add(inc, a, 6, 2);
	for (i = 0; i < a->n; i++) {
		snprintf(t, sizeof t, "line %u", i + 1);
		bad += keep_at(a, i)->line != i + 1 ||
		    strcmp(keep_at(a, i)->text, t) != 0;
	}
	ok(bad == 0 && !a->v_slab && a->n == 7 && b->v_slab &&
	    keep_at(b, 2)->line == 2, "a keep that grows again takes its "
	    "events out of the slab, its neighbour's stay");
	incident_free(inc);
}

/*
 * A sample of steps past four billion, whose events keep their ords' low
 * 32 bits: spread by the same stride as the full numbers would be, and,
 * where every step is a multiple of every stride an event can test, full
 * at its limit with the latest in its tail, not thinned by a bit it lacks.
 */
static void
test_sample_far(struct ruleset *rs)
{
	struct rl_incident	*inc = incident_create(rs);
	struct rl_keep		*a, *b;
	uint64_t		 base = UINT64_C(5) << 32, mask;
	uint32_t		 i;
	int			 bad = 0;

	a = incident_keep(inc, ruleset_find(rs, "step"), RL_NONE, 0);
	b = incident_keep(inc, ruleset_find(rs, "step"), RL_NONE, 1);
	ok(a->policy == KEEP_SAMPLE && a->limit >= 2, "steps are sampled");
	add(inc, a, base, 1000);
	mask = keep_stride_mask(a);
	for (i = 0; i < a->n; i++)
		bad += (keep_at(a, i)->ord & mask) != 0 ||
		    keep_at(a, i)->line - base != (uint64_t)i * (mask + 1);
	ok(bad == 0 && a->n == a->limit && a->stride > 0 &&
	    a->tail->line == base + 999, "1,000 steps past 2^32: one in "
	    "%llu kept from the first, the latest in the tail",
	    (unsigned long long)mask + 1);
	for (i = 0; i < 3 * a->limit; i++) {
		struct rl_event	*e = keep_add(inc, b, (uint64_t)(i + 1) << 33);

		e->rule = b->rule;
		e->line = i + 1;
	}
	ok(b->n == b->limit && b->stride == KEEP_STRIDE_MAX &&
	    b->tail->line == 3 * (uint64_t)b->limit && keep_at(b, 0)->line == 1,
	    "steps all multiples of 2^33: the first %u kept, the latest in "
	    "the tail", b->limit);
	incident_free(inc);
}

/*
 * An event's captures follow it, as many as its rule's patterns name at
 * most: none for most rules' events, two here.  Thinned, packed side by
 * side, copied while a source may grow, replaced in the tail, each event
 * has its own, and an event of its rule's other pattern reads none.
 */
static void
test_captures(struct ruleset *rs)
{
	struct rl_incident	*inc = incident_create(rs);
	const struct rl_rule	*pair = ruleset_find(rs, "pair");
	struct rl_source	*src;
	struct rl_keep		*a, *b;
	struct rl_event		*e;
	size_t			 i;
	uint32_t		 j;
	int			 bad = 0, seen = 0;

	ok(pair->ncaps == 2 && ruleset_find(rs, "boom")->ncaps == 0,
	    "a rule's room is its widest pattern's: 2, and 0");
	src = incident_add_source(inc, "/nonexistent/0.log", SOURCE_FILE);
	a = incident_keep(inc, ruleset_find(rs, "boom"), RL_NONE, 0);
	b = incident_keep(inc, pair, RL_NONE, 0);
	ok(keep_esize(a) == sizeof(struct rl_event) &&
	    keep_esize(b) == sizeof(struct rl_event) + 16,
	    "an event of a rule naming none is %zu bytes, of two %zu",
	    keep_esize(a), keep_esize(b));
	add(inc, a, 1, 3);
	for (i = 0; i < 1000; i++) {
		e = keep_add(inc, b, i);
		e->rule = pair;
		e->line = i;
		e->pat = i % 7 == 3;
		if (e->pat == 0) {
			event_capv(e)[0] = (int64_t)i;
			event_capv(e)[1] = (int64_t)i * 1000 + 7;
		}
	}
	keep_shrink(inc, inc->keeps, inc->nkeeps, src, true);
	incident_gather(inc);
	for (i = 0; i < inc->nevents; i++) {
		e = inc->events[i];
		if (e->rule != pair)
			continue;
		seen++;
		if (e->pat == 1)
			bad += event_cap(e, CAP_STEP) != RL_CAP_UNSET;
		else
			bad += event_cap(e, CAP_STEP) != (int64_t)e->line ||
			    event_cap(e, CAP_TOTAL) !=
			    (int64_t)e->line * 1000 + 7 ||
			    event_cap(e, CAP_RANK) != RL_CAP_UNSET;
	}
	ok(bad == 0 && seen == b->n + 1 && b->stride > 0 &&
	    b->tail->line == 999, "1,000 thinned to %u and a tail, each with "
	    "its own captures (%d wrong)", b->n, bad);
	for (j = bad = 0; j < a->n; j++)
		bad += keep_at(a, j)->line != j + 1;
	ok(bad == 0 && a->v_slab && a->n == 3, "the 3 events of a rule "
	    "naming none, packed in the slab at their size, keep their lines");
	incident_free(inc);
}

int
main(void)
{
	struct ruleset	*rs = rules_inline(PACK);

	test_tail(rs);
	test_shrink(rs);
	test_shrink_done(rs);
	test_sample_far(rs);
	test_captures(rs);
	ruleset_free(rs);
	return tap_done();
}
