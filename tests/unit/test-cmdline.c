/*
 * test-cmdline.c: the console's command line without a terminal (#25):
 * rank sets ("3,5-7"), the ':' commands and the filter they set, the
 * search's smart case and limits (core/find.c), and the OSC 52 sequence
 * y sends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "find.h"
#include "tap.h"

/* A set parsed and formatted again, or the error. */
static char *
set_text(const char *in)
{
	struct rankset	 s = { 0 };
	struct buf	 b = { 0 };
	char		*cause = NULL;

	if (rankset_parse(&s, in, &cause) != 0)
		return cause;
	rankset_format(&s, &b);
	rankset_clear(&s);
	buf_addc(&b, '\0');
	return buf_steal(&b);
}

/* Check that a set formats as want (an error starting with want). */
static void
check_set(const char *in, const char *want, bool error)
{
	char	*got = set_text(in);

	if (error)
		ok(strncmp(got, want, strlen(want)) == 0,
		    "rank set '%s' is refused: %s", in, got);
	else
		is_str(got, want, "rank set '%s' reads as %s", in, want);
	free(got);
}

static void
test_rankset(void)
{
	struct rankset	 s = { 0 };
	char		*cause = NULL;

	check_set("3,5-7", "3,5-7", false);
	check_set(" 7 , 3 - 4,5", "3-5,7", false);
	check_set("0-36,38-63", "0-36,38-63", false);
	check_set("5-7,6-9,1,2,3", "1-3,5-9", false);
	check_set("12", "12", false);
	check_set("7-5", "rank range 7-5 runs backwards", true);
	check_set("3,", "ranks: expected a rank", true);
	check_set("a", "ranks: expected a rank", true);
	check_set("-1", "ranks: expected a rank", true);
	check_set("3;4", "ranks: expected a rank or a range such as 3,5-7 at "
	    "column 2", true);
	check_set("99999999999", "ranks: expected a rank", true);
	ok(rankset_parse(&s, "3,5-7,1000", &cause) == 0, "3,5-7,1000 parses");
	ok(rankset_has(&s, 3) && rankset_has(&s, 5) && rankset_has(&s, 6) &&
	    rankset_has(&s, 7) && rankset_has(&s, 1000),
	    "the set holds 3, 5, 6, 7 and 1000");
	ok(!rankset_has(&s, 4) && !rankset_has(&s, 8) && !rankset_has(&s, 0) &&
	    !rankset_has(&s, -1) && !rankset_has(&s, 999),
	    "and not 4, 8, 0, -1 or 999");
	rankset_clear(&s);
	ok(!rankset_has(&s, 3), "an empty set holds nothing");
}

static void
test_commands(void)
{
	struct cmdline	 c;
	struct tui_filter f = { 0 };
	struct buf	 b = { 0 };
	char		*cause = NULL;

	ok(cmdline_parse(&c, "ranks 3,5-7", &cause) == 0 &&
	    c.kind == CMD_RANKS && c.set.n == 2, ":ranks 3,5-7 is a filter");
	ok(filter_command(&f, &c) == 1 && f.ranks.n == 2, "and sets the ranks");
	cmdline_clear(&c);
	ok(cmdline_parse(&c, "  host   node1  ", &cause) == 0 &&
	    c.kind == CMD_HOST && strcmp(c.arg, "node1") == 0,
	    ":host node1, blanks around");
	filter_command(&f, &c);
	cmdline_clear(&c);
	ok(cmdline_parse(&c, "failures", &cause) == 0 && c.on,
	    ":failures turns it on");
	filter_command(&f, &c);
	cmdline_clear(&c);
	ok(cmdline_parse(&c, "progress off", &cause) == 0 && !c.on,
	    ":progress off");
	filter_command(&f, &c);
	cmdline_clear(&c);
	filter_describe(&f, " - ", &b);
	buf_addc(&b, '\0');
	is_str(b.p, "ranks 3,5-7 - host node1 - failures - no progress",
	    "the header says the whole filter");
	buf_clear(&b);
	ok(filter_active(&f), "the filter is on");
	ok(cmdline_parse(&c, "host", &cause) == 0, ":host alone");
	filter_command(&f, &c);
	cmdline_clear(&c);
	ok(f.host == NULL, "clears the host");
	ok(cmdline_parse(&c, "clear", &cause) == 0 && filter_command(&f, &c),
	    ":clear");
	cmdline_clear(&c);
	ok(!filter_active(&f), "turns every part off");

	ok(cmdline_parse(&c, "rank 12", &cause) == 0 && c.kind == CMD_RANK &&
	    c.n == 12 && filter_command(&f, &c) == 0,
	    ":rank 12 is a jump, not a filter");
	cmdline_clear(&c);
	ok(cmdline_parse(&c, "goto node1/torchrun.log:152", &cause) == 0 &&
	    c.kind == CMD_GOTO && strcmp(c.arg, "node1/torchrun.log") == 0 &&
	    c.n == 152, ":goto FILE:LINE splits at the last colon");
	cmdline_clear(&c);
	ok(cmdline_parse(&c, "line 40", &cause) == 0 && c.kind == CMD_LINE &&
	    c.n == 40, ":line 40");
	cmdline_clear(&c);

	ok(cmdline_parse(&c, "rank x", &cause) == -1 &&
	    strstr(cause, "expected a number") != NULL, ":rank x is refused");
	free(cause);
	cause = NULL;
	ok(cmdline_parse(&c, "goto stderr.log", &cause) == -1 &&
	    strstr(cause, "FILE:LINE") != NULL, ":goto without a line");
	free(cause);
	cause = NULL;
	ok(cmdline_parse(&c, "ranks", &cause) == -1 &&
	    strstr(cause, "needs an argument") != NULL, ":ranks without a set");
	free(cause);
	cause = NULL;
	ok(cmdline_parse(&c, "progress maybe", &cause) == -1 &&
	    strstr(cause, "on or off") != NULL, ":progress maybe");
	free(cause);
	cause = NULL;
	ok(cmdline_parse(&c, "frobnicate now", &cause) == -1 &&
	    strncmp(cause, "unknown command 'frobnicate'", 28) == 0,
	    "an unknown command is named, with the list");
	free(cause);
	cause = NULL;
	ok(cmdline_parse(&c, "clear all", &cause) == -1,
	    ":clear takes no argument");
	free(cause);
	filter_clear(&f);

	ok(filter_sig_match("nccl.watchdog_timeout", "nccl.watchdog_timeout"),
	    ":sig matches a rule id");
	ok(filter_sig_match("nccl", "nccl.watchdog_timeout"),
	    "and its prefix to a dot");
	ok(!filter_sig_match("nccl.watch", "nccl.watchdog_timeout"),
	    "but not a prefix inside a word");
	ok(!filter_sig_match("nccl", "ncclx.error") &&
	    !filter_sig_match("nccl", NULL), "nor another family, nor no rule");
}

