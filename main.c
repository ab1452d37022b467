/*
 * main.c: rankline's start-up and shutdown order, and nothing else.  The
 * common options are parsed here; the first word names a command from the
 * table, and any other first word is a path, which opens the console.
 */
#include <sys/resource.h>

#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "rankline.h"

#ifndef RL_PGO
#define RL_PGO	0	/* set by make pgo's second build */
#endif

const struct command commands[] = {
	{ "analyze", "analyze [--json] [--follow [--until-idle SECONDS] [--poll]] "
	    "[--cmd COMMAND [--restart]]... [PATH|-]...", cmd_analyze },
	{ "cat", "cat [--json] [--cmd COMMAND]... [PATH|-]...", cmd_cat },
	{ "rules", "rules list | check [FILE...] | test | explain ID", cmd_rules },
	{ "history", "history [QUERY] [--json] | --hosts [--json] | "
	    "--export FILE | --import FILE", cmd_history },
	{ "show", "show ID [--json]", cmd_show },
	{ "note", "note ID [--resolution] TEXT", cmd_note },
	{ "report", REPORT_USAGE, cmd_report },
	{ NULL, NULL, NULL }
};

/*
 * Following 1,024 ranks holds 1,024 files open, and the usual soft limit
 * is 1,024 in all: take the hard limit, which needs no privilege.
 */
static void
raise_open_files(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Print the usage to a stream. */
static void
usage(FILE *f)
{
	const struct command	*c;

	fprintf(f, "usage: rankline [options] [--no-follow] [--poll] "
	    "[--cmd COMMAND [--restart]]... [PATH|-]...\n");
	for (c = commands; c->name != NULL; c++)
		fprintf(f, "       rankline %s\n", c->usage);
	fprintf(f, "options: --json --db PATH --no-store --theme NAME --mono "
	    "--ascii --no-mouse --jobs N -v LOGFILE --version\n");
	fprintf(f, "The first form opens the console, which follows the logs "
	    "as they grow (--no-follow reads them once);\n"
	    "on a terminal, no PATH opens the history and - takes a pasted "
	    "log, ended by Ctrl-D.\n");
}

/* --until-idle SECONDS, fractions allowed. */
static int
until_idle(const char *s, uint64_t *ms)
{
	char	*end;
	double	 v;

	v = strtod(s, &end);
	if (end == s || *end != '\0' || !(v > 0) || v > 1e9)
		return -1;
	*ms = (uint64_t)(v * 1000 + 0.5);
	return 0;
}

static const struct option long_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "db", required_argument, NULL, 'd' },
	{ "no-store", no_argument, NULL, 'S' },
	{ "no-mouse", no_argument, NULL, 'M' },
	{ "theme", required_argument, NULL, 't' },
	{ "mono", no_argument, NULL, 'm' },
	{ "ascii", no_argument, NULL, 'a' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ "follow", no_argument, NULL, 'f' },
	{ "no-follow", no_argument, NULL, 'F' },
	{ "until-idle", required_argument, NULL, 'i' },
	{ "poll", no_argument, NULL, 'P' },
	{ "cmd", required_argument, NULL, 'c' },
	{ "restart", no_argument, NULL, 'r' },
	{ "hosts", no_argument, NULL, 'H' },
	{ "export", required_argument, NULL, 'E' },
	{ "import", required_argument, NULL, 'I' },
	{ "resolution", no_argument, NULL, 'R' },
	{ "jobs", required_argument, NULL, 'J' },
	{ "format", required_argument, NULL, 'T' },
	{ "output", required_argument, NULL, 'o' },
	{ "no-redact", no_argument, NULL, 'N' },
	{ "incident", required_argument, NULL, 'n' },
	{ "last", no_argument, NULL, 'L' },
	{ NULL, 0, NULL, 0 }
};

int
main(int argc, char **argv)
{
	struct options		 o = { 0 };
	const struct command	*c;
	int			 ch;

	setlocale(LC_ALL, "");
	signal(SIGPIPE, SIG_IGN);
	raise_open_files();
	/* Options may come anywhere: "+" is not used, so getopt permutes. */
	while ((ch = getopt_long(argc, argv, "hv:o:", long_options, NULL)) != -1) {
		switch (ch) {
		case 'j':
			o.json = true;
			break;
		case 'd':
			o.db = optarg;
			break;
		case 'S':
			o.no_store = true;
			break;
		case 'M':
			o.no_mouse = true;
			break;
		case 't':
			o.theme = optarg;
			break;
		case 'm':
			o.mono = true;
			break;
		case 'a':
			o.ascii = true;
			break;
		case 'v':
			o.debug_log = optarg;
			break;
		case 'f':
			o.follow = true;
			break;
		case 'F':
			o.no_follow = true;
			break;
		case 'i':
			if (until_idle(optarg, &o.until_idle_ms) != 0) {
				fprintf(stderr, "rankline: --until-idle wants "
				    "seconds, not %s\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'P':
			o.poll = true;
			break;
		case 'c':
			/* argv outlives the options: its strings are kept. */
			o.cmds = xreallocarray(o.cmds, o.ncmds + 1,
			    sizeof *o.cmds);
			o.cmds[o.ncmds++] = optarg;
			break;
		case 'r':
			o.restart = true;
			break;
		case 'H':
			o.hosts = true;
			break;
		case 'E':
			o.export_file = optarg;
			break;
		case 'I':
			o.import_file = optarg;
			break;
		case 'J':
			o.jobs = atoi(optarg);
			if (o.jobs < 1) {
				fprintf(stderr, "rankline: --jobs wants a "
				    "number of threads, 1 or more\n");
				return EXIT_USAGE;
			}
			break;
		case 'R':
			o.resolution = true;
			break;
		case 'T':
			o.format = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'N':
			o.no_redact = true;
			break;
		case 'n':
			o.report_incident = strtoll(optarg, NULL, 10);
			if (o.report_incident < 1) {
				fprintf(stderr, "rankline: --incident wants an "
				    "incident's number, 1 or more\n");
				return EXIT_USAGE;
			}
			break;
		case 'L':
			o.report_last = true;
			break;
		case 'V':
			/* Benchmarks name the build they measured (make pgo). */
			printf("rankline %s%s\n", PACKAGE_VERSION,
			    RL_PGO ? " (profile-guided build)" : "");
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	/* On a terminal, no path opens the history of past incidents. */
	if (argc == 0 && o.ncmds == 0 &&
	    !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (c = commands; argc > 0 && c->name != NULL; c++) {
		if (strcmp(argv[0], c->name) == 0)
			break;
	}
	if (argc > 0 && c->name != NULL)
		ch = c->exec(&o, argc - 1, argv + 1);
	else
		ch = cmd_console(&o, argc, argv);
	free(o.cmds);
	return ch;
}
