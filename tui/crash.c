/*
 * crash.c: the terminal given back when the console dies of a fault.
 *
 * A console that dies of SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT with
 * curses running leaves the engineer's shell on the alternate screen, with
 * no echo and no cursor, in the worst hour of their week.  So while curses
 * runs, those signals reach crash_signal_cb, which does what endwin() would,
 * with async-signal-safe calls only: write() of the escape strings looked
 * up at start (attributes off, cursor on, keypad off, alternate screen off)
 * and tcsetattr() with the modes the tty had before curses.  Then the
 * signal goes on as if we had not been there: to the handler that was
 * installed before ours (ASan's, in a sanitizer build, so its report still
 * appears, after the terminal is back), else to the default action, so the
 * exit status and the core dump stay honest.
 *
 * The handler runs on an alternate stack, so a stack overflow is handled
 * too; one already set (ASan sets its own) is kept.  Mouse reporting is
 * never turned on by the console, so there is none to turn off.
 *
 * A sanitizer build may also end the process without a signal (ASan's
 * report of a heap overflow, a UBSan error): a death callback restores the
 * terminal then, and writes the report again, which the alternate screen
 * took away with it.
 *
 * RANKLINE_TEST_FAULT (segv, stack, abort, fatal, or in a sanitizer build
 * heap: a read past a block) makes the key '!' fail that way, for
 * tests/e2e/crash.sh; the variable is for tests only.
 */

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <curses.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include "tui.h"

#define CRASH_STACK	(64 * 1024)	/* enough for our handler and ASan's */
#define CRASH_KEY	'!'		/* the test fault's key */

static const int crash_signums[] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT
};

static volatile sig_atomic_t crash_armed;	/* restore on a fault */
static int		 crash_out = -1;	/* the fd curses writes to */
static int		 crash_in = -1;		/* the tty, for tcsetattr */
static struct termios	 crash_tio;		/* the modes before curses */
static bool		 crash_have_tio;	/* crash_tio was read */
static char		 crash_seq[256];	/* what endwin would write */
static size_t		 crash_seqlen;
/* The handlers before ours, by crash_signums. */
static struct sigaction	 crash_old[nitems(crash_signums)];
static bool		 crash_installed;	/* crash_old holds something */
static char		*crash_stack;		/* our sigaltstack, or NULL */

/* Remember the tty's modes; called before curses changes them. */
void
crash_save_tty(int fd)
{
	crash_in = fd;
	crash_have_tio = tcgetattr(fd, &crash_tio) == 0;
}

/* Append one terminfo capability, if the terminal has it and it fits. */
static void
crash_cap(const char *name)
{
	char	*s = tigetstr(name);
	size_t	 len;

	if (s == NULL || s == (char *)-1)
		return;
	len = strlen(s);
	if (crash_seqlen + len < sizeof crash_seq) {
		memcpy(crash_seq + crash_seqlen, s, len);
		crash_seqlen += len;
	}
}

/* write() all of it, or as much as the tty takes; safe in a handler. */
static void
crash_write(int fd, const char *s, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if ((n = write(fd, s, len)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/* Which of crash_signums sig is. */
static size_t
crash_index(int sig)
{
	size_t	 i;

	for (i = 0; i < nitems(crash_signums); i++) {
		if (crash_signums[i] == sig)
			break;
	}
	return (i);
}

/* What endwin would do, with async-signal-safe calls; once. */
static void
crash_restore(void)
{
	if (!crash_armed)
		return;
	crash_armed = 0;
	if (crash_out != -1)
		crash_write(crash_out, crash_seq, crash_seqlen);
	if (crash_have_tio)
		tcsetattr(crash_in, TCSANOW, &crash_tio);
}

#if defined(__SANITIZE_ADDRESS__)
static const char	*crash_report;	/* ASan's last report, its own */

/* ASan has written a report: keep it to show again on the shell's screen. */
static void
crash_report_cb(const char *report)
{
	crash_report = report;
}

/*
 * A sanitizer ends the process without a signal (a heap overflow, a UBSan
 * error): the terminal back, and its report again, which was drawn on the
 * alternate screen and went with it.
 */
static void
crash_death_cb(void)
{
	if (!crash_armed)
		return;
	crash_restore();
	if (crash_report != NULL)
		crash_write(STDERR_FILENO, crash_report, strlen(crash_report));
}
#endif

/*
 * A fault: the terminal back first, then the signal on its way.  Each
 * signal is blocked while its handler runs, so the raise() is delivered
 * when this returns, with the default action; a fault's instruction would
 * fault again anyway.
 */
static void
crash_signal_cb(int sig, siginfo_t *si, void *ctx)
{
	struct sigaction	*old;
	struct sigaction	 dfl;
	int			 saved = errno;
	size_t			 i = crash_index(sig);

	crash_restore();
	if (i < nitems(crash_signums)) {
		old = &crash_old[i];
		sigaction(sig, old, NULL);
		if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
			old->sa_sigaction(sig, si, ctx);
			errno = saved;
			return;
		}
		if (!(old->sa_flags & SA_SIGINFO) &&
		    old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
			old->sa_handler(sig);
			errno = saved;
			return;
		}
	}
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
	errno = saved;
}

/* An alternate stack for the handler, unless one is set already. */
static void
crash_stack_start(void)
{
	stack_t	 ss, old;

	if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE))
		return;
	crash_stack = xmalloc(CRASH_STACK);
	ss.ss_sp = crash_stack;
	ss.ss_size = CRASH_STACK;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) != 0) {
		free(crash_stack);
		crash_stack = NULL;
	}
}

