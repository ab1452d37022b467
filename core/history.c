/*
 * history.c: the incident's past (struct rl_history, model.h), which the
 * store fills and the reports and the console read: freeing what a store
 * put in it, and the names the outputs give its offenders.  It lives in
 * core/ because the reports and the wording, which never speak SQL, name
 * the offenders too.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* Free what a store put into a history; the struct itself is the caller's. */
void
history_clear(struct rl_history *h)
{
	size_t	i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nmatches; i++) {
		free(h->matches[i].time);
		free(h->matches[i].fingerprint);
		free(h->matches[i].diagnosis);
		free(h->matches[i].resolution);
		free(h->matches[i].summary);
	}
	free(h->matches);
	for (i = 0; i < h->noffenders; i++) {
		free(h->offenders[i].name);
		free(h->offenders[i].first);
		free(h->offenders[i].last);
	}
	free(h->offenders);
	memset(h, 0, sizeof *h);
}

/* What an offender is, as the reports say it. */
const char *
offender_kind_name(enum rl_offender_kind kind)
{
	static const char *const names[] = { "host", "gpu", "rank" };

	return (size_t)kind < nitems(names) ? names[kind] : "?";
}
