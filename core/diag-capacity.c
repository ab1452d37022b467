/*
 * diag-capacity.c: vLLM's memory budget, and what one change would give.
 *
 * vLLM sizes its KV cache at start-up: the GPU's memory times
 * --gpu-memory-utilization is the budget; the weights, the activation peak
 * of a profiling run, non-torch memory and (newer versions) the CUDA
 * graphs come off it; the rest is the KV cache, which holds so many tokens,
 * which is so many requests of --max-model-len at once.  Different versions
 * log different parts of this (V0 the whole sum; V1 the weights, the KV
 * memory, its tokens and the concurrency; the error of a cache too small
 * the memory one request needs), and the launch arguments give the limits.
 * The numbers are gathered from the rules' named captures and the argument
 * dumps, as logged up to the first failure, and the budget is written out
 * with what is missing said so.
 *
 * The what-ifs change one limit each, as an engineer should: a shorter
 * --max-model-len, a higher --gpu-memory-utilization, fewer --max-num-seqs.
 * They are arithmetic on the logged numbers, not a promise: the activation
 * peak moves with the batch limits, and vLLM rounds to blocks.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define CAP_UTIL_MAX	0.95	/* a utilization above this leaves no slack */
#define CAP_EVIDENCE	8	/* lines kept as the numbers' evidence */

/* A named capture and the field it fills. */
struct cap_field {
	const char	*name;		/* the capture's name in the rules */
	size_t		 off;		/* offsetof the double in rl_capacity */
	double		 scale;		/* to GiB or to a plain count */
};

#define F(n, m, s)	{ n, offsetof(struct rl_capacity, m), s }
static const struct cap_field cap_fields[] = {
	F("total_gib", total_gib, 1),
	F("util", util, 1),
	F("budget_gib", budget_gib, 1),
	F("weights_gib", weights_gib, 1),
	F("non_torch_gib", non_torch_gib, 1),
	F("activation_peak_gib", activation_gib, 1),
	F("graph_gib", graph_gib, 1),
	F("kv_gib", kv_gib, 1),
	F("available_gib", kv_gib, 1),
	F("needed_gib", needed_gib, 1),
	F("kv_tokens", kv_tokens, 1),
	F("kv_cache_tokens", kv_tokens, 1),
	F("estimated_max_len", kv_tokens, 1),
	F("max_model_len", max_model_len, 1),
	F("concurrency", concurrency, 1),
};

/* Argument-dump keys and the field each fills. */
static const struct cap_field cap_args[] = {
	F("gpu_memory_utilization", util, 1),
	F("gpu-memory-utilization", util, 1),
	F("max_model_len", max_model_len, 1),
	F("max-model-len", max_model_len, 1),
	F("max_seq_len", max_model_len, 1),
	F("max_num_seqs", max_num_seqs, 1),
	F("max-num-seqs", max_num_seqs, 1),
};
#undef F

/* The field at an offset. */
static double *
cap_at(struct rl_capacity *c, size_t off)
{
	return (double *)(void *)((char *)c + off);
}

/* Is the number known? */
static bool
known(double v)
{
	return !isnan(v);
}

/* Append a formatted line to a string vector. */
static void __attribute__((format(printf, 3, 4)))
cap_line(char ***v, size_t *n, const char *fmt, ...)
{
	va_list	 ap;

	*v = xreallocarray(*v, *n + 1, sizeof **v);
	va_start(ap, fmt);
	xvasprintf(&(*v)[(*n)++], fmt, ap);
	va_end(ap);
}

/* Does an event come no later than the first failure? */
static bool
cap_in_time(const struct rl_incident *inc, const struct rl_event *e)
{
	const struct rl_event	*f;

	if (inc->answer.first == RL_NONE)
		return true;
	f = inc->events[inc->answer.first];
	return clock_cmp(&e->time, &f->time) <= 0 || e == f;
}

/*
 * Which of cap_fields a rule captures, as bits: worked out once a rule,
 * and kept in it.  Reading threads ask at once of the same rules; each
 * finds the same bits.
 */
#define CAP_FIELDS_KNOWN	(UINT32_C(1) << 31)

_Static_assert(sizeof cap_fields / sizeof *cap_fields < 31,
    "a rule's cap_fields fit a mask");

