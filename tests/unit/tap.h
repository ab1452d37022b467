/*
 * tap.h: the Test Anything Protocol, as automake's tap-driver.sh reads it.
 *
 * Each unit test is one program that prints "ok N - what" or "not ok N - what"
 * per check and a plan line at the end.  Kept header-only so that a test is a
 * single file that links the library under test and nothing else.
 */
#ifndef RANKLINE_TAP_H
#define RANKLINE_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n;		/* checks made so far */
static int tap_failed;		/* of which failed */

/* Record one check; print the diagnostic only on failure. */
static int
tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

/* Compare integers and show both on failure. */
#define is_int(got, want, ...) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (!tap_ok(g_ == w_, __VA_ARGS__))				\
		printf("#   got %lld, want %lld\n", g_, w_);		\
} while (0)

/* Compare strings (NULL allowed) and show both on failure. */
#define is_str(got, want, ...) do {					\
	const char *g_ = (got), *w_ = (want);				\
	int same_ = (g_ == NULL || w_ == NULL) ? g_ == w_ :		\
	    strcmp(g_, w_) == 0;					\
	if (!tap_ok(same_, __VA_ARGS__))				\
		printf("#   got \"%s\", want \"%s\"\n",			\
		    g_ ? g_ : "(null)", w_ ? w_ : "(null)");		\
} while (0)

/* Print the plan and return the exit status for main(). */
static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
