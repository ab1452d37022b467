/*
 * fuzz.h: what the libFuzzer harnesses of tests/fuzz share.
 *
 * Each harness is one LLVMFuzzerTestOneInput, built twice: with
 * --enable-fuzzing as a libFuzzer program (clang -fsanitize=fuzzer), and
 * always, with the ordinary compiler, as a replay program (replay.c) that
 * make check runs over the harness's seeds and kept crash inputs.  A
 * harness that finds a property broken (invalid JSON, an escape byte in a
 * text report, two answers where one is due) calls fuzz_fail, which aborts:
 * a finding is a crash, whichever way it shows.
 */
#ifndef RANKLINE_FUZZ_H
#define RANKLINE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

int		 LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int		 LLVMFuzzerInitialize(int *, char ***);

/* The reference instant of every source: 2026-12-02 13:00:00 UTC. */
#define FUZZ_REF_EPOCH	1796216400

/* Say what broke and abort, so that libFuzzer keeps the input. */
void		 fuzz_fail(const char *, ...)
		     __attribute__((noreturn, format(printf, 1, 2)));

/*
 * A finished ruleset of the shipped packs compiled into the binary (never
 * the installed or the user's, which would make a run depend on the
 * machine); with only, just the pack of that file name.
 */
struct ruleset	*fuzz_rules(const char *);

/* A private folder for a harness's files, made once; never NULL. */
const char	*fuzz_tmpdir(void);

#endif
