/*
 * test-message.c: clock_message, where the console's event list starts a
 * line's message (#25: at 80 columns the timestamp and the launcher's
 * prefix filled the column).  Each line is in a buffer of exactly its
 * length, so that AddressSanitizer catches a read past the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "clock.h"
#include "tap.h"

/* The message of line, from an exact-size copy. */
static const char *
message_of(const char *line, char **copy)
{
	size_t	n = strlen(line);

	*copy = malloc(n ? n : 1);
	memcpy(*copy, line, n);
	return (line + clock_message(*copy, n));
}

int
main(void)
{
	static const struct {
		const char	*line;
		const char	*message;
	} cases[] = {
		{ "[default2]:2026-12-02T13:20:29.124+00:00 INFO [rank2] "
		  "iteration 4/30", "iteration 4/30" },
		{ "2026-12-02 13:00:03,000 ERROR RuntimeError: CUDA error",
		  "RuntimeError: CUDA error" },
		{ "[rank0]: RuntimeError: boom", "RuntimeError: boom" },
		{ "12/02/2026 13:50:42 - INFO - train - step 3",
		  "train - step 3" },
		{ "[2026-12-02 13:00:03] [ERROR] out of memory",
		  "out of memory" },
		/* No time of day: the number and the level are the message's. */
		{ "12345 items left", "12345 items left" },
		{ "ERROR: disk full", "ERROR: disk full" },
		/* A launcher's record's indent goes: the column is narrow. */
		{ "  traceback : Signal 9 (SIGKILL)",
		  "traceback : Signal 9 (SIGKILL)" },
		/* vLLM: the level, then a yearless time and where. */
		{ "INFO 10-14 13:42:14 [loggers.py:123] Engine 000: Avg",
		  "Engine 000: Avg" },
		{ "(EngineCore_DP0 pid=420) ERROR 11-28 15:28:13 [core.py:250]"
		  " EngineCore failed to start.", "EngineCore failed to start." },
		/* glog (torch.distributed's launcher) and c10. */
		{ "W0501 22:04:48.360000 139692391809664 torch/distributed/"
		  "elastic/multiprocessing/api.py:906] Sending process 227 "
		  "closing signal SIGTERM",
		  "Sending process 227 closing signal SIGTERM" },
		{ "[E1202 13:06:43.123456789 ProcessGroupNCCL.cpp:1484] [PG 0 "
		  "Rank 1] Process group watchdog thread terminated",
		  "[PG 0 Rank 1] Process group watchdog thread terminated" },
		{ "[E ProcessGroupNCCL.cpp:414] Some NCCL operations have "
		  "failed", "Some NCCL operations have failed" },
		{ "I20261202 13:06:43.1 42 main.cc:7] ready", "ready" },
		/* DeepSpeed's where after its time and level. */
		{ "[2024-01-01 10:00:00,123] [INFO] [logging.py:96:log_dist] "
		  "[Rank 0] step=10", "[Rank 0] step=10" },
		/* Words that only look like a header stay. */
		{ "I am here] now", "I am here] now" },
		{ "E: disk full", "E: disk full" },
		{ "INFO [x.py:1] no time", "INFO [x.py:1] no time" },
		/* Nothing after the time: the whole line is kept. */
		{ "2026-12-02 13:00:03,000", "2026-12-02 13:00:03,000" },
		{ "", "" },
	};
	const char	*m;
	char		*copy;
	size_t		 i;

	for (i = 0; i < nitems(cases); i++) {
		m = message_of(cases[i].line, &copy);
		is_str(m, cases[i].message, "message of \"%s\"", cases[i].line);
		free(copy);
	}
	return tap_done();
}
