/*
 * theme.c: semantic colour roles and the themes that colour them.
 *
 * Views draw in roles (timeline.first_failure, status.key), never in
 * colours; a theme maps each role to "fg,bg,attr" (htop's ColorElements).
 * Themes are data, in the INI-like format core's ini_parse reads:
 *
 *	[theme dark]
 *	timeline.first_failure = white,red,bold
 *
 * They are found like rule packs: the installed folder (paths_datadir), or
 * the copy compiled into the binary when that folder is missing, then
 * ~/.config/rankline/themes/, whose roles override the shipped ones of the
 * same theme.  A role no file names keeps the compiled default, so a short
 * user theme is enough.  A bad line is reported as file:line in the status
 * line and skipped; it never stops the console.
 *
 * Without colours (has_colors() false, NO_COLOR set, fewer than 8 colours,
 * or the mono option) the "mono" theme is used and only its attributes are
 * applied, so the first failure stays distinguishable by bold and reverse.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curses.h>

#include "tui.h"

#define THEME_MAX_FILE	(1024 * 1024)	/* bigger is not a theme */
#define THEME_DEFAULT	"dark"

/* Each role's name in theme files and its compiled colour and mono forms. */
static const struct {
	const char	*name;
	const char	*dark;
	const char	*mono;
} theme_roles[TR_NROLES] = {
	[TR_NORMAL] =
	    { "normal", "default,default,", ",," },
	[TR_TITLE] =
	    { "header.title", "black,cyan,bold", ",,reverse" },
	[TR_FAILURE] =
	    { "header.failure", "white,red,bold", ",,reverse|bold" },
	[TR_VERDICT] =
	    { "header.verdict", "default,default,bold", ",,bold" },
	[TR_LABEL] =
	    { "header.label", "cyan,default,", ",," },
	[TR_SAFE] =
	    { "checkpoint.safe", "green,default,bold", ",,bold" },
	[TR_UNSAFE] =
	    { "checkpoint.unsafe", "yellow,default,bold", ",,bold|underline" },
	[TR_AXIS] =
	    { "timeline.axis", "cyan,default,", ",," },
	[TR_RANK] =
	    { "timeline.rank", "default,default,", ",," },
	[TR_RANK_FIRST] =
	    { "timeline.first_rank", "red,default,bold", ",,bold|underline" },
	[TR_SELECTED] =
	    { "timeline.selected", "black,cyan,", ",,reverse" },
	[TR_LIFE] =
	    { "timeline.life", "blue,default,", ",,dim" },
	[TR_GLYPH_FIRST] =
	    { "timeline.first_failure", "white,red,bold", ",,reverse|bold" },
	[TR_GLYPH_FAIL] =
	    { "timeline.failure", "red,default,bold", ",,bold" },
	[TR_GLYPH_COLLATERAL] =
	    { "timeline.collateral", "yellow,default,", ",," },
	[TR_GLYPH_WRAPPER] =
	    { "timeline.wrapper", "magenta,default,", ",," },
	[TR_GLYPH_HANG] =
	    { "timeline.hang", "magenta,default,bold", ",,bold|underline" },
	[TR_GLYPH_PROGRESS] =
	    { "timeline.progress", "green,default,", ",,dim" },
	[TR_GLYPH_CKPT] =
	    { "timeline.checkpoint", "cyan,default,bold", ",,bold" },
	[TR_GLYPH_EVIDENCE] =
	    { "timeline.evidence", "blue,default,", ",,dim" },
	[TR_STATE_OK] =
	    { "state.ok", "green,default,", ",," },
	[TR_STATE_FAILED] =
	    { "state.failed", "red,default,bold", ",,reverse|bold" },
	[TR_STATE_COLLATERAL] =
	    { "state.collateral", "yellow,default,", ",," },
	[TR_STATE_HUNG] =
	    { "state.hung", "magenta,default,bold", ",,bold|underline" },
	[TR_STATE_EXITED] =
	    { "state.exited", "red,default,", ",,underline" },
	[TR_PANE] =
	    { "pane.title", "white,blue,bold", ",,reverse" },
	[TR_TIME] =
	    { "list.time", "cyan,default,", ",," },
	[TR_SOURCE] =
	    { "list.source", "blue,default,bold", ",,dim" },
	[TR_DIM] =
	    { "list.dim", "default,default,dim", ",,dim" },
	[TR_HIGHLIGHT] =
	    { "list.highlight", "white,red,bold", ",,reverse|bold" },
	[TR_KEY] =
	    { "status.key", "black,cyan,bold", ",,reverse|bold" },
	[TR_STATUS] =
	    { "status", "default,default,", ",," },
	[TR_ERROR] =
	    { "status.error", "white,red,bold", ",,reverse|bold" },
};

