/*
 * redact.c: secrets in log text replaced by REDACT_MARK before a report
 * renders it.  Each matcher looks at one position and says how much to keep
 * (a name such as "HF_TOKEN=") and how much is the secret; they are written
 * by hand, not as patterns, so that a report of 1,024 ranks pays one pass
 * over its text.  They err towards hiding: a report missing a token's value
 * loses nothing the engineer needs, a report that leaks it is an incident.
 */
#define _GNU_SOURCE		/* memmem */
#include <ctype.h>
#include <string.h>

#include "redact.h"

/* Bytes a secret value may hold: tokens, base64, URL-safe base64. */
static bool
redact_tokenc(unsigned char c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
	    c == '+' || c == '/' || c == '=';
}

/* A value up to a blank, a quote, a separator or the end. */
static size_t
redact_value(const char *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (isspace((unsigned char)p[i]) || p[i] == '"' ||
		    p[i] == '\'' || p[i] == '&' || p[i] == ',' || p[i] == ';' ||
		    p[i] == '`')
			break;
	}
	return i;
}

static bool
redact_prefix(const char *p, size_t n, const char *w)
{
	size_t	k = strlen(w);

	return n >= k && strncasecmp(p, w, k) == 0;
}

/* "Authorization: ...": the whole value, whatever its scheme. */
static bool
redact_authorization(const char *s, size_t i, size_t n, size_t *keep,
    size_t *len)
{
	size_t	k = i + 13, e;

	if (!redact_prefix(s + i, n - i, "authorization"))
		return false;
	if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))
		return false;
	if (k < n && (s[k] == '"' || s[k] == '\''))
		k++;
	if (k >= n || (s[k] != ':' && s[k] != '='))
		return false;
	k++;
	while (k < n && (s[k] == ' ' || s[k] == '"' || s[k] == '\''))
		k++;
	for (e = k; e < n && s[e] != '"' && s[e] != '\'' && s[e] != '\r' &&
	    s[e] != '\n' && s[e] != ','; e++)
		;
	while (e > k && s[e - 1] == ' ')
		e--;
	if (e == k)
		return false;
	*keep = k - i;
	*len = e - k;
	return true;
}

/* "Bearer xyz...": the token. */
static bool
redact_bearer(const char *s, size_t i, size_t n, size_t *keep, size_t *len)
{
	size_t	k = i + 6, e;

	if (!redact_prefix(s + i, n - i, "bearer") || k >= n || s[k] != ' ')
		return false;
	if (i > 0 && isalnum((unsigned char)s[i - 1]))
		return false;
	while (k < n && s[k] == ' ')
		k++;
	for (e = k; e < n && redact_tokenc((unsigned char)s[e]); e++)
		;
	if (e - k < 8)
		return false;
	*keep = k - i;
	*len = e - k;
	return true;
}

/*
 * NAME=value where NAME says it is a secret: HF_TOKEN, WANDB_API_KEY,
 * AWS_SECRET_ACCESS_KEY, *_PASSWORD, *_SECRET, *_TOKEN, *_API_KEY.
 */
static bool
redact_assignment(const char *s, size_t i, size_t n, size_t *keep,
    size_t *len)
{
	static const char *const ends[] = {
		"TOKEN", "API_KEY", "APIKEY", "SECRET", "SECRET_KEY",
		"ACCESS_KEY", "PASSWORD", "PASSWD"
	};
	size_t	e, k, w, v;

	if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))
		return false;
	for (e = i; e < n && (isalnum((unsigned char)s[e]) || s[e] == '_');
	    e++)
		;
	if (e == i || e >= n || s[e] != '=')
		return false;
	for (k = 0; k < nitems(ends); k++) {
		w = strlen(ends[k]);
		if (e - i >= w && strncasecmp(s + e - w, ends[k], w) == 0)
			break;
	}
	if (k == nitems(ends))
		return false;
	k = e + 1;
	if (k < n && (s[k] == '"' || s[k] == '\''))
		k++;
	if ((v = redact_value(s + k, n - k)) == 0)
		return false;
	*keep = k - i;
	*len = v;
	return true;
}

/* AKIA... or ASIA... and sixteen more: an AWS access key id. */
static bool
redact_aws(const char *s, size_t i, size_t n, size_t *keep, size_t *len)
{
	size_t	k;

	if (n - i < 20 || (strncmp(s + i, "AKIA", 4) != 0 &&
	    strncmp(s + i, "ASIA", 4) != 0))
		return false;
	if (i > 0 && isalnum((unsigned char)s[i - 1]))
		return false;
	for (k = 4; k < 20; k++) {
		if (!isupper((unsigned char)s[i + k]) &&
		    !isdigit((unsigned char)s[i + k]))
			return false;
	}
	if (i + 20 < n && isalnum((unsigned char)s[i + 20]))
		return false;
	*keep = 0;
	*len = 20;
	return true;
}

