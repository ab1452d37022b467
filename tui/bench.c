/*
 * bench.c: the console's frame time, measured where it is spent.
 *
 * With RANKLINE_BENCH_FRAMES=N in the environment (a developer's switch,
 * for bench/frame; not documented to users), the console draws its first
 * frame, then N frames after a j (the selection moves a row: what a key
 * costs once the model is indexed), then N frames after a zoom in or out
 * (every event is bucketed again into the window, and the groups of alike
 * ranks are merged again), each timed from the key to the end of
 * doupdate(), whose bytes go to the real terminal; then g (the first
 * entry, a folded group of thousands of ranks: its event list is built,
 * timed once) and N frames after l or h along that list.  It then quits,
 * and tui_run prints the figures on stderr once curses has ended.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui.h"

#define BENCH_MAX	100000	/* frames at most, per kind */

static char	 bench_said[768];	/* the figures, for tui_bench_report */

/* Milliseconds on the monotonic clock. */
static double
bench_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
}

/* Order doubles, for the median. */
static int
bench_cmp(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

/* N frames after a key of the action a (and b every other frame). */
static void
bench_run(struct tui *t, enum tui_action a, enum tui_action b, int key_a,
    int key_b, double *v, int n)
{
	struct view	*view = t->views[t->nviews - 1];
	double		 t0;
	int		 i;

	for (i = 0; i < n; i++) {
		t0 = bench_now();
		tui_react(t, view->type->key(view, i % 2 ? key_b : key_a,
		    i % 2 ? b : a));
		tui_frame(t);
		v[i] = bench_now() - t0;
	}
	qsort(v, (size_t)n, sizeof *v, bench_cmp);
}

/* Draw the frames RANKLINE_BENCH_FRAMES asks for, and quit; 0 if not asked. */
int
tui_bench(struct tui *t)
{
	const char	*s = getenv("RANKLINE_BENCH_FRAMES");
	double		*key, *zoom, *list, t0, build;
	int		 n;

	if (s == NULL || (n = atoi(s)) <= 0)
		return (0);
	if (n > BENCH_MAX)
		n = BENCH_MAX;
	key = xreallocarray(NULL, (size_t)n, sizeof *key);
	zoom = xreallocarray(NULL, (size_t)n, sizeof *zoom);
	list = xreallocarray(NULL, (size_t)n, sizeof *list);
	tui_frame(t);
	bench_run(t, ACT_DOWN, ACT_DOWN, 'j', 'j', key, n);
	bench_run(t, ACT_ZOOM_IN, ACT_ZOOM_OUT, '+', '-', zoom, n);
	t0 = bench_now();
	tui_react(t, t->views[t->nviews - 1]->type->key(t->views[t->nviews - 1],
	    'g', ACT_HOME));
	tui_frame(t);
	build = bench_now() - t0;
	bench_run(t, ACT_RIGHT, ACT_LEFT, 'l', 'h', list, n);
	snprintf(bench_said, sizeof bench_said, "frames: %d ranks, %zu rows "
	    "on a %dx%d screen, %zu events\n"
	    "frame after j:    median %.3f ms, p90 %.3f ms, max %.3f ms (%d)\n"
	    "frame after +/-:  median %.3f ms, p90 %.3f ms, max %.3f ms (%d)\n"
	    "frame after g:    %.3f ms (the first entry's list built)\n"
	    "frame after l/h:  median %.3f ms, p90 %.3f ms, max %.3f ms (%d)\n",
	    (int)t->index.nranked, t->index.nrows, t->sx, t->sy,
	    t->index.nevents, key[n / 2], key[n * 9 / 10], key[n - 1], n,
	    zoom[n / 2], zoom[n * 9 / 10], zoom[n - 1], n, build,
	    list[n / 2], list[n * 9 / 10], list[n - 1], n);
	free(key);
	free(zoom);
	free(list);
	tui_quit(t, 0);
	return (1);
}

/* What tui_bench measured, once curses has ended; nothing if it did not run. */
void
tui_bench_report(void)
{
	if (bench_said[0] != '\0')
		fputs(bench_said, stderr);
	bench_said[0] = '\0';
}
