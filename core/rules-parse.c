/*
 * rules-parse.c: rule packs (rules/FORMAT.md) into rules, attributions and
 * knobs.  One stanza is built at a time and checked when the next header
 * (or the end of the file) arrives; a bad stanza is reported with its
 * file:line and dropped, and the rest of the pack still loads.  A stanza
 * whose id is already known replaces the earlier one in place, which is how
 * a user's pack overrides a shipped rule; within one pack the same id twice
 * is a mistake, and is warned of with both places.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

enum stanza_kind { STANZA_NONE, STANZA_RULE, STANZA_ATTRIB, STANZA_KNOB };

/* The stanza being read. */
struct parse_state {
	struct ruleset	*rs;
	struct errlist	*errs;
	const char	*file;
	enum stanza_kind kind;
	unsigned	 line;		/* of the header */
	bool		 bad;		/* an error was reported: drop it */
	struct rl_rule	*rule;
	struct rl_attrib *attrib;
	struct rl_knob	*knob;
};

/* Find a name in a table of names; -1 when absent. */
static int
name_lookup(const char *const *names, int n, const char *s)
{
	int	i;

	for (i = 0; i < n; i++) {
		if (names[i] != NULL && strcmp(names[i], s) == 0)
			return i;
	}
	return -1;
}

static const char *const role_keys[] = {
	NULL, "root", "symptom", "collateral", "wrapper", "progress",
	"evidence"
};
static const char *const domain_keys[] = {
	"none", "code", "config", "infrastructure", "hardware", "framework",
	"unknown"
};
static const char *const group_keys[] = {
	"none", "capacity", "worker-death", "communication", "kernel", "other"
};
static const char *const severity_keys[] = { "info", "warning", "error", "fatal" };
static const char *const mark_keys[] = {
	"none", "step", "ckpt-begin", "ckpt-end", "ready", "shutdown", "exit",
	"record", "alive"
};
static const char *const attrib_keys[] = { "path", "prefix", "link", "record" };

