/*
 * rules-backtrack.c: patterns prone to catastrophic backtracking, for
 * `rankline rules check`.
 *
 * A repeated group whose body can match one run of text in more than one
 * way, as in (a+)+, (a*)*, (a|a)+, (x+x+)+ or (.*)*, costs a backtracking
 * matcher exponential time on a line that almost matches.  pcre2's match
 * limit stops it, but the line is then given up, and what the rule would
 * have said about it is lost.  This file reads a pattern's syntax (not
 * pcre2's compiled form, which has no public walker) into, for each item,
 * the bytes it can start with, the bytes it can match at all, and the
 * bytes its slack end can still take (a repeat that can give back).  A
 * group repeated without bound is then risky when:
 *  - its body can match nothing yet holds a repeat: (a*)*, (.*)*;
 *  - its body's slack end takes a byte its start can begin with, so one
 *    run splits among iterations in many ways: (a+)+, (\s*\w+)+, ((ab)+)+,
 *    and (.+?,)+, whose end is slack too, for the dot takes a comma;
 *  - two slack repeats side by side in its body overlap: (x+x+)+;
 *  - two of its alternatives match alike: (a|a)+, (\w|\d)+.
 * A body each of whose iterations starts with a byte its end cannot take,
 * as in (?:\.[a-z0-9]+)+ or (?:[-_.]\w+)*, is not risky, nor is a
 * possessive repeat or an atomic group, which give nothing back.  Case
 * folding, extended mode and Unicode are not modelled: a few risky
 * patterns may pass, and no safe one is flagged for them.
 */
#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

#define BT_UNBOUNDED	-1		/* a quantifier's max: no bound */
#define BT_MAXALT	32		/* alternatives compared pairwise */
#define BT_MAXDEPTH	64		/* nesting past this is not read */

/* A set of bytes. */
struct bt_set {
	uint32_t	 w[8];
};

/* What a piece of pattern can match, as the checks need it. */
struct bt_node {
	struct bt_set	 first;		/* bytes a match can begin with */
	struct bt_set	 chars;		/* bytes a match can hold */
	struct bt_set	 tail;		/* bytes its slack end can still take */
	bool		 nullable;	/* can match nothing */
	bool		 group;		/* a group (of any kind) */
	bool		 slack;		/* a repeat that can give back */
	bool		 repeats;	/* holds a repeat without bound */
	bool		 ambiguous;	/* two slack repeats side by side overlap */
	bool		 overlap;	/* two alternatives match alike */
};

/* The pattern being read, and the first risky group found. */
struct bt {
	const char	*p;
	size_t		 i;
	size_t		 n;
	int		 depth;
	bool		 quote;		/* inside \Q...\E */
	size_t		 risky;		/* offset of the risky group */
	size_t		 risky_len;	/* its length with its quantifier, or 0 */
};

static void	bt_alt(struct bt *, struct bt_node *);

static void
set_add(struct bt_set *s, unsigned c)
{
	s->w[(c & 0xff) / 32] |= 1u << (c % 32);
}

static void
set_range(struct bt_set *s, unsigned lo, unsigned hi)
{
	unsigned	 c;

	for (c = lo; c <= hi && c < 256; c++)
		set_add(s, c);
}

static void
set_or(struct bt_set *d, const struct bt_set *s)
{
	int	 k;

	for (k = 0; k < 8; k++)
		d->w[k] |= s->w[k];
}

static void
set_not(struct bt_set *s)
{
	int	 k;

	for (k = 0; k < 8; k++)
		s->w[k] = ~s->w[k];
}

static bool
set_meets(const struct bt_set *a, const struct bt_set *b)
{
	int	 k;

	for (k = 0; k < 8; k++) {
		if (a->w[k] & b->w[k])
			return true;
	}
	return false;
}

