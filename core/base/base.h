/*
 * base.h: the base library (core/base/, librlbase.a), what every part of
 * rankline stands on and that knows nothing of rankline's model: memory
 * that cannot fail and the one fatal exit, growable buffers, errors kept
 * with their file:line, the one hash, sets of ids, the INI-like format of
 * packs and themes, where data files are found, text made safe for each
 * destination, and the clock parser (clock.h).
 *
 * It includes libc only: no rule, event or incident type may appear here,
 * and the build gives its files no other library's headers (Makefile.am).
 */
#ifndef RANKLINE_BASE_H
#define RANKLINE_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"

/* The elements of an array (BSD's <sys/param.h> name). */
#ifndef nitems
#define nitems(a)	(sizeof (a) / sizeof (a)[0])
#endif

/* util.c: memory that cannot fail, and the one fatal exit. */
void		*xmalloc(size_t);
void		*xcalloc(size_t, size_t);
void		*xrealloc(void *, size_t);
void		*xreallocarray(void *, size_t, size_t);
char		*xstrdup(const char *);
char		*xstrndup(const char *, size_t);
void		 strv_free(char **, size_t);
int		 xasprintf(char **, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
int		 xvasprintf(char **, const char *, va_list);
void		 fatal(const char *, ...)
		     __attribute__((noreturn, format(printf, 1, 2)));
extern void	(*fatal_hook)(void);	/* run before exit: the console ends curses */
size_t		 mem_count_nl(const char *, size_t);
#define STR_HASH_SEED	1469598103934665603ULL
uint64_t	 str_hash(uint64_t, const char *);
#define HASH_FNV_OFFSET	0xcbf29ce484222325ULL
#define HASH_FNV_PRIME	0x100000001b3ULL
uint64_t	 hash_bytes(uint64_t, const void *, size_t);
void		*array_grow(void *, size_t, size_t *, size_t);

/*
 * A table of 64-bit ids, open addressing: a set, or with idhash_put a map
 * of each id to a value (0 until set).  Zeroed it is empty; idhash_clear
 * frees what it holds and leaves it empty.
 */
struct idhash {
	uint64_t	*v;		/* key + 1, 0 empty */
	uint64_t	*val;		/* per slot: its key's value, or NULL
					   while only idhash_add was used */
	size_t		 cap;		/* a power of two */
	size_t		 n;		/* keys held */
};
bool		 idhash_add(struct idhash *, uint64_t);
uint64_t	*idhash_put(struct idhash *, uint64_t);
const uint64_t	*idhash_get(const struct idhash *, uint64_t);
void		 idhash_clear(struct idhash *);

/*
 * fileset.c: a set of file identities, (device, inode) pairs, hashed.
 * Zeroed it is empty; fileset_clear frees what it holds and leaves it
 * empty.  An inode of 0 is never held.
 */
struct fileset {
	struct fileid {
		uint64_t	dev;		/* st_dev */
		uint64_t	ino;		/* st_ino; 0 is an empty slot */
	}		*v;		/* open addressing, at most half full */
	size_t		 cap;		/* slots: a power of two, or 0 */
	size_t		 n;		/* pairs held */
};
bool		 fileset_add(struct fileset *, uint64_t, uint64_t);
bool		 fileset_has(const struct fileset *, uint64_t, uint64_t);
bool		 fileset_del(struct fileset *, uint64_t, uint64_t);
void		 fileset_clear(struct fileset *);

/*
 * keymap.c: a map from a key, (a tag pointer, a string), to a pointer,
 * hashed.  The key's string is borrowed: it must live, unchanged, as long
 * as the map.  Zeroed it is empty; keymap_clear frees what it holds and
 * leaves it empty.  A value is never NULL.
 */
struct keymap {
	struct keyent {
		const void	*tag;
		const char	*s;		/* borrowed; NULL: an empty slot */
		void		*val;
	}		*v;		/* open addressing, at most half full */
	size_t		 cap;		/* slots: a power of two, or 0 */
	size_t		 n;		/* keys held */
};
void		*keymap_get(const struct keymap *, const void *, const char *);
void		*keymap_put(struct keymap *, const void *, const char *, void *);
void		 keymap_clear(struct keymap *);

/* A growable byte buffer; text is kept NUL-terminated for convenience. */
struct buf {
	char		*p;		/* bytes, p[len] == '\0' */
	size_t		 len;		/* bytes used */
	size_t		 cap;		/* bytes allocated */
};
void		 buf_grow(struct buf *, size_t);

/*
 * The appends are inline: a report is millions of short pieces, most of
 * them literals, whose length the compiler then knows and whose copy it
 * makes in a move or two; only a buffer out of room calls buf_grow.
 */
static inline void
buf_add(struct buf *b, const void *p, size_t n)
{
	/* Room for n bytes and the NUL: len + n + 1 <= cap. */
	if (b->cap - b->len <= n)
		buf_grow(b, n);
	if (n != 0)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static inline void
buf_addc(struct buf *b, char c)
{
	if (b->cap - b->len <= 1)
		buf_grow(b, 1);
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

static inline void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}
void		 buf_printf(struct buf *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
void		 buf_add_int(struct buf *, long long);
/* _reset empties it and keeps its memory; _clear frees that memory. */
void		 buf_reset(struct buf *);
void		 buf_clear(struct buf *);
char		*buf_steal(struct buf *);

/* A list of error messages, each naming file:line, collected not printed. */
struct errlist {
	char		**v;		/* messages, owned */
	size_t		  n;		/* how many */
};
void		 errlist_add(struct errlist *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
void		 errlist_clear(struct errlist *);

/* sanitize.c: log text is hostile; these make it safe for each destination. */
void		 sanitize_terminal(struct buf *, const char *, size_t);
void		 sanitize_json(struct buf *, const char *, size_t);
void		 sanitize_html(struct buf *, const char *, size_t);
void		 sanitize_json_string(struct buf *, const char *);
size_t		 strip_ansi(char *, size_t);

/* ini.c: the INI-like format of rule packs and themes (see rules/FORMAT.md). */
typedef int	(*ini_cb)(void *, const char *, unsigned, const char *,
		     const char *, const char *, char **);
int		 ini_parse(const char *, const char *, size_t, ini_cb, void *,
		     struct errlist *);

/* paths.c: where data files are found. */
char		*paths_datadir(const char *);
char		*paths_user_config(const char *);
char		*paths_user_data(const char *);
char		**paths_list(const char *, const char *, size_t *);

#endif
