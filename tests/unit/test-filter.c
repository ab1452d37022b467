/*
 * test-filter.c: the console's index under a filter and a search, without
 * a terminal (#25).  multinode-1 (five ranks on two nodes and the lines
 * with no rank) is read as the console reads it, the index is built with
 * each filter, and every row and line left is checked against it; then a
 * search's hits are checked to be listed lines, in time order.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui.h"
#include "tap.h"

/* Build the index with the filter the command line sets. */
static void
with(struct tui *t, const char *command)
{
	struct cmdline	 c;
	char		*cause = NULL;

	if (cmdline_parse(&c, command, &cause) != 0)
		fatal("%s: %s", command, cause);
	filter_command(&t->filter, &c);
	cmdline_clear(&c);
	model_build(t);
}

/* Does every listed line pass pass(), and every hidden one not? */
static int
check_lines(struct tui *t, bool (*pass)(const struct rl_event *))
{
	size_t	 i;
	int	 bad = 0;
	bool	 shown;

	for (i = 0; i < t->index.nevents; i++) {
		if (t->index.copy_of[i] >= 0)
			continue;
		shown = t->index.row_of_event[i] >= 0;
		if (shown != pass(t->inc->events[i]))
			bad++;
	}
	return bad;
}

static bool
is_failing(const struct rl_event *e)
{
	return event_failing(e);
}

static bool
is_not_progress(const struct rl_event *e)
{
	return e->role != ROLE_PROGRESS;
}

static bool
is_gloo(const struct rl_event *e)
{
	return e->rule != NULL && strncmp(e->rule->id, "torch.gloo.", 11) == 0;
}

static void
test_filters(struct tui *t)
{
	size_t	 r, i;
	int	 bad = 0, first = t->inc->answer.first;
	char	 label[128];

	model_build(t);
	is_int(t->index.nrows, 6, "six rows unfiltered (five ranks, no rank)");
	with(t, "ranks 0,3-4");
	is_int(t->index.nrows, 3, ":ranks 0,3-4 leaves three rows");
	for (r = 0; r < t->index.nrows; r++) {
		i = (size_t)t->index.rows[r].rank->rank;
		if (i != 0 && i != 3 && i != 4)
			bad++;
		for (i = 0; i < t->index.rows[r].n; i++) {
			if (t->index.row_of_event[t->index.ev[
			    t->index.rows[r].first + i]] != (int)r)
				bad++;
		}
	}
	is_int(bad, 0, "ranks 0, 3 and 4, each line on its row");
	with(t, "ranks 0-1");
	ok(t->index.row_of_event[first] == -1 && t->index.first_row == -1,
	    "with ranks 0-1 the first failure's line is hidden");
	tui_select_event(t, first);
	ok(t->sel_event == RL_NONE, "and cannot be selected");
	is_str(model_event_label(t, (unsigned)first, label, sizeof label),
	    "rank 4 (node1)", "the header still names it");
	with(t, "clear");
	is_int(t->index.nrows, 6, ":clear brings the six rows back");
	with(t, "failures");
	is_int(check_lines(t, is_failing), 0, ":failures lists the failing "
	    "lines and hides the rest");
	with(t, "clear");
	with(t, "progress off");
	is_int(check_lines(t, is_not_progress), 0, ":progress off hides "
	    "progress only");
	with(t, "clear");
	with(t, "sig torch.gloo");
	is_int(check_lines(t, is_gloo), 0, ":sig torch.gloo lists that "
	    "family's lines");
	is_int(t->index.nrows, 4, "on the four collateral ranks' rows");
	with(t, "host node1");
	ok(t->index.nrows == 2 && strcmp(t->index.rows[0].rank->host,
	    "node1") == 0, "with :host node1 too, node1's two of them");
	with(t, "ranks 99");
	ok(t->index.nrows == 0 && t->sel_event == RL_NONE,
	    "a filter can leave nothing, selected nothing");
	with(t, "clear");
}

/* Does text hold word (lower case), in any case? */
static bool
has_word(const char *text, const char *word)
{
	char	*low = xstrdup(text), *p;
	bool	 found;

	for (p = low; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	found = strstr(low, word) != NULL;
	free(low);
	return found;
}

static void
test_search(struct tui *t)
{
	size_t	 i;
	int	 bad = 0, prev = -1, n = 0;

	search_start(t, "traceback", false);
	ok(search_active(t) && t->message != NULL &&
	    strncmp(t->message, "hit ", 4) == 0, "/traceback: %s",
	    t->message ? t->message : "");
	for (i = 0; i < t->index.nevents; i++) {
		if (!search_is_hit(t, (unsigned)i))
			continue;
		n++;
		if (!lines_listed(t, (unsigned)i) || (int)i <= prev ||
		    !has_word(t->inc->events[i]->text, "traceback"))
			bad++;
		prev = (int)i;
	}
	ok(n > 5 && bad == 0, "%d hits, each a listed line with the word", n);
	with(t, "ranks 4");
	for (i = 0, bad = 0; i < t->index.nevents; i++) {
		if (search_is_hit(t, (unsigned)i) &&
		    t->inc->events[i]->rank != 4)
			bad++;
	}
	is_int(bad, 0, "a filter leaves only its rows' hits");
	search_free(t);
	ok(!search_active(t), "the search is forgotten");
}

int
main(void)
{
	struct ruleset		*rs = ruleset_create();
	struct errlist		 e = { 0 };
	struct tui		 t;
	const char		*shared = getenv("RL_SHARED");
	char			*path, *argv[1];

	xasprintf(&path, "%s/corpus/torch/multinode-1",
	    shared != NULL ? shared : "../shared");
	if (access(path, R_OK) != 0) {
		printf("1..0 # SKIP no corpus at %s (set RL_SHARED)\n", path);
		free(path);
		ruleset_free(rs);
		return 0;
	}
	setenv("RANKLINE_NO_USER_RULES", "1", 1);
	ruleset_load_defaults(rs, &e);
	ruleset_finish(rs);
	memset(&t, 0, sizeof t);
	t.inc = incident_create(rs);
	t.sel_event = RL_NONE;
	t.sel_auto = true;
	argv[0] = path;
	is_int(pipeline_read(t.inc, 1, argv, NULL, NULL, 1), 0,
	    "multinode-1 is read");
	pipeline_diagnose(t.inc);
	test_filters(&t);
	test_search(&t);
	model_clear(&t.index);
	lines_free(&t);
	free(t.message);
	free(t.sel_key.host);
	incident_free(t.inc);
	errlist_clear(&e);
	ruleset_free(rs);
	free(path);
	return tap_done();
}