/* The bytes of a class escape (\d, \w, \s, \h, \v, their capitals, \N). */
static bool
set_escape(struct bt_set *s, char e)
{
	struct bt_set	 t = { { 0 } };

	switch (e) {
	case 'd': case 'D':
		set_range(&t, '0', '9');
		break;
	case 'w': case 'W':
		set_range(&t, '0', '9');
		set_range(&t, 'A', 'Z');
		set_range(&t, 'a', 'z');
		set_add(&t, '_');
		break;
	case 's': case 'S':
		set_range(&t, '\t', '\r');
		set_add(&t, ' ');
		break;
	case 'h': case 'H':
		set_add(&t, '\t');
		set_add(&t, ' ');
		set_add(&t, 0xa0);
		break;
	case 'v': case 'V':
		set_range(&t, '\n', '\r');
		set_add(&t, 0x85);
		break;
	case 'N':
		set_add(&t, '\n');
		set_not(&t);
		break;
	default:
		return false;
	}
	if (e >= 'A' && e <= 'Z' && e != 'N')
		set_not(&t);
	set_or(s, &t);
	return true;
}

/* The byte a literal escape stands for (\n, \t, \xhh, \\.), or -1. */
static int
bt_escape_byte(struct bt *b)
{
	const char	*p = b->p;
	char		*end;
	unsigned long	 v;
	int		 digits;
	char		 e = p[b->i];

	b->i++;
	switch (e) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'f': return '\f';
	case 'a': return 7;
	case 'e': return 27;
	case 'x':
		if (p[b->i] == '{') {
			v = strtoul(p + b->i + 1, &end, 16);
			b->i = *end == '}' ? (size_t)(end - p) + 1 : b->i + 1;
		} else {
			v = 0;
			for (digits = 0; digits < 2 && b->i < b->n &&
			    strchr("0123456789abcdefABCDEF", p[b->i]) != NULL;
			    digits++) {
				v = v * 16 + (unsigned long)(p[b->i] <= '9' ?
				    p[b->i] - '0' : (p[b->i] | 0x20) - 'a' + 10);
				b->i++;
			}
		}
		return v < 256 ? (int)v : -1;
	case 'c':
		if (b->i < b->n)
			return p[b->i++] & 0x1f;
		return -1;
	default:
		return (unsigned char)e;
	}
}

/* A POSIX class inside brackets, [:name:], at p; its length or 0. */
static size_t
bt_posix(const char *p, struct bt_set *s)
{
	static const struct {
		const char	*name;
		char		 esc;		/* the escape it equals, or 0 */
		unsigned	 lo, hi;	/* else a range */
	} cls[] = {
		{ "[:digit:]", 'd', 0, 0 }, { "[:word:]", 'w', 0, 0 },
		{ "[:space:]", 's', 0, 0 }, { "[:upper:]", 0, 'A', 'Z' },
		{ "[:lower:]", 0, 'a', 'z' }, { "[:print:]", 0, 0x20, 0x7e },
		{ "[:graph:]", 0, 0x21, 0x7e }, { "[:punct:]", 0, 0x21, 0x7e },
		{ "[:alpha:]", 0, 'A', 'z' }, { "[:alnum:]", 0, '0', 'z' },
		{ "[:xdigit:]", 0, '0', 'f' }, { "[:blank:]", 0, ' ', ' ' },
		{ "[:cntrl:]", 0, 0, 0x1f },
	};
	size_t	 k, len;

	for (k = 0; k < sizeof cls / sizeof cls[0]; k++) {
		len = strlen(cls[k].name);
		if (strncmp(p, cls[k].name, len) != 0)
			continue;
		if (cls[k].esc != 0)
			set_escape(s, cls[k].esc);
		else
			set_range(s, cls[k].lo, cls[k].hi);
		return len;
	}
	return 0;
}

