/*
 * capture.c: values an event's line holds beyond the engine's own captures.
 *
 * Ingestion keeps a fixed set of numeric captures per event (rank, step,
 * seq, timeout_ms, ...), which is what every event needs and all most
 * events ever need.  The diagnosis also wants values that only a few lines
 * carry and only the diagnosis reads: the "last enqueued" number of a
 * desync line, the busId of an NCCL communicator, the GiB of a vLLM memory
 * profile.  Rules name them as captures (rules/FORMAT.md), and they are
 * read back here, on demand, by matching the event's own rule against its
 * text again.  Only the handful of events the diagnosis asks about pay for
 * it, and a rule pack can feed the diagnosis by naming its groups alike.
 *
 * Argument dumps ({'max_model_len': 8192}, Namespace(max_model_len=8192),
 * --max-model-len 8192) are read by key with text_key_*, since no pattern
 * could name every key of a dict.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define CAPTURE_RETRIES	64	/* later starts tried for an anchored pattern */
#define CAPTURE_SCAN	256	/* bytes of line prefix those starts lie in */

/* The group number of a name in a compiled pattern, or 0. */
static int
pattern_group(const struct rl_pattern *p, const char *name)
{
	int	n;

	n = pcre2_substring_number_from_name((const pcre2_code *)p->code,
	    (PCRE2_SPTR)name);
	return n > 0 ? n : 0;
}

/*
 * Two bits of 64 that stand for a group name.  A pattern keeps those of
 * all its names, so that asking it for a name it does not have (what the
 * diagnosis does of every event, in several passes) is mostly one test
 * rather than a compare with each of its names.
 */
uint64_t
capture_name_bits(const char *name)
{
	uint64_t	h = str_hash(STR_HASH_SEED, name) * 0x9e3779b97f4a7c15ULL;

	/* The top bits: FNV's low ones mix little. */
	return (UINT64_C(1) << (h >> 58)) | (UINT64_C(1) << (h >> 52 & 63));
}

/*
 * Does any pattern of the rule capture this name, whose capture_name_bits
 * are `bits`?  A pass over every event works the bits out once.
 */
bool
rule_has_named(const struct rl_rule *r, const char *name, uint64_t bits)
{
	const char	*s;
	size_t		 i;

	for (i = 0; r != NULL && i < r->npat; i++) {
		if ((r->pat[i].name_bits & bits) != bits)
			continue;
		for (s = r->pat[i].names; s != NULL && *s != '\0';
		    s += strlen(s) + 1) {
			if (strcmp(s, name) == 0)
				return true;
		}
	}
	return false;
}

/* Does any pattern of the rule capture this name? */
bool
rule_has_capture(const struct rl_rule *r, const char *name)
{
	return rule_has_named(r, name, capture_name_bits(name));
}

/*
 * Match one pattern at s and copy group g out; NULL if it does not match
 * or the group did not take part.  md is the caller's, made for p.
 */
