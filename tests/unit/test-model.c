/*
 * test-model.c: the model's own judgements and accessors, which every
 * reader (the store, the console, the reports) asks instead of deciding
 * again: is an event a failure, a process's last line, a job fact's name,
 * an event's context when it has none.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "tap.h"

static void
test_failing(void)
{
	static const struct {
		enum rl_role	 role;
		bool		 failing;
	} roles[] = {
		{ ROLE_NONE, false }, { ROLE_ROOT, true },
		{ ROLE_SYMPTOM, true }, { ROLE_COLLATERAL, true },
		{ ROLE_WRAPPER, true }, { ROLE_PROGRESS, false },
		{ ROLE_EVIDENCE, false }, { ROLE_HANG, true },
	};
	struct rl_event	e;
	size_t		i;
	int		bad = 0, harmless = 0;

	for (i = 0; i < nitems(roles); i++) {
		memset(&e, 0, sizeof e);
		e.role = roles[i].role;
		if (event_failing_role(e.role) != roles[i].failing ||
		    event_failing(&e) != roles[i].failing)
			bad++;
		e.harmless = true;
		if (event_failing(&e))
			harmless++;
	}
	is_int(bad, 0, "root, symptom, collateral, wrapper and hang are "
	    "failures; progress and evidence are not");
	is_int(harmless, 0, "an event its context made harmless is none");
}

static void
test_accessors(void)
{
	struct rl_incident	*inc = incident_create(NULL);
	struct rl_process	*p;
	struct rl_event		 e;
	char			*s;
	int64_t			 first = 0;

	p = incident_process(inc, "host/0", "host", 0, 0);
	s = process_last_line(inc, p);
	is_str(s, "", "a process with no timed line: its last line is empty");
	free(s);
	p->last_text = xstrdup("[10:00] step 9");
	s = process_last_line(inc, p);
	is_str(s, "[10:00] step 9", "else the line ingestion copied");
	ok(s != p->last_text, "as a copy the caller owns");
	free(s);
	is_str(job_fact_name(JOB_NAME), "name", "a job fact's JSON name");
	is_str(job_fact_name(JOB_WORLD), "world_size", "the world size's");
	is_str(job_fact_name(JOB_NFACTS), "?", "none past the last");

	memset(&e, 0, sizeof e);
	e.role = ROLE_ROOT;
	e.source = 3;
	e.text = "x";
	e.process = RL_NONE;
	ok(event_context(inc, &e, &first) == NULL,
	    "an event of no source has no context");
	incident_add_source(inc, "a.log", SOURCE_FILE);
	e.source = 0;
	ok(event_context(inc, &e, &first) == NULL,
	    "nor one whose lines were never read");
	incident_free(inc);
}

int
main(void)
{
	test_failing();
	test_accessors();
	return tap_done();
}
