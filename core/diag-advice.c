/*
 * diag-advice.c: what to keep before restarting, and what to do next.
 *
 * The checklist is the evidence an engineer (or a bug report upstream)
 * will want and that a restart destroys: framework versions, the GPU and
 * its driver, the launch arguments, the model and its quantization, the
 * memory profile, the hosts' kernel lines, and the first traceback of every
 * failing rank.  Rules say which item a line fills (the checklist key of
 * rules/FORMAT.md); what no line filled is listed as missing, with how to
 * get it.
 *
 * The next steps follow the verdict: hardware goes to the hardware team
 * and the job restarts without the node; a code or config failure is not
 * fixed by restarting, so the change is rolled back first; infrastructure
 * that failed one host is avoided, infrastructure that failed everything
 * is fixed and the job restarted; and whatever restarts resumes from the
 * last safe checkpoint, or the last one completed before a hardware error.
 * It is advice with its reasons, never an action.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define CHECK_EVIDENCE	3	/* lines kept per checklist item */
#define CHECK_RANKS	8	/* failing ranks named in the traceback item */

/* Each checklist item: its name and how to get it (rules.c has its key). */
static const struct {
	const char	*name;
	const char	*how;
} check_items[CHECK_NITEMS] = {
	[CHECK_VERSIONS] = { "framework versions",
	    "pip list | grep -i -E 'torch|vllm|nccl|deepspeed|megatron'" },
	[CHECK_GPU] = { "GPU model", "nvidia-smi -L on each host" },
	[CHECK_DRIVER] = { "driver version",
	    "nvidia-smi | head -4 on each host" },
	[CHECK_ARGS] = { "launch command or non-default arguments",
	    "the exact command line and environment of the launch" },
	[CHECK_MODEL] = { "model and quantization",
	    "the model path or name, its dtype and quantization" },
	[CHECK_MEMORY] = { "memory profile",
	    "the engine's start-up memory lines, or nvidia-smi "
	    "--query-gpu=memory.used,memory.total --format=csv" },
	[CHECK_KERNEL] = { "host kernel lines",
	    "dmesg -T (or journalctl -k) from every host, around the "
	    "failure" },
	[CHECK_TRACEBACK] = { "first traceback of every failing "
	    "rank", "each failing rank's stderr from its start" },
};

static const char *advice_kinds[ADVICE_NKINDS] = {
	"restart", "restart-without-host", "resume-from-checkpoint",
	"roll-back", "hand-node-to-hardware-team"
};

const char *
check_name(enum rl_check c)
{
	return c < CHECK_NITEMS ? check_items[c].name : "?";
}

const char *
advice_kind_name(enum rl_advice_kind k)
{
	return k < ADVICE_NKINDS ? advice_kinds[k] : "?";
}

/* Was a source read as a kernel log (its times are dmesg's or syslog's)? */
static bool
source_kernel(const struct rl_source *s)
{
	return s->lines > 0 && (s->clock.seen[CLOCK_DMESG] > 0 ||
	    s->clock.seen[CLOCK_DMESG_T] > 0);
}

/* Fill the items the rules tag, from every event. */
static void
checklist_fill(struct rl_incident *inc)
{
	struct rl_check_item	*c = inc->answer.checklist;
	const struct rl_event	*e;
	size_t			 i;
	int			 k;

	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rule == NULL || e->rule->checklist == 0)
			continue;
		for (k = 0; k < CHECK_NITEMS; k++) {
			if (k == CHECK_TRACEBACK ||
			    !(e->rule->checklist & (1u << k)))
				continue;
			c[k].found = true;
			if (c[k].evidence.n < CHECK_EVIDENCE)
				evlist_add(&c[k].evidence, inc, (int)i,
				    STANCE_SUPPORTS, "%s", check_items[k].name);
		}
	}
	for (i = 0; i < inc->nsources && !c[CHECK_KERNEL].found; i++) {
		if (!source_kernel(inc->sources[i]))
			continue;
		c[CHECK_KERNEL].found = true;
		evlist_add_file(&c[CHECK_KERNEL].evidence, (int)i, NULL,
		    STANCE_SUPPORTS, "a kernel log was given");
	}
}

/*
 * Each rank's first traceback line, by position in the ranks table, in
 * one pass over the events (there may be thousands of ranks).
 */
static int *
checklist_tracebacks_of(const struct rl_incident *inc)
{
	const struct rl_event	*e;
	int			*first;
	size_t			 i;
	long			 at;

	first = xreallocarray(NULL, inc->nranks + 1, sizeof *first);
	for (i = 0; i <= inc->nranks; i++)
		first[i] = RL_NONE;
	for (i = 0; i < inc->nevents; i++) {
		e = event_ahead(inc->events, inc->nevents, i);
		if (e->rank == RL_NONE || e->rule == NULL ||
		    !(e->rule->checklist & (1u << CHECK_TRACEBACK)) ||
		    (at = incident_rank_pos(inc, e->rank)) < 0 ||
		    first[at] != RL_NONE)
			continue;
		first[at] = (int)i;
	}
	return first;
}

