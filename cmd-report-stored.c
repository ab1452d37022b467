/*
 * cmd-report-stored.c: `rankline report --incident N | --last`, the
 * report made from the store alone, for when the logs are gone.
 */
#include <stdio.h>

#include "rankline.h"
#include "report.h"

int
report_stored(const struct options *o, int f)
{
	(void)o;
	(void)f;
	fprintf(stderr, "rankline: report --incident is not built yet\n");
	return 1;
}