/* Append a string to a string vector. */
static void
strv_add(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

/* Replace an owned string. */
static void
str_set(char **dst, const char *s)
{
	free(*dst);
	*dst = xstrdup(s);
}

/* Compile and append a pattern. */
static int
pattern_add(struct rl_pattern **v, size_t *n, const char *src, char **cause)
{
	struct rl_pattern	p;

	if (pattern_compile(&p, src, cause) != 0)
		return -1;
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = p;
	return 0;
}

/* Set an enum from a table of names, or say which names are allowed. */
static int
enum_set(int *dst, const char *const *names, int n, const char *key,
    const char *value, char **cause)
{
	struct buf	b = { 0 };
	int		i;

	if ((i = name_lookup(names, n, value)) >= 0) {
		*dst = i;
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (names[i] != NULL)
			buf_printf(&b, "%s%s", b.len ? ", " : "", names[i]);
	}
	xasprintf(cause, "%s '%s' is not one of: %s", key, value, b.p);
	buf_clear(&b);
	return -1;
}

#define NAMES(t)	(t), (int)(sizeof (t) / sizeof (t)[0])

/* The checklist items a rule's lines fill: comma-separated names. */
static int
checklist_set(unsigned *dst, const char *value, char **cause)
{
	char	*dup = xstrdup(value), *tok, *save;
	int	 k, i;

	*dst = 0;
	for (tok = strtok_r(dup, ", ", &save); tok != NULL;
	    tok = strtok_r(NULL, ", ", &save)) {
		if ((k = check_lookup(tok)) < 0) {
			struct buf	b = { 0 };

			for (i = 0; i < CHECK_NITEMS; i++)
				buf_printf(&b, "%s%s", i ? ", " : "",
				    check_key(i));
			xasprintf(cause, "checklist '%s' is not one of: %s",
			    tok, b.p);
			buf_clear(&b);
			free(dup);
			return -1;
		}
		*dst |= 1u << k;
	}
	free(dup);
	return 0;
}

/* One key of a [rule] stanza. */
static int
rule_key(struct rl_rule *r, const char *k, const char *v, char **cause)
{
	int	x;

	if (strcmp(k, "pattern") == 0) {
		if (pattern_add(&r->pat, &r->npat, v, cause) != 0)
			return -1;
		if (r->pat[r->npat - 1].ncapv > RULE_NCAPS) {
			/* An event keeps that many; more would be lost. */
			xasprintf(cause, "pattern names %d numeric captures; "
			    "a rule's events keep at most %d",
			    r->pat[r->npat - 1].ncapv, RULE_NCAPS);
			pattern_clear(&r->pat[--r->npat]);
			return -1;
		}
		if (r->pat[r->npat - 1].ncapv > r->ncaps)
			r->ncaps = (uint8_t)r->pat[r->npat - 1].ncapv;
		return 0;
	}
	if (strcmp(k, "literal") == 0)
		strv_add(&r->literal, &r->nliteral, v);
	else if (strcmp(k, "example") == 0)
		strv_add(&r->example, &r->nexample, v);
	else if (strcmp(k, "counter") == 0)
		strv_add(&r->counter, &r->ncounter, v);
	else if (strcmp(k, "role") == 0) {
		if (enum_set(&x, NAMES(role_keys), k, v, cause) != 0)
			return -1;
		r->role = x;
	} else if (strcmp(k, "domain") == 0) {
		if (enum_set(&x, NAMES(domain_keys), k, v, cause) != 0)
			return -1;
		r->domain = x;
	} else if (strcmp(k, "group") == 0) {
		if (enum_set(&x, NAMES(group_keys), k, v, cause) != 0)
			return -1;
		r->group = x;
	} else if (strcmp(k, "severity") == 0) {
		if (enum_set(&x, NAMES(severity_keys), k, v, cause) != 0)
			return -1;
		r->severity = x;
	} else if (strcmp(k, "mark") == 0) {
		if (enum_set(&x, NAMES(mark_keys), k, v, cause) != 0)
			return -1;
		r->mark = x;
	} else if (strcmp(k, "priority") == 0) {
		char	*end;
		long	 p = strtol(v, &end, 10);

		if (*end != '\0' || p < 0 || p > 1000) {
			xasprintf(cause, "priority '%s' is not 0 to 1000", v);
			return -1;
		}
		r->priority = (int)p;
	} else if (strcmp(k, "scope") == 0) {
		if (strcmp(v, "job") != 0 && strcmp(v, "rank") != 0) {
			xasprintf(cause, "scope '%s' is not job or rank", v);
			return -1;
		}
		r->job_scope = strcmp(v, "job") == 0;
	} else if (strcmp(k, "ckpt") == 0) {
		if (strcmp(v, "write") != 0) {
			xasprintf(cause, "ckpt '%s' is not write", v);
			return -1;
		}
		r->ckpt_write = true;
	} else if (strcmp(k, "only_after") == 0)
		str_set(&r->only_after, v);
	else if (strcmp(k, "not_after") == 0)
		str_set(&r->not_after, v);
	else if (strcmp(k, "not_within") == 0) {
		char		 id[256];
		unsigned	 n;
		int		 used = 0;

		if (sscanf(v, "%255s %u%n", id, &n, &used) != 2 ||
		    v[used] != '\0' || n == 0 || n > 100000) {
			xasprintf(cause, "not_within '%s' is not 'ID LINES'", v);
			return -1;
		}
		str_set(&r->not_within, id);
		r->not_within_lines = n;
	}
	else if (strcmp(k, "title") == 0)
		str_set(&r->title, v);
	else if (strcmp(k, "explain") == 0)
		str_set(&r->explain, v);
	else if (strcmp(k, "action") == 0)
		str_set(&r->action, v);
	else if (strcmp(k, "probe") == 0)
		str_set(&r->probe, v);
	else if (strcmp(k, "knobs") == 0)
		str_set(&r->knobs, v);
	else if (strcmp(k, "checklist") == 0)
		return checklist_set(&r->checklist, v, cause);
	else {
		xasprintf(cause, "unknown key '%s' in a rule", k);
		return -1;
	}
	return 0;
}

/* One key of an [attrib] stanza. */
static int
attrib_key(struct rl_attrib *a, const char *k, const char *v, char **cause)
{
	int	x;

	if (strcmp(k, "pattern") == 0)
		return pattern_add(&a->pat, &a->npat, v, cause);
	if (strcmp(k, "end") == 0) {
		pattern_clear(&a->end);
		return pattern_compile(&a->end, v, cause);
	}
	if (strcmp(k, "kind") == 0) {
		if (enum_set(&x, NAMES(attrib_keys), k, v, cause) != 0)
			return -1;
		a->kind = x;
	} else if (strcmp(k, "literal") == 0)
		strv_add(&a->literal, &a->nliteral, v);
	else if (strcmp(k, "example") == 0)
		strv_add(&a->example, &a->nexample, v);
	else if (strcmp(k, "counter") == 0)
		strv_add(&a->counter, &a->ncounter, v);
	else if (strcmp(k, "priority") == 0)
		a->priority = atoi(v);
	else if (strcmp(k, "copy") == 0) {
		if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0) {
			xasprintf(cause, "copy '%s' is not yes or no", v);
			return -1;
		}
		a->copy = strcmp(v, "yes") == 0;
	}
	else if (strcmp(k, "title") == 0 || strcmp(k, "explain") == 0)
		;	/* documentation for readers of the pack */
	else {
		xasprintf(cause, "unknown key '%s' in an attrib", k);
		return -1;
	}
	return 0;
}