static const char *theme_colour_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"
};

static const struct {
	const char	*name;
	unsigned long	 attr;
} theme_attr_names[] = {
	{ "bold", A_BOLD }, { "dim", A_DIM }, { "underline", A_UNDERLINE },
	{ "reverse", A_REVERSE }, { "standout", A_STANDOUT },
	{ "blink", A_BLINK }, { "italic", A_ITALIC }, { "normal", 0 },
	{ "none", 0 },
};

/* A role as parsed: colours (-1 is the terminal's default) and attributes. */
struct theme_spec {
	short		 fg;		/* colour number, or -1 */
	short		 bg;
	unsigned long	 attr;		/* A_* */
};

/* The state of one load: what is wanted and what was found. */
struct theme_load {
	const char	*want;		/* theme being loaded */
	struct theme_spec spec[TR_NROLES]; /* its roles so far */
	bool		 found;		/* some file declared it */
	bool		 in_want;	/* the current section is it */
	char		*section;	/* the current section, as given */
	bool		 bad_section;	/* it was not [theme NAME]: skip it */
	char		**names;	/* every theme seen, for cycling */
	size_t		 nnames;
};

static unsigned long	 theme_attrs[TR_NROLES];	/* what theme_attr returns */
static bool		 theme_mono;			/* attributes only */
static char		**theme_names;			/* from the last load */
static size_t		 theme_nnames;

/* Map a 256-colour number to the nearest of the 8 basic ones. */
static short
theme_reduce(int n)
{
	int	 r, g, b, v;

	if (n < 16)
		return ((short)(n & 7));
	if (n >= 232)
		return (n >= 244 ? 7 : 0);
	v = n - 16;
	r = v / 36 >= 3;
	g = (v / 6) % 6 >= 3;
	b = v % 6 >= 3;
	return ((short)(r | (g << 1) | (b << 2)));
}

/*
 * Parse a colour: default, a name, bright<name>, colourN/colorN or N.  A
 * bright colour on an 8-colour terminal becomes bold, a 256-colour number
 * on a smaller one its nearest basic colour.
 */
static int
theme_colour(const char *s, short *c, unsigned long *attr)
{
	const char	*name = s;
	char		*end;
	long		 n;
	size_t		 i;
	int		 bright = 0;

	if (*s == '\0' || strcasecmp(s, "default") == 0) {
		*c = -1;
		return (0);
	}
	if (strncasecmp(s, "bright", 6) == 0) {
		bright = 8;
		name = s + 6 + (s[6] == '-' || s[6] == '_');
	}
	for (i = 0; i < nitems(theme_colour_names); i++) {
		if (strcasecmp(name, theme_colour_names[i]) != 0)
			continue;
		if (bright && COLORS < 16)
			*attr |= A_BOLD;
		*c = (short)(i + (COLORS >= 16 ? bright : 0));
		return (0);
	}
	if (bright)
		return (-1);
	if (strncasecmp(s, "colour", 6) == 0)
		s += 6;
	else if (strncasecmp(s, "color", 5) == 0)
		s += 5;
	n = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || n < 0 || n > 255)
		return (-1);
	*c = n < COLORS ? (short)n : theme_reduce((int)n);
	return (0);
}

/* Parse attribute names joined by '|', '+' or spaces. */
static int
theme_attributes(char *s, unsigned long *attr, char **bad)
{
	char	*word;
	size_t	 i;

	while ((word = strsep(&s, "|+ \t")) != NULL) {
		if (*word == '\0')
			continue;
		for (i = 0; i < nitems(theme_attr_names); i++) {
			if (strcasecmp(word, theme_attr_names[i].name) == 0)
				break;
		}
		if (i == nitems(theme_attr_names)) {
			*bad = word;
			return (-1);
		}
		*attr |= theme_attr_names[i].attr;
	}
	return (0);
}

