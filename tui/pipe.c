/*
 * pipe.c: the selected line out of the console: | gives it to a shell
 * command, y copies it to the terminal's clipboard.
 *
 * The line is hostile text.  It never reaches the command line: the
 * engineer types the command, /bin/sh -c runs it, and the line goes to
 * the command's standard input only, made safe for a terminal first
 * (sanitize_terminal), because the command's output is the terminal.
 * Curses is suspended around the command (def_prog_mode and endwin, then
 * reset_prog_mode), and the console waits for Enter, so that what the
 * command printed can be read.  y sends OSC 52 with the line in base64,
 * sanitized the same way; the Linux console and dumb terminals cannot
 * take it, and are told so instead.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

#include "tui.h"

#define PIPE_OSC52_MAX	65536	/* bytes of a line copied */

/* The selected line, safe for a terminal, with its newline. */
static void
pipe_text(const struct tui *t, struct buf *b)
{
	const struct rl_event	*e = t->inc->events[t->sel_event];

	if (e->text != NULL)
		sanitize_terminal(b, e->text, strlen(e->text));
	buf_addc(b, '\n');
	buf_addc(b, '\0');
	b->len--;
}

/* Write all of p[0..n) to fd; -1 on an error. */
static int
pipe_write(int fd, const char *p, size_t n)
{
	ssize_t	 w;

	while (n > 0) {
		if ((w = write(fd, p, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* In the child: the line on stdin, the terminal as output, then sh -c. */
static void
pipe_child(struct tui *t, int in, const char *cmd)
{
	static const int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP,
	    SIGWINCH, SIGQUIT };
	sigset_t	 none;
	size_t		 i;

	for (i = 0; i < nitems(sigs); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(in, STDIN_FILENO) == -1 ||
	    dup2(t->out_fd, STDOUT_FILENO) == -1 ||
	    dup2(t->out_fd, STDERR_FILENO) == -1)
		_exit(126);
	close(in);
	/*
	 * uv_disable_stdio_inheritance marked 0 to 2 close-on-exec, and
	 * dup2 of a descriptor onto itself leaves the mark: clear it.
	 */
	fcntl(STDIN_FILENO, F_SETFD, 0);
	fcntl(STDOUT_FILENO, F_SETFD, 0);
	fcntl(STDERR_FILENO, F_SETFD, 0);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

/* Wait for Enter on the tty (in the shell's mode, so a whole line). */
static void
pipe_wait_enter(struct tui *t)
{
	struct pollfd	 pfd = { .fd = t->in_fd, .events = POLLIN };
	char		 c;
	ssize_t		 n;

	for (;;) {
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return;
		while ((n = read(t->in_fd, &c, 1)) == 1) {
			if (c == '\n' || c == '\r')
				return;
		}
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return;
	}
}

/* Run cmd with /bin/sh, the selected line on its stdin; its exit status. */
static int
pipe_spawn(struct tui *t, const char *cmd, const struct buf *text)
{
	int	 fds[2], status = 0;
	pid_t	 pid;

	if (pipe(fds) != 0)
		return -1;
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	if ((pid = fork()) == -1) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[1]);
		pipe_child(t, fds[0], cmd);
	}
	close(fds[0]);
	/* A command that reads nothing closes the pipe: EPIPE, ignored. */
	pipe_write(fds[1], text->p, text->len);
	close(fds[1]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	return status;
}

/* |: the selected line to a shell command, curses suspended meanwhile. */
int
pipe_run(struct tui *t, const char *cmd)
{
	struct buf		 text = { 0 }, said = { 0 };
	struct sigaction	 ign, oint, oquit;
	int			 status;

	if (t->sel_event == RL_NONE) {
		tui_set_message(t, false, "no line selected to pipe");
		return REACT_REDRAW;
	}
	pipe_text(t, &text);
	/*
	 * Ctrl-C or Ctrl-\ meant for the command (a "| less" left open, a
	 * stuck one) reaches the console too, which would quit after it:
	 * ignored here until the console is back, as system(3) does.  The
	 * child takes the default back before it runs.
	 */
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	def_prog_mode();
	endwin();
	tui_log(t, "pipe: running a command of %zu bytes", strlen(cmd));
	status = pipe_spawn(t, cmd, &text);
	if (status == -1)
		buf_printf(&said, "\r\n[rankline: the command could not be "
		    "run: %s; Enter goes back]", strerror(errno));
	else if (WIFEXITED(status))
		buf_printf(&said, "\r\n[rankline: exit %d; Enter goes back]",
		    WEXITSTATUS(status));
	else
		buf_printf(&said, "\r\n[rankline: killed by signal %d; Enter "
		    "goes back]", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	pipe_write(t->out_fd, said.p, said.len);
	pipe_wait_enter(t);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
	if (status != -1 && WIFEXITED(status))
		tui_set_message(t, WEXITSTATUS(status) != 0, "piped %zu bytes; "
		    "the command exited %d", text.len, WEXITSTATUS(status));
	else
		tui_set_message(t, true, "the command did not run to its end");
	buf_clear(&text);
	buf_clear(&said);
	return REACT_REDRAW;
}

/*
 * The OSC 52 sequence that puts text[0..n) in the clipboard, for a
 * terminal named term: 0, or -1 when that terminal cannot take it.
 */
int
pipe_osc52(const char *term, const char *text, size_t n, struct buf *b)
{
	static const char	 abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char	*p = (const unsigned char *)text;
	uint32_t		 v;
	size_t			 i;

	if (term == NULL || *term == '\0' || strcmp(term, "dumb") == 0 ||
	    strncmp(term, "linux", 5) == 0)
		return -1;
	if (n > PIPE_OSC52_MAX)
		n = PIPE_OSC52_MAX;
	buf_adds(b, "\033]52;c;");
	for (i = 0; i + 2 < n; i += 3) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		buf_addc(b, abc[v >> 18]);
		buf_addc(b, abc[(v >> 12) & 63]);
		buf_addc(b, abc[(v >> 6) & 63]);
		buf_addc(b, abc[v & 63]);
	}
	if (i < n) {
		v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 :
		    0);
		buf_addc(b, abc[v >> 18]);
		buf_addc(b, abc[(v >> 12) & 63]);
		buf_addc(b, i + 1 < n ? abc[(v >> 6) & 63] : '=');
		buf_addc(b, '=');
	}
	buf_addc(b, '\a');
	return 0;
}

/* y: copy the selected line (without its newline) with OSC 52. */
int
pipe_yank(struct tui *t)
{
	struct buf	 text = { 0 }, seq = { 0 };
	const char	*term = getenv("TERM");

	if (t->sel_event == RL_NONE) {
		tui_set_message(t, false, "no line selected to copy");
		return REACT_REDRAW;
	}
	pipe_text(t, &text);
	text.len--;
	if (pipe_osc52(term, text.p, text.len, &seq) != 0)
		tui_set_message(t, true, "not copied: TERM=%s cannot take "
		    "OSC 52 (| can hand the line to a command)",
		    term != NULL ? term : "(unset)");
	else if (pipe_write(t->out_fd, seq.p, seq.len) != 0)
		tui_set_message(t, true, "not copied: %s", strerror(errno));
	else
		tui_set_message(t, false, "copied %zu bytes (OSC 52)",
		    text.len);
	buf_clear(&text);
	buf_clear(&seq);
	return REACT_REDRAW;
}
