/*
 * test-fingerprint.c: the masks, the templates and the fingerprints that
 * decide which incidents are the same failure.
 *
 * Each mask is checked on the lines the drivers, launchers and frameworks
 * really print (see ../shared/signatures.md), and each grouping promise is
 * checked both ways: what differs only in numbers, paths, ranks, hosts and
 * times groups together; what differs in the failure itself does not.
 */
#include <stdint.h>

#include "engine.h"
#include "tap.h"

/* The template of a line with the given hosts known. */
static char *
tmpl(const char *line, const char *const *hosts, size_t nhosts)
{
	struct buf	b = { 0 };

	fingerprint_template(line, hosts, nhosts, &b);
	return b.p != NULL ? buf_steal(&b) : xstrdup("");
}

/* One line, one expected template. */
static void
is_tmpl(const char *line, const char *want)
{
	char	*got = tmpl(line, NULL, 0);

	is_str(got, want, "template of \"%s\"", line);
	free(got);
}

/* Each typed mask, on its own. */
static void
test_masks(void)
{
	is_tmpl("took 12 steps", "took <num> steps");
	is_tmpl("loss 9.463080E-01 at 0.5", "loss <num> at <num>");
	is_tmpl("faulted @ 0x7f1234560000 flags 0x1f",
	    "faulted @ <addr> flags <hex>");
	is_tmpl("faulted @ 0x7f12_34560000", "faulted @ <addr>");
	is_tmpl("container ae05277d311f died", "container <hex> died");
	is_tmpl("No such file or directory: '/datasets/owt/train.bin'",
	    "No such file or directory: '<path>'");
	is_tmpl("Parent directory checkpoints/iter_0000020/mp_rank_01 does "
	    "not exist.", "Parent directory <path> does not exist.");
	is_tmpl("read ./data/x.bin and ~/y/z", "read <path> and <path>");
	is_tmpl("and/or 8/30 stay", "and/or <num>/<num> stay");
	is_tmpl("Signal 9 (SIGKILL) received by PID 2372",
	    "Signal <num> (SIGKILL) received by PID <pid>");
	is_tmpl("exitcode: -9 (pid: 2507)", "exitcode: -<num> (pid: <pid>)");
	is_tmpl("name=python, pid=25195", "name=python, pid=<pid>");
	is_tmpl("[Rank 3] Watchdog caught collective operation timeout",
	    "[Rank <rank>] Watchdog caught collective operation timeout");
	is_tmpl("local_rank: 5 failed", "local_rank: <rank> failed");
	is_tmpl("frank 5", "frank <num>");
	is_tmpl("at 2026-12-02 13:49:41,893 INFO", "at <time> INFO");
	is_tmpl("at 2026-12-02T13:20:40.374+00:00 INFO", "at <time> INFO");
	is_tmpl("[E409 05:10:01.930967482 ProcessGroupNCCL.cpp:1595] x",
	    "[E<num> <time> ProcessGroupNCCL.cpp:<num>] x");
	is_tmpl("CANCELLED AT 2025-05-12T10:31:02 DUE TO TIME LIMIT",
	    "CANCELLED AT <time> DUE TO TIME LIMIT");
	is_tmpl("NVRM: Xid (PCI:0000:97:00): 13, pid=25195, name=python",
	    "NVRM: Xid (PCI:<pci>): <num>, pid=<pid>, name=python");
	is_tmpl("GPU 00000000:97:00.0: GPU is lost", "GPU <pci>: GPU is lost");
	is_tmpl("Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total)",
	    "Tried to allocate <size> (GPU <num>; <size> total)");
	is_tmpl("wrote 512MB and 1024 bytes", "wrote <size> and <size>");
	is_tmpl("connect to 10.1.2.3:29500 failed",
	    "connect to <ip> failed");
	is_tmpl("peer fe80::1ff:fe23:4567:890a gone", "peer <ip> gone");
	is_tmpl("job 3f2504e0-4f89-11d3-9a0c-0305e82c3301 done",
	    "job <uuid> done");
	is_tmpl("ratio 3:14 kept", "ratio <num>:<num> kept");
	/* Control bytes separate words; they never reach the template. */
	is_tmpl("a \t\r  b\x1b[31m", "a b [<num>m");
	is_tmpl("", "");
}