/* hf_..., ghp_..., xoxb-...: tokens that name their issuer. */
static bool
redact_prefixed(const char *s, size_t i, size_t n, size_t *keep, size_t *len)
{
	static const char *const pre[] = { "hf_", "ghp_", "gho_", "github_pat_",
	    "xoxb-", "xoxp-", "sk-" };
	size_t	k, w, e;

	if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_' ||
	    s[i - 1] == '-'))
		return false;
	for (k = 0; k < nitems(pre); k++) {
		w = strlen(pre[k]);
		if (n - i > w && strncmp(s + i, pre[k], w) == 0)
			break;
	}
	if (k == nitems(pre))
		return false;
	for (e = i + w; e < n && (isalnum((unsigned char)s[e]) || s[e] == '_' ||
	    s[e] == '-'); e++)
		;
	if (e - i - w < 20)
		return false;
	*keep = 0;
	*len = e - i;
	return true;
}

/* scheme://user:password@host: the password. */
static bool
redact_url(const char *s, size_t i, size_t n, size_t *keep, size_t *len)
{
	size_t	k, colon = 0, at;

	if (n - i < 3 || strncmp(s + i, "://", 3) != 0)
		return false;
	for (k = i + 3; k < n; k++) {
		if (s[k] == ':' && colon == 0)
			colon = k;
		if (s[k] == '@' || s[k] == '/' || isspace((unsigned char)s[k]))
			break;
	}
	if (k >= n || s[k] != '@' || colon == 0 || colon + 1 == k)
		return false;
	at = k;
	*keep = colon + 1 - i;
	*len = at - colon - 1;
	return true;
}

/* -----BEGIN ... PRIVATE KEY-----: the rest of the text is the key. */
static bool
redact_pem(const char *s, size_t i, size_t n, size_t *keep, size_t *len)
{
	const char	*end;

	if (n - i < 11 || strncmp(s + i, "-----BEGIN ", 11) != 0)
		return false;
	end = memchr(s + i, '\n', n - i);
	if (end == NULL)
		end = s + n;
	if (memmem(s + i, (size_t)(end - s) - i, "PRIVATE KEY", 11) == NULL)
		return false;
	/* Up to the END line when the text holds it, else all of it. */
	end = memmem(s + i + 11, n - i - 11, "-----END ", 9);
	if (end != NULL && (end = memmem(end + 9, n - (size_t)(end + 9 - s),
	    "-----", 5)) != NULL)
		*len = (size_t)(end + 5 - s) - i;
	else
		*len = n - i;
	*keep = 0;
	return true;
}

/*
 * A line that is nothing but a long base64 run: a private key's body,
 * shown as the context of a line above it.
 */
static bool
redact_pem_body(const char *s, size_t n)
{
	size_t	i, up = 0, low = 0, dig = 0;

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
	    s[n - 1] == ' '))
		n--;
	for (i = 0; i < n && s[i] == ' '; i++)
		;
	if (n - i < 60)
		return false;
	for (; i < n; i++) {
		if (isupper((unsigned char)s[i]))
			up++;
		else if (islower((unsigned char)s[i]))
			low++;
		else if (isdigit((unsigned char)s[i]))
			dig++;
		else if (s[i] != '+' && s[i] != '/' && s[i] != '=')
			return false;
	}
	return up > 0 && low > 0 && dig > 0;
}

/*
 * s[0, n) into b with its secrets replaced by REDACT_MARK; returns how many
 * values were hidden.
 */
size_t
redact(struct buf *b, const char *s, size_t n)
{
	bool	(*const match[])(const char *, size_t, size_t, size_t *,
		    size_t *) = {
		redact_pem, redact_authorization, redact_bearer,
		redact_assignment, redact_aws, redact_prefixed, redact_url
	};
	size_t	i = 0, from = 0, k, keep, len, hidden = 0;

	if (redact_pem_body(s, n)) {
		buf_adds(b, REDACT_MARK);
		return 1;
	}
	while (i < n) {
		for (k = 0; k < nitems(match); k++) {
			if (match[k](s, i, n, &keep, &len))
				break;
		}
		if (k == nitems(match)) {
			i++;
			continue;
		}
		buf_add(b, s + from, i + keep - from);
		buf_adds(b, REDACT_MARK);
		hidden++;
		i += keep + len;
		from = i;
	}
	buf_add(b, s + from, n - from);
	return hidden;
}