/* A bracketed class, b->i just past its '['. */
static void
bt_class(struct bt *b, struct bt_set *s)
{
	const char	*p = b->p;
	bool		 neg = false, first = true;
	int		 c, hi, prev = -1;
	size_t		 len;

	memset(s, 0, sizeof *s);
	if (p[b->i] == '^') {
		neg = true;
		b->i++;
	}
	while (b->i < b->n && (p[b->i] != ']' || first)) {
		first = false;
		if (p[b->i] == '[' && (len = bt_posix(p + b->i, s)) > 0) {
			b->i += len;
			prev = -1;
			continue;
		}
		if (p[b->i] == '\\') {
			b->i++;
			if (set_escape(s, p[b->i])) {
				b->i++;
				prev = -1;
				continue;
			}
			c = bt_escape_byte(b);
		} else
			c = (unsigned char)p[b->i++];
		if (c == '-' && prev >= 0 && b->i < b->n && p[b->i] != ']') {
			if (p[b->i] == '\\') {
				b->i++;
				hi = bt_escape_byte(b);
			} else
				hi = (unsigned char)p[b->i++];
			if (hi >= prev)
				set_range(s, (unsigned)prev, (unsigned)hi);
			prev = -1;
			continue;
		}
		if (c >= 0)
			set_add(s, (unsigned)c);
		prev = c;
	}
	if (b->i < b->n)
		b->i++;
	if (neg)
		set_not(s);
}

/* One byte set as an item: a literal, a class, an escape, a dot. */
static void
node_bytes(struct bt_node *nd, const struct bt_set *s)
{
	memset(nd, 0, sizeof *nd);
	nd->first = *s;
	nd->chars = *s;
}

/* An item that matches nothing: an anchor, a lookaround, an option. */
static void
node_empty(struct bt_node *nd)
{
	memset(nd, 0, sizeof *nd);
	nd->nullable = true;
}

/* Skip to the ')' that closes what b->i is inside of. */
static void
bt_skip_paren(struct bt *b)
{
	while (b->i < b->n && b->p[b->i] != ')')
		b->i++;
	if (b->i < b->n)
		b->i++;
}

/*
 * A group, b->i at its '('.  Lookarounds match no bytes, and atomic
 * groups give nothing back; both are read for the groups inside them.
 */
static void
bt_group(struct bt *b, struct bt_node *nd)
{
	const char	*p = b->p + b->i;
	bool		 zero = false, atomic = false;
	size_t		 k;

	b->i++;
	if (p[1] == '*' || (p[1] == '?' && p[2] == '#')) {
		bt_skip_paren(b);
		node_empty(nd);
		return;
	}
	if (p[1] == '?') {
		b->i++;
		if (p[2] == '=' || p[2] == '!' || (p[2] == '<' && (p[3] == '=' ||
		    p[3] == '!')))
			zero = true;
		atomic = p[2] == '>';
		if (p[2] == 'P' && (p[3] == '=' || p[3] == '>')) {
			bt_skip_paren(b);
			node_bytes(nd, &(struct bt_set){ { 0 } });
			set_not(&nd->first);
			nd->chars = nd->first;
			return;
		}
		if (p[2] != '\0' && strchr("R0123456789+-&", p[2]) != NULL) {
			bt_skip_paren(b);	/* a recursion: not followed */
			node_empty(nd);
			return;
		}
		/* Skip the group's kind: flags, a name, up to ':' or '>' or '\''. */
		for (k = 2; p[k] != '\0' && p[k] != ')' && p[k] != ':' &&
		    p[k] != '>' && p[k] != '=' && p[k] != '!' && p[k] != '|' &&
		    (k == 2 || p[k] != '\''); k++)
			;
		b->i = (size_t)(p - b->p) + k + (p[k] != '\0');
		if (p[k] == ')') {	/* (?i): an option for what follows */
			node_empty(nd);
			return;
		}
	}
	b->depth++;
	bt_alt(b, nd);
	b->depth--;
	if (b->i < b->n && b->p[b->i] == ')')
		b->i++;
	nd->group = true;
	if (zero) {
		node_empty(nd);
		nd->group = true;
	} else if (atomic)
		memset(&nd->tail, 0, sizeof nd->tail);
}