/* Launcher prefixes are cut; hosts the incident knows are masked. */
static void
test_prefixes(void)
{
	const char	*hosts[] = { "gpu-node-07", "node1" };
	char		*a, *b;

	is_tmpl("[default1]:IndexError: list index out of range",
	    "IndexError: list index out of range");
	is_tmpl("[rank3]: RuntimeError: boom", "RuntimeError: boom");
	is_tmpl("(VllmWorker rank=3 pid=123) ERROR x", "ERROR x");
	is_tmpl("(APIServer pid=6787) ERROR x", "ERROR x");
	is_tmpl(" 3: [rank3]:KeyError: 'x'", "KeyError: 'x'");
	is_tmpl("node07: OSError: disk", "OSError: disk");
	is_tmpl("RuntimeError: boom", "RuntimeError: boom");

	a = tmpl("NCCL WARN on gpu-node-07 and node1: link down", hosts, 2);
	is_str(a, "NCCL WARN on <host> and <host>: link down",
	    "known hosts masked: %s", a);
	b = tmpl("node1x and gpu-node-07.local stay", hosts, 2);
	is_str(b, "node<num>x and <host>.local stay",
	    "only whole host names: %s", b);
	free(a);
	free(b);
}

/* The three ways a GPU is named all normalise to one. */
static void
test_pci(void)
{
	char	out[32];

	ok(fingerprint_find_pci("NVRM: Xid (PCI:0000:97:00): 79, GPU has "
	    "fallen off the bus.", out, sizeof out) == 0, "Xid found");
	is_str(out, "0000:97:00", "Xid form");
	ok(fingerprint_find_pci("x NCCL INFO ncclCommInitRank comm 0x55d0 rank "
	    "3 nranks 8 cudaDev 3 nvmlDev 3 busId 97000 commId 0x1 - Init "
	    "COMPLETE", out, sizeof out) == 0, "NCCL busId found");
	is_str(out, "0000:97:00", "NCCL busId 97000");
	ok(fingerprint_find_pci("GPU 00000000:97:00.0: GPU is lost", out,
	    sizeof out) == 0, "nvidia-smi form found");
	is_str(out, "0000:97:00", "nvidia-smi form");
	ok(fingerprint_pci("busid-less", out, sizeof out) == -1,
	    "not an address");
	ok(fingerprint_pci("1b000", out, sizeof out) == 0 &&
	    strcmp(out, "0000:1b:00") == 0, "bare busId 1b000: %s", out);
	ok(fingerprint_pci("PCI:0001:3B:00", out, sizeof out) == 0 &&
	    strcmp(out, "0001:3b:00") == 0, "upper case: %s", out);
	ok(fingerprint_find_pci("no gpu named here 12:34", out, sizeof out) ==
	    -1, "no address in plain text");
}

static struct rl_rule rule_exc = {
	.id = "python.exception", .role = ROLE_ROOT, .domain = DOMAIN_CODE
};
static struct rl_rule rule_ecc = {
	.id = "nvidia.xid.48", .role = ROLE_ROOT, .domain = DOMAIN_HARDWARE
};

/* A diagnosed incident whose root line is text, on host, at rank. */
static struct rl_incident *
incident(const struct rl_rule *rule, const char *text, const char *host,
    int rank)
{
	struct rl_incident	*inc;
	struct rl_source	*src;
	struct rl_event		*ev;

	inc = incident_create(NULL);
	src = incident_add_source(inc, "/logs/x.log", SOURCE_FILE);
	src->host = host != NULL ? xstrdup(host) : NULL;
	ev = incident_add_event(inc);
	ev->source = 0;
	ev->process = RL_NONE;
	ev->rank = rank;
	ev->rule = rule;
	ev->role = rule->role;
	ev->text = incident_own(inc, xstrdup(text));
	inc->answer.first = 0;
	inc->answer.domain = rule->domain;
	fingerprint_incident(inc);
	return inc;
}

