/*
 * ini.c: the INI-like format of rule packs and themes (rules/FORMAT.md).
 *
 * Debian's libinih would be the obvious choice, but it is built with a
 * 200-byte line limit and without line numbers in the handler: real
 * patterns are longer than that, and every error must name file:line.  This
 * parser is small, reads a buffer (so the packs compiled into the binary
 * parse exactly like files), has no inline comments (patterns contain '#'
 * and ';'), and joins indented continuation lines to the value above.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* One pending key = value, held until we know no continuation follows. */
struct ini_pending {
	struct buf	 key;
	struct buf	 value;
	unsigned	 line;		/* where the key was */
	bool		 set;		/* a key is pending */
};

/* Trim blanks from both ends of [*s, *s + *n). */
static void
ini_trim(const char **s, size_t *n)
{
	while (*n > 0 && isblank((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* Deliver the pending key to the callback. */
static int
ini_emit(struct ini_pending *p, const char *file, const char *section,
    ini_cb cb, void *arg, struct errlist *errs)
{
	char	*cause = NULL;
	int	 rv = 0;

	if (!p->set)
		return 0;
	p->set = false;
	if (cb(arg, file, p->line, section, p->key.p, p->value.p, &cause) != 0) {
		errlist_add(errs, "%s:%u: %s", file, p->line,
		    cause != NULL ? cause : "bad value");
		rv = -1;
	}
	free(cause);
	return rv;
}

/* Handle one physical line; returns -1 on an error (already recorded). */
static int
ini_line(const char *file, unsigned lineno, const char *s, size_t n,
    struct buf *section, struct ini_pending *p, ini_cb cb, void *arg,
    struct errlist *errs)
{
	const char	*eq;
	const char	*k, *v;
	size_t		 kn, vn;
	bool		 indented;
	int		 rv = 0;

	indented = n > 0 && isblank((unsigned char)s[0]);
	ini_trim(&s, &n);
	if (n == 0 || s[0] == '#' || s[0] == ';')
		return 0;
	if (indented && p->set) {
		buf_addc(&p->value, ' ');
		buf_add(&p->value, s, n);
		return 0;
	}
	rv = ini_emit(p, file, section->p, cb, arg, errs);
	if (s[0] == '[') {
		if (s[n - 1] != ']') {
			errlist_add(errs, "%s:%u: section header without ']'",
			    file, lineno);
			return -1;
		}
		buf_reset(section);
		k = s + 1;
		kn = n - 2;
		ini_trim(&k, &kn);
		buf_add(section, k, kn);
		cb(arg, file, lineno, section->p, NULL, NULL, NULL);
		return rv;
	}
	if ((eq = memchr(s, '=', n)) == NULL) {
		errlist_add(errs, "%s:%u: expected 'key = value'", file, lineno);
		return -1;
	}
	k = s;
	kn = (size_t)(eq - s);
	v = eq + 1;
	vn = n - kn - 1;
	ini_trim(&k, &kn);
	ini_trim(&v, &vn);
	if (kn == 0) {
		errlist_add(errs, "%s:%u: empty key", file, lineno);
		return -1;
	}
	if (section->len == 0) {
		errlist_add(errs, "%s:%u: key outside any [section]", file,
		    lineno);
		return -1;
	}
	buf_reset(&p->key);
	buf_add(&p->key, k, kn);
	buf_reset(&p->value);
	buf_add(&p->value, v, vn);
	p->line = lineno;
	p->set = true;
	return rv;
}

/*
 * Parse a whole buffer.  The callback gets (arg, file, line, section, key,
 * value, &cause) and returns non-zero to reject a value; errors are added
 * to errs and parsing goes on, so one bad stanza costs only itself.
 * Returns the number of errors, 0 when clean.  A section header with no
 * keys is also delivered, with key and value NULL, so empty stanzas count.
 */
int
ini_parse(const char *file, const char *data, size_t len, ini_cb cb,
    void *arg, struct errlist *errs)
{
	struct ini_pending	 p = { 0 };
	struct buf		 section = { 0 };
	const char		*s, *end, *nl;
	unsigned		 lineno = 0;
	size_t			 before = errs->n;

	buf_adds(&section, "");
	s = data;
	end = data + len;
	if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	while (s < end) {
		lineno++;
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		if (memchr(s, '\0', (size_t)(nl - s)) != NULL)
			errlist_add(errs, "%s:%u: NUL byte", file, lineno);
		else
			ini_line(file, lineno, s, (size_t)(nl - s), &section,
			    &p, cb, arg, errs);
		s = nl + 1;
	}
	ini_emit(&p, file, section.p, cb, arg, errs);
	buf_clear(&p.key);
	buf_clear(&p.value);
	buf_clear(&section);
	return (int)(errs->n - before);
}
