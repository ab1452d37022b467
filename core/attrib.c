/*
 * attrib.c: what a source's path says about who wrote it.
 *
 * Path forms are data (the [attrib] stanzas of kind path in rules/): every
 * one that matches may add what it names (a rank, a local rank, a host, a
 * process key), the highest priority first, without overwriting what a
 * higher one said.  So `node1/logs/job/attempt_0/2/stderr.log` takes its
 * host from one form and its local rank from another.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "rules-int.h"

/* Order path forms by priority, highest first. */
static int
attrib_cmp(const void *a, const void *b)
{
	const struct rl_attrib	*x = *(const struct rl_attrib *const *)a;
	const struct rl_attrib	*y = *(const struct rl_attrib *const *)b;

	return (x->priority < y->priority) - (x->priority > y->priority);
}

/* Apply one matched path form to the source. */
static void
attrib_apply(struct rl_source *src, const struct rl_attrib *a,
    const struct rl_match *m, const char *path)
{
	int64_t	 v;
	char	*host;
	int	 g;

	if (a->copy)
		src->copy = true;
	if (src->rank == RL_NONE && (v = match_int(m, CAP_RANK)) != RL_CAP_UNSET)
		src->rank = (int)v;
	if (src->local_rank == RL_NONE &&
	    (v = match_int(m, CAP_LOCAL_RANK)) != RL_CAP_UNSET)
		src->local_rank = (int)v;
	if (src->host == NULL && (host = match_str(m, CAP_HOST)) != NULL) {
		if (*host != '\0')
			src->host = host;
		else
			free(host);
	}
	g = pcre2_substring_number_from_name(m->pat->code, (PCRE2_SPTR)"proc");
	if (src->proc_key == NULL && g > 0 && g < m->ngroups &&
	    m->ovec[2 * g] != PCRE2_UNSET) {
		xasprintf(&src->proc_key, "%s:%.*s", a->id,
		    (int)(m->ovec[2 * g + 1] - m->ovec[2 * g]),
		    path + m->ovec[2 * g]);
	}
}

/* Fill a source's rank, host and process key from its path. */
void
attrib_path(const struct ruleset *crs, struct rl_source *src)
{
	struct ruleset		 *rs = (struct ruleset *)crs;
	const struct rl_attrib	**v;
	struct rl_match		  m;
	const char		 *path = src->path;
	size_t			  n = 0, i, j;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	v = xcalloc(rs->nattribs + 1, sizeof *v);
	for (i = 0; i < rs->nattribs; i++) {
		if (rs->attribs[i]->kind == ATTRIB_PATH)
			v[n++] = rs->attribs[i];
	}
	qsort(v, n, sizeof *v, attrib_cmp);
	for (i = 0; i < n; i++) {
		for (j = 0; j < v[i]->npat; j++) {
			if (ruleset_match_pattern(rs, &v[i]->pat[j], path,
			    strlen(path), &m)) {
				attrib_apply(src, v[i], &m, path);
				break;
			}
		}
	}
	free(v);
}