static void
test_find(void)
{
	struct find	*f;
	char		*cause = NULL;
	char		 bad[] = "Traceback \xff\xfe (most recent call last)";
	char		 longline[20001];

	ok(find_smart_caseless("traceback"), "lower case: caseless");
	ok(!find_smart_caseless("Traceback"), "a capital: exact");
	ok(find_smart_caseless("\\Serror\\W+\\D"), "escapes are not capitals");
	ok(find_smart_caseless("\\p{Lu}+ error"), "nor a property's name");
	ok(!find_smart_caseless("\\p{Lu}+ Error"), "a capital past it counts");

	f = find_compile("traceback", &cause);
	ok(f != NULL && find_caseless(f), "traceback compiles, caseless");
	ok(find_match(f, "Traceback (most", 15) == 1, "and finds Traceback");
	ok(find_match(f, bad, strlen(bad)) == 1,
	    "in a line with invalid UTF-8 too");
	find_free(f);
	f = find_compile("Traceback", &cause);
	ok(f != NULL && !find_caseless(f), "Traceback is exact");
	ok(find_match(f, "traceback", 9) == 0, "and misses traceback");
	find_free(f);

	f = find_compile("(oops", &cause);
	ok(f == NULL && cause != NULL && strncmp(cause, "bad pattern at ", 15)
	    == 0, "a bad pattern says where: %s", cause ? cause : "");
	free(cause);
	cause = NULL;
	ok(find_compile("", &cause) == NULL, "an empty pattern is refused");
	free(cause);
	cause = NULL;

	memset(longline, 'a', sizeof longline - 1);
	longline[sizeof longline - 1] = '\0';
	f = find_compile("(a+)+[bc]", &cause);
	ok(f != NULL && find_match(f, longline, strlen(longline)) == -1,
	    "a costly pattern stops at the match limit");
	find_free(f);
}

static void
test_osc52(void)
{
	struct buf	 b = { 0 };

	ok(pipe_osc52("xterm-256color", "hi!", 3, &b) == 0, "xterm takes it");
	buf_addc(&b, '\0');
	is_str(b.p, "\033]52;c;aGkh\a", "hi! in base64");
	buf_reset(&b);
	pipe_osc52("screen", "ab", 2, &b);
	buf_addc(&b, '\0');
	is_str(b.p, "\033]52;c;YWI=\a", "two bytes pad once");
	buf_reset(&b);
	pipe_osc52("tmux-256color", "a", 1, &b);
	buf_addc(&b, '\0');
	is_str(b.p, "\033]52;c;YQ==\a", "one byte pads twice");
	buf_reset(&b);
	ok(pipe_osc52("linux", "a", 1, &b) == -1 && b.len == 0,
	    "the Linux console cannot take it");
	ok(pipe_osc52("dumb", "a", 1, &b) == -1 && pipe_osc52(NULL, "a", 1,
	    &b) == -1 && b.len == 0, "nor a dumb terminal, nor none");
	buf_clear(&b);
}

int
main(void)
{
	test_rankset();
	test_commands();
	test_find();
	test_osc52();
	return tap_done();
}
