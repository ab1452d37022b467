/*
 * fingerprint.c: what makes two incidents "the same failure".
 *
 * The root line of an incident is turned into a template: typed masks
 * replace what differs from one run of a failure to the next (numbers,
 * hex, addresses, paths, pids, hosts, ranks, times, PCI addresses, sizes,
 * IP addresses, UUIDs), and the launcher's prefixes ([default3]:, [rank3]:,
 * "node07: ", vLLM's "(VllmWorker rank=3 pid=N)") are cut off.  The masks
 * are typed and come before any grouping because the quality of the masking
 * decides the grouping more than the algorithm that follows does (Drain's
 * accuracy on Loghub ranges from 0.53 to 1.0 with it).
 *
 * The fingerprint is a hash of the root rule id and the template, plus the
 * host for a hardware fault (a bad GPU is a fact about one machine).  It
 * starts with the scheme's version, FP_SCHEME: when the masking changes,
 * the version changes, so old incidents are never silently regrouped with
 * new ones under a fingerprint they were not computed with (Sentry versions
 * its grouping for the same reason).  Everything here is pure text work, so
 * the store, the reports and the tests share it; nothing here knows SQL.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine.h"

#define nitems_fp(a)	(sizeof (a) / sizeof (a)[0])

/* A recogniser: how many bytes at p (a token start) it takes, or 0. */
typedef size_t	(*fp_match_fn)(const char *, size_t);

/* The typed masks tried at the start of each token, in this order. */
struct fp_mask {
	const char	*mask;		/* what replaces the match */
	fp_match_fn	 match;
};

