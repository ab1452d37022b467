/*
 * ckptdir.c: the checkpoint folder, when its files are among the paths.
 *
 * Given a run's folder, rankline lists the checkpoint shards with the logs
 * (ingestion skips them as binary) and the tracker file a framework writes
 * last (Megatron's latest_checkpointed_iteration.txt, DeepSpeed's latest).
 * The files can confirm what the logs say, or change it:
 *  - a shard much smaller than its siblings (the other ranks' shards of
 *    the same step) was cut short;
 *  - a rank's shard missing from a step (a gap in the rank numbers, or a
 *    file the step before has) means the step was never finished;
 *  - a tracker naming an earlier step than the logs means the framework
 *    will resume from that step, whatever the logs say.
 * A step's folder is recognised by its name (iter_0000010, checkpoint-30,
 * global_step2000, step-100), the checkpoint root being the folder above
 * it.  Nothing here reads the files: the sizes are those the reading found
 * when it opened them, and a tracker's step is in the first bytes it read.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define CKD_SMALL_RATIO	2	/* a shard under median / 2 is cut short */
#define CKD_MIN_BYTES	1024	/* shards smaller than this are not compared */
#define CKD_RUNS	4	/* digit runs kept per file name */
#define CKD_NITEMS(a)	(sizeof (a) / sizeof (a)[0])

/* Folder names that hold one step's checkpoint: prefix then digits. */
static const char *const ckd_step_prefixes[] = {
	"iter_", "checkpoint-", "checkpoint_", "global_step", "step-", "step_",
	"step"
};

/* File names of trackers that name the latest complete step. */
static const char *const ckd_trackers[] = {
	"latest_checkpointed_iteration.txt", "latest"
};

/* One file of a step's folder. */
struct ckd_file {
	unsigned	 source;	/* index of its source */
	char		*root;		/* the checkpoint root folder */
	int		 step;
	char		*rel;		/* path below the step folder */
	char		*shape;		/* rel with digit runs as '#' */
	long		 runs[CKD_RUNS];/* the digit runs of rel */
	size_t		 nruns;
	long long	 size;		/* bytes, or -1 unknown */
};

/* A step number if a folder name is one of the step forms, else -1. */
static int
ckd_step_name(const char *s, size_t n)
{
	size_t	i, k, p;
	long	v;

	for (i = 0; i < CKD_NITEMS(ckd_step_prefixes); i++) {
		p = strlen(ckd_step_prefixes[i]);
		if (n <= p || strncmp(s, ckd_step_prefixes[i], p) != 0)
			continue;
		for (k = p, v = 0; k < n && isdigit((unsigned char)s[k]) &&
		    v < 100000000; k++)
			v = v * 10 + (s[k] - '0');
		if (k == n)
			return (int)v;
	}
	return -1;
}

/* Fill the shape and digit runs of a relative path. */
static void
ckd_shape(struct ckd_file *f)
{
	const char	*p;
	struct buf	 b = { 0 };
	long		 v;

	for (p = f->rel; *p != '\0';) {
		if (!isdigit((unsigned char)*p)) {
			buf_addc(&b, *p++);
			continue;
		}
		for (v = 0; isdigit((unsigned char)*p); p++)
			v = v < 100000000 ? v * 10 + (*p - '0') : v;
		buf_addc(&b, '#');
		if (f->nruns < CKD_RUNS)
			f->runs[f->nruns++] = v;
	}
	f->shape = buf_steal(&b);
}

/*
 * If a path lies in a step folder, describe it: its root, step and the
 * path below the step folder.  The innermost step folder counts.
 */
static bool
ckd_parse(const char *path, struct ckd_file *f)
{
	const char	*p, *seg, *best = NULL, *best_end = NULL;
	int		 step, best_step = -1;

	for (seg = path; (p = strchr(seg, '/')) != NULL; seg = p + 1) {
		if ((step = ckd_step_name(seg, (size_t)(p - seg))) >= 0) {
			best = seg;
			best_end = p;
			best_step = step;
		}
	}
	if (best == NULL)
		return false;
	memset(f, 0, sizeof *f);
	f->root = xstrndup(path, (size_t)(best - path));
	f->step = best_step;
	f->rel = xstrdup(best_end + 1);
	ckd_shape(f);
	return true;
}

