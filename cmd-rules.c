/*
 * cmd-rules.c: `rankline rules`, for the engineer who reads or extends the
 * packs: list them, check a pack for errors, run every example and counter,
 * explain one signature.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rankline.h"

/* Print errors, made safe for a terminal. */
static void
print_errors(const struct errlist *e, const char *prefix)
{
	struct buf	b = { 0 };
	size_t		i;

	for (i = 0; i < e->n; i++) {
		buf_reset(&b);
		sanitize_terminal(&b, e->v[i], strlen(e->v[i]));
		fprintf(stderr, "%s%s\n", prefix, b.p);
	}
	buf_clear(&b);
}

/* The default packs; a broken pack is reported and the rest still load. */
struct ruleset *
rules_load_or_warn(void)
{
	struct ruleset	*rs;
	struct errlist	 errs = { 0 };

	rs = ruleset_create();
	if (ruleset_load_defaults(rs, &errs) != 0)
		print_errors(&errs, "rankline: ");
	print_errors(ruleset_warnings(rs), "rankline: warning: ");
	errlist_clear(&errs);
	return rs;
}

static int
rules_list(struct ruleset *rs)
{
	const struct rl_rule	*r;
	size_t			 i;

	for (i = 0; i < ruleset_nrules(rs); i++) {
		r = ruleset_rule(rs, i);
		printf("%-44s %-10s %-14s %s\n", r->id, role_name(r->role),
		    domain_name(r->domain), r->title ? r->title : "");
	}
	return 0;
}

/* Check the given packs (or the defaults): non-zero on any error. */
static int
rules_check(int argc, char **argv)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 errs = { 0 }, warns = { 0 };
	int		 k, nerr = 0;

	if (argc == 0)
		nerr = ruleset_load_defaults(rs, &errs);
	for (k = 0; k < argc; k++)
		nerr += ruleset_load_file(rs, argv[k], &errs);
	ruleset_finish(rs);
	ruleset_check(rs, &warns);
	print_errors(&errs, "error: ");
	print_errors(&warns, "warning: ");
	printf("%zu rules, %zu attributions, %zu knobs: %d error%s, %zu "
	    "warning%s\n", ruleset_nrules(rs), ruleset_nattribs(rs),
	    ruleset_nknobs(rs), nerr, nerr == 1 ? "" : "s", warns.n,
	    warns.n == 1 ? "" : "s");
	errlist_clear(&errs);
	errlist_clear(&warns);
	ruleset_free(rs);
	return nerr == 0 ? 0 : 1;
}

/* Run every example and counter of the loaded packs. */
static int
rules_test(struct ruleset *rs)
{
	struct errlist	errs = { 0 };
	unsigned	checks = 0;
	int		bad;

	bad = ruleset_test(rs, &errs, &checks);
	print_errors(&errs, "FAIL ");
	printf("%u passed, %d failed\n", checks - (unsigned)bad, bad);
	errlist_clear(&errs);
	return bad == 0 ? 0 : 1;
}

/* Explain one rule, and the knobs it names. */
static int
rules_explain(struct ruleset *rs, const char *id)
{
	const struct rl_rule	*r;
	const struct rl_knob	*k;
	char			*dup, *tok, *save;

	if ((r = ruleset_find(rs, id)) == NULL) {
		fprintf(stderr, "rankline: no rule %s\n", id);
		return 1;
	}
	printf("%s: %s\n  role %s, domain %s", r->id, r->title ? r->title : "",
	    role_name(r->role), domain_name(r->domain));
	if (group_name(r->group) != NULL)
		printf(", group %s", group_name(r->group));
	printf("\n  from %s:%u\n\n", r->file, r->line);
	if (r->explain)
		printf("What it means:\n  %s\n\n", r->explain);
	if (r->action)
		printf("First action:\n  %s\n\n", r->action);
	if (r->probe)
		printf("Probe (read-only; run it yourself):\n  %s\n\n", r->probe);
	if (r->knobs != NULL) {
		printf("Knobs:\n");
		dup = xstrdup(r->knobs);
		for (tok = strtok_r(dup, ", ", &save); tok != NULL;
		    tok = strtok_r(NULL, ", ", &save)) {
			k = ruleset_knob(rs, tok);
			printf("  %s: %s\n", tok, k && k->what ? k->what : "?");
			if (k && k->helps)
				printf("    helps: %s\n", k->helps);
			if (k && k->cost)
				printf("    cost: %s\n", k->cost);
		}
		free(dup);
	}
	return 0;
}

int
cmd_rules(const struct options *o, int argc, char **argv)
{
	struct ruleset	*rs;
	int		 rv;

	(void)o;
	if (argc == 0) {
		fprintf(stderr, "usage: rankline rules list | check [FILE...] "
		    "| test | explain ID\n");
		return EXIT_USAGE;
	}
	if (strcmp(argv[0], "check") == 0)
		return rules_check(argc - 1, argv + 1);
	rs = rules_load_or_warn();
	if (strcmp(argv[0], "list") == 0)
		rv = rules_list(rs);
	else if (strcmp(argv[0], "test") == 0)
		rv = rules_test(rs);
	else if (strcmp(argv[0], "explain") == 0 && argc == 2)
		rv = rules_explain(rs, argv[1]);
	else {
		fprintf(stderr, "usage: rankline rules list | check [FILE...] "
		    "| test | explain ID\n");
		rv = EXIT_USAGE;
	}
	ruleset_free(rs);
	return rv;
}