/* Trim blanks at both ends, in place. */
static char *
theme_trim(char *s)
{
	char	*e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return (s);
}

/* Parse "fg,bg,attr" (each part optional); on error, say what was wrong. */
static int
theme_spec_parse(const char *value, struct theme_spec *sp, char **why)
{
	char	*copy, *s, *fg, *bg, *bad = NULL;
	int	 rc = -1;

	memset(sp, 0, sizeof *sp);
	s = copy = xstrdup(value);
	fg = theme_trim(strsep(&s, ","));
	bg = s != NULL ? theme_trim(strsep(&s, ",")) : "";
	if (theme_colour(fg, &sp->fg, &sp->attr) != 0)
		xasprintf(why, "unknown colour '%s'", fg);
	else if (theme_colour(bg, &sp->bg, &sp->attr) != 0)
		xasprintf(why, "unknown colour '%s'", bg);
	else if (s != NULL && theme_attributes(s, &sp->attr, &bad) != 0)
		xasprintf(why, "unknown attribute '%s'", bad);
	else
		rc = 0;
	free(copy);
	return (rc);
}

/* A role by name, or -1. */
static int
theme_role_find(const char *name)
{
	int	 i;

	for (i = 0; i < TR_NROLES; i++) {
		if (strcmp(theme_roles[i].name, name) == 0)
			return (i);
	}
	return (-1);
}

/* Note a theme name for cycling, once. */
static void
theme_note_name(struct theme_load *tl, const char *name)
{
	size_t	 i;

	for (i = 0; i < tl->nnames; i++) {
		if (strcmp(tl->names[i], name) == 0)
			return;
	}
	tl->names = xreallocarray(tl->names, tl->nnames + 1, sizeof *tl->names);
	tl->names[tl->nnames++] = xstrdup(name);
}

/*
 * Start a section.  Headers reach us as "theme NAME"; anything but a theme
 * section is an error in a theme file.  The cause names no file:line:
 * ini_parse adds it.
 */
static int
theme_section(struct theme_load *tl, const char *section, char **cause)
{
	char	*copy, *s, *kind;

	s = copy = xstrdup(section);
	kind = strsep(&s, " \t");
	if (strcmp(kind, "theme") != 0 || s == NULL || *theme_trim(s) == '\0') {
		xasprintf(cause, "expected [theme NAME], not [%s]", section);
		free(copy);
		return (-1);
	}
	s = theme_trim(s);
	theme_note_name(tl, s);
	tl->in_want = strcmp(s, tl->want) == 0;
	if (tl->in_want)
		tl->found = true;
	free(copy);
	return (0);
}

/*
 * ini_parse callback: one "role = fg,bg,attr" line.  Headers also come
 * here, with no key (and no cause to fill), so a section is checked at its
 * first key, where an error can be reported.
 */
static int
theme_ini_cb(void *arg, const char *file, unsigned line, const char *section,
    const char *key, const char *value, char **cause)
{
	struct theme_load	*tl = arg;
	struct theme_spec	 sp;
	char			*why;
	int			 role;

	(void)file;
	(void)line;
	if (key == NULL || section == NULL || cause == NULL) {
		free(tl->section);
		tl->section = NULL;
		return (0);
	}
	if (tl->section == NULL || strcmp(tl->section, section) != 0) {
		free(tl->section);
		tl->section = xstrdup(section);
		tl->bad_section = theme_section(tl, section, cause) != 0;
		if (tl->bad_section)
			return (-1);
	}
	if (tl->bad_section)
		return (0);
	if ((role = theme_role_find(key)) == -1) {
		xasprintf(cause, "unknown role '%s'", key);
		return (-1);
	}
	if (theme_spec_parse(value != NULL ? value : "", &sp, &why) != 0) {
		xasprintf(cause, "%s: %s", key, why);
		free(why);
		return (-1);
	}
	if (tl->in_want)
		tl->spec[role] = sp;
	return (0);
}

/* Parse one theme file's text; each file starts outside any section. */
static void
theme_parse(struct theme_load *tl, const char *name, const char *data,
    size_t len, struct errlist *errs)
{
	free(tl->section);
	tl->section = NULL;
	tl->in_want = tl->bad_section = false;
	ini_parse(name, data, len, theme_ini_cb, tl, errs);
	free(tl->section);
	tl->section = NULL;
}