static uint32_t
cap_rule_mask(const struct rl_rule *r)
{
	/* Rules are made on the heap, never const: the bits may be kept. */
	struct rl_rule	*w = (struct rl_rule *)(uintptr_t)r;
	uint32_t	 mask;
	size_t		 i;

	if ((mask = __atomic_load_n(&r->cap_fields, __ATOMIC_RELAXED)) != 0)
		return mask & ~CAP_FIELDS_KNOWN;
	for (i = 0; i < sizeof cap_fields / sizeof *cap_fields; i++) {
		if (rule_has_capture(r, cap_fields[i].name))
			mask |= 1u << i;
	}
	__atomic_store_n(&w->cap_fields, mask | CAP_FIELDS_KNOWN,
	    __ATOMIC_RELAXED);
	return mask;
}

/*
 * What the capacity reads of a line whose text a lean reading let go: the
 * numbers of its rule's named captures and argument keys, as a reading of
 * its text would find them.  A lean reading kept these texts whole before,
 * for every diagnosis to read (the launch and engine lines of each rank,
 * 9.6 MB at 10,000 ranks); read back instead, they were each of 10,000
 * files again.  The numbers are had once, as the text goes.
 */
struct cap_digest {
	uint64_t		 offset;	/* the line's, in its source */
	const struct rl_rule	*rule;		/* its event's */
	uint32_t		 v;		/* its first number in vals */
	uint16_t		 fields;	/* the cap_fields it gave, as bits */
	uint8_t			 args;		/* the cap_args it gave, as bits */
};

struct cap_digests {
	struct cap_digest	*v;		/* by offset, then rule */
	size_t			 n;
	size_t			 cap;
	double			*vals;		/* their numbers, in the order of
						   cap_fields, then cap_args */
	size_t			 nvals;
	size_t			 cvals;
};

_Static_assert(sizeof cap_fields / sizeof *cap_fields <= 16 &&
    sizeof cap_args / sizeof *cap_args <= 8, "a digest's bits hold them");

/* Where a line's digest is, or would go, in d. */
static size_t
cap_digest_place(const struct cap_digests *d, uint64_t offset,
    const struct rl_rule *r)
{
	size_t	lo = 0, hi = d->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d->v[mid].offset < offset || (d->v[mid].offset == offset &&
		    (uintptr_t)d->v[mid].rule < (uintptr_t)r))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The digest of a line at *at in d, or NULL (it would go at *at). */
static const struct cap_digest *
cap_digest_of(const struct cap_digests *d, const struct rl_event *e,
    size_t *at)
{
	*at = cap_digest_place(d, e->offset, e->rule);
	return *at < d->n && d->v[*at].offset == e->offset &&
	    d->v[*at].rule == e->rule ? &d->v[*at] : NULL;
}

/* An event's digest in its source (*dp), or NULL. */
static const struct cap_digest *
cap_digest_find(const struct rl_incident *inc, const struct rl_event *e,
    const struct cap_digests **dp)
{
	size_t	at;

	if (e->source >= inc->nsources ||
	    (*dp = inc->sources[e->source]->capd) == NULL)
		return NULL;
	return cap_digest_of(*dp, e, &at);
}

#define CAP_NUMBERS	(sizeof cap_fields / sizeof *cap_fields + \
			 sizeof cap_args / sizeof *cap_args)

/*
 * The numbers the capacity reads of an event's text into vals, in the
 * order of cap_fields, then cap_args, and which they are into g; how many.
 * A digest keeps them as its text goes; a text held is read so each time.
 */
static size_t
cap_numbers(const struct rl_incident *inc, const struct rl_event *e,
    struct cap_digest *g, double *vals)
{
	size_t		i, n = 0;
	uint32_t	mask = cap_rule_mask(e->rule);

	g->fields = 0;
	g->args = 0;
	for (i = 0; i < sizeof cap_fields / sizeof *cap_fields; i++) {
		if ((mask >> i & 1) &&
		    event_capture_num(inc, e, cap_fields[i].name, &vals[n])) {
			g->fields |= (uint16_t)(1u << i);
			n++;
		}
	}
	if (e->rule->checklist & ((1u << CHECK_ARGS) | (1u << CHECK_MODEL))) {
		for (i = 0; i < sizeof cap_args / sizeof *cap_args; i++) {
			if (text_key_num(event_text(inc, e), cap_args[i].name,
			    &vals[n]) && vals[n] > 0) {
				g->args |= (uint8_t)(1u << i);
				n++;
			}
		}
	}
	return n;
}