/* What a failing rank without a traceback needs instead. */
static const char *
checklist_instead(const struct rl_incident *inc, const struct rl_rank *r)
{
	const struct rl_event	*e;

	if (r->state == RANK_HUNG)
		return "hung: a py-spy dump or gdb stack of it, if alive";
	if (r->first_event == RL_NONE)
		return "its stderr";
	e = inc->events[r->first_event];
	if (e->rule != NULL && (e->rule->mark == MARK_EXIT ||
	    e->rule->mark == MARK_RECORD))
		return "killed by a signal: dmesg of its host instead";
	return "its stderr";
}

/* The traceback item: every failing rank's first traceback. */
static void
checklist_tracebacks(struct rl_incident *inc)
{
	struct rl_check_item	*c = &inc->answer.checklist[CHECK_TRACEBACK];
	const struct rl_rank	*r;
	struct buf		 b = { 0 };
	size_t			 i, failing = 0, without = 0;
	int			 ev, *first = checklist_tracebacks_of(inc);

	for (i = 0; i < inc->nranks; i++) {
		r = &inc->ranks[i];
		if (r->state == RANK_OK)
			continue;
		failing++;
		if ((ev = first[i]) != RL_NONE) {
			if (c->evidence.n >= CHECK_EVIDENCE)
				continue;
			if (r->rank != RL_NONE)
				evlist_add(&c->evidence, inc, ev,
				    STANCE_SUPPORTS, "rank %d's first "
				    "traceback", r->rank);
			else
				evlist_add(&c->evidence, inc, ev,
				    STANCE_SUPPORTS, "the first traceback of "
				    "a process with no rank");
			continue;
		}
		if (without++ >= CHECK_RANKS)
			continue;
		buf_adds(&b, without > 1 ? "; " : "");
		/* The unranked row stands for the writers no line ranks. */
		if (r->rank != RL_NONE)
			buf_printf(&b, "rank %d", r->rank);
		else if (r->host != NULL)
			buf_printf(&b, "a process on %s", r->host);
		else
			buf_adds(&b, "a process with no rank");
		buf_printf(&b, " (%s)", checklist_instead(inc, r));
	}
	free(first);
	if (without > CHECK_RANKS)
		buf_printf(&b, "; and %zu more", without - CHECK_RANKS);
	c->found = failing > 0 && without == 0;
	if (without > 0)
		xasprintf(&c->missing, "%s: %s", check_items[CHECK_TRACEBACK].name,
		    b.p);
	buf_clear(&b);
}

/* Fill the checklist and say what is missing. */
static void
checklist_build(struct rl_incident *inc)
{
	struct rl_check_item	*c = inc->answer.checklist;
	int			 k;

	checklist_fill(inc);
	checklist_tracebacks(inc);
	for (k = 0; k < CHECK_NITEMS; k++) {
		if (k == CHECK_TRACEBACK || c[k].found)
			continue;
		xasprintf(&c[k].missing, "%s (%s)", check_items[k].name,
		    check_items[k].how);
	}
}

/* Append one piece of advice. */
static void __attribute__((format(printf, 5, 6)))
advice_add(struct rl_answer *a, enum rl_advice_kind kind, const char *host,
    int step, const char *fmt, ...)
{
	struct rl_advice	*v;
	va_list			 ap;

	a->advice = xreallocarray(a->advice, a->nadvice + 1, sizeof *a->advice);
	v = &a->advice[a->nadvice++];
	memset(v, 0, sizeof *v);
	v->kind = kind;
	v->host = host != NULL ? xstrdup(host) : NULL;
	v->step = step;
	va_start(ap, fmt);
	xvasprintf(&v->why, fmt, ap);
	va_end(ap);
	switch (kind) {
	case ADVICE_RESTART:
		v->text = xstrdup("Restart the job as it is.");
		break;
	case ADVICE_EXCLUDE_HOST:
		xasprintf(&v->text, "Restart without host %s.", host);
		break;
	case ADVICE_RESUME:
		xasprintf(&v->text, "Resume from checkpoint step %d.", step);
		break;
	case ADVICE_ROLLBACK:
		v->text = xstrdup(a->domain == DOMAIN_CONFIG &&
		    a->group == GROUP_CAPACITY ? "Roll back the config change, "
		    "or change one limit, before restarting." :
		    a->domain == DOMAIN_CONFIG ? "Fix or roll back the config "
		    "(paths, arguments, environment) before restarting." :
		    a->domain == DOMAIN_FRAMEWORK ? "Roll back the framework or "
		    "library change (or work around it) before restarting." :
		    "Roll back the code change (or fix it) before restarting.");
		break;
	default:
		xasprintf(&v->text, "Hand host %s to the hardware team.",
		    host != NULL ? host : "(unknown)");
		break;
	}
}

/* The host of the first failure, or NULL. */
static const char *
advice_host(const struct rl_incident *inc)
{
	const struct rl_event	*f = inc->events[inc->answer.first];
	const struct rl_rank	*r;

	if (event_host(inc, f) != NULL)
		return event_host(inc, f);
	r = f->rank != RL_NONE ? incident_rank(inc, f->rank) : NULL;
	return r != NULL ? r->host : NULL;
}