/* Read a file of at most THEME_MAX_FILE bytes; NULL with a reason if not. */
static char *
theme_read(const char *path, size_t *len, struct errlist *errs)
{
	FILE	*f;
	char	*data;

	if ((f = fopen(path, "r")) == NULL) {
		errlist_add(errs, "%s: %s", path, strerror(errno));
		return (NULL);
	}
	data = xmalloc(THEME_MAX_FILE + 1);
	*len = fread(data, 1, THEME_MAX_FILE + 1, f);
	if (ferror(f) || *len > THEME_MAX_FILE) {
		errlist_add(errs, "%s: %s", path, ferror(f) ? strerror(errno) :
		    "too big for a theme");
		fclose(f);
		free(data);
		return (NULL);
	}
	fclose(f);
	data[*len] = '\0';
	return (data);
}

/* Order file names so that loading is the same on every machine. */
static int
theme_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* Parse every *.theme in a folder; returns how many there were. */
static size_t
theme_dir(struct theme_load *tl, const char *dir, struct errlist *errs)
{
	DIR		*d;
	struct dirent	*de;
	char		**v = NULL, *path, *data;
	size_t		 n = 0, i, len, nl;

	if (dir == NULL || (d = opendir(dir)) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		nl = strlen(de->d_name);
		if (de->d_name[0] == '.' || nl < 7 ||
		    strcmp(de->d_name + nl - 6, ".theme") != 0)
			continue;
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(v, n, sizeof *v, theme_cmp);
	for (i = 0; i < n; i++) {
		xasprintf(&path, "%s/%s", dir, v[i]);
		if ((data = theme_read(path, &len, errs)) != NULL)
			theme_parse(tl, path, data, len, errs);
		free(data);
		free(path);
		free(v[i]);
	}
	free(v);
	return (n);
}

/* Parse the shipped themes: the installed folder, else the embedded copy. */
static void
theme_shipped(struct theme_load *tl, struct errlist *errs)
{
	const struct rl_embedded	*e;
	char				*dir;
	size_t				 i, n, nl;

	dir = paths_datadir("themes");
	n = theme_dir(tl, dir, errs);
	free(dir);
	if (n > 0)
		return;
	for (i = 0; i < rl_embedded_nfiles; i++) {
		e = &rl_embedded_files[i];
		nl = strlen(e->name);
		if (nl > 6 && strcmp(e->name + nl - 6, ".theme") == 0)
			theme_parse(tl, e->name, e->data, e->len, errs);
	}
}

/* Fill every role from the compiled defaults of the dark or mono theme. */
static void
theme_defaults(struct theme_load *tl, bool mono)
{
	char	*why;
	int	 i;

	for (i = 0; i < TR_NROLES; i++) {
		if (theme_spec_parse(mono ? theme_roles[i].mono :
		    theme_roles[i].dark, &tl->spec[i], &why) != 0)
			fatal("theme role %s: %s", theme_roles[i].name, why);
	}
}

/* Whether to draw without colour at all. */
static bool
theme_want_mono(const struct tui *t)
{
	const char	*nc = getenv("NO_COLOR");

	if (t->cfg->mono || (nc != NULL && *nc != '\0') || !has_colors())
		return (true);
	/* COLORS is only known once colour is started. */
	return (start_color() == ERR || COLORS < 8);
}

/* Turn the parsed roles into curses attributes and colour pairs. */
static void
theme_apply(const struct theme_load *tl)
{
	const struct theme_spec	*sp;
	short			 fg, bg;
	int			 i;
	bool			 defaults;

	defaults = !theme_mono && use_default_colors() != ERR;
	for (i = 0; i < TR_NROLES; i++) {
		sp = &tl->spec[i];
		theme_attrs[i] = sp->attr;
		if (theme_mono)
			continue;
		fg = sp->fg;
		bg = sp->bg;
		if (!defaults) {
			fg = fg == -1 ? COLOR_WHITE : fg;
			bg = bg == -1 ? COLOR_BLACK : bg;
		}
		init_pair((short)(i + 1), fg, bg);
		theme_attrs[i] |= COLOR_PAIR(i + 1);
	}
}

/* Replace the list of known theme names with this load's. */
static void
theme_keep_names(struct theme_load *tl)
{
	size_t	 i;

	for (i = 0; i < theme_nnames; i++)
		free(theme_names[i]);
	free(theme_names);
	qsort(tl->names, tl->nnames, sizeof *tl->names, theme_cmp);
	theme_names = tl->names;
	theme_nnames = tl->nnames;
}

/* Tell the engineer about broken theme files, by file:line. */
static void
theme_report(struct tui *t, struct errlist *errs, const char *want, bool found)
{
	if (errs->n > 1)
		tui_set_message(t, true, "%s (and %zu more theme errors)",
		    errs->v[0], errs->n - 1);
	else if (errs->n == 1)
		tui_set_message(t, true, "%s", errs->v[0]);
	else if (!found && strcmp(want, THEME_DEFAULT) != 0 &&
	    strcmp(want, "mono") != 0)
		tui_set_message(t, true, "theme '%s' not found, using %s", want,
		    THEME_DEFAULT);
}

/*
 * Load and apply a theme by name (NULL for the default).  Returns 0, or -1
 * if the named theme was not found and the defaults are in use instead.
 */
int
theme_load(struct tui *t, const char *name)
{
	struct theme_load	 tl;
	struct errlist		 errs = { NULL, 0 };
	char			*user;

	memset(&tl, 0, sizeof tl);
	theme_mono = theme_want_mono(t);
	tl.want = theme_mono ? "mono" : (name != NULL ? name : THEME_DEFAULT);
	theme_defaults(&tl, theme_mono);
	theme_shipped(&tl, &errs);
	user = paths_user_config("themes");
	theme_dir(&tl, user, &errs);
	free(user);
	theme_apply(&tl);
	theme_keep_names(&tl);
	theme_report(t, &errs, tl.want, tl.found);
	errlist_clear(&errs);
	t->mono = theme_mono;
	free(t->theme);
	t->theme = xstrdup(tl.found ? tl.want : (theme_mono ? "mono" :
	    THEME_DEFAULT));
	return (tl.found ? 0 : -1);
}

/* Switch to the next theme by name; mono terminals have only one. */
void
theme_next(struct tui *t)
{
	char	*name;
	size_t	 i;

	if (theme_mono) {
		tui_set_message(t, false,
		    "no colours here: only the mono theme");
		return;
	}
	for (i = 0; i < theme_nnames; i++) {
		if (strcmp(theme_names[i], t->theme) == 0)
			break;
	}
	if (theme_nnames == 0)
		return;
	i = (i + 1) % theme_nnames;
	if (strcmp(theme_names[i], "mono") == 0 && theme_nnames > 1)
		i = (i + 1) % theme_nnames;
	/* The load replaces theme_names: hand it a copy. */
	name = xstrdup(theme_names[i]);
	if (theme_load(t, name) == 0 && t->message == NULL)
		tui_set_message(t, false, "theme %s", t->theme);
	free(name);
}

/* The curses attributes of a role. */
unsigned long
theme_attr(enum tui_role role)
{
	return (theme_attrs[role]);
}

/* The role a timeline glyph is drawn in. */
enum tui_role
theme_glyph_role(enum tui_glyph g)
{
	static const enum tui_role roles[GLYPH_NGLYPHS] = {
		[GLYPH_EMPTY] = TR_LIFE,
		[GLYPH_EVIDENCE] = TR_GLYPH_EVIDENCE,
		[GLYPH_PROGRESS] = TR_GLYPH_PROGRESS,
		[GLYPH_CKPT_BEGIN] = TR_GLYPH_CKPT,
		[GLYPH_CKPT] = TR_GLYPH_CKPT,
		[GLYPH_WRAPPER] = TR_GLYPH_WRAPPER,
		[GLYPH_COLLATERAL] = TR_GLYPH_COLLATERAL,
		[GLYPH_HANG] = TR_GLYPH_HANG,
		[GLYPH_FAIL] = TR_GLYPH_FAIL,
		[GLYPH_FIRST] = TR_GLYPH_FIRST,
	};

	return (roles[g]);
}

/* Free what the last load kept. */
void
theme_free(void)
{
	size_t	 i;

	for (i = 0; i < theme_nnames; i++)
		free(theme_names[i]);
	free(theme_names);
	theme_names = NULL;
	theme_nnames = 0;
}