/* One atom at b->i, before its quantifier. */
static void
bt_atom(struct bt *b, struct bt_node *nd)
{
	struct bt_set	 s = { { 0 } };
	char		 c = b->p[b->i];
	int		 v;

	if (b->quote) {
		if (c == '\\' && b->p[b->i + 1] == 'E') {
			b->quote = false;
			b->i += 2;
			node_empty(nd);
			return;
		}
		set_add(&s, (unsigned char)c);
		b->i++;
		node_bytes(nd, &s);
		return;
	}
	switch (c) {
	case '(':
		if (b->depth >= BT_MAXDEPTH) {
			bt_skip_paren(b);
			node_empty(nd);
			return;
		}
		bt_group(b, nd);
		return;
	case '[':
		b->i++;
		bt_class(b, &s);
		break;
	case '.':
		b->i++;
		set_escape(&s, 'N');
		break;
	case '^':
	case '$':
		b->i++;
		node_empty(nd);
		return;
	case '\\':
		b->i++;
		c = b->p[b->i];
		if (c == 'Q') {
			b->quote = true;
			b->i++;
			node_empty(nd);
			return;
		}
		if (strchr("bBAzZGKE", c) != NULL && c != '\0') {
			b->i++;
			node_empty(nd);
			return;
		}
		if (set_escape(&s, c)) {
			b->i++;
			break;
		}
		if (strchr("123456789gkpPXRC", c) != NULL && c != '\0') {
			/* Back references, properties, \R: any byte. */
			b->i++;
			if (b->p[b->i] == '{' || b->p[b->i] == '<')
				while (b->i < b->n && b->p[b->i] != '}' &&
				    b->p[b->i] != '>')
					b->i++;
			if (b->i < b->n && (b->p[b->i] == '}' ||
			    b->p[b->i] == '>'))
				b->i++;
			set_not(&s);
			break;
		}
		if ((v = bt_escape_byte(b)) >= 0)
			set_add(&s, (unsigned)v);
		break;
	default:
		b->i++;
		set_add(&s, (unsigned char)c);
		break;
	}
	node_bytes(nd, &s);
}

/* A quantifier at b->i: its bounds, or false when there is none. */
static bool
bt_quant(struct bt *b, int *min, int *max, bool *possessive)
{
	const char	*p = b->p + b->i;
	char		*end;
	long		 lo, hi;

	*possessive = false;
	if (b->quote)
		return false;
	if (*p == '*' || *p == '+' || *p == '?') {
		*min = *p == '+' ? 1 : 0;
		*max = *p == '?' ? 1 : BT_UNBOUNDED;
		b->i++;
	} else if (*p == '{' && p[1] >= '0' && p[1] <= '9') {
		lo = strtol(p + 1, &end, 10);
		hi = lo;
		if (*end == ',') {
			hi = end[1] == '}' ? BT_UNBOUNDED : strtol(end + 1, &end,
			    10);
			if (hi == BT_UNBOUNDED)
				end++;
		}
		if (*end != '}')
			return false;	/* not a quantifier: a literal '{' */
		*min = (int)lo;
		*max = (int)hi;
		b->i = (size_t)(end - b->p) + 1;
	} else
		return false;
	if (b->p[b->i] == '+') {
		*possessive = true;
		b->i++;
	} else if (b->p[b->i] == '?')
		b->i++;
	return true;
}

/* Is a group's body, repeated without bound, risky (see the top)? */
static bool
node_risky(const struct bt_node *body)
{
	return (body->nullable && body->repeats) ||
	    set_meets(&body->tail, &body->first) || body->ambiguous ||
	    body->overlap;
}

