/*
 * test-redact.c: the secrets a report hides, and the text it leaves alone.
 * Each case is a log line, what the report must show, and how many values
 * it hid; a line with nothing secret must come back byte for byte.
 */
#include <stdio.h>
#include <string.h>

#include "redact.h"
#include "tap.h"

static const struct {
	const char	*in;
	const char	*out;
	size_t		 hidden;
} cases[] = {
	{ "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc' x",
	  "curl -H 'Authorization: [REDACTED]' x", 1 },
	{ "token Bearer abcdefgh12345678 sent",
	  "token Bearer [REDACTED] sent", 1 },
	{ "export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz012345",
	  "export HF_TOKEN=[REDACTED]", 1 },
	{ "WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567 python t.py",
	  "WANDB_API_KEY=[REDACTED] python t.py", 1 },
	{ "env: AWS_SECRET_ACCESS_KEY=\"wJalrXUtnFEMI/K7MDENG/bPxRfiCY\" ok",
	  "env: AWS_SECRET_ACCESS_KEY=\"[REDACTED]\" ok", 1 },
	{ "key id AKIAIOSFODNN7EXAMPLE in use",
	  "key id [REDACTED] in use", 1 },
	{ "pip install -i https://bob:s3cr3t@pypi.example.com/simple x",
	  "pip install -i https://bob:[REDACTED]@pypi.example.com/simple x", 1 },
	{ "login with hf_abcdefghijklmnopqrstuvwxyz0123 now",
	  "login with [REDACTED] now", 1 },
	{ "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- after",
	  "[REDACTED] after", 1 },
	{ "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV9ffDq4ZyWGn0f",
	  "[REDACTED]", 1 },
	{ "DB_PASSWORD=hunter2 and GITHUB_TOKEN=ghp_x1",
	  "DB_PASSWORD=[REDACTED] and GITHUB_TOKEN=[REDACTED]", 2 },
	/* Left alone: no secret here, whatever it looks like. */
	{ "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, "
	  "unhandled system error, NCCL version 2.18.1", NULL, 0 },
	{ "[rank3] step=500 loss=1.23 lr=3e-4 tokens=4096", NULL, 0 },
	{ "Authorization failed for user bob", NULL, 0 },
	{ "see https://pytorch.org/docs/stable/elastic/errors.html", NULL, 0 },
	{ "AKIA is not a key by itself", NULL, 0 },
	{ "num_tokens=4096 max_tokens=8192", NULL, 0 },
};

int
main(void)
{
	struct buf	b = { 0 };
	size_t		i, n;

	for (i = 0; i < nitems(cases); i++) {
		buf_reset(&b);
		n = redact(&b, cases[i].in, strlen(cases[i].in));
		buf_addc(&b, '\0');
		is_str(b.p, cases[i].out != NULL ? cases[i].out : cases[i].in,
		    "case %zu: text", i);
		is_int((int)n, (int)cases[i].hidden, "case %zu: hidden", i);
	}
	buf_clear(&b);
	return tap_done();
}