/*
 * The numbers of an event whose text is about to go, kept in its source:
 * what cap_read_event would read of the text.  Once: a text read back and
 * let go again has its digest already.
 */
void
capacity_digest(struct rl_source *src, const struct rl_event *e)
{
	struct cap_digests	*d = src->capd;
	struct cap_digest	 g = { .offset = e->offset, .rule = e->rule };
	double			 vals[CAP_NUMBERS];
	size_t			 at, i, n;

	if (d == NULL)
		d = src->capd = xcalloc(1, sizeof *d);
	if (cap_digest_of(d, e, &at) != NULL)
		return;
	n = cap_numbers(NULL, e, &g, vals);
	g.v = (uint32_t)d->nvals;
	for (i = 0; i < n; i++) {
		d->vals = array_grow(d->vals, d->nvals, &d->cvals,
		    sizeof *d->vals);
		d->vals[d->nvals++] = vals[i];
	}
	d->v = array_grow(d->v, d->n, &d->cap, sizeof *d->v);
	memmove(d->v + at + 1, d->v + at, (d->n - at) * sizeof *d->v);
	d->v[at] = g;
	d->n++;
}

/* A source was read to its end: its digests give back the room not used. */
void
capacity_digests_fit(struct cap_digests *d)
{
	if (d == NULL)
		return;
	if (d->cap > d->n && d->n > 0) {
		d->v = xreallocarray(d->v, d->n, sizeof *d->v);
		d->cap = d->n;
	}
	if (d->cvals > d->nvals && d->nvals > 0) {
		d->vals = xreallocarray(d->vals, d->nvals, sizeof *d->vals);
		d->cvals = d->nvals;
	}
}

void
capacity_digests_free(struct cap_digests *d)
{
	if (d == NULL)
		return;
	free(d->v);
	free(d->vals);
	free(d);
}

/* Read one line's numbers into the capacity; true if it gave any. */
static bool
cap_read_numbers(struct rl_capacity *c, const struct cap_digest *g,
    const double *v, bool *vllm)
{
	size_t	i;

	for (i = 0; i < sizeof cap_fields / sizeof *cap_fields; i++) {
		if (!(g->fields >> i & 1))
			continue;
		*cap_at(c, cap_fields[i].off) = *v++ * cap_fields[i].scale;
		/* A GPU's total alone (a CUDA OOM) is not vLLM's profile. */
		if (strcmp(cap_fields[i].name, "total_gib") != 0 &&
		    strcmp(cap_fields[i].name, "util") != 0)
			*vllm = true;
	}
	for (i = 0; i < sizeof cap_args / sizeof *cap_args; i++) {
		if (g->args >> i & 1)
			*cap_at(c, cap_args[i].off) = *v++;
	}
	return g->fields != 0 || g->args != 0;
}

/* Read one event's numbers into the capacity; true if it gave any. */
static bool
cap_read_event(const struct rl_incident *inc, struct rl_capacity *c,
    const struct rl_event *e, bool *vllm)
{
	const struct cap_digests	*d;
	const struct cap_digest		*g;
	struct cap_digest		 own;
	double				 vals[CAP_NUMBERS];

	if ((g = cap_digest_find(inc, e, &d)) != NULL)
		return cap_read_numbers(c, g, d->vals + g->v, vllm);
	cap_numbers(inc, e, &own, vals);
	return cap_read_numbers(c, &own, vals, vllm);
}

/* Is an event one whose numbers the capacity reads? */
static bool
cap_wanted(const struct rl_incident *inc, const struct rl_event *e)
{
	return capacity_rule_reads(e->rule) && cap_in_time(inc, e);
}

/*
 * Are a rule's lines ones the capacity reads numbers from (those up to the
 * first failure)?  A lean reading keeps their texts until their source is
 * read to its end, and then only what the capacity reads of them
 * (capacity_digest): every diagnosis reads them, at 10,000 ranks each file
 * again if read back.
 */
bool
capacity_rule_reads(const struct rl_rule *r)
{
	return r != NULL && r->mark != MARK_STEP && ((r->checklist &
	    ((1u << CHECK_MEMORY) | (1u << CHECK_ARGS) |
	    (1u << CHECK_MODEL))) || r->group == GROUP_CAPACITY);
}

