/*
 * prompt.c: the console's command line, on the bottom line: ':' for
 * filters and jumps, '/' and '?' for a search, '|' for a shell command
 * the selected line is piped to.  While it is open every key is its own:
 * printable characters are typed, Backspace takes one back, ^U clears,
 * Esc cancels and Enter runs.  What is typed is drawn through the status
 * line, so it is sanitized like any other text.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "tui.h"

#define PROMPT_MAX	1024	/* bytes of a command line */

struct tui_prompt {
	int		 kind;		/* ':', '/', '?' or '|' */
	struct buf	 text;		/* what is typed, NUL-ended */
};

/* Draw the command line as typed so far, the cursor as '_'. */
static void
prompt_show(struct tui *t)
{
	struct tui_prompt	*p = t->prompt;

	tui_set_message(t, false, "%s%s_", p->kind == '|' ?
	    "| shell command (the line goes to its stdin): " : p->kind == ':' ?
	    ":" : p->kind == '/' ? "/" : "?", p->text.len > 0 ? p->text.p : "");
}

/* Open the command line of a kind (':', '/', '?', '|'). */
int
prompt_open(struct tui *t, int kind)
{
	prompt_free(t);
	t->prompt = xcalloc(1, sizeof *t->prompt);
	t->prompt->kind = kind;
	buf_addc(&t->prompt->text, '\0');
	t->prompt->text.len = 0;
	prompt_show(t);
	return REACT_REDRAW;
}

/* Run what was typed. */
static int
prompt_run(struct tui *t, int kind, const char *text)
{
	switch (kind) {
	case '/':
	case '?':
		return search_start(t, text, kind == '?');
	case '|':
		if (text[0] == '\0')
			return REACT_REDRAW;
		return pipe_run(t, text);
	default:
		return lines_command(t, text);
	}
}

/* A key while the command line is open. */
int
prompt_key(struct tui *t, int key)
{
	struct tui_prompt	*p = t->prompt;
	struct buf		*b = &p->text;
	char			*text, mb[MB_LEN_MAX];
	int			 kind = p->kind, r, n;

	if (key == 27) {
		prompt_free(t);
		free(t->message);
		t->message = NULL;
		return REACT_REDRAW;
	}
	if (key == '\n' || key == '\r' || key == (TUI_KEYFN | KEY_ENTER)) {
		text = xstrdup(b->len > 0 ? b->p : "");
		prompt_free(t);
		free(t->message);
		t->message = NULL;
		r = prompt_run(t, kind, text);
		free(text);
		return r | REACT_REDRAW;
	}
	if (key == (TUI_KEYFN | KEY_BACKSPACE) || key == 127 || key == 8) {
		/* An empty line and Backspace: the line is closed, as in vi. */
		if (b->len == 0) {
			prompt_free(t);
			free(t->message);
			t->message = NULL;
			return REACT_REDRAW;
		}
		/* Back over one character, UTF-8 continuation bytes and all. */
		while (b->len > 0 && (b->p[--b->len] & 0xc0) == 0x80)
			;
		b->p[b->len] = '\0';
	} else if (key == TUI_CTRL('u')) {
		b->len = 0;
		b->p[0] = '\0';
	} else if (key >= 0x20 && key != 0x7f && !(key & TUI_KEYFN) &&
	    b->len < PROMPT_MAX && (n = wctomb(mb, (wchar_t)key)) > 0) {
		/* A character the locale cannot write (wctomb -1) is dropped. */
		buf_add(b, mb, (size_t)n);
		buf_addc(b, '\0');
		b->len--;
	}
	prompt_show(t);
	return REACT_REDRAW;
}

/* Close the command line, dropping what was typed. */
void
prompt_free(struct tui *t)
{
	if (t->prompt == NULL)
		return;
	buf_clear(&t->prompt->text);
	free(t->prompt);
	t->prompt = NULL;
}