static char *
pattern_extract(const struct rl_pattern *p, pcre2_match_data *md, int g,
    const char *s, size_t n, bool *none)
{
	PCRE2_SIZE	*ov;
	int		 rc;

	(void)pattern_ready(p);
	rc = pcre2_match((const pcre2_code *)p->code, (PCRE2_SPTR)s, n, 0, 0,
	    md, NULL);
	*none = rc == PCRE2_ERROR_NOMATCH;
	if (rc <= 0)
		return NULL;
	ov = pcre2_get_ovector_pointer(md);
	if (ov[2 * g] == PCRE2_UNSET)
		return NULL;
	return xstrndup(s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

/* Can a prefix end just before position i (so an anchored pattern starts)? */
static bool
capture_boundary(const char *s, size_t i)
{
	return i > 0 && (s[i - 1] == ' ' || s[i - 1] == ':' ||
	    s[i - 1] == ']' || s[i - 1] == ')' || s[i - 1] == '|');
}

/*
 * A named capture of the event's rule, as text the caller frees, or NULL.
 * The text kept is the whole line, prefixes and all, while the rule was
 * matched after the prefixes were peeled: a pattern anchored at ^ is tried
 * again at the places a prefix can end.
 */
char *
event_capture(const struct rl_incident *inc, const struct rl_event *e,
    const char *name)
{
	const struct rl_pattern	*p;
	pcre2_match_data	*md;
	const char		*text;
	size_t			 i, k, n, tries;
	char			*v = NULL;
	int			 g;
	bool			 none;

	if (e->rule == NULL || (text = event_text(inc, e)) == NULL)
		return NULL;
	n = strlen(text);
	/* Where the rule matched when the line was read, first. */
	if (e->pat < e->rule->npat && e->at < n && (g = pattern_group(
	    p = &e->rule->pat[e->pat], name)) != 0) {
		md = pcre2_match_data_create_from_pattern(
		    (const pcre2_code *)p->code, NULL);
		if (md == NULL)
			fatal("out of memory");
		v = pattern_extract(p, md, g, text + e->at, n - e->at,
		    &none);
		pcre2_match_data_free(md);
		if (v != NULL)
			return v;
	}
	for (i = 0; i < e->rule->npat && v == NULL; i++) {
		p = &e->rule->pat[i];
		if ((g = pattern_group(p, name)) == 0)
			continue;
		md = pcre2_match_data_create_from_pattern(
		    (const pcre2_code *)p->code, NULL);
		if (md == NULL)
			fatal("out of memory");
		v = pattern_extract(p, md, g, text, n, &none);
		/*
		 * A pattern that matches nowhere in the line, and whose match
		 * cannot depend on where the subject starts, matches nowhere
		 * in a tail of it either.
		 */
		for (k = none && p->anywhere ? n : 1, tries = 0; v == NULL &&
		    k < n && k < CAPTURE_SCAN && tries < CAPTURE_RETRIES; k++) {
			if (!capture_boundary(text, k))
				continue;
			tries++;
			v = pattern_extract(p, md, g, text + k, n - k,
			    &none);
		}
		pcre2_match_data_free(md);
	}
	return v;
}

/* Read a number written with optional thousands separators ("162,704"). */
static bool
number_parse(const char *s, double *out)
{
	char	 buf[64], *end;
	size_t	 n = 0;

	while (*s == ' ' || *s == '\'' || *s == '"')
		s++;
	for (; *s != '\0' && n + 1 < sizeof buf; s++) {
		if (*s == ',' && isdigit((unsigned char)s[1]) && n > 0)
			continue;
		if (!isdigit((unsigned char)*s) && *s != '.' && *s != '-' &&
		    *s != '+' && *s != 'e' && *s != 'E')
			break;
		buf[n++] = *s;
	}
	buf[n] = '\0';
	if (n == 0)
		return false;
	*out = strtod(buf, &end);
	return end != buf && isfinite(*out);
}

/* A named capture of the event's rule as a number. */
bool
event_capture_num(const struct rl_incident *inc, const struct rl_event *e,
    const char *name, double *out)
{
	char	*v;
	bool	 ok;

	if ((v = event_capture(inc, e, name)) == NULL)
		return false;
	ok = number_parse(v, out);
	free(v);
	return ok;
}

/* Is c part of an identifier or option name? */
static bool
key_char(int c)
{
	return isalnum(c) || c == '_' || c == '-';
}

/*
 * Where the value of key starts in text: after the key (on a word
 * boundary), an optional closing quote, then '=', ':' or spaces.  NULL if
 * the key is not there.
 */
static const char *
text_key_value(const char *text, const char *key)
{
	const char	*p = text, *v;
	size_t		 n = strlen(key);

	while ((p = strstr(p, key)) != NULL) {
		v = p + n;
		if (p > text && key_char((unsigned char)p[-1])) {
			p = v;
			continue;
		}
		if (*v == '\'' || *v == '"')
			v++;
		if (*v == '=' || *v == ':' || *v == ' ') {
			v++;
			while (*v == ' ')
				v++;
			if (*v != '\0')
				return v;
		}
		p = v;
	}
	return NULL;
}

/* A number after key in an argument dump ('key': 1, key=1, --key 1). */
bool
text_key_num(const char *text, const char *key, double *out)
{
	const char	*v;

	if (text == NULL || (v = text_key_value(text, key)) == NULL)
		return false;
	return number_parse(v, out);
}

/*
 * Does a line of n bytes name one of the limits that decide the memory
 * budget?  Asked of every text a lean reading lets go, so first one look
 * for the "max_" all three share: memchr for the rarer '_' costs a third
 * of what strstr or memmem did.
 */
bool
text_names_limits(const char *text, size_t n)
{
	const char	*p, *end;
	double		 v;

	if (text == NULL || n < 4)
		return false;
	for (p = text + 3, end = text + n; p < end &&
	    (p = memchr(p, '_', (size_t)(end - p))) != NULL; p++) {
		if (memcmp(p - 3, "max", 3) == 0)
			break;
	}
	if (p == NULL || p >= end)
		return false;
	return text_key_num(text, "max_model_len", &v) ||
	    text_key_num(text, "max_num_seqs", &v) ||
	    text_key_num(text, "max_num_batched_tokens", &v);
}

/* A string after key: quoted, or up to the next separator. */
char *
text_key_str(const char *text, const char *key)
{
	const char	*v, *end;
	char		 q;

	if (text == NULL || (v = text_key_value(text, key)) == NULL)
		return NULL;
	if (*v == '\'' || *v == '"') {
		q = *v++;
		if ((end = strchr(v, q)) == NULL)
			return NULL;
	} else
		end = v + strcspn(v, ",})] ");
	if (end == v)
		return NULL;
	return xstrndup(v, (size_t)(end - v));
}

/* Hex digits at s, up to max of them; -1 if none. */
static long
hex_field(const char **s, int max)
{
	long	v = 0;
	int	n = 0, d;

	for (; n < max && isxdigit((unsigned char)**s); (*s)++, n++) {
		d = isdigit((unsigned char)**s) ? **s - '0' :
		    tolower((unsigned char)**s) - 'a' + 10;
		v = v * 16 + d;
	}
	return n > 0 ? v : -1;
}

/* v in lower-case hex, at least width digits, at p; returns the count. */
static size_t
hex_put(char *p, unsigned long v, size_t width)
{
	char	t[2 * sizeof v];
	size_t	n = 0, i;

	do {
		t[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v != 0);
	while (n < width)
		t[n++] = '0';
	for (i = 0; i < n; i++)
		p[i] = t[n - 1 - i];
	return n;
}

/* "dddd:bb:dd" into out (sz bytes); false if it does not fit. */
static bool
pci_put(char *out, size_t sz, unsigned long dom, unsigned long bus,
    unsigned long dev)
{
	char	t[3 * 2 * sizeof dom + 3];
	size_t	n;

	n = hex_put(t, dom, 4);
	t[n++] = ':';
	n += hex_put(t + n, bus, 2);
	t[n++] = ':';
	n += hex_put(t + n, dev, 2);
	if (n >= sz)
		return false;
	memcpy(out, t, n);
	out[n] = '\0';
	return true;
}

/*
 * A GPU's PCI address in one form, "dddd:bb:dd", from any of the forms the
 * logs use: Xid's PCI:0000:97:00, nvidia-smi's 00000000:97:00.0, lspci's
 * 0000:97:00.0, and NCCL's busId 97000 (the hex digits of the address
 * packed without separators: domain, bus, device, function).
 */
bool
pci_normalize(const char *in, char *out, size_t sz)
{
	const char	*s = in;
	long		 dom, bus, dev;
	unsigned long	 v;
	char		*end;

	if (in == NULL)
		return false;
	if (strncmp(s, "PCI:", 4) == 0)
		s += 4;
	if (strchr(s, ':') == NULL) {
		v = strtoul(s, &end, 16);
		if (end == s || *end != '\0')
			return false;
		dom = (long)(v >> 20);
		bus = (long)((v >> 12) & 0xff);
		dev = (long)((v >> 4) & 0xff);
	} else {
		if ((dom = hex_field(&s, 8)) < 0 || *s++ != ':' ||
		    (bus = hex_field(&s, 2)) < 0 || *s++ != ':' ||
		    (dev = hex_field(&s, 2)) < 0)
			return false;
		dom &= 0xffff;
	}
	/* As "%04lx:%02lx:%02lx" would: a join formats one per NCCL line. */
	return pci_put(out, sz, (unsigned long)dom, (unsigned long)bus,
	    (unsigned long)dev);
}

/* The host of an event's process, or NULL. */
const char *
event_host(const struct rl_incident *inc, const struct rl_event *e)
{
	if (e->process == RL_NONE || (size_t)e->process >= inc->nprocs)
		return NULL;
	return inc->procs[e->process]->host;
}
