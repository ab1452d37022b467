/*
 * wording.h: the answer in words, once, for every output.
 *
 * wording_build turns a diagnosed incident into sections, each a list of
 * (role, indent, text) items.  The text report, the console's diagnosis
 * view and (next) the Markdown and HTML reports render the same sections,
 * so the words cannot drift between them.  The texts are raw: log text in
 * them is as the log wrote it, with no escaping and no markup, and each
 * renderer escapes for its destination with sanitize.c.
 */
#ifndef RL_WORDING_H
#define RL_WORDING_H

#include "core.h"

/* What an item is: the renderer picks colour, marks and layout from it. */
enum wd_role {
	WD_HEADING,		/* a section's first line, a sentence */
	WD_TITLE,		/* a list's title; text puts a ':' after it */
	WD_FIRST,		/* the first failure: what to read first */
	WD_BODY,		/* our words, with log text in them */
	WD_LOG,			/* a log line, quoted as where: text */
	WD_FOR,			/* evidence that supports the answer */
	WD_AGAINST,		/* evidence that argues against it */
	WD_DETAIL,		/* the line an evidence item points at: for
				   outputs with room, left out of the text */
	WD_ACTION,		/* a step to take */
	WD_FOUND,		/* a checklist item the logs hold */
	WD_MISSING,		/* one to collect: not in the logs */
	WD_WARNING,		/* something the answer may be missing */
	WD_DIM			/* a note in passing */
};

/* The sections, in the order the text report prints them. */
enum wd_part {
	WD_PART_FIRST,		/* the first failure, or none found */
	WD_PART_VERDICT,	/* the verdict and the first action */
	WD_PART_HISTORY,	/* what the store knew of it */
	WD_PART_SIGNATURES,	/* signatures seen, most frequent first */
	WD_PART_MEANINGS,	/* what they mean and what to do */
	WD_PART_CHECKPOINT,	/* which step is safe to resume from */
	WD_PART_CLOCKS,		/* each host's clock offset */
	WD_PART_CAPACITY,	/* vLLM's memory budget */
	WD_PART_ADVICE,		/* next steps, and what to collect */
	WD_PART_JOB,		/* which job, from its logs */
	WD_PART_CHECKLIST,	/* the evidence checklist */
	WD_PART_WARNINGS,	/* unreadable paths, limit hits */
	WD_NPARTS
};

/*
 * An item that points into the logs says where as a source and a line,
 * not as words: the text report writes "path:line: " before the text, the
 * console a shorter name, and an HTML report may make it a link.
 */
struct wd_item {
	enum wd_role	 role;
	int		 indent;	/* columns before the text */
	char		*text;		/* owned, raw: escape per destination */
	int		 source;	/* the source it points at, or RL_NONE */
	uint64_t	 line;		/* its line there, or 0: the whole file */
};

struct wd_section {
	struct wd_item	*items;		/* owned */
	size_t		 n;
	size_t		 cap;
};

struct wording {
	struct wd_section part[WD_NPARTS];	/* empty when nothing to say */
};

#define WD_EVIDENCE	8	/* evidence items per answer */

void	 wording_build(struct wording *, const struct rl_incident *);
void	 wording_clear(struct wording *);
void	 wording_add(struct wd_section *, enum wd_role, int, const char *);
void	 wording_checkpoint(struct buf *, const char *, int, const int *,
	     size_t, const int *, size_t);
void	 wording_checkpoint_steps(struct buf *, int, const int *, size_t,
	     const int *, size_t);
const char *wording_role_name(enum wd_role);

/* report-text.c */
void	 report_text_render(const struct wording *, const struct rl_incident *,
	     struct buf *);

#endif
