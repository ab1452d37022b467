/*
 * report-text.c: the plain text report, for a person at a terminal.
 *
 * It renders wording.c's sections and adds only what plain text needs:
 * the indent, a '+' or '-' before evidence, a '-' before what to collect,
 * "path:line: " where an item points into the logs, a ':' after a list's
 * title, and every text made safe for a terminal.
 * The job, the checklist and the lines behind the evidence are the
 * console's: the text stays short enough to paste into a ticket.
 */
#include <string.h>

#include "wording.h"

/* The sections the text report prints, in this order. */
static const enum wd_part text_parts[] = {
	WD_PART_FIRST, WD_PART_VERDICT, WD_PART_HISTORY, WD_PART_SIGNATURES,
	WD_PART_MEANINGS, WD_PART_CHECKPOINT, WD_PART_CLOCKS, WD_PART_CAPACITY,
	WD_PART_ADVICE, WD_PART_WARNINGS
};

/* One item as a line of text. */
static void
text_item(struct buf *b, const struct rl_incident *inc,
    const struct wd_item *it)
{
	const char	*path;
	int		 i;

	if (it->role == WD_DETAIL)
		return;
	for (i = 0; i < it->indent; i++)
		buf_addc(b, ' ');
	if (it->role == WD_FOR)
		buf_adds(b, "+ ");
	else if (it->role == WD_AGAINST || it->role == WD_MISSING)
		buf_adds(b, "- ");
	if (it->source != RL_NONE && (size_t)it->source < inc->nsources) {
		path = inc->sources[it->source]->path;
		sanitize_terminal(b, path, strlen(path));
		if (it->line > 0)
			buf_printf(b, ":%llu", (unsigned long long)it->line);
		buf_adds(b, ": ");
	}
	sanitize_terminal(b, it->text, strlen(it->text));
	if (it->role == WD_TITLE)
		buf_addc(b, ':');
	buf_addc(b, '\n');
}

/* The sections of w that plain text prints. */
void
report_text_render(const struct wording *w, const struct rl_incident *inc,
    struct buf *b)
{
	const struct wd_section	*s;
	size_t			 k, i;

	for (k = 0; k < nitems(text_parts); k++) {
		s = &w->part[text_parts[k]];
		for (i = 0; i < s->n; i++)
			text_item(b, inc, &s->items[i]);
	}
}

/* The analysis for a person at a terminal. */
void
report_text(const struct rl_incident *inc, struct buf *b)
{
	struct wording	w = { 0 };

	wording_build(&w, inc);
	report_text_render(&w, inc, b);
	wording_clear(&w);
}
