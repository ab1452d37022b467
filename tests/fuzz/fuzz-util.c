/*
 * fuzz-util.c: the helpers every harness links (fuzz.h): the shipped
 * packs as a ruleset, a private scratch folder, and the abort that turns
 * a broken property into a crash libFuzzer keeps.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char	*fuzz_dir;		/* fuzz_tmpdir's folder, or NULL */

void
fuzz_fail(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	fprintf(stderr, "fuzz: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/* Does name end with suffix? */
static int
fuzz_ends(const char *name, const char *suffix)
{
	size_t	n = strlen(name), k = strlen(suffix);

	return n >= k && strcmp(name + n - k, suffix) == 0;
}

struct ruleset *
fuzz_rules(const char *only)
{
	struct ruleset	*rs = ruleset_create();
	struct errlist	 e = { 0 };
	size_t		 i;

	for (i = 0; i < rl_embedded_nfiles; i++) {
		const struct rl_embedded *f = &rl_embedded_files[i];

		if (!fuzz_ends(f->name, ".rules") ||
		    (only != NULL && strcmp(f->name, only) != 0))
			continue;
		ruleset_load(rs, f->name, f->data, f->len, &e);
	}
	/* The shipped packs are checked by make check: an error is a bug. */
	if (e.n != 0)
		fuzz_fail("shipped pack: %s", e.v[0]);
	errlist_clear(&e);
	ruleset_finish(rs);
	return rs;
}

/* Remove the scratch folder and what the harness left in it. */
static void
fuzz_tmpdir_remove(void)
{
	struct dirent	*d;
	DIR		*dp;
	char		*p;

	if (fuzz_dir == NULL || (dp = opendir(fuzz_dir)) == NULL)
		return;
	while ((d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		xasprintf(&p, "%s/%s", fuzz_dir, d->d_name);
		unlink(p);
		free(p);
	}
	closedir(dp);
	rmdir(fuzz_dir);
	free(fuzz_dir);
	fuzz_dir = NULL;
}

const char *
fuzz_tmpdir(void)
{
	const char	*base;

	if (fuzz_dir != NULL)
		return fuzz_dir;
	/* Memory-backed where there is one: a harness writes at every run. */
	if (access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	else if ((base = getenv("TMPDIR")) == NULL || *base == '\0')
		base = "/tmp";
	xasprintf(&fuzz_dir, "%s/rl-fuzz-XXXXXX", base);
	if (mkdtemp(fuzz_dir) == NULL)
		fatal("%s: cannot make a scratch folder", fuzz_dir);
	atexit(fuzz_tmpdir_remove);
	return fuzz_dir;
}