/* Same failure, different run: one fingerprint; another failure: not. */
static void
test_grouping(void)
{
	struct rl_incident	*a, *b, *c, *d, *e, *f;
	struct rl_signature	 sig;

	a = incident(&rule_exc, "[default1]:RuntimeError: shape '[-1, 11]' is "
	    "invalid for input of size 64", "node0", 1);
	b = incident(&rule_exc, "RuntimeError: shape '[-1, 12]' is invalid "
	    "for input of size 96", "node9", 4);
	c = incident(&rule_exc, "RuntimeError: mat1 and mat2 shapes cannot be "
	    "multiplied (8x8 and 32x8)", "node0", 1);
	ok(a->fingerprint != NULL && strncmp(a->fingerprint, "1:", 2) == 0,
	    "fingerprint carries the scheme: %s", a->fingerprint);
	is_str(a->fingerprint, b->fingerprint,
	    "same exception, other numbers, rank, host: same fingerprint");
	ok(strcmp(a->fingerprint, c->fingerprint) != 0,
	    "another exception: another fingerprint");

	/* Hardware: the host is part of it; a code fault is not. */
	d = incident(&rule_ecc, "NVRM: Xid (PCI:0000:18:00): 48, pid=3110652, "
	    "name=pt_main_thread, Ch 00000008", "gpu-a", 0);
	e = incident(&rule_ecc, "NVRM: Xid (PCI:0000:18:00): 48, pid=12, "
	    "name=pt_main_thread, Ch 00000008", "gpu-a", 3);
	f = incident(&rule_ecc, "NVRM: Xid (PCI:0000:18:00): 48, pid=12, "
	    "name=pt_main_thread, Ch 00000008", "gpu-b", 3);
	is_str(d->fingerprint, e->fingerprint, "same GPU fault on one host");
	ok(strcmp(e->fingerprint, f->fingerprint) != 0,
	    "the same hardware fault on another host is another fingerprint");

	fingerprint_signature(d, &sig);
	is_str(sig.rule, "nvidia.xid.48", "signature rule");
	is_str(sig.pci, "0000:18:00", "signature PCI");
	is_str(sig.host, "gpu-a", "signature host");
	is_int(sig.rank, 0, "signature rank");
	ok(sig.hardware && sig.scheme == FP_SCHEME, "hardware, scheme %d",
	    sig.scheme);
	fingerprint_signature_clear(&sig);

	/* The scheme is part of the fingerprint: a new one regroups nothing. */
	{
		char	*v1, *v2;

		v1 = fingerprint_make(1, "r", "t", NULL);
		v2 = fingerprint_make(2, "r", "t", NULL);
		ok(strcmp(v1, v2) != 0 && strncmp(v2, "2:", 2) == 0,
		    "scheme 2 never equals scheme 1: %s %s", v1, v2);
		free(v1);
		free(v2);
	}
	incident_free(a);
	incident_free(b);
	incident_free(c);
	incident_free(d);
	incident_free(e);
	incident_free(f);
}

/*
 * Fingerprints are stored, so their value is fixed: FNV-1a 64 over each
 * part and its NUL, worked out by hand (the parts of one call never run
 * together: "ab"+"c" is not "a"+"bc").
 */
static void
test_stored(void)
{
	char	*v, *w;

	v = fingerprint_make(1, "python.exception",
	    "RuntimeError: shape <N> is invalid", NULL);
	is_str(v, "1:2b3b811ae8940d04", "a code fingerprint keeps its value");
	free(v);
	v = fingerprint_make(1, "cuda.xid", "NVRM: Xid <PCI>: 79", "node07");
	is_str(v, "1:04c0685c1d727c7e", "a hardware one, with its host");
	free(v);
	v = fingerprint_make(1, "ab", "c", NULL);
	w = fingerprint_make(1, "a", "bc", NULL);
	ok(strcmp(v, w) != 0, "parts do not run together: %s %s", v, w);
	free(v);
	free(w);
}

/* Nothing failed: no fingerprint; hostile and long lines stay bounded. */
static void
test_edges(void)
{
	struct rl_incident	*inc;
	struct buf		 b = { 0 };
	char			*line;
	size_t			 i;

	inc = incident_create(NULL);
	fingerprint_incident(inc);
	ok(inc->fingerprint == NULL, "no failure, no fingerprint");
	incident_free(inc);

	line = xmalloc(100001);
	for (i = 0; i < 100000; i++)
		line[i] = "a1/ :x\x80"[i % 7];
	line[100000] = '\0';
	fingerprint_template(line, NULL, 0, &b);
	ok(b.len <= FP_TEMPLATE_MAX, "long line: template of %zu bytes",
	    b.len);
	buf_clear(&b);
	free(line);
}