/* One key of a [knob] stanza. */
static int
knob_key(struct rl_knob *kn, const char *k, const char *v, char **cause)
{
	if (strcmp(k, "what") == 0)
		str_set(&kn->what, v);
	else if (strcmp(k, "helps") == 0)
		str_set(&kn->helps, v);
	else if (strcmp(k, "cost") == 0)
		str_set(&kn->cost, v);
	else {
		xasprintf(cause, "unknown key '%s' in a knob", k);
		return -1;
	}
	return 0;
}

/* Derive the literals of each pattern that has none declared. */
static bool
literals_derive(char ***lit, size_t *nlit, struct rl_pattern *pat, size_t npat)
{
	char	**one;
	size_t	  i;

	if (*nlit > 0)
		return true;
	for (i = 0; i < npat; i++) {
		if (pattern_literals(pat[i].source, &one) == 0) {
			/* One pattern without a literal: the rule is always tried. */
			for (i = 0; i < *nlit; i++)
				free((*lit)[i]);
			free(*lit);
			*lit = NULL;
			*nlit = 0;
			return false;
		}
		*lit = xreallocarray(*lit, *nlit + 1, sizeof **lit);
		(*lit)[(*nlit)++] = one[0];
		free(one);
	}
	return true;
}

/* Put an object into a table, replacing one with the same name. */
static void
table_put(void ***v, size_t *n, void *obj, const char *name,
    const char *(*name_of)(void *), void (*free_fn)(void *))
{
	size_t	i;

	for (i = 0; i < *n; i++) {
		if (strcmp(name_of((*v)[i]), name) == 0) {
			free_fn((*v)[i]);
			(*v)[i] = obj;
			return;
		}
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = obj;
}

/*
 * Warn when a rule or attribution is defined again in the pack that defined
 * it (file is the one it came from, line its header): the later one wins,
 * as it does across packs, but within one file it was not meant.
 */
static void
stanza_dup(struct parse_state *ps, const char *kind, const char *id,
    const char *file, unsigned line)
{
	if (strcmp(file, ps->file) != 0)
		return;
	errlist_add(&ps->rs->warns, "%s:%u: %s %s is defined again; it "
	    "replaces the one at %s:%u", ps->file, ps->line, kind, id, file,
	    line);
}

/* Look for an earlier rule or attribution of the same id in this pack. */
static void
stanza_check_dup(struct parse_state *ps)
{
	size_t	 i;

	for (i = 0; ps->rule != NULL && i < ps->rs->nrules; i++) {
		if (strcmp(ps->rs->rules[i]->id, ps->rule->id) == 0)
			stanza_dup(ps, "rule", ps->rule->id,
			    ps->rs->rules[i]->file, ps->rs->rules[i]->line);
	}
	for (i = 0; ps->attrib != NULL && i < ps->rs->nattribs; i++) {
		if (strcmp(ps->rs->attribs[i]->id, ps->attrib->id) == 0)
			stanza_dup(ps, "attrib", ps->attrib->id,
			    ps->rs->attribs[i]->file, ps->rs->attribs[i]->line);
	}
}

static const char *rule_name_of(void *p) { return ((struct rl_rule *)p)->id; }
static const char *attrib_name_of(void *p) { return ((struct rl_attrib *)p)->id; }
static const char *knob_name_of(void *p) { return ((struct rl_knob *)p)->name; }
static void rule_free_v(void *p) { rule_free(p); }
static void attrib_free_v(void *p) { attrib_free(p); }

static void
knob_free_v(void *p)
{
	struct rl_knob	*k = p;

	free(k->name);
	free(k->what);
	free(k->helps);
	free(k->cost);
	free(k);
}

/* The stanza is complete: check it and put it into the set, or drop it. */
static void
stanza_end(struct parse_state *ps)
{
	struct ruleset	*rs = ps->rs;

	if (ps->rule != NULL) {
		struct rl_rule	*r = ps->rule;

		if (!ps->bad && r->npat == 0) {
			errlist_add(ps->errs, "%s:%u: rule %s has no pattern",
			    ps->file, ps->line, r->id);
			ps->bad = true;
		}
		if (!ps->bad && r->role == ROLE_NONE) {
			errlist_add(ps->errs, "%s:%u: rule %s has no role",
			    ps->file, ps->line, r->id);
			ps->bad = true;
		}
		if (ps->bad)
			rule_free(r);
		else {
			stanza_check_dup(ps);
			literals_derive(&r->literal, &r->nliteral, r->pat,
			    r->npat);
			table_put((void ***)&rs->rules, &rs->nrules, r, r->id,
			    rule_name_of, rule_free_v);
		}
	}
	if (ps->attrib != NULL) {
		struct rl_attrib *a = ps->attrib;

		if (!ps->bad && a->npat == 0) {
			errlist_add(ps->errs, "%s:%u: attrib %s has no pattern",
			    ps->file, ps->line, a->id);
			ps->bad = true;
		}
		if (ps->bad)
			attrib_free(a);
		else {
			stanza_check_dup(ps);
			if (a->kind == ATTRIB_LINK || a->kind == ATTRIB_RECORD)
				literals_derive(&a->literal, &a->nliteral,
				    a->pat, a->npat);
			table_put((void ***)&rs->attribs, &rs->nattribs, a,
			    a->id, attrib_name_of, attrib_free_v);
		}
	}
	if (ps->knob != NULL) {
		if (ps->bad)
			knob_free_v(ps->knob);
		else
			table_put((void ***)&rs->knobs, &rs->nknobs, ps->knob,
			    ps->knob->name, knob_name_of, knob_free_v);
	}
	ps->rule = NULL;
	ps->attrib = NULL;
	ps->knob = NULL;
	ps->kind = STANZA_NONE;
	ps->bad = false;
}

/* A new [KIND ID] header. */
static int
stanza_begin(struct parse_state *ps, unsigned line, const char *section)
{
	const char	*sp, *id;
	size_t		 kn;

	stanza_end(ps);
	ps->line = line;
	if ((sp = strchr(section, ' ')) == NULL) {
		errlist_add(ps->errs, "%s:%u: section [%s] is not [KIND ID]",
		    ps->file, line, section);
		ps->bad = true;
		return -1;
	}
	kn = (size_t)(sp - section);
	for (id = sp; *id == ' '; id++)
		;
	if (*id == '\0' || strchr(id, ' ') != NULL) {
		errlist_add(ps->errs, "%s:%u: bad id in [%s]", ps->file, line,
		    section);
		ps->bad = true;
		return -1;
	}
	if (kn == 4 && strncmp(section, "rule", 4) == 0) {
		ps->kind = STANZA_RULE;
		ps->rule = xcalloc(1, sizeof *ps->rule);
		ps->rule->id = xstrdup(id);
		ps->rule->file = xstrdup(ps->file);
		ps->rule->line = line;
		ps->rule->priority = 50;
		ps->rule->severity = SEV_ERROR;
		ps->rule->domain = DOMAIN_UNKNOWN;
	} else if (kn == 6 && strncmp(section, "attrib", 6) == 0) {
		ps->kind = STANZA_ATTRIB;
		ps->attrib = xcalloc(1, sizeof *ps->attrib);
		ps->attrib->id = xstrdup(id);
		ps->attrib->file = xstrdup(ps->file);
		ps->attrib->line = line;
	} else if (kn == 4 && strncmp(section, "knob", 4) == 0) {
		ps->kind = STANZA_KNOB;
		ps->knob = xcalloc(1, sizeof *ps->knob);
		ps->knob->name = xstrdup(id);
	} else {
		errlist_add(ps->errs, "%s:%u: unknown section kind in [%s]",
		    ps->file, line, section);
		ps->bad = true;
		return -1;
	}
	return 0;
}

/* The ini callback: headers start stanzas, keys fill them. */
static int
rules_parse_cb(void *arg, const char *file, unsigned line, const char *section,
    const char *key, const char *value, char **cause)
{
	struct parse_state	*ps = arg;
	int			 rv;

	(void)file;
	if (key == NULL)
		return stanza_begin(ps, line, section);
	if (ps->kind == STANZA_NONE)
		return 0;	/* inside a rejected header: already reported */
	switch (ps->kind) {
	case STANZA_RULE:
		rv = rule_key(ps->rule, key, value, cause);
		break;
	case STANZA_ATTRIB:
		rv = attrib_key(ps->attrib, key, value, cause);
		break;
	default:
		rv = knob_key(ps->knob, key, value, cause);
		break;
	}
	if (rv != 0)
		ps->bad = true;
	return rv;
}

/* Parse one pack held in memory; returns the number of errors. */
int
rules_parse(struct ruleset *rs, const char *file, const char *data, size_t len,
    struct errlist *errs)
{
	struct parse_state	ps = { 0 };
	size_t			before = errs->n;

	ps.rs = rs;
	ps.errs = errs;
	ps.file = file;
	ini_parse(file, data, len, rules_parse_cb, &ps, errs);
	stanza_end(&ps);
	return (int)(errs->n - before);
}