/* Is a path a tracker file?  Its folder is the checkpoint root. */
static bool
ckd_tracker(const char *path, char **root)
{
	const char	*base = strrchr(path, '/');
	size_t		 i;

	base = base != NULL ? base + 1 : path;
	for (i = 0; i < CKD_NITEMS(ckd_trackers); i++) {
		if (strcmp(base, ckd_trackers[i]) == 0) {
			*root = xstrndup(path, (size_t)(base - path));
			return true;
		}
	}
	return false;
}

/*
 * The step a tracker names (its first number), or -1: from its first bytes,
 * which ingestion kept as it read the file.
 */
static int
ckd_tracker_step(const struct rl_source *src)
{
	long		 v = 0;
	const char	*p;

	for (p = src->lead; *p != '\0' && !isdigit((unsigned char)*p); p++)
		;
	if (*p == '\0')
		return -1;
	for (; isdigit((unsigned char)*p) && v < 100000000; p++)
		v = v * 10 + (*p - '0');
	return (int)v;
}

/*
 * A file's size, or -1: as the reading found it when it opened the file
 * (ingestion reads the folder; the diagnosis does not), else, for a file
 * the reading could not open, as it is now.
 */
static long long
ckd_size(const struct rl_source *src)
{
	struct stat	sb;

	if (src->file_size >= 0)
		return (long long)src->file_size;
	return stat(src->path, &sb) == 0 && S_ISREG(sb.st_mode) ?
	    (long long)sb.st_size : -1;
}

static int
ll_cmp(const void *a, const void *b)
{
	long long	x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Add a step to a set kept as a small array. */
static void
ckd_step_add(int **v, size_t *n, int step)
{
	size_t	i;

	for (i = 0; i < *n; i++) {
		if ((*v)[i] == step)
			return;
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = step;
}

static bool
ckd_has(const int *v, size_t n, int step)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (v[i] == step)
			return true;
	}
	return false;
}

/* Are two files of the same root and step? */
static bool
ckd_same_step(const struct ckd_file *a, const struct ckd_file *b)
{
	return a->step == b->step && strcmp(a->root, b->root) == 0;
}

/*
 * Shards much smaller than their siblings: files of one step with the same
 * shape (the same name but for the rank number).
 */
static void
ckd_check_sizes(struct ckd_file *f, size_t n,
    struct ckpt_disk *d)
{
	long long	*sz;
	size_t		 i, k, m;
	long long	 med;

	sz = xreallocarray(NULL, n + 1, sizeof *sz);
	for (i = 0; i < n; i++) {
		for (k = 0, m = 0; k < n; k++) {
			if (ckd_same_step(&f[i], &f[k]) && f[k].size >= 0 &&
			    strcmp(f[i].shape, f[k].shape) == 0)
				sz[m++] = f[k].size;
		}
		if (m < 2 || f[i].size < 0)
			continue;
		qsort(sz, m, sizeof *sz, ll_cmp);
		med = sz[m / 2];
		if (med < CKD_MIN_BYTES || f[i].size * CKD_SMALL_RATIO >= med)
			continue;
		ckd_step_add(&d->broken, &d->nbroken, f[i].step);
		evlist_add_file(&d->evidence, (int)f[i].source,
		    NULL, STANCE_SUPPORTS, "step %d: this shard has %lld bytes "
		    "where its %zu siblings have about %lld: it was cut short",
		    f[i].step, f[i].size, m - 1, med);
	}
	free(sz);
}

/*
 * A gap in the rank numbers of a step's shards: of the files of one shape,
 * the number that varies runs 0..max with one missing.
 */
static void
ckd_check_gaps(struct ckd_file *f, size_t n,
    struct ckpt_disk *d)
{
	unsigned char	*seen;
	size_t		 i, k, run, m;
	long		 max, v;
	bool		 varies;

	for (i = 0; i < n; i++) {
		/* Each (step, shape) group once: at its first file. */
		for (k = 0; k < i; k++) {
			if (ckd_same_step(&f[i], &f[k]) &&
			    strcmp(f[i].shape, f[k].shape) == 0)
				break;
		}
		if (k < i || f[i].nruns == 0)
			continue;
		for (run = 0; run < f[i].nruns; run++) {
			varies = false;
			max = f[i].runs[run];
			for (k = i, m = 0; k < n; k++) {
				if (!ckd_same_step(&f[i], &f[k]) ||
				    strcmp(f[i].shape, f[k].shape) != 0)
					continue;
				m++;
				varies |= f[k].runs[run] != f[i].runs[run];
				if (f[k].runs[run] > max)
					max = f[k].runs[run];
			}
			if (!varies || m < 2 || max > 65536 ||
			    (size_t)max + 1 == m)
				continue;
			seen = xcalloc((size_t)max + 1, 1);
			for (k = i; k < n; k++) {
				if (ckd_same_step(&f[i], &f[k]) &&
				    strcmp(f[i].shape, f[k].shape) == 0)
					seen[f[k].runs[run]] = 1;
			}
			for (v = 0; v <= max && seen[v]; v++)
				;
			free(seen);
			if (v > max)
				continue;
			ckd_step_add(&d->broken, &d->nbroken, f[i].step);
			evlist_add_file(&d->evidence,
			    (int)f[i].source, NULL, STANCE_SUPPORTS,
			    "step %d: shard number %ld is missing beside this "
			    "one (%zu of %ld present)", f[i].step, v, m,
			    max + 1);
			break;
		}
	}
}

