/*
 * enospc.c: an LD_PRELOAD shim that fills the disk, for tests/faults.
 *
 * Where a test cannot mount a small tmpfs (no root, no mount namespace),
 * this makes the disk full instead: once RL_ENOSPC_AFTER bytes have been
 * written to files whose path contains RL_ENOSPC_MATCH, every further
 * write to them fails with ENOSPC, as a full file system would (a write
 * that crosses the limit is cut short first).  Other descriptors (the
 * terminal, pipes, the logs) are left alone.  With RL_ENOSPC_COUNT set to
 * a file, the bytes written to matching files are added to it at exit,
 * which tells a test how far to sweep the limit.  SQLite's unix VFS calls
 * write, pwrite and pwrite64 through libc's dynamic symbols, which is
 * what lets a preloaded library stand in front of them.
 *
 * Built without the sanitizers and outside the rankline libraries: it is
 * loaded into whatever process the test runs.
 */
#define _GNU_SOURCE
#include <sys/types.h>
#include <sys/uio.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long long	enospc_left = -1;	/* bytes before full; -1 unset */
static const char	*enospc_match;		/* path substring, or NULL */
static long long	 enospc_written;	/* bytes let through */

/* Read the settings once. */
static void
enospc_init(void)
{
	const char	*s;

	if (enospc_left != -1)
		return;
	s = getenv("RL_ENOSPC_AFTER");
	enospc_left = s != NULL ? atoll(s) : LLONG_MAX;
	enospc_match = getenv("RL_ENOSPC_MATCH");
}

/* Whether fd is a file the disk-full applies to. */
static int
enospc_applies(int fd)
{
	char	link[64], path[PATH_MAX];
	ssize_t	n;

	enospc_init();
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof path - 1)) <= 0)
		return 0;
	path[n] = '\0';
	return enospc_match != NULL && strstr(path, enospc_match) != NULL;
}

/* How much of a write of n bytes may go through: 0 with errno if none. */
static size_t
enospc_allow(int fd, size_t n)
{
	if (!enospc_applies(fd))
		return n;
	if (enospc_left <= 0) {
		errno = ENOSPC;
		return 0;
	}
	if ((long long)n > enospc_left)
		n = (size_t)enospc_left;
	enospc_left -= (long long)n;
	enospc_written += (long long)n;
	return n;
}

/* At exit, what was written, for RL_ENOSPC_COUNT. */
__attribute__((destructor)) static void
enospc_count(void)
{
	const char	*s = getenv("RL_ENOSPC_COUNT");
	FILE		*f;

	if (s != NULL && (f = fopen(s, "w")) != NULL) {
		fprintf(f, "%lld\n", enospc_written);
		fclose(f);
	}
}

ssize_t
write(int fd, const void *p, size_t n)
{
	static ssize_t	(*real)(int, const void *, size_t);
	size_t		 m = 0;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "write");
	if (n > 0 && (m = enospc_allow(fd, n)) == 0)
		return -1;
	return real(fd, p, m);
}

ssize_t
pwrite(int fd, const void *p, size_t n, off_t off)
{
	static ssize_t	(*real)(int, const void *, size_t, off_t);
	size_t		 m = 0;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "pwrite");
	if (n > 0 && (m = enospc_allow(fd, n)) == 0)
		return -1;
	return real(fd, p, m, off);
}

ssize_t
pwrite64(int fd, const void *p, size_t n, off64_t off)
{
	static ssize_t	(*real)(int, const void *, size_t, off64_t);
	size_t		 m = 0;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "pwrite64");
	if (n > 0 && (m = enospc_allow(fd, n)) == 0)
		return -1;
	return real(fd, p, m, off);
}