/*
 * Gather the numbers, later lines overriding earlier ones.  Their texts
 * are held first, in bulk: a lean reading read back one at a time, in
 * time order, the launch line of each of 10,000 ranks.
 */
static bool
cap_gather(struct rl_incident *inc, struct rl_capacity *c)
{
	const struct rl_event	*e;
	const struct cap_digests *d;
	size_t			 i, n = 0, nt = 0, *v, *t;
	bool			 vllm = false;

	v = xcalloc(inc->nevents + 1, sizeof *v);
	for (i = 0; i < inc->nevents; i++) {
		if (cap_wanted(inc, inc->events[i]))
			v[n++] = i;
	}
	/* The texts of those whose numbers were not had as their texts went. */
	t = xcalloc(n + 1, sizeof *t);
	for (i = 0; i < n; i++) {
		if (cap_digest_find(inc, inc->events[v[i]], &d) == NULL)
			t[nt++] = v[i];
	}
	event_texts_hold(inc, t, nt);
	free(t);
	for (i = 0; i < n; i++) {
		e = inc->events[v[i]];
		if (cap_read_event(inc, c, e, &vllm) &&
		    c->evidence.n < CAP_EVIDENCE)
			evlist_add(&c->evidence, inc, (int)v[i], STANCE_SUPPORTS,
			    "a number of the memory budget (%s)",
			    e->rule->title != NULL ? e->rule->title :
			    e->rule->id);
	}
	free(v);
	return vllm;
}

/* Fill in what follows from what was logged. */
static void
cap_derive(struct rl_capacity *c, double *per_token)
{
	*per_token = NAN;
	if (!known(c->budget_gib) && known(c->total_gib) && known(c->util))
		c->budget_gib = c->total_gib * c->util;
	if (!known(c->total_gib) && known(c->budget_gib) && known(c->util) &&
	    c->util > 0)
		c->total_gib = c->budget_gib / c->util;
	/* The error's own figure for one request is exact; tokens are rounded. */
	if (known(c->needed_gib) && known(c->max_model_len) &&
	    c->max_model_len > 0)
		*per_token = c->needed_gib / c->max_model_len;
	else if (known(c->kv_gib) && known(c->kv_tokens) && c->kv_tokens > 0)
		*per_token = c->kv_gib / c->kv_tokens;
	if (!known(c->kv_tokens) && known(*per_token) && known(c->kv_gib) &&
	    *per_token > 0)
		c->kv_tokens = floor(c->kv_gib / *per_token);
	if (!known(c->needed_gib) && known(*per_token) &&
	    known(c->max_model_len))
		c->needed_gib = *per_token * c->max_model_len;
	if (!known(c->concurrency) && known(c->kv_tokens) &&
	    known(c->max_model_len) && c->max_model_len > 0)
		c->concurrency = c->kv_tokens / c->max_model_len;
}

/*
 * The least the GPU's memory can be when its total was not logged: what
 * the budget was spent on, over the utilization.  0 when unknown.
 */
static double
cap_total_floor(const struct rl_capacity *c)
{
	double	spent = 0;

	if (known(c->total_gib) || !known(c->util) || c->util <= 0 ||
	    !known(c->weights_gib) || !known(c->kv_gib))
		return 0;
	spent = c->weights_gib + fmax(c->kv_gib, 0);
	if (known(c->graph_gib))
		spent += fmax(c->graph_gib, 0);
	if (known(c->activation_gib))
		spent += c->activation_gib;
	if (known(c->non_torch_gib))
		spent += c->non_torch_gib;
	return spent / c->util;
}

/* The budget, step by step, with what the logs did not say. */
static void
cap_budget_lines(struct rl_capacity *c, double per_token)
{
	struct buf	 b = { 0 };
	double		 used = 0;
	bool		 all = true;

	if (known(c->total_gib) && known(c->util))
		cap_line(&c->lines, &c->nlines, "budget: %.2f GiB total x %.2f "
		    "utilization = %.2f GiB", c->total_gib, c->util,
		    c->budget_gib);
	else if (known(c->util) && cap_total_floor(c) > 0)
		cap_line(&c->lines, &c->nlines, "budget: %.2f utilization of a "
		    "GPU of at least %.1f GiB (its total was not logged)",
		    c->util, cap_total_floor(c));
	else if (known(c->util))
		cap_line(&c->lines, &c->nlines, "budget: %.2f utilization of a "
		    "GPU whose total was not logged", c->util);
	else
		cap_line(&c->lines, &c->nlines, "budget: the utilization and "
		    "total were not logged");
#define PART(v, what) do {						\
	if (known(v)) {							\
		buf_printf(&b, "%s%s %.2f GiB", b.len ? ", " : "", what, v); \
		used += v;						\
	} else								\
		all = false;						\
} while (0)
	PART(c->weights_gib, "weights");
	PART(c->activation_gib, "activation peak");
	PART(c->non_torch_gib, "non-torch");
	if (known(c->graph_gib))
		PART(c->graph_gib, "CUDA graphs");
