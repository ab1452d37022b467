/*
 * find.h: the console's search of the model's lines (/ and ?), in core so
 * that its pattern handling is tested without a terminal and pcre2 stays
 * behind core's include path.
 */
#ifndef RANKLINE_FIND_H
#define RANKLINE_FIND_H

#include <stdbool.h>
#include <stddef.h>

struct find;

struct find	*find_compile(const char *, char **);
int		 find_match(struct find *, const char *, size_t);
bool		 find_caseless(const struct find *);
bool		 find_smart_caseless(const char *);
const char	*find_pattern(const struct find *);
void		 find_free(struct find *);

#endif