/* Is rel among the files of a root's step? */
static bool
ckd_step_holds(const struct ckd_file *f, size_t n, const char *root, int step,
    const char *rel)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (f[i].step == step && strcmp(f[i].root, root) == 0 &&
		    strcmp(f[i].rel, rel) == 0)
			return true;
	}
	return false;
}

/* The next step after a step in the same root, or -1. */
static int
ckd_next_step(const struct ckd_file *f, size_t n, const char *root, int step)
{
	size_t	i;
	int	best = -1;

	for (i = 0; i < n; i++) {
		if (strcmp(f[i].root, root) == 0 && f[i].step > step &&
		    (best == -1 || f[i].step < best))
			best = f[i].step;
	}
	return best;
}

/*
 * Files a step has and the next step lacks: a rank's shard never written,
 * or the completion files a framework writes last.  One line per step.
 */
static void
ckd_check_missing(struct ckd_file *f, size_t n,
    struct ckpt_disk *d)
{
	int	*told = NULL, next;
	size_t	 ntold = 0, i;

	for (i = 0; i < n; i++) {
		next = ckd_next_step(f, n, f[i].root, f[i].step);
		if (next < 0 || ckd_has(told, ntold, next) ||
		    ckd_step_holds(f, n, f[i].root, next, f[i].rel))
			continue;
		ckd_step_add(&told, &ntold, next);
		ckd_step_add(&d->broken, &d->nbroken, next);
		evlist_add_file(&d->evidence, (int)f[i].source,
		    NULL, STANCE_SUPPORTS, "step %d lacks %s, which step %d "
		    "has: its save was not finished", next, f[i].rel,
		    f[i].step);
	}
	free(told);
}

/* Free the file list. */
static void
ckd_free(struct ckd_file *f, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(f[i].root);
		free(f[i].rel);
		free(f[i].shape);
	}
	free(f);
}

/* Note the trackers among the sources. */
static void
ckd_trackers_read(const struct rl_incident *inc, struct ckpt_disk *d)
{
	char	*root;
	size_t	 i;
	int	 step;

	for (i = 0; i < inc->nsources; i++) {
		if (inc->sources[i]->kind != SOURCE_FILE ||
		    !ckd_tracker(inc->sources[i]->path, &root))
			continue;
		free(root);
		if ((step = ckd_tracker_step(inc->sources[i])) < 0)
			continue;
		d->present = true;
		if (d->tracker == RL_NONE || step > d->tracker) {
			d->tracker = step;
			d->tracker_source = (int)i;
		}
	}
}

/*
 * Check the checkpoint files among the sources; what they show goes into
 * d and, as evidence, into the checkpoint answer.
 */
void
ckptdir_check(struct rl_incident *inc, struct ckpt_disk *d)
{
	struct ckd_file	*f = NULL, one;
	size_t		 n = 0, i;

	memset(d, 0, sizeof *d);
	d->tracker = d->tracker_source = RL_NONE;
	for (i = 0; i < inc->nsources; i++) {
		if (inc->sources[i]->kind != SOURCE_FILE ||
		    !ckd_parse(inc->sources[i]->path, &one))
			continue;
		one.source = (unsigned)i;
		one.size = ckd_size(inc->sources[i]);
		f = xreallocarray(f, n + 1, sizeof *f);
		f[n++] = one;
	}
	ckd_trackers_read(inc, d);
	if (n > 0) {
		d->present = true;
		ckd_check_sizes(f, n, d);
		ckd_check_gaps(f, n, d);
		ckd_check_missing(f, n, d);
		for (i = 0; i < n; i++) {
			if (!ckd_has(d->broken, d->nbroken, f[i].step))
				ckd_step_add(&d->complete, &d->ncomplete,
				    f[i].step);
		}
	}
	ckd_free(f, n);
}