#undef PART
	if (b.len > 0)
		cap_line(&c->lines, &c->nlines, "minus %s%s", b.p, all ? "" :
		    " (the rest not logged)");
	buf_clear(&b);
	if (known(c->kv_gib))
		cap_line(&c->lines, &c->nlines, "= KV cache %.2f GiB%s",
		    c->kv_gib, c->kv_gib <= 0 ? ": nothing left for it" : "");
	else if (known(c->budget_gib) && all)
		cap_line(&c->lines, &c->nlines, "= KV cache %.2f GiB "
		    "(computed)", c->budget_gib - used);
	if (known(c->kv_tokens))
		cap_line(&c->lines, &c->nlines, "KV cache: %.0f tokens",
		    c->kv_tokens);
	if (known(per_token))
		cap_line(&c->lines, &c->nlines, "one token of KV cache: %.1f "
		    "KiB", per_token * 1024 * 1024);
	if (known(c->max_model_len) && known(c->concurrency))
		cap_line(&c->lines, &c->nlines, "at --max-model-len %.0f: %.2fx "
		    "(%s)", c->max_model_len, c->concurrency,
		    c->concurrency < 1 ? "not even one full-length request "
		    "fits" : "full-length requests that fit at once");
	if (known(c->needed_gib) && known(c->kv_gib) &&
	    c->needed_gib > c->kv_gib)
		cap_line(&c->lines, &c->nlines, "one request of --max-model-len "
		    "needs %.2f GiB of KV cache: %.2f GiB short", c->needed_gib,
		    c->needed_gib - c->kv_gib);
}

/* What a shorter --max-model-len would give. */
static void
cap_whatif_len(struct rl_capacity *c)
{
	double	seqs = known(c->max_num_seqs) ? c->max_num_seqs : 0;

	if (!known(c->kv_tokens) || !known(c->max_model_len))
		return;
	if (c->kv_tokens < c->max_model_len)
		cap_line(&c->whatif, &c->nwhatif, "--max-model-len %.0f (from "
		    "%.0f): one full-length request fits (1.00x instead of "
		    "%.2fx)", floor(c->kv_tokens), c->max_model_len,
		    c->concurrency);
	else if (seqs > 1 && c->kv_tokens < seqs * c->max_model_len)
		cap_line(&c->whatif, &c->nwhatif, "--max-model-len %.0f (from "
		    "%.0f): all %.0f sequences of --max-num-seqs fit at full "
		    "length at once (now %.2f)", floor(c->kv_tokens / seqs),
		    c->max_model_len, seqs, c->concurrency);
}

/*
 * No room at all for the KV cache: the utilization that would leave one
 * GiB for it, when the GPU's total is known.
 */
static void
cap_whatif_util_empty(struct rl_capacity *c)
{
	double	u;

	u = c->util + (1.0 - c->kv_gib) / c->total_gib;
	if (u <= CAP_UTIL_MAX)
		cap_line(&c->whatif, &c->nwhatif, "--gpu-memory-utilization "
		    "%.2f (from %.2f): leaves about 1 GiB for the KV cache "
		    "instead of %.2f GiB", ceil(u * 100) / 100, c->util,
		    c->kv_gib);
	else
		cap_line(&c->whatif, &c->nwhatif, "--gpu-memory-utilization "
		    "alone cannot do it: a KV cache of 1 GiB would need %.2f of "
		    "the GPU; lower the activation peak or add GPUs "
		    "(--tensor-parallel-size)", u);
}