/* Whether c continues a word: letters, digits, '_' and any non-ASCII. */
static int
fp_word(unsigned char c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

/* How many hex digits start p, at most max. */
static size_t
fp_hex(const char *p, size_t len, size_t max)
{
	size_t	n = 0;

	while (n < len && n < max && isxdigit((unsigned char)p[n]))
		n++;
	return n;
}

/* How many decimal digits start p. */
static size_t
fp_digits(const char *p, size_t len)
{
	size_t	n = 0;

	while (n < len && isdigit((unsigned char)p[n]))
		n++;
	return n;
}

/* Exactly n hex digits then one of the separators (or the end). */
static int
fp_hexfield(const char *p, size_t len, size_t n)
{
	return fp_hex(p, len, n + 1) == n;
}

/* A UUID: 8-4-4-4-12 hex digits. */
static size_t
fp_uuid(const char *p, size_t len)
{
	static const size_t	 group[] = { 8, 4, 4, 4, 12 };
	size_t			 i, at = 0;

	for (i = 0; i < 5; i++) {
		if (!fp_hexfield(p + at, len - at, group[i]))
			return 0;
		at += group[i];
		if (i < 4 && (at >= len || p[at++] != '-'))
			return 0;
	}
	return at;
}

/*
 * A PCI address in any of the forms the drivers and tools print, its
 * normal form (domain:bus:device, 4:2:2 hex digits, lower case, no
 * function, since Xid lines have none) written to out.  Returns the bytes
 * taken, or 0.  NCCL's packed busId (hex: domain, bus, device, function)
 * is read only by fingerprint_pci_busid, since a bare hex number is a PCI
 * address only where NCCL says "busId".
 */
static size_t
fp_pci_parse(const char *p, size_t len, char *out, size_t outlen)
{
	size_t	dom, at;
	char	d[16];

	dom = fp_hex(p, len, 9);
	if ((dom != 4 && dom != 8) || dom >= len || p[dom] != ':')
		return 0;
	at = dom + 1;
	if (!fp_hexfield(p + at, len - at, 2) || at + 2 >= len ||
	    p[at + 2] != ':')
		return 0;
	at += 3;
	if (fp_hex(p + at, len - at, 3) != 2)
		return 0;
	at += 2;
	/* A function digit when there is one. */
	if (at + 1 < len && p[at] == '.' && isxdigit((unsigned char)p[at + 1])
	    && (at + 2 >= len || !isxdigit((unsigned char)p[at + 2])))
		at += 2;
	if (at < len && fp_word((unsigned char)p[at]))
		return 0;
	/* The last four digits of the domain: 00000000 is 0000. */
	memcpy(d, p + dom - 4, 4);
	snprintf(out, outlen, "%.4s:%.2s:%.2s", d, p + dom + 1, p + dom + 4);
	for (; *out != '\0'; out++)
		*out = (char)tolower((unsigned char)*out);
	return at;
}

/* fp_pci_parse as a recogniser. */
static size_t
fp_pci(const char *p, size_t len)
{
	char	out[16];

	return fp_pci_parse(p, len, out, sizeof out);
}

/* Digits, at most 3, forming an octet. */
static size_t
fp_octet(const char *p, size_t len)
{
	size_t	n = fp_digits(p, len);

	return n >= 1 && n <= 3 && atoi(p) <= 255 ? n : 0;
}

/* An IPv4 address with an optional port. */
static size_t
fp_ipv4(const char *p, size_t len)
{
	size_t	i, n, at = 0;

	for (i = 0; i < 4; i++) {
		if ((n = fp_octet(p + at, len - at)) == 0)
			return 0;
		at += n;
		if (i < 3 && (at >= len || p[at++] != '.'))
			return 0;
	}
	if (at < len && (isdigit((unsigned char)p[at]) || p[at] == '.'))
		return 0;
	if (at + 1 < len && p[at] == ':' && (n = fp_digits(p + at + 1,
	    len - at - 1)) > 0 && n <= 5)
		at += 1 + n;
	return at;
}

/* An IPv6 address: hex groups and colons, with a letter or "::" in it. */
static size_t
fp_ipv6(const char *p, size_t len)
{
	size_t	at = 0, colons = 0;
	int	letter = 0, dbl = 0;

	while (at < len && (isxdigit((unsigned char)p[at]) || p[at] == ':')) {
		if (p[at] == ':') {
			colons++;
			if (at > 0 && p[at - 1] == ':')
				dbl = 1;
		} else if (isalpha((unsigned char)p[at]))
			letter = 1;
		at++;
	}
	if (colons < 2 || !(letter || dbl) || (at < len &&
	    fp_word((unsigned char)p[at])))
		return 0;
	/* "a::" at the end of a sentence, or a lone "::": not an address. */
	return at >= 4 ? at : 0;
}

/* hh:mm or hh:mm:ss with an optional fraction; 0 when not one. */
static size_t
fp_clock(const char *p, size_t len)
{
	size_t	at, n;

	n = fp_digits(p, len);
	if (n < 1 || n > 2 || n >= len || p[n] != ':')
		return 0;
	at = n + 1;
	if (fp_digits(p + at, len - at) != 2)
		return 0;
	at += 2;
	if (at + 2 < len && p[at] == ':' && fp_digits(p + at + 1,
	    len - at - 1) == 2)
		at += 3;
	else if (n == 1)
		return 0;	/* "3:14" is a ratio or a line, not a time */
	if (at + 1 < len && (p[at] == '.' || p[at] == ',') &&
	    (n = fp_digits(p + at + 1, len - at - 1)) > 0)
		at += 1 + n;
	return at;
}

/* A time zone after a time: Z, +hh:mm, +hhmm. */
static size_t
fp_zone(const char *p, size_t len)
{
	size_t	n;

	if (len > 0 && p[0] == 'Z')
		return 1;
	if (len < 3 || (p[0] != '+' && p[0] != '-'))
		return 0;
	n = fp_digits(p + 1, len - 1);
	if (n == 4)
		return 5;
	if (n == 2 && len >= 6 && p[3] == ':' && fp_digits(p + 4,
	    len - 4) == 2)
		return 6;
	return 0;
}

/* A date (2026-12-02, 2026/12/02), a time, or both, with a zone. */
static size_t
fp_time(const char *p, size_t len)
{
	size_t	at = 0, n;

	if (fp_digits(p, len) == 4 && len >= 10 && (p[4] == '-' ||
	    p[4] == '/') && fp_digits(p + 5, len - 5) == 2 && p[7] == p[4] &&
	    fp_digits(p + 8, len - 8) == 2) {
		at = 10;
		if (at + 1 < len && (p[at] == 'T' || p[at] == ' ') &&
		    (n = fp_clock(p + at + 1, len - at - 1)) > 0)
			at += 1 + n;
		else
			return at;
	} else if ((at = fp_clock(p, len)) == 0)
		return 0;
	return at + fp_zone(p + at, len - at);
}

/* 0x and hex digits: an address from 8 digits on, else a hex value. */
static size_t
fp_0x(const char *p, size_t len, size_t min, size_t max)
{
	size_t	n;

	if (len < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return 0;
	n = fp_hex(p + 2, len - 2, SIZE_MAX);
	/* Addresses printed with a separator: 0x7f12_34560000. */
	while (2 + n + 1 < len && p[2 + n] == '_' &&
	    isxdigit((unsigned char)p[3 + n]))
		n += 1 + fp_hex(p + 3 + n, len - 3 - n, SIZE_MAX);
	if (n < min || n > max || (2 + n < len &&
	    fp_word((unsigned char)p[2 + n])))
		return 0;
	return 2 + n;
}

/* A pointer-sized hex value. */
static size_t
fp_addr(const char *p, size_t len)
{
	return fp_0x(p, len, 8, SIZE_MAX);
}

/* A short hex value (flags, error words). */
static size_t
fp_hexval(const char *p, size_t len)
{
	return fp_0x(p, len, 1, 7);
}

/* A bare hex word of 8 or more digits with both digits and letters. */
static size_t
fp_hexword(const char *p, size_t len)
{
	size_t	n, i;
	int	digit = 0, letter = 0;

	n = fp_hex(p, len, SIZE_MAX);
	if (n < 8 || (n < len && fp_word((unsigned char)p[n])))
		return 0;
	for (i = 0; i < n; i++) {
		if (isdigit((unsigned char)p[i]))
			digit = 1;
		else
			letter = 1;
	}
	return digit && letter ? n : 0;
}

/* The units a size is written in, longest first where one prefixes another. */
static const char *const fp_units[] = {
	"KiB", "MiB", "GiB", "TiB", "PiB", "KB", "MB", "GB", "TB", "PB",
	"kB", "bytes", "B"
};

/* A number followed by a unit of size: 2.00 GiB, 512MB, 1024 bytes. */
static size_t
fp_size(const char *p, size_t len)
{
	size_t	at, n, i, u;

	if ((at = fp_digits(p, len)) == 0)
		return 0;
	if (at + 1 < len && p[at] == '.' && (n = fp_digits(p + at + 1,
	    len - at - 1)) > 0)
		at += 1 + n;
	if (at < len && p[at] == ' ')
		at++;
	for (i = 0; i < nitems_fp(fp_units); i++) {
		u = strlen(fp_units[i]);
		if (at + u <= len && memcmp(p + at, fp_units[i], u) == 0 &&
		    (at + u == len || !fp_word((unsigned char)p[at + u])))
			return at + u;
	}
	return 0;
}

/* Whether c ends a path: space, quotes, brackets, separators. */
static int
fp_path_end(unsigned char c)
{
	return isspace(c) || c == '\'' || c == '"' || c == ')' || c == ']' ||
	    c == ',' || c == ';' || c == '>' || c == ':' || c == '`' ||
	    c == '}' || c < 0x20;
}

/*
 * A path: absolute (/x/y), home (~/x), relative (./x, ../x), or a word
 * with two slashes or more (checkpoints/iter_20/mp_rank_01).
 */
static size_t
fp_path(const char *p, size_t len)
{
	size_t	at = 0, slashes = 0;

	while (at < len && !fp_path_end((unsigned char)p[at])) {
		if (p[at] == '/')
			slashes++;
		at++;
	}
	if (at < 2 || slashes == 0)
		return 0;
	if (p[0] == '/' || (p[0] == '~' && p[1] == '/') ||
	    (p[0] == '.' && (p[1] == '/' || (at > 2 && p[1] == '.' &&
	    p[2] == '/'))))
		return at;
	/* "and/or", "8/30": one slash between words is prose or a ratio. */
	return slashes >= 2 ? at : 0;
}

static const struct fp_mask fp_masks[] = {
	{ "<uuid>", fp_uuid },
	{ "<pci>", fp_pci },
	{ "<ip>", fp_ipv4 },
	{ "<time>", fp_time },
	{ "<ip>", fp_ipv6 },
	{ "<addr>", fp_addr },
	{ "<hex>", fp_hexval },
	{ "<size>", fp_size },
	{ "<path>", fp_path },
	{ "<hex>", fp_hexword },
};

/* Case-insensitive: does the word before p (ending at p) end with w? */
static int
fp_after(const char *start, const char *p, const char *w)
{
	size_t	n = strlen(w);

	/* Skip the separators between a keyword and its number. */
	while (p > start && (p[-1] == ' ' || p[-1] == '=' || p[-1] == ':' ||
	    p[-1] == '#'))
		p--;
	if ((size_t)(p - start) < n || strncasecmp(p - n, w, n) != 0)
		return 0;
	/* "rank" in "rank", "local_rank", "[rank"; not in "frank". */
	return p - n == start || !isalpha((unsigned char)(p - n)[-1]) ||
	    strcmp(w, "rank") != 0;
}

/* The mask of a run of digits, by the word before it. */
static const char *
fp_number_mask(const char *start, const char *p)
{
	if (fp_after(start, p, "pid"))
		return "<pid>";
	if (fp_after(start, p, "rank") || fp_after(start, p, "default"))
		return "<rank>";
	return "<num>";
}

/* A known host name at p, whole: its length, or 0. */
static size_t
fp_host(const char *p, size_t len, const char *const *hosts, size_t nhosts)
{
	size_t	i, n;

	for (i = 0; i < nhosts; i++) {
		if (hosts[i] == NULL || (n = strlen(hosts[i])) < 2 || n > len)
			continue;
		/* "node1" in "node1.cluster", not in "node10" or "node1-ib". */
		if (memcmp(p, hosts[i], n) == 0 && (n == len ||
		    (!fp_word((unsigned char)p[n]) && p[n] != '-')))
			return n;
	}
	return 0;
}

/* A prefix-like host: lower case, digits, '-' and '.', with a digit. */
static size_t
fp_hostlike(const char *p, size_t len)
{
	size_t	at = 0;
	int	digit = 0;

	while (at < len && (islower((unsigned char)p[at]) ||
	    isdigit((unsigned char)p[at]) || p[at] == '-' || p[at] == '.')) {
		digit |= isdigit((unsigned char)p[at]);
		at++;
	}
	return digit && at > 0 && isalpha((unsigned char)p[0]) ? at : 0;
}

/* Whether the n bytes at p hold "pid=". */
static int
fp_has_pid(const char *p, size_t n)
{
	size_t	i;

	for (i = 0; i + 4 <= n; i++) {
		if (memcmp(p + i, "pid=", 4) == 0)
			return 1;
	}
	return 0;
}

/*
 * The length of one launcher prefix at p, or 0: torchrun's [default3]:,
 * PyTorch's [rank3]:, vLLM's and Ray's "(Name rank=3 pid=N) ", srun
 * --label's " 3: ", pdsh's "node07: ".
 */
static size_t
fp_prefix(const char *p, size_t len, const char *const *hosts,
    size_t nhosts)
{
	const char	*close;
	size_t		 at, n;

	if (len > 0 && p[0] == '[') {
		at = 1;
		if (len > 8 && strncmp(p + 1, "default", 7) == 0)
			at = 8;
		else if (len > 5 && strncmp(p + 1, "rank", 4) == 0)
			at = 5;
		if (at > 1 && (n = fp_digits(p + at, len - at)) > 0 &&
		    at + n + 1 < len && p[at + n] == ']' && p[at + n + 1] == ':')
			return at + n + 2;
		return 0;
	}
	if (len > 0 && p[0] == '(' && (close = memchr(p, ')', len)) != NULL &&
	    close - p < 128 && fp_has_pid(p, (size_t)(close - p)))
		return (size_t)(close - p) + 1;
	if ((n = fp_digits(p, len)) > 0 && n + 1 < len && p[n] == ':' &&
	    p[n + 1] == ' ')
		return n + 2;
	if ((n = fp_host(p, len, hosts, nhosts)) == 0)
		n = fp_hostlike(p, len);
	if (n > 0 && n + 1 < len && p[n] == ':' && p[n + 1] == ' ')
		return n + 2;
	return 0;
}

/* Append a mask, or a space, unless the template is full. */
static void
fp_put(struct buf *out, const char *s, size_t n)
{
	if (out->len + n > FP_TEMPLATE_MAX)
		return;
	buf_add(out, s, n);
}

/*
 * The template of a line: launcher prefixes cut, typed masks in place of
 * what varies, runs of blanks as one space, at most FP_TEMPLATE_MAX bytes.
 * hosts are the incident's host names, masked wherever they appear.
 */
void
fingerprint_template(const char *text, const char *const *hosts,
    size_t nhosts, struct buf *out)
{
	const char	*p = text, *end, *start;
	const char	*mask;
	size_t		 n, i, len;
	int		 boundary;

	buf_reset(out);
	if (text == NULL)
		return;
	end = text + strlen(text);
	for (;;) {
		while (p < end && isspace((unsigned char)*p))
			p++;
		if ((n = fp_prefix(p, (size_t)(end - p), hosts, nhosts)) == 0)
			break;
		p += n;
	}
	start = p;
	while (p < end && out->len < FP_TEMPLATE_MAX) {
		len = (size_t)(end - p);
		if (isspace((unsigned char)*p) || (unsigned char)*p < 0x20 ||
		    *p == 0x7f) {
			while (p < end && (isspace((unsigned char)*p) ||
			    (unsigned char)*p < 0x20 || *p == 0x7f))
				p++;
			if (p < end)
				fp_put(out, " ", 1);
			continue;
		}
		boundary = p == start || !fp_word((unsigned char)p[-1]);
		mask = NULL;
		n = 0;
		for (i = 0; boundary && i < nitems_fp(fp_masks); i++) {
			if ((n = fp_masks[i].match(p, len)) > 0) {
				mask = fp_masks[i].mask;
				break;
			}
		}
		if (mask == NULL && boundary &&
		    (n = fp_host(p, len, hosts, nhosts)) > 0)
			mask = "<host>";
		if (mask == NULL && isdigit((unsigned char)*p)) {
			n = fp_digits(p, len);
			/* A decimal fraction or exponent is one number. */
			if (n + 1 < len && p[n] == '.' &&
			    isdigit((unsigned char)p[n + 1]))
				n += 1 + fp_digits(p + n + 1, len - n - 1);
			if (n + 1 < len && (p[n] == 'e' || p[n] == 'E') &&
			    (isdigit((unsigned char)p[n + 1]) ||
			    ((p[n + 1] == '-' || p[n + 1] == '+') &&
			    n + 2 < len && isdigit((unsigned char)p[n + 2]))))
				n += 2 + fp_digits(p + n + 2, len - n - 2);
			mask = fp_number_mask(start, p);
		}
		if (mask != NULL) {
			fp_put(out, mask, strlen(mask));
			p += n;
		} else {
			fp_put(out, p, 1);
			p++;
		}
	}
}

/*
 * The first PCI address in a line, normalised into out (at least 16
 * bytes): Xid's "PCI:0000:97:00", NCCL's "busId 97000" and nvidia-smi's
 * "00000000:97:00.0" all give "0000:97:00".  0 when found, else -1.
 */
int
fingerprint_find_pci(const char *text, char *out, size_t outlen)
{
	const char	*p;
	size_t		 len;

	if (text == NULL)
		return -1;
	len = strlen(text);
	for (p = text; *p != '\0'; p++) {
		if (p > text && fp_word((unsigned char)p[-1]))
			continue;
		if (strncmp(p, "busId ", 6) == 0 &&
		    fingerprint_pci_busid(p + 6, out, outlen) == 0)
			return 0;
		if (fp_pci_parse(p, len - (size_t)(p - text), out, outlen) > 0)
			return 0;
	}
	return -1;
}

/*
 * NCCL's busId, a hex number of the packed address (0x97000 is
 * 0000:97:00.0: domain, bus, device and function digits run together),
 * normalised into out.  0, or -1 when it is not one.
 */
int
fingerprint_pci_busid(const char *s, char *out, size_t outlen)
{
	unsigned long long	 v;
	char			*end;
	size_t			 n;

	n = fp_hex(s, strlen(s), 17);
	if (n < 4 || n > 16 || fp_word((unsigned char)s[n]))
		return -1;
	v = strtoull(s, &end, 16);
	snprintf(out, outlen, "%04llx:%02llx:%02llx", (v >> 20) & 0xffff,
	    (v >> 12) & 0xff, (v >> 4) & 0xff);
	return 0;
}

/* Normalise one PCI address written in any form, or -1. */
int
fingerprint_pci(const char *s, char *out, size_t outlen)
{
	size_t	len;

	if (s == NULL)
		return -1;
	if (strncasecmp(s, "PCI:", 4) == 0)
		s += 4;
	len = strlen(s);
	if (fp_pci_parse(s, len, out, outlen) == len)
		return 0;
	return fingerprint_pci_busid(s, out, outlen);
}

/* Where an event comes from: its process's host, else its source's or rank's. */
const char *
fingerprint_event_host(const struct rl_incident *inc,
    const struct rl_event *ev)
{
	const struct rl_rank	*r;

	if (ev->process != RL_NONE && (size_t)ev->process < inc->nprocs &&
	    inc->procs[ev->process]->host != NULL)
		return inc->procs[ev->process]->host;
	if (ev->source < inc->nsources &&
	    inc->sources[ev->source]->host != NULL)
		return inc->sources[ev->source]->host;
	if (ev->rank != RL_NONE && (r = incident_rank(inc, ev->rank)) != NULL)
		return r->host;
	return NULL;
}

/* The hosts met so far, each once, in the order met. */
struct fp_hostlist {
	const char	**v;
	size_t		  n;
	size_t		  cap;
	struct keymap	  seen;		/* host -> itself */
};

/*
 * Add a host to the list unless it is there: looked up, not compared with
 * each one before it, which at 10,000 hosts (a pdsh stream, one folder per
 * node) was 150 million strcmp.
 */
static void
fp_hosts_add(struct fp_hostlist *l, const char *host)
{
	if (host == NULL || *host == '\0' ||
	    keymap_put(&l->seen, NULL, host, (void *)host) != NULL)
		return;
	l->v = array_grow(l->v, l->n, &l->cap, sizeof *l->v);
	l->v[l->n++] = host;
}

/* Longest first; of one length, in the order met. */
struct fp_hostlen {
	const char	*host;
	size_t		 len;
	size_t		 at;
};

static int
fp_hostlen_cmp(const void *a, const void *b)
{
	const struct fp_hostlen	*x = a, *y = b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Every host the incident names, longest first so none masks a part. */
static const char **
fp_hosts(const struct rl_incident *inc, size_t *np)
{
	struct fp_hostlist	 l = { 0 };
	struct fp_hostlen	*by;
	size_t			 i;

	for (i = 0; i < inc->nsources; i++)
		fp_hosts_add(&l, inc->sources[i]->host);
	for (i = 0; i < inc->nprocs; i++)
		fp_hosts_add(&l, inc->procs[i]->host);
	for (i = 0; i < inc->nranks; i++)
		fp_hosts_add(&l, inc->ranks[i].host);
	keymap_clear(&l.seen);
	by = xcalloc(l.n + 1, sizeof *by);
	for (i = 0; i < l.n; i++) {
		by[i].host = l.v[i];
		by[i].len = strlen(l.v[i]);
		by[i].at = i;
	}
	qsort(by, l.n, sizeof *by, fp_hostlen_cmp);
	for (i = 0; i < l.n; i++)
		l.v[i] = by[i].host;
	free(by);
	*np = l.n;
	return l.v;
}

/* The rule id the root is known by (the diagnosis's own for a hang). */
static const char *
fp_rule(const struct rl_event *e)
{
	if (e->role == ROLE_HANG)
		return "rankline.hang.quiet";
	return e->rule != NULL ? e->rule->id : "rankline.unknown";
}

/*
 * The one hash over a string and its NUL, on from h: the NUL keeps "ab"+"c"
 * apart from "a"+"bc", and stored fingerprints were made so.
 */
static uint64_t
fp_hash(uint64_t h, const char *s)
{
	return hash_bytes(h, s, strlen(s) + 1);
}

/*
 * The fingerprint of a rule and a template (and a host, for hardware):
 * "<scheme>:<16 hex digits>".  The caller frees it.
 */
char *
fingerprint_make(int scheme, const char *rule, const char *template,
    const char *host)
{
	uint64_t	 h = HASH_FNV_OFFSET;
	char		*fp;

	h = fp_hash(h, rule != NULL ? rule : "");
	h = fp_hash(h, template != NULL ? template : "");
	if (host != NULL)
		h = fp_hash(h, host);
	xasprintf(&fp, "%d:%016" PRIx64, scheme, h);
	return fp;
}

/*
 * The signature of an incident's root: rule, template, host, PCI address,
 * rank and fingerprint.  All zero (rule NULL) when nothing failed.
 */
void
fingerprint_signature(const struct rl_incident *inc, struct rl_signature *sig)
{
	const struct rl_event	*e;
	const char		**hosts, *host;
	struct buf		 b = { 0 };
	char			 pci[32];
	size_t			 nhosts;

	memset(sig, 0, sizeof *sig);
	sig->scheme = FP_SCHEME;
	sig->rank = RL_NONE;
	if (inc->answer.first == RL_NONE ||
	    (size_t)inc->answer.first >= inc->nevents)
		return;
	e = inc->events[inc->answer.first];
	hosts = fp_hosts(inc, &nhosts);
	fingerprint_template(event_text(inc, e), hosts, nhosts, &b);
	free(hosts);
	sig->rule = xstrdup(fp_rule(e));
	sig->template = buf_steal(&b);
	if ((host = fingerprint_event_host(inc, e)) != NULL)
		sig->host = xstrdup(host);
	if (fingerprint_find_pci(event_text(inc, e), pci, sizeof pci) == 0)
		sig->pci = xstrdup(pci);
	sig->rank = e->rank;
	sig->hardware = inc->answer.domain == DOMAIN_HARDWARE;
	sig->fingerprint = fingerprint_make(sig->scheme, sig->rule,
	    sig->template, sig->hardware ? sig->host : NULL);
}

/* Free what fingerprint_signature made. */
void
fingerprint_signature_clear(struct rl_signature *sig)
{
	free(sig->rule);
	free(sig->template);
	free(sig->host);
	free(sig->pci);
	free(sig->fingerprint);
	memset(sig, 0, sizeof *sig);
}

/*
 * Keep the root's signature in the model, and its fingerprint as
 * inc->fingerprint (NULL when nothing failed), from the diagnosis.
 */
void
fingerprint_incident(struct rl_incident *inc)
{
	fingerprint_signature_clear(&inc->sig);
	fingerprint_signature(inc, &inc->sig);
	free(inc->fingerprint);
	inc->fingerprint = inc->sig.fingerprint != NULL ?
	    xstrdup(inc->sig.fingerprint) : NULL;
}