/* Is the first failure the scheduler's or an operator's doing? */
static bool
advice_transient(const struct rl_incident *inc)
{
	const struct rl_event	*f = inc->events[inc->answer.first];

	return f->rule != NULL && f->rule->job_scope;
}

/* Do the ranks run on more than one host, so that one can be left out? */
static bool
advice_multihost(const struct rl_incident *inc)
{
	const char	*h = NULL;
	size_t		 i;

	for (i = 0; i < inc->nranks; i++) {
		if (inc->ranks[i].host == NULL)
			continue;
		if (h != NULL && strcmp(h, inc->ranks[i].host) != 0)
			return true;
		h = inc->ranks[i].host;
	}
	return false;
}

/* The next steps when the infrastructure failed. */
static void
advice_infra(struct rl_incident *inc, const char *host, bool one)
{
	struct rl_answer	*a = &inc->answer;
	int			 rank = inc->events[a->first]->rank;

	if (a->first_role == ROLE_HANG && one)
		advice_add(a, ADVICE_EXCLUDE_HOST, host, RL_NONE, "rank %d on "
		    "%s stopped while the others waited; take a stack of it "
		    "(py-spy dump) first", rank, host);
	else if (a->first_role == ROLE_HANG)
		advice_add(a, ADVICE_RESTART, NULL, RL_NONE, "rank %d stopped "
		    "while the others waited; take a stack of it (py-spy dump) "
		    "before restarting, and if it stops at the same place "
		    "again suspect the code (a collective one rank skips) or "
		    "its GPU", rank);
	else if (one && !advice_transient(inc))
		advice_add(a, ADVICE_EXCLUDE_HOST, host, RL_NONE, "one host's "
		    "infrastructure failed (memory, shared memory, network or "
		    "placement) and the others followed");
	else if (a->scope == SCOPE_ONE)
		advice_add(a, ADVICE_RESTART, NULL, RL_NONE, "one rank's "
		    "infrastructure failed (host memory, shared memory, the "
		    "network or a limit); restart once the cause is fixed, "
		    "changing one limit at a time");
	else
		advice_add(a, ADVICE_RESTART, NULL, RL_NONE, "the "
		    "infrastructure failed for the whole job (network, "
		    "scheduler, storage): restart once it is fixed");
}

/* The next steps for the verdict's domain. */
static void
advice_domain(struct rl_incident *inc, const char *host)
{
	struct rl_answer	*a = &inc->answer;
	bool			 one = a->scope == SCOPE_ONE && host != NULL &&
				    advice_multihost(inc);

	switch (a->domain) {
	case DOMAIN_HARDWARE:
		advice_add(a, ADVICE_HARDWARE, host, RL_NONE, "the failure is "
		    "hardware (%s); record nvidia-smi -q and the Xid lines "
		    "first, then drain the node", a->scope == SCOPE_ALL ?
		    "but every rank failed alike, so check this first" :
		    "on one GPU");
		if (host != NULL && advice_multihost(inc))
			advice_add(a, ADVICE_EXCLUDE_HOST, host, RL_NONE, "the "
			    "same node would fail the job again");
		break;
	case DOMAIN_CODE:
	case DOMAIN_CONFIG:
	case DOMAIN_FRAMEWORK:
		advice_add(a, ADVICE_ROLLBACK, NULL, RL_NONE, "a %s failure "
		    "follows the request, not the node: restarting unchanged "
		    "fails the same way%s", domain_name(a->domain),
		    a->group == GROUP_CAPACITY ? "; change one limit at a "
		    "time (see the capacity what-ifs)" : "");
		break;
	case DOMAIN_INFRA:
		advice_infra(inc, host, one);
		break;
	default:
		advice_add(a, ADVICE_RESTART, NULL, RL_NONE, "the cause is not "
		    "known: collect the missing evidence first, then restart "
		    "once and watch whether it fails the same way");
		break;
	}
}

/* Where to resume from, when the logs or the folder say. */
static void
advice_resume(struct rl_incident *inc)
{
	struct rl_answer	*a = &inc->answer;
	int			 step = a->last_safe_step;

	if (a->nsuspect > 0)
		step = a->clean_step;
	if (step == RL_NONE) {
		if (a->ckpt == CKPT_UNSAFE)
			advice_add(a, ADVICE_RESTART, NULL, RL_NONE, "no "
			    "checkpoint was completed by every saving rank: "
			    "the job starts from scratch (or from an older "
			    "checkpoint verified by hand)");
		return;
	}
	advice_add(a, ADVICE_RESUME, NULL, step, "%s", a->nsuspect > 0 ?
	    "the last checkpoint completed before the hardware error" :
	    a->nunsafe > 0 ? "the last checkpoint every saving rank completed; "
	    "later saves are partial" : "the last checkpoint every saving "
	    "rank completed");
}

/* The checklist and, for a failure, the next steps. */
void
advice_build(struct rl_incident *inc)
{
	checklist_build(inc);
	if (inc->answer.first == RL_NONE)
		return;
	advice_domain(inc, advice_host(inc));
	advice_resume(inc);
}