/* An atom and its quantifier: the item as the sequence sees it. */
static void
bt_item(struct bt *b, struct bt_node *nd)
{
	size_t	 at = b->i;
	int	 min, max;
	bool	 possessive, slack, many;

	bt_atom(b, nd);
	if (!bt_quant(b, &min, &max, &possessive))
		return;
	slack = !possessive && (max == BT_UNBOUNDED || max > min);
	many = slack && (max == BT_UNBOUNDED || max >= 3);
	if (many && nd->group && b->risky_len == 0 && node_risky(nd)) {
		b->risky = at;
		b->risky_len = b->i - at;
	}
	if (min == 0)
		nd->nullable = true;
	if (max == BT_UNBOUNDED && !possessive)
		nd->repeats = true;
	if (possessive)
		memset(&nd->tail, 0, sizeof nd->tail);
	else if (slack)
		nd->tail = nd->chars;
	nd->slack = slack;
}

/* Items up to '|', ')' or the end. */
static void
bt_seq(struct bt *b, struct bt_node *seq, size_t *nitem)
{
	struct bt_node	 it;
	struct bt_set	 loose = { { 0 } };

	memset(seq, 0, sizeof *seq);
	seq->nullable = true;
	*nitem = 0;
	while (b->i < b->n && (b->quote || (b->p[b->i] != '|' &&
	    b->p[b->i] != ')'))) {
		bt_item(b, &it);
		(*nitem)++;
		if (seq->nullable)
			set_or(&seq->first, &it.first);
		seq->nullable = seq->nullable && it.nullable;
		set_or(&seq->chars, &it.chars);
		seq->repeats |= it.repeats;
		seq->ambiguous |= it.ambiguous;
		seq->overlap |= it.overlap;
		if (it.slack && set_meets(&it.first, &loose))
			seq->ambiguous = true;
		/*
		 * A byte the repeats before could have taken does not end
		 * their slack: in (.+?,)+ the comma may be the dot's.
		 */
		if (!it.nullable && !set_meets(&it.first, &loose))
			memset(&loose, 0, sizeof loose);
		set_or(&loose, &it.tail);
	}
	seq->tail = loose;
}

/* Alternatives up to ')' or the end; b->i is left at the ')'. */
static void
bt_alt(struct bt *b, struct bt_node *nd)
{
	struct bt_node	 seq;
	size_t		 start[BT_MAXALT], len[BT_MAXALT], nitem, n = 0, k;
	struct bt_set	 one[BT_MAXALT];
	bool		 single[BT_MAXALT];
	size_t		 at;

	memset(nd, 0, sizeof *nd);
	for (;;) {
		at = b->i;
		bt_seq(b, &seq, &nitem);
		if (n == 0)
			nd->nullable = seq.nullable;
		nd->nullable |= seq.nullable;
		set_or(&nd->first, &seq.first);
		set_or(&nd->chars, &seq.chars);
		set_or(&nd->tail, &seq.tail);
		nd->repeats |= seq.repeats;
		nd->ambiguous |= seq.ambiguous;
		nd->overlap |= seq.overlap;
		if (n < BT_MAXALT) {
			start[n] = at;
			len[n] = b->i - at;
			one[n] = seq.first;
			single[n] = nitem == 1 && !seq.nullable &&
			    memcmp(&seq.first, &seq.chars, sizeof seq.first) == 0;
			for (k = 0; k < n; k++) {
				if ((len[k] == len[n] && memcmp(b->p + start[k],
				    b->p + at, len[n]) == 0) || (single[k] &&
				    single[n] && set_meets(&one[k], &one[n])))
					nd->overlap = true;
			}
			n++;
		}
		if (b->i >= b->n || b->p[b->i] != '|')
			break;
		b->i++;
	}
}

/*
 * Is pattern src prone to catastrophic backtracking?  If so, *at and *len
 * give the repeated group that is, with its quantifier.
 */
bool
pattern_backtracks(const char *src, size_t *at, size_t *len)
{
	struct bt	 b = { 0 };
	struct bt_node	 nd;

	b.p = src;
	b.n = strlen(src);
	while (b.i < b.n) {
		bt_alt(&b, &nd);
		if (b.i < b.n)
			b.i++;		/* a stray ')': pcre2 refused it already */
	}
	*at = b.risky;
	*len = b.risky_len;
	return b.risky_len > 0;
}