/* What a higher --gpu-memory-utilization would give. */
static void
cap_whatif_util(struct rl_capacity *c, double per_token)
{
	double	want, extra, u, floor_gib;

	if (known(c->util) && known(c->kv_gib) && c->kv_gib <= 0 &&
	    known(c->total_gib) && c->total_gib > 0 && !known(per_token)) {
		cap_whatif_util_empty(c);
		return;
	}
	if (!known(c->util) || !known(c->kv_gib) || !known(per_token) ||
	    !known(c->max_model_len))
		return;
	want = known(c->needed_gib) ? c->needed_gib :
	    per_token * c->max_model_len;
	if (c->kv_gib >= want && known(c->max_num_seqs) && c->max_num_seqs > 1)
		want *= c->max_num_seqs;
	extra = want - c->kv_gib;
	if (extra <= 0)
		return;
	if (!known(c->total_gib) && (floor_gib = cap_total_floor(c)) > 0) {
		/* A larger GPU needs a smaller step: this bounds it from above. */
		u = c->util + extra / floor_gib;
		if (u > 1)
			cap_line(&c->whatif, &c->nwhatif, "--gpu-memory-"
			    "utilization alone cannot do it: %.2f GiB more KV "
			    "cache may need more than the whole GPU (at least "
			    "%.1f GiB)", extra, floor_gib);
		else
			cap_line(&c->whatif, &c->nwhatif, "--gpu-memory-"
			    "utilization %.2f at most (from %.2f): %.2f GiB more "
			    "KV cache on a GPU of at least %.1f GiB%s",
			    ceil(u * 100) / 100, c->util, extra, floor_gib,
			    u > CAP_UTIL_MAX ? "; above 0.95 this leaves no "
			    "slack, so it may not be enough alone" : "");
		return;
	}
	if (!known(c->total_gib)) {
		cap_line(&c->whatif, &c->nwhatif, "--gpu-memory-utilization: "
		    "%.2f GiB more KV cache is needed; the GPU's total was not "
		    "logged, so the utilization that gives it is unknown",
		    extra);
		return;
	}
	u = c->util + extra / c->total_gib;
	if (u <= CAP_UTIL_MAX)
		cap_line(&c->whatif, &c->nwhatif, "--gpu-memory-utilization "
		    "%.2f (from %.2f): %.2f GiB more KV cache, enough for %s",
		    ceil(u * 100) / 100, c->util, extra, c->kv_gib >=
		    per_token * c->max_model_len ? "every sequence at full "
		    "length" : "one full-length request");
	else
		cap_line(&c->whatif, &c->nwhatif, "--gpu-memory-utilization "
		    "alone cannot do it: %.2f GiB more would need %.2f of the "
		    "GPU", extra, u);
}

/* What fewer --max-num-seqs would give. */
static void
cap_whatif_seqs(struct rl_capacity *c)
{
	if (known(c->kv_gib) && c->kv_gib <= 0 && known(c->activation_gib)) {
		cap_line(&c->whatif, &c->nwhatif, "--max-num-seqs or "
		    "--max-num-batched-tokens lower: the profiling run's "
		    "activation peak (%.2f GiB) shrinks with them and is taken "
		    "off the budget before the KV cache", c->activation_gib);
		return;
	}
	if (!known(c->concurrency))
		return;
	if (c->concurrency < 1)
		cap_line(&c->whatif, &c->nwhatif, "--max-num-seqs: fewer "
		    "sequences do not help while not even one full-length "
		    "request fits");
	else if (known(c->max_num_seqs) && c->max_num_seqs > c->concurrency)
		cap_line(&c->whatif, &c->nwhatif, "--max-num-seqs %.0f (from "
		    "%.0f): every admitted sequence can reach full length "
		    "without preemption; fewer sequences also lower the "
		    "activation peak", floor(c->concurrency), c->max_num_seqs);
}

/* Work out the budget and the what-ifs, if vLLM logged its profile. */
void
capacity_build(struct rl_incident *inc)
{
	struct rl_capacity	*c = &inc->answer.capacity;
	double			 per_token;
	size_t			 i;

	for (i = 0; i < sizeof cap_fields / sizeof *cap_fields; i++)
		*cap_at(c, cap_fields[i].off) = NAN;
	c->max_num_seqs = NAN;
	if (!cap_gather(inc, c)) {
		evlist_clear(&c->evidence);
		c->present = false;
		return;
	}
	c->present = true;
	cap_derive(c, &per_token);
	cap_budget_lines(c, per_token);
	cap_whatif_len(c);
	cap_whatif_util(c, per_token);
	cap_whatif_seqs(c);
}