/* The job's identity from paths, environment dumps and launch lines. */
static void
test_job(void)
{
	struct rl_job	 job = { 0 };
	const char	*log =
	    "+ srun -l --ntasks=64 python train.py --lr 3e-4\n"
	    "SLURM_JOB_ID=48213\n"
	    "TORCHELASTIC_RUN_ID=bert-large\n"
	    "SLURM_JOB_ID=99999\n";

	job_path(&job, "/logs/job301_pgi76c4f/attempt_0/1/stderr.log");
	is_str(job.fact[JOB_RUN].value, "job301", "torchrun's log folder names the run");
	job_path(&job, "/scratch/slurm-7788_3.out");
	is_str(job.fact[JOB_ID].value, "7788", "slurm-N.out names the job");
	job_clear(&job);

	job_scan(&job, log, strlen(log));
	is_str(job.fact[JOB_ID].value, "48213", "SLURM_JOB_ID, the first one");
	is_str(job.fact[JOB_RUN].value, "bert-large", "TORCHELASTIC_RUN_ID");
	is_str(job.fact[JOB_COMMAND].value, "srun -l --ntasks=64 python train.py --lr 3e-4",
	    "the shell trace's launch command");
	job_clear(&job);

	job_scan(&job, "slurmstepd: error: *** STEP 1234.0 ON node07 "
	    "CANCELLED AT 2025-05-12T10:31:02 ***", 70);
	is_str(job.fact[JOB_ID].value, "1234", "slurmstepd's STEP line");
	ok(job.fact[JOB_RUN].value == NULL && job.fact[JOB_COMMAND].value == NULL, "nothing else invented");
	job_clear(&job);
}

/*
 * A log's head fed in chunks of any size finds what job_scan finds in it
 * whole, each fact from its own line: keys split between two chunks,
 * lines with an '=' that is not a key, a command after blanks.
 */
static void
test_job_head(const char *how)
{
	static const char head[] =
	    "step=1 loss=2.5 a==b =x\n"
	    "[2026-12-02 10:00:00] NCCL INFO comm 0x5 rank 3 nranks 8\n"
	    "  \t python3 -m torch.distributed.run --nproc-per-node 8 t.py\n"
	    "#SBATCH -J llama-70b\n"
	    "env: WORLD_SIZE=512 MASTER_PORT=29500\n"
	    "slurmstepd: error: *** JOB 77031 ON node3 CANCELLED ***\n"
	    "TORCHELASTIC_RUN_ID=none-given-twice rdzv_id=second\n"
	    "last line without a newline: SLURM_JOB_NAME=late";
	static const size_t sizes[] = { 1, 2, 7, 64, sizeof head };
	static const char *const from[JOB_NFACTS] = {
	    "h.log:4", "h.log:6", "h.log:7", "h.log:3", NULL, "h.log:5"
	};
	struct rl_job	 whole = { 0 }, job;
	struct job_head	 h;
	size_t		 i, k, n;
	bool		 same, at;

	job_scan(&whole, head, sizeof head - 1);
	is_str(whole.fact[JOB_NAME].value, "llama-70b", "#SBATCH -J names it");
	is_str(whole.fact[JOB_COMMAND].value,
	    "python3 -m torch.distributed.run --nproc-per-node 8 t.py",
	    "a command after blanks");
	for (k = 0; k < nitems(sizes); k++) {
		memset(&job, 0, sizeof job);
		memset(&h, 0, sizeof h);
		for (i = 0; i < sizeof head - 1; i += n) {
			n = sizes[k] < sizeof head - 1 - i ? sizes[k] :
			    sizeof head - 1 - i;
			job_head_feed(&h, &job, "h.log", head + i, n);
		}
		job_head_end(&h, &job, "h.log");
		same = at = true;
		for (i = 0; i < JOB_NFACTS; i++) {
			if ((whole.fact[i].value == NULL) !=
			    (job.fact[i].value == NULL) ||
			    (job.fact[i].value != NULL && strcmp(
			    whole.fact[i].value, job.fact[i].value) != 0))
				same = false;
			if ((from[i] == NULL) != (job.fact[i].from == NULL) ||
			    (from[i] != NULL && strcmp(from[i],
			    job.fact[i].from) != 0))
				at = false;
		}
		ok(same, "%s, chunks of %zu: the facts of the head whole", how,
		    sizes[k]);
		ok(at, "%s, chunks of %zu: each from its line", how, sizes[k]);
		job_clear(&job);
	}
	job_clear(&whole);
}

int
main(void)
{
	test_masks();
	test_prefixes();
	test_pci();
	test_grouping();
	test_stored();
	test_edges();
	test_job();
	/* The vector scan where the CPU has one, and the plain one. */
	test_job_head("as found");
	setenv("RANKLINE_NO_SIMD", "1", 1);
	test_job_head("no SIMD");
	unsetenv("RANKLINE_NO_SIMD");
	return tap_done();
}