/*
 * Curses runs on out_fd: look up what endwin would write, and take the
 * fatal signals.  Called after newterm, when terminfo is loaded.
 */
void
crash_arm(int out_fd)
{
	struct sigaction	 sa;
	size_t			 i;

	crash_out = out_fd;
	crash_seqlen = 0;
	crash_cap("sgr0");
	crash_cap("cnorm");
	crash_cap("rmkx");
	crash_cap("rmcup");
	crash_stack_start();
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = crash_signal_cb;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < nitems(crash_signums); i++)
		sigaddset(&sa.sa_mask, crash_signums[i]);
	for (i = 0; i < nitems(crash_signums); i++)
		sigaction(crash_signums[i], &sa, &crash_old[i]);
	crash_installed = true;
#if defined(__SANITIZE_ADDRESS__)
	__asan_set_error_report_callback(crash_report_cb);
	__sanitizer_set_death_callback(crash_death_cb);
#endif
	crash_armed = 1;
}

/*
 * Curses turned mouse reporting on: a crash must turn it off too, or every
 * click would type escape sequences into the engineer's shell.  These are
 * the private modes ncurses sets on xterm-like terminals (X10, normal,
 * button-event, SGR); a terminal ignores a mode it does not know.
 */
void
crash_mouse(void)
{
	static const char	 off[] = "\033[?1006l\033[?1002l\033[?1000l";

	if (crash_seqlen + sizeof off - 1 < sizeof crash_seq) {
		memcpy(crash_seq + crash_seqlen, off, sizeof off - 1);
		crash_seqlen += sizeof off - 1;
	}
}

/* Curses is ending: the handlers and the stack as they were. */
void
crash_disarm(void)
{
	stack_t	 ss;
	size_t	 i;

	crash_armed = 0;
	if (crash_installed) {
		for (i = 0; i < nitems(crash_signums); i++)
			sigaction(crash_signums[i], &crash_old[i], NULL);
		crash_installed = false;
	}
	if (crash_stack != NULL) {
		memset(&ss, 0, sizeof ss);
		ss.ss_flags = SS_DISABLE;
		sigaltstack(&ss, NULL);
		free(crash_stack);
		crash_stack = NULL;
	}
}

/* Frames crash_recurse goes down: never reached, but not known to be. */
static volatile size_t	 crash_depth_max = SIZE_MAX;

/* Recurse until the stack runs out; the buffer keeps each frame real. */
static int
crash_recurse(volatile char *up, size_t depth)
{
	volatile char	 frame[256];

	if (depth == crash_depth_max)
		return (0);
	frame[0] = up != NULL ? up[0] + 1 : 0;
	return (crash_recurse(frame, depth + 1) + frame[0]);
}

/* An address no page is mapped at, and not NULL, which UBSan would catch. */
static volatile uintptr_t crash_nowhere = 16;

/*
 * The test fault: with RANKLINE_TEST_FAULT set, the key '!' fails the way
 * it names.  Returns false for any other key, or when the variable is unset.
 */
bool
crash_test_key(int key)
{
	const char	*how;

	if (key != CRASH_KEY || (how = getenv("RANKLINE_TEST_FAULT")) == NULL)
		return (false);
	if (strcmp(how, "segv") == 0)
		return (*(volatile int *)crash_nowhere != 0);
	if (strcmp(how, "stack") == 0)
		return (crash_recurse(NULL, 0) != 0);
	if (strcmp(how, "abort") == 0)
		abort();
#if defined(__SANITIZE_ADDRESS__)
	if (strcmp(how, "heap") == 0) {
		/* A read past a block: ASan's report without a signal. */
		volatile char	*block = xmalloc(8);
		int		 past = block[crash_nowhere];

		free((void *)block);
		return (past != 0);
	}
#endif
	if (strcmp(how, "fatal") == 0)
		fatal("RANKLINE_TEST_FAULT=fatal: the test's fault");
	return (false);
}
