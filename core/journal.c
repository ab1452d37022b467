/*
 * journal.c: a line of `journalctl -o json` (or -o json-seq, or a file of
 * them) read as the message it carries.
 *
 * A cluster's host logs often come through `journalctl -f -o json`, over
 * ssh or pdsh: one JSON object per line, the text in MESSAGE (a string, or
 * an array of bytes when it is not UTF-8), the writer in _HOSTNAME and
 * _PID, the time in __REALTIME_TIMESTAMP.  Read raw, every line would look
 * like one writer's and no rule would see the message as it was written
 * (escaped quotes, \u001b for colour codes).  The object is decoded with
 * jansson; anything that is not such an object is left as it is.
 */
#define _GNU_SOURCE		/* memmem */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#include <jansson.h>

/* A field that journald writes as a decimal string (or a number). */
static long long
journal_int(json_t *o, const char *key)
{
	json_t		*v = json_object_get(o, key);
	const char	*s;
	char		*end;
	long long	 n;

	if (json_is_integer(v))
		return json_integer_value(v);
	if (!json_is_string(v))
		return -1;
	s = json_string_value(v);
	n = strtoll(s, &end, 10);
	return end != s && *end == '\0' && n >= 0 ? n : -1;
}

/*
 * Is line[0, len) a journal entry?  If so, put its message in msg (bytes
 * as written, NUL-terminated) and its writer in *j, and return true.
 */
bool
journal_unwrap(const char *line, size_t len, struct buf *msg,
    struct journal_entry *j)
{
	json_t		*o, *m, *h, *v;
	json_error_t	 err;
	size_t		 i;
	long long	 n;
	bool		 ok = false;

	memset(j, 0, sizeof *j);
	j->pid = RL_NONE;
	/* json-seq puts an RS (0x1e) before each object. */
	if (len > 0 && line[0] == 0x1e) {
		line++;
		len--;
	}
	if (len < 2 || line[0] != '{' || line[len - 1] != '}' ||
	    memmem(line, len, "\"MESSAGE\"", 9) == NULL)
		return false;
	if ((o = json_loadb(line, len, JSON_DISABLE_EOF_CHECK |
	    JSON_ALLOW_NUL, &err)) == NULL)
		return false;
	if (!json_is_object(o))
		goto out;
	m = json_object_get(o, "MESSAGE");
	buf_reset(msg);
	if (json_is_string(m))
		buf_add(msg, json_string_value(m), json_string_length(m));
	else if (json_is_array(m)) {
		/* Not UTF-8: journald gives the bytes one by one. */
		json_array_foreach(m, i, v) {
			if (!json_is_integer(v))
				goto out;
			buf_addc(msg, (char)(json_integer_value(v) & 0xff));
		}
	} else
		goto out;
	if (msg->p == NULL)
		buf_adds(msg, "");
	h = json_object_get(o, "_HOSTNAME");
	if (json_is_string(h))
		snprintf(j->host, sizeof j->host, "%s", json_string_value(h));
	if ((n = journal_int(o, "_PID")) > 0 && n <= INT32_MAX)
		j->pid = (int)n;
	ok = true;
out:
	json_decref(o);
	return ok;
}
