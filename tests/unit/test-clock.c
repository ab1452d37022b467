/*
 * test-clock.c: the timestamp parser against real lines.
 *
 * The lines are copied from the shared test data (corpus/timestamps and
 * realdata, see realdata/SOURCES.md), so a form is tested as the software
 * prints it, not as we remember it.  lnav's own samples are tested by
 * test-clock-lnav.c.
 *
 * Every line is parsed from a buffer of exactly its length, malloc'd, so
 * that AddressSanitizer catches a parser that reads past the end or relies
 * on a NUL.  The process runs with TZ=UTC unless a check says otherwise.
 */

#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L	/* setenv, localtime_r, stat */
#endif

#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock-check.h"

/* A line with a time, the reference it is read against, and the result. */
struct tcase {
	const char	*line;		/* as the log has it */
	const char	*ref;		/* touch -t stamp, local: the years */
	const char	*want;		/* clock_format of the result */
	int		 form;		/* enum clock_form */
};

#define REF_CORPUS	"202508291754"	/* corpus/timestamps/cases.json mtime */

/*
 * Lines from the .log files of corpus/timestamps first (their reference is
 * the mtime cases.json sets), then from realdata with a reference near the
 * run, then forms as signatures.md quotes them and edge cases.
 */
static const struct tcase cases[] = {
	/* corpus/timestamps/vllm.log */
	{ "INFO 08-28 17:54:59 [api_server.py:1043] vLLM API server version "
	  "0.8.5", REF_CORPUS, "2025-08-28T17:54:59.000", CLOCK_VLLM },
	{ "(VllmWorker rank=1 pid=4242) WARNING 08-28 17:55:02 "
	  "[custom_all_reduce.py:137] Custom allreduce is disabled",
	  REF_CORPUS, "2025-08-28T17:55:02.000", CLOCK_VLLM },
	{ "ERROR 08-28 17:55:08 [core.py:396] EngineCore failed to start.",
	  REF_CORPUS, "2025-08-28T17:55:08.000", CLOCK_VLLM },
	/* c10.log: the nanoseconds are monotonic, so dropped */
	{ "[rank3]:[W828 17:54:59.838826497 ProcessGroupNCCL.cpp:1476] "
	  "Warning: something", REF_CORPUS, "2025-08-28T17:54:59.000",
	  CLOCK_C10 },
	{ "[rank3]:[E828 18:04:59.499987952 ProcessGroupNCCL.cpp:629] "
	  "[Rank 3] Watchdog caught collective operation timeout: "
	  "WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
	  "Timeout(ms)=600000) ran for 600081 milliseconds before timing out.",
	  REF_CORPUS, "2025-08-28T18:04:59.000", CLOCK_C10 },
	/* elastic.log: torch >= 2.4 prints glog-like lines */
	{ "W0828 17:54:59.462000 2606 site-packages/torch/distributed/run.py:"
	  "793] ", REF_CORPUS, "2025-08-28T17:54:59.462", CLOCK_GLOG },
	{ "E0828 17:55:04.620000 2606 site-packages/torch/distributed/elastic/"
	  "multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 5 "
	  "(pid: 2630) of binary: /usr/bin/python", REF_CORPUS,
	  "2025-08-28T17:55:04.620", CLOCK_GLOG },
	/* pylog.log */
	{ "2025-08-28 17:54:59,520 INFO train step 1", REF_CORPUS,
	  "2025-08-28T17:54:59.520", CLOCK_PYLOG },
	{ "2025-08-28 17:55:06,875 INFO shutting down", REF_CORPUS,
	  "2025-08-28T17:55:06.875", CLOCK_PYLOG },
	/* ds.log: DeepSpeed, then NCCL >= 2.26 WARN */
	{ "[2025-08-28 17:54:59,601] [INFO] [engine.py:3551:_save_checkpoint] "
	  "[Rank 0] Saving model checkpoint", REF_CORPUS,
	  "2025-08-28T17:54:59.601", CLOCK_BRACKET },
	{ "[2025-08-28 17:55:03] node07:1234:5679 [0] transport/net_ib.cc:1045 "
	  "NCCL WARN NET/IB : Got completion from peer 10.0.0.8<53742> with "
	  "status=12 opcode=0 len=0 vendor err 129 (Recv)", REF_CORPUS,
	  "2025-08-28T17:55:03.000", CLOCK_BRACKET },
	/* ray.log */
	{ "[2025-08-28 17:54:59,194 I 42067 42067] core_worker_process.cc:107: "
	  "Constructing CoreWorkerProcess", REF_CORPUS,
	  "2025-08-28T17:54:59.194", CLOCK_BRACKET },
	{ "[2025-08-28 17:55:01,189 E 42067 42099] core_worker.cc:812: The "
	  "actor died unexpectedly", REF_CORPUS, "2025-08-28T17:55:01.189",
	  CLOCK_BRACKET },
	/* dmesg.log (dmesg -T) */
	{ "[Thu Aug 28 17:54:59 2025] NVRM: Xid (PCI:0000:97:00): 79, pid=1234,"
	  " name=pt_main_thread, GPU has fallen off the bus.", REF_CORPUS,
	  "2025-08-28T17:54:59.000", CLOCK_DMESG_T },
	{ "[Thu Aug 28 17:55:00 2025] Out of memory: Killed process 2630 "
	  "(pt_main_thread) total-vm:812345678kB", REF_CORPUS,
	  "2025-08-28T17:55:00.000", CLOCK_DMESG_T },
	/* syslog.log */
	{ "Aug 28 17:54:59 node07 kernel: NVRM: Xid (PCI:0000:97:00): 48, "
	  "pid=1234, name=python, An uncorrectable double bit error",
	  REF_CORPUS, "2025-08-28T17:54:59.000", CLOCK_SYSLOG },
	{ "Aug 28 17:55:02 node07 kernel: oom-kill:constraint=CONSTRAINT_MEMCG,"
	  "nodemask=(null)", REF_CORPUS, "2025-08-28T17:55:02.000",
	  CLOCK_SYSLOG },
	/* hf.log: US order */
	{ "08/28/2025 17:54:59 - INFO - transformers.trainer - Saving model "
	  "checkpoint to output/checkpoint-500", REF_CORPUS,
	  "2025-08-28T17:54:59.000", CLOCK_US },
	/* slurm.log: mid-line, no zone */
	{ "slurmstepd: error: *** STEP 1234.0 ON node07 CANCELLED AT "
	  "2025-08-28T17:54:59 ***", REF_CORPUS, "2025-08-28T17:54:59.000",
	  CLOCK_ISO },
	/* clock12.log */
	{ "STARTING TIMING RUN AT 2025-08-28 05:54:59 PM", REF_CORPUS,
	  "2025-08-28T17:54:59.000", CLOCK_CLOCK12 },
	/* iso.log */
	{ "2025-08-28T17:54:59.823+00:00 INFO [rank2] iteration 10", REF_CORPUS,
	  "2025-08-28T17:54:59.823Z", CLOCK_ISO },
	/* mllog.log: epochs are UTC */
	{ ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1756403699000, "
	  "\"event_type\": \"POINT_IN_TIME\", \"key\": \"epoch_start\", "
	  "\"value\": 1}", REF_CORPUS, "2025-08-28T17:54:59.000Z",
	  CLOCK_EPOCH },

	/* realdata/vllm: production-stack (0.9), laguna, bench3 */
	{ "INFO 06-10 06:16:16 [__init__.py:243] Automatically detected "
	  "platform cuda.", "202506101800", "2025-06-10T06:16:16.000",
	  CLOCK_VLLM },
	{ "[rank0]:[W610 06:17:01.666789213 ProcessGroupNCCL.cpp:1476] "
	  "Warning: WARNING: destroy_process_group() was not called before "
	  "program exit, which can leak resources. For more info, please see "
	  "https://pytorch.org/docs/stable/distributed.html#shutdown (function "
	  "operator())", "202506101800", "2025-06-10T06:17:01.000", CLOCK_C10 },
	{ "[rank0]:[W803 21:49:24.248813923 ProcessGroupNCCL.cpp:1575] "
	  "Warning: WARNING: destroy_process_group() was not called before "
	  "program exit, which can leak resources. For more info, please see "
	  "https://pytorch.org/docs/stable/distributed.html#shutdown (function "
	  "operator())", "202508032200", "2025-08-03T21:49:24.000", CLOCK_C10 },
	{ "\033[1;36m(APIServer pid=155)\033[0;0m INFO 11-28 15:27:15 "
	  "[api_server.py:1977] vLLM API server version 0.11.2",
	  "202511281600", "2025-11-28T15:27:15.000", CLOCK_VLLM },
	{ "\033[1;36m(EngineCore_DP0 pid=420)\033[0;0m 2025-11-28 15:28:09,929 "
	  "- INFO - autotuner.py:256 - flashinfer.jit: [Autotuner]: "
	  "Autotuning process starts ...", "202511281600",
	  "2025-11-28T15:28:09.929", CLOCK_PYLOG },
	/* tqdm's \r put the real line after a progress bar */
	{ "(EngineCore pid=23397) \r[AutoTuner]: Tuning trtllm::fused_moe::"
	  "gemm1:   0%|          | 0/21 [00:00<?, ?profile/s]2026-08-01 "
	  "21:21:53,817 - INFO - autotuner.py:1351 - flashinfer.jit: "
	  "[Autotuner]: Skipped 4 unsupported tactic(s) for trtllm::fused_moe::"
	  "gemm1 (enable debug logs to see details)", "202608020000",
	  "2026-08-01T21:21:53.817", CLOCK_PYLOG },

	/* realdata/mlperf */
	{ "W0501 22:03:53.288000 139692391809664 torch/distributed/run.py:757] "
	  "*****************************************", "202405012300",
	  "2024-05-01T22:03:53.288", CLOCK_GLOG },
	{ "  time      : 2024-05-01_22:04:48", "202405012300",
	  "2024-05-01T22:04:48.000", CLOCK_ELASTIC },
	/* Prefixes stepped over: srun and pdsh labels, a worker's pid. */
	{ "  3: 2025-08-28 17:54:59,123 INFO x", REF_CORPUS,
	  "2025-08-28T17:54:59.123", CLOCK_PYLOG },
	{ "node-07.cluster_a: INFO 08-28 17:55:02 [x.py:1] y", REF_CORPUS,
	  "2025-08-28T17:55:02.000", CLOCK_VLLM },
	{ "node07: [rank3]:[E828 17:54:59.838826497 ProcessGroupNCCL.cpp:1476] "
	  "x", REF_CORPUS, "2025-08-28T17:54:59.000", CLOCK_C10 },
	{ "(Worker_TP1 a=b, pid=77, ip=10.0.0.2) INFO 08-28 17:55:02 [x.py:1] "
	  "y", REF_CORPUS, "2025-08-28T17:55:02.000", CLOCK_VLLM },
	/*
	 * The time of day far along the line, after many colons that start
	 * none ("12:34", "1:23:45", "00:00<"): each form is still tried.
	 */
	{ "  time                                                            "
	  "                                                            : "
	  "2024-05-01_22:04:48", "202405012300", "2024-05-01T22:04:48.000",
	  CLOCK_ELASTIC },
	{ "node07:1234:5678 [0] 12:34 1:23:45 [00:00<00:04] 123:45:6 "
	  "a:12:34:5 CANCELLED AT 2025-08-28T17:54:59 ***", REF_CORPUS,
	  "2025-08-28T17:54:59.000", CLOCK_ISO },
	{ "[NeMo W 2024-05-01 22:04:11 nemo_logging:349] /usr/local/lib/"
	  "python3.10/dist-packages/hydra/_internal/defaults_list.py:251: "
	  "UserWarning: In 'megatron_gpt_peft_tuning_config': Defaults list is "
	  "missing `_self_`.", "202405012300", "2024-05-01T22:04:11.000",
	  CLOCK_ISO },
	{ "STARTING TIMING RUN AT 2021-05-17 06:50:36 AM", "202105170800",
	  "2021-05-17T06:50:36.000", CLOCK_CLOCK12 },
	{ "  0: ENDING TIMING RUN AT 2024-05-18 12:35:51 AM", "202405180100",
	  "2024-05-18T00:35:51.000", CLOCK_CLOCK12 },
	{ "  0: RESULT,large language model,30019,3818,root,2024-05-17 "
	  "11:32:13 PM", "202405180100", "2024-05-17T23:32:13.000",
	  CLOCK_CLOCK12 },
	{ "[1594407135.546337] [k69a05298:117  :0]          ib_md.c:1933 UCX  "
	  "ERROR ibv_open_device(mlx5_9) failed: No such file or directory",
	  "202007110000", "2020-07-10T18:52:15.546Z", CLOCK_EPOCH },
	{ ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1594407125477, "
	  "\"event_type\": \"POINT_IN_TIME\", \"key\": "
	  "\"submission_benchmark\", \"value\": \"resnet\", \"metadata\": "
	  "{\"file\": \"/workspace/"
	  "image_classification/mlperf_log_utils.py\", \"lineno\": 72}}",
	  "202007110000", "2020-07-10T18:52:05.477Z", CLOCK_EPOCH },
	{ "[0] :::MLLOG {\"namespace\": \"\", \"time_ms\": 1621340451929, "
	  "\"event_type\": \"POINT_IN_TIME\", \"key\": \"cache_clear\", "
	  "\"value\": true, \"metadata\": {\"file\": \"dlrm_s_pytorch.py\", "
	  "\"lineno\": 677}}", "202105190000", "2021-05-18T12:20:51.929Z",
	  CLOCK_EPOCH },

	/* realdata/kernel/nvidia-bug-report.log */
	{ "[  442.834675] [UFW AUDIT] IN=lo OUT= MAC=00:00:00:00:00:00:00:00:00"
	  ":00:00:00:86:dd SRC=0000:0000:0000:0000:0000:0000:0000:0001",
	  "202208252031", "+442.834", CLOCK_DMESG },
	{ "[     5.813] Build Operating System: linux Debian", "202208252031",
	  "+5.813", CLOCK_DMESG },
	{ "ao\xc3\xbbt 25 19:38:04 fujitsu kernel: nvidia-nvlink: Nvlink Core "
	  "is being initialized, major device number 245", "202208252031",
	  "2022-08-25T19:38:04.000", CLOCK_SYSLOG },
	{ "*** ls: -rw-r--r-- 1 root root 4096 2022-08-25 20:30:39.517517718 "
	  "+0200 /sys/bus/pci/devices/0000:01:00.0/power/control",
	  "202208252031", "2022-08-25T20:30:39.517+02:00", CLOCK_ISO },

	/* realdata/lnav samples */
	{ "E0517 15:04:22.619632 1952452992 logging_unittest.cc:253] Log every "
	  "3, iteration 19", "200711030923", "2007-05-17T15:04:22.619",
	  CLOCK_GLOG },
	{ "2022-08-27T17:22:01.694554+03:00 space01.global-acme.entp CRON 20856"
	  " - -  (root) CMD (   /usr/bin/nice -n 10 /opt/acme/bin/"
	  "mem_usage_monitor.py >/dev/null 2>&1)", "202208280000",
	  "2022-08-27T17:22:01.694+03:00", CLOCK_ISO },
	{ "2025-04-24T22:09:20.854Z\tinfo\tMetrics\t{\"otelcol.component.id\": "
	  "\"debug\", \"otelcol.component.kind\": \"Exporter\", "
	  "\"otelcol.signal\": \"metrics\", \"resource metrics\": 3, "
	  "\"metrics\": 27, \"data points\": 60}", "202504250000",
	  "2025-04-24T22:09:20.854Z", CLOCK_ISO },
	{ "\033[2Kweb-1  | 2024-04-25T05:32:35.584725130Z  * Serving Flask app "
	  "'app.py'", "202404250600", "2024-04-25T05:32:35.584Z", CLOCK_ISO },
	{ "2015-04-24T21:08:10.313913FOO err rbd  [22968]lotuscreds:ERROR:"
	  "Could not retrieve lotus account information from db",
	  "201504250000", "2015-04-24T21:08:10.313", CLOCK_ISO },
	{ "2025-01-24T07:00:30,139 INFO [background-preinit       ] Version    "
	  "              : HV000001: Hibernate Validator 8.0.1.Final",
	  "202501250000", "2025-01-24T07:00:30.139", CLOCK_ISO },
	{ "2025-01-01 00:00:00.123456789:INFO:nano first", "202501020000",
	  "2025-01-01T00:00:00.123", CLOCK_ISO },
	{ "2012-07-02 10:22:40,672:DEBUG:foo bar baz", "201207030000",
	  "2012-07-02T10:22:40.672", CLOCK_PYLOG },
	{ "2012-025T10:22:40,672:DEBUG:foo bar baz", "201207030000",
	  "2012-01-25T10:22:40.672", CLOCK_ISO },
	{ "1428634687123 Hello, World!", "201504110000",
	  "2015-04-10T02:58:07.123Z", CLOCK_EPOCH },
	{ "{\"instant\":{\"epochSecond\": 1663977609,\"nanoOfSecond\": "
	  "484000000}, \"msg\": \"Hello, World!\"}", "202209250000",
	  "2022-09-24T00:00:09.000Z", CLOCK_EPOCH },
	{ "{ \"__CURSOR\" : \"s=e991dd5775894620914f2f7126aae6c1;i=372a;"
	  "b=0dc874d3fbd44bdbb6fbcfaa27481492;m=24ea327;t=573f280a663fd;"
	  "x=9ceeb77ef4331563\", \"__REALTIME_TIMESTAMP\" : "
	  "\"1534860261221373\", \"__MONOTONIC_TIMESTAMP\" : \"38708007\", "
	  "\"_BOOT_ID\" : "
	  "\"0dc874d3fbd44bdbb6fbcfaa27481492\", \"PRIORITY\" : \"1\", "
	  "\"MESSAGE\" : \"GPS Reference longitude: 7.358143333\" }",
	  "201808220000", "2018-08-21T14:04:21.221Z", CLOCK_EPOCH },
	{ "ao\xc3\xbbt 19 11:08:37 nlaptop symphorien[4961]: test",
	  "202208200000", "2022-08-19T11:08:37.000", CLOCK_SYSLOG },
	{ "Nov  3 09:23:38 veridian automount[7998]: lookup(file): lookup for "
	  "foobar failed", "200711030923", "2007-11-03T09:23:38.000",
	  CLOCK_SYSLOG },

	/* corpus/torch: torchrun --tee, HF, glog with year, error.json */
	{ "[default0]:12/02/2026 13:50:42 - INFO - train - [rank0] initialized "
	  "process group: backend=gloo world_size=5 rank=0 local_rank=0 "
	  "master=localhost:46269", "202612021400", "2026-12-02T13:50:42.000",
	  CLOCK_US },
	{ "2026-12-02T13:20:10.366+00:00 ERROR [rank3] training aborted by "
	  "exception", "202612021400", "2026-12-02T13:20:10.366Z", CLOCK_ISO },
	{ "[default1]:2026-12-02 13:22:18,798 INFO     [rank1] train: "
	  "iteration      1/    35 | lm loss: 1.046101E+00 | lr: 1.000E-03 | "
	  "grad norm: "
	  "0.331 | elapsed time per iteration (ms): 94.5", "202612021400",
	  "2026-12-02T13:22:18.798", CLOCK_PYLOG },
	{ "W20261202 13:49:35.754949 17904 socket.cpp:426] [c10d] The server "
	  "socket has failed to bind to [::]:29651 (errno: 98 - Address already"
	  " in use).", "202612021400", "2026-12-02T13:49:35.754", CLOCK_GLOG },
	{ "{\"message\": {\"message\": \"RuntimeError: [./gloo/transport/tcp/"
	  "pair.cc:589] Read error [127.0.0.1]:23441: Connection reset by "
	  "peer\", \"extraInfo\": {\"py_callstack\": \"Traceback (most recent "
	  "call last):\\n  File \\\"/usr/lib/python3/dist-packages/torch/"
	  "distributed/elastic/multiprocessing/errors/__init__.py\\\", "
	  "line 346, in wrapper\\n    return f(*args, **kwargs)\\n           "
	  "^^^^^^^^^^^^^^^^^^\\n  File \\\"/tmp/job2/train.py\\\", "
	  "line 240, in main\\n    dist.all_reduce(p.grad, "
	  "op=dist.ReduceOp.SUM)\\n  File "
	  "\\\"/usr/lib/python3/dist-packages/torch/distributed/"
	  "distributed_c10d.py\\\", line 1541, in all_reduce\\n    work.wait()"
	  "\\nRuntimeError: [./gloo/transport/tcp/pair.cc:589] Read error "
	  "[127.0.0.1]:23441: Connection reset by peer\\n\", \"timestamp\": "
	  "\"1796217621\"}}}", "202612021400", "2026-12-02T13:20:21.000Z",
	  CLOCK_EPOCH },

	/* forms as signatures.md and the brief quote them */
	{ "[2024-07-25 06:36:18,293] torch.distributed.elastic.multiprocessing."
	  "api: [WARNING] Sending process 2630 closing signal SIGTERM",
	  "202407260000", "2024-07-25T06:36:18.293", CLOCK_BRACKET },
	{ "[Wed Dec  2 13:06:43 2026] NVRM: Xid (PCI:0000:97:00): 79",
	  "202612021400", "2026-12-02T13:06:43.000", CLOCK_DMESG_T },
	{ "I1202 13:06:43.123456 1234 file.cc:12] msg", "202612021400",
	  "2026-12-02T13:06:43.123", CLOCK_GLOG },
	{ "E0325 20:57:27.620000 2606 site-packages/torch/distributed/elastic/"
	  "multiprocessing/api.py:869] failed", "202603260000",
	  "2026-03-25T20:57:27.620", CLOCK_GLOG },
	{ ":::MLLOG {\"namespace\": \"\", \"ts\": 1756403699.5, "
	  "\"key\": \"x\"}",
	  REF_CORPUS, "2025-08-28T17:54:59.500Z", CLOCK_EPOCH },
	{ "{\"event\": \"exit\", \"timestamp\": \"1796219381\"}",
	  "202612021400",
	  "2026-12-02T13:49:41.000Z", CLOCK_EPOCH },
	{ "2026-12-02 13:49:40,775 INFO shutting down", "202612021400",
	  "2026-12-02T13:49:40.775", CLOCK_PYLOG },
	{ "2026-12-02T13:06:43+05:30 up", "202612021400",
	  "2026-12-02T13:06:43.000+05:30", CLOCK_ISO },
	{ "2026-12-02T13:06:43.1-0700 up", "202612021400",
	  "2026-12-02T13:06:43.100-07:00", CLOCK_ISO },
	{ "2026-12-02 13:06:43 UTC up", "202612021400",
	  "2026-12-02T13:06:43.000Z", CLOCK_ISO },
	{ "Wed Dec  2 14:53:11 UTC 2026", "202612021500",
	  "2026-12-02T14:53:11.000Z", CLOCK_DMESG_T },

	/* c10's month*100+day is not padded */
	{ "[rank3]:[E129 10:31:02.123456789 File.cpp:12] x", "202602010000",
	  "2026-01-29T10:31:02.000", CLOCK_C10 },
	{ "[E1218 10:31:02.123456789 File.cpp:12] x", "202612200000",
	  "2026-12-18T10:31:02.000", CLOCK_C10 },
	{ "[E606 10:31:02.123456789 File.cpp:12] x", "202606070000",
	  "2026-06-06T10:31:02.000", CLOCK_C10 },
	{ "[I102 00:00:01.000000001 File.cpp:12] x", "202601030000",
	  "2026-01-02T00:00:01.000", CLOCK_C10 },

	/* a missing year across New Year: read on Jan 3, written Dec 31 */
	{ "Dec 31 23:59:59 node07 kernel: x", "202601031000",
	  "2025-12-31T23:59:59.000", CLOCK_SYSLOG },
	{ "INFO 12-31 23:59:59 [core.py:1] x", "202601031000",
	  "2025-12-31T23:59:59.000", CLOCK_VLLM },
	{ "[rank0]:[E1231 23:59:59.123456789 ProcessGroupNCCL.cpp:1] x",
	  "202601031000", "2025-12-31T23:59:59.000", CLOCK_C10 },
	{ "I1231 23:59:59.250000 1 a.cc:1] x", "202601031000",
	  "2025-12-31T23:59:59.250", CLOCK_GLOG },
	/* and the other way: a reference taken just before midnight */
	{ "Jan  1 00:30:00 node07 kernel: x", "202512312300",
	  "2026-01-01T00:30:00.000", CLOCK_SYSLOG },
	/* a day of slack after the reference, not more */
	{ "Aug 30 12:00:00 node07 kernel: x", REF_CORPUS,
	  "2025-08-30T12:00:00.000", CLOCK_SYSLOG },
	{ "Aug 31 12:00:00 node07 kernel: x", REF_CORPUS,
	  "2024-08-31T12:00:00.000", CLOCK_SYSLOG },
	{ "Feb 29 12:00:00 node07 kernel: x", "202503010000",
	  "2024-02-29T12:00:00.000", CLOCK_SYSLOG },

	/* a 12-hour clock: 12 AM is midnight, 12 PM noon */
	{ "STARTING TIMING RUN AT 2025-08-28 12:05:00 AM", REF_CORPUS,
	  "2025-08-28T00:05:00.000", CLOCK_CLOCK12 },
	{ "STARTING TIMING RUN AT 2025-08-28 12:05:00 PM", REF_CORPUS,
	  "2025-08-28T12:05:00.000", CLOCK_CLOCK12 },
	{ "08/28/2025 05:54:59 PM - INFO - x", REF_CORPUS,
	  "2025-08-28T17:54:59.000", CLOCK_CLOCK12 },

	/* month names in French, German and Spanish */
	{ "f\xc3\xa9vr. 14 09:15:00 node07 kernel: x", "202603010000",
	  "2026-02-14T09:15:00.000", CLOCK_SYSLOG },
	{ "Okt  3 09:15:00 node07 kernel: x", "202611010000",
	  "2026-10-03T09:15:00.000", CLOCK_SYSLOG },
	{ "Dez 24 09:15:00 node07 kernel: x", "202612250000",
	  "2026-12-24T09:15:00.000", CLOCK_SYSLOG },
	{ "dic 31 09:15:00 node07 kernel: x", "202612310000",
	  "2026-12-31T09:15:00.000", CLOCK_SYSLOG },
	{ "M\xc3\xa4rz  5 09:15:00 node07 kernel: x", "202604010000",
	  "2026-03-05T09:15:00.000", CLOCK_SYSLOG },
	{ "D\xc3\x89""C. 5 09:15:00 node07 kernel: x", "202612310000",
	  "2026-12-05T09:15:00.000", CLOCK_SYSLOG },
	{ "[mer. d\xc3\xa9""c.  2 13:06:43 2026] NVRM: x", "202612021400",
	  "2026-12-02T13:06:43.000", CLOCK_DMESG_T },
};

/* Lines that carry no time of their own and must say so. */
static const char *const nontimes[] = {
	"",
	"Traceback (most recent call last):",
	"  File \"/job/train.py\", line 3, in <module>",
	"RuntimeError: boom",
	"node07:1234:5678 [0] NCCL INFO Channel 00/02 :    0   1",
	"k69a05298:149:455 [0] misc/ibvwrap.cc:212 NCCL WARN Call to "
	    "ibv_open_device failed",
	" 0: epoch: 1",
	" iteration       10/      30 | consumed samples: 320 | elapsed time "
	    "per iteration (ms): 109.1 | lm loss: 1.077293E+00",
	"iteration 10/30",
	"12345",
	"502: [rank502]:[W ProcessGroupNCCL.cpp:2657] Warning: "
	    "TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for "
	    "point-to-point collectives. (function operator())",
	"[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective "
	    "operation timeout",
	"[0] :::MLLOG {\"namespace\": \"\", \"time_ms\": 0, \"event_type\": "
	    "\"POINT_IN_TIME\", \"key\": \"gradient_accumulation_steps\", "
	    "\"value\": 1, \"metadata\": {\"file\": \"dlrm_s_pytorch.py\", "
	    "\"lineno\": 0}}",
	"slurmstepd: task_p_pre_launch: Using sched_affinity for tasks",
	"(EngineCore pid=6890) \rLoading safetensors checkpoint shards:   5% "
	    "Completed | 1/19 [00:28<08:24, 28.03s/it]",
	"INFO:     127.0.0.1:59054 - \"GET /v1/models HTTP/1.1\" 200 OK",
	"START 20:59:05 MAX_JOBS=1",
	"2025-13-01 10:00:00 a month that is not",
	"2025-02-30 10:00:00 a day that is not",
	"2025-08-28 24:00:00 an hour that is not",
	"Feb 30 10:00:00 node07 kernel: x",
	"Aug 28 node07 kernel: no time",
	"Bogus 28 10:00:00 node07 kernel: not a month",
	"1234567890123456 sixteen digits are no epoch at the start",
	"{\"time\": 99999999999999999999999, "
	    "\"ts\": 9999999999.99999999999999999999}",
	"999999-99-99T99:99:99 glued",
	"2025-08-28T17:54:5",
	"INFO 08-28 17:54:5",
	"[E129 10:31:0",
	"[12345.678",
	"node07:1234:5678 [0] 12:34 1:23:45 [00:00<00:04] 123:45:6 12:34:5",
	"(Worker name=x) INFO 08-28 17:55:02 [x.py:1] no pid, no prefix",
	"(Worker pid) INFO 08-28 17:55:02 [x.py:1] no pid=",
	"node: INFO 08-28 17:55:02 [x.py:1] a label has a digit",
};

#define nitems(a)	(sizeof (a) / sizeof (a)[0])

/* Make a line fit a TAP description: no control bytes, not too long. */
static const char *
describe(const char *line, char *buf, size_t sz)
{
	size_t	i;

	for (i = 0; i + 1 < sz && i < 60 && line[i] != '\0'; i++)
		buf[i] = (unsigned char)line[i] < ' ' ? '.' : line[i];
	buf[i] = '\0';
	return (buf);
}

/* Format a time, or say there is none. */
static const char *
show(bool found, const struct rl_time *t, char *buf, size_t sz)
{
	if (!found)
		snprintf(buf, sz, "(none)");
	else
		clock_format(t, buf, sz);
	return (buf);
}

/* Every line of cases[] gives its time and its form. */
static void
test_cases(void)
{
	struct clock_ctx	 ctx;
	struct rl_time		 t;
	char			 got[64], what[64];
	size_t			 i;
	bool			 found;

	for (i = 0; i < nitems(cases); i++) {
		clock_init(&ctx, ref_of(cases[i].ref));
		found = parse_exact(&ctx, cases[i].line, strlen(cases[i].line),
		    &t);
		show(found, &t, got, sizeof got);
		if (!tap_ok(found && strcmp(got, cases[i].want) == 0 &&
		    t.form == cases[i].form, "%s: %s",
		    clock_form_name(cases[i].form),
		    describe(cases[i].line, what, sizeof what)))
			printf("#   got %s (%s), want %s\n", got,
			    found ? clock_form_name(t.form) : "-",
			    cases[i].want);
	}
}

/* Lines without a time say so, and leave *out alone for the caller. */
static void
test_nontimes(void)
{
	struct clock_ctx	 ctx;
	struct rl_time		 t;
	char			 got[64], what[64];
	size_t			 i;
	bool			 found;

	for (i = 0; i < nitems(nontimes); i++) {
		clock_init(&ctx, ref_of(REF_CORPUS));
		memset(&t, 0, sizeof t);
		t.ms = 42;
		found = parse_exact(&ctx, nontimes[i], strlen(nontimes[i]), &t);
		if (!tap_ok(!found && t.ms == 42 && ctx.form == CLOCK_NONE,
		    "no time: %s", describe(nontimes[i], what, sizeof what)))
			printf("#   got %s\n",
			    show(found, &t, got, sizeof got));
	}
}

/*
 * Every prefix of every line is parsed from a buffer of its exact length
 * (ASan stops the test on an overread), and a line followed by more digits
 * in memory reads the same as the line alone.
 */
static void
test_bounds(void)
{
	struct clock_ctx	 ctx;
	struct rl_time		 a, b;
	char			 buf[2048], what[64];
	size_t			 i, k, len;
	bool			 fa, fb;

	for (i = 0; i < nitems(cases); i++) {
		clock_init(&ctx, ref_of(cases[i].ref));
		len = strlen(cases[i].line);
		for (k = 0; k < len; k++)
			parse_exact(&ctx, cases[i].line, k, &a);
		memset(&a, 0, sizeof a);
		memset(&b, 0, sizeof b);
		clock_init(&ctx, ref_of(cases[i].ref));
		fa = parse_exact(&ctx, cases[i].line, len, &a);
		snprintf(buf, sizeof buf, "%s999999 +0530 PM", cases[i].line);
		clock_init(&ctx, ref_of(cases[i].ref));
		fb = clock_parse(&ctx, buf, len, &b);
		ok(fa == fb && a.ms == b.ms && a.flags == b.flags &&
		    a.tz_min == b.tz_min, "within its length: %s",
		    describe(cases[i].line, what, sizeof what));
	}
}

/* Shorter than a timestamp is no timestamp: every proper prefix fails. */
static void
test_short(void)
{
	static const char *const full[] = {
		"2025-08-28T17:54:59", "2025-08-28 17:54:59",
		"INFO 08-28 17:54:59", "I0828 17:54:59", "W20250828 17:54:59",
		"[E828 17:54:59", "[12345.678]", "08/28/2025 17:54:59",
		"Aug 28 17:54:59", "[Thu Aug 28 17:54:59 2025",
		"  time      : 2024-05-01_22:04:48",
		"STARTING TIMING RUN AT 2025-08-28 05:54:59",
	};
	struct clock_ctx	 ctx;
	struct rl_time		 t;
	size_t			 i, k, len;
	bool			 bad;

	for (i = 0; i < nitems(full); i++) {
		clock_init(&ctx, ref_of(REF_CORPUS));
		len = strlen(full[i]);
		for (bad = false, k = 0; k < len; k++)
			bad |= parse_exact(&ctx, full[i], k, &t);
		bad |= !parse_exact(&ctx, full[i], len, &t);
		ok(!bad, "only whole: %s", full[i]);
	}
}

/* The length, not a NUL, ends the line: read from the middle of a buffer. */
static void
test_unterminated(void)
{
	static const char	 block[] = "2025-08-28 17:54:59,520999 INFO"
	    "[12345.678901]INFO 08-28 17:54:59";
	struct clock_ctx	 ctx;
	struct rl_time		 t;
	char			 got[64];
	bool			 found;

	clock_init(&ctx, ref_of(REF_CORPUS));
	found = clock_parse(&ctx, block, 23, &t);
	is_str(show(found, &t, got, sizeof got), "2025-08-28T17:54:59.520",
	    "a fraction cut by the length");
	found = clock_parse(&ctx, block + 31, 13, &t);
	ok(!found, "a dmesg stamp cut before its ']'");
	found = clock_parse(&ctx, block + 45, 18, &t);
	ok(!found, "a vLLM stamp cut in its seconds");
	found = clock_parse(&ctx, block + 45, 19, &t);
	is_str(show(found, &t, got, sizeof got), "2025-08-28T17:54:59.000",
	    "the same stamp whole, at the end of the block");
}

/* The context remembers the last form and counts each. */
static void
test_ctx(void)
{
	struct clock_ctx	ctx;
	struct rl_time		t;

	clock_init(&ctx, ref_of(REF_CORPUS));
	clock_parse(&ctx, "2025-08-28T17:54:59Z a", 22, &t);
	clock_parse(&ctx, "INFO 08-28 17:54:59 [a.py:1] b", 30, &t);
	clock_parse(&ctx, "INFO 08-28 17:55:00 [a.py:1] b", 30, &t);
	clock_parse(&ctx, "Traceback (most recent call last):", 34, &t);
	is_int(ctx.form, CLOCK_VLLM, "the last form is kept");
	is_int(ctx.seen[CLOCK_ISO], 1, "iso counted once");
	is_int(ctx.seen[CLOCK_VLLM], 2, "vllm counted twice");
	is_int(ctx.seen[CLOCK_NONE], 0, "a line without a time is not a form");
	clock_parse(&ctx, "2025-08-28 17:55:01,000 after vllm", 34, &t);
	is_int(t.form, CLOCK_PYLOG, "another form after the remembered one");
}

/* Raw dmesg is seconds since boot, on the wall clock once boot is known. */
static void
test_boot(void)
{
	static const char	line[] = "[12345.678901] NVRM: Xid 79";
	struct clock_ctx	ctx;
	struct rl_time		t;
	char			got[64];

	clock_init(&ctx, ref_of(REF_CORPUS));
	clock_parse(&ctx, line, sizeof line - 1, &t);
	ok(t.flags == (RL_TIME_VALID | RL_TIME_BOOT), "boot time flagged");
	is_int(clock_utc_ms(&t), 12345678, "boot time orders by itself");
	is_str(show(true, &t, got, sizeof got), "+12345.678",
	    "boot time shown as seconds since boot");
	ctx.boot_ms = ref_of("202508281000") * 1000LL;
	clock_parse(&ctx, line, sizeof line - 1, &t);
	ok(t.flags == RL_TIME_VALID, "with boot known, a plain wall clock");
	is_str(show(true, &t, got, sizeof got), "2025-08-28T13:25:45.678",
	    "placed at boot + offset");
}

/*
 * A yearless date a day past the reference is this year's up to the
 * reference's time of day, and last year's after it: lines of one date
 * in any order each get their own year, whatever came before.
 */
static void
test_year_edge(void)
{
	static const struct {
		const char	*line;
		const char	*want;
	} seq[] = {
		{ "Jan  2 00:10:00 node07 x", "2026-01-02T00:10:00.000" },
		{ "Jan  2 00:40:00 node07 x", "2025-01-02T00:40:00.000" },
		{ "Jan  2 00:20:00 node07 x", "2026-01-02T00:20:00.000" },
		{ "Jan  2 00:30:00 node07 x", "2026-01-02T00:30:00.000" },
		{ "Jan  2 00:30:01 node07 x", "2025-01-02T00:30:01.000" },
		{ "Jan  2 23:59:60 node07 x", "2025-01-03T00:00:00.000" },
		{ "INFO 01-02 00:05:00 [a.py:1] x", "2026-01-02T00:05:00.000" },
		{ "INFO 01-01 23:00:00 [a.py:1] x", "2026-01-01T23:00:00.000" },
		{ "INFO 01-02 01:00:00 [a.py:1] x", "2025-01-02T01:00:00.000" },
	};
	struct clock_ctx	 ctx;
	struct rl_time		 t;
	char			 got[64];
	const char		*l;
	size_t			 i, k;
	int			 pass;

	/* Forwards, then backwards: each line alone decides its year. */
	for (pass = 0; pass < 2; pass++) {
		clock_init(&ctx, ref_of("202601010030"));
		for (i = 0; i < nitems(seq); i++) {
			k = pass ? nitems(seq) - 1 - i : i;
			l = seq[k].line;
			is_str(show(parse_exact(&ctx, l, strlen(l), &t), &t,
			    got, sizeof got), seq[k].want, "%s: %s",
			    pass ? "backwards" : "forwards", l);
		}
	}
}

/*
 * A log copied in another year: a dated line read before any yearless one
 * is the yearless lines' reference, from either side, so they take its
 * year and not the copy's mtime's.  Once a yearless line was read against
 * the mtime, a later dated line leaves the reference alone, so that one
 * source's yearless lines never straddle two references.
 */
static void
test_year_dated(void)
{
	static const struct {
		const char	*line;
		const char	*want;
	} first[] = {
		{ "2024-05-01 22:04:11,000 INFO x", "2024-05-01T22:04:11.000" },
		{ "W0501 22:04:48.360000 139 api.py:906] x",
		    "2024-05-01T22:04:48.360" },
		{ "INFO 04-30 23:59:00 [a.py:1] x", "2024-04-30T23:59:00.000" },
		{ "INFO 11-02 10:00:00 [a.py:1] x", "2023-11-02T10:00:00.000" },
		/* Three months on, the reference moves with the dates. */
		{ "[2024-08-01 00:00:00,000] INFO x", "2024-08-01T00:00:00.000" },
		{ "INFO 12-30 10:00:00 [a.py:1] x", "2024-12-30T10:00:00.000" },
	}, later[] = {
		{ "INFO 11-28 15:28:00 [a.py:1] x", "2026-11-28T15:28:00.000" },
		{ "2025-11-28 15:28:09,929 - INFO - x", "2025-11-28T15:28:09.929" },
		{ "INFO 11-28 15:28:13 [a.py:1] x", "2026-11-28T15:28:13.000" },
	};
	struct clock_ctx	 ctx;
	struct rl_time		 t;
	char			 got[64];
	const char		*l;
	size_t			 i;

	clock_init(&ctx, ref_of("202612050000"));
	for (i = 0; i < nitems(first); i++) {
		l = first[i].line;
		is_str(show(parse_exact(&ctx, l, strlen(l), &t), &t, got,
		    sizeof got), first[i].want, "dated first: %s", l);
	}
	clock_init(&ctx, ref_of("202612050000"));
	for (i = 0; i < nitems(later); i++) {
		l = later[i].line;
		is_str(show(parse_exact(&ctx, l, strlen(l), &t), &t, got,
		    sizeof got), later[i].want, "yearless first: %s", l);
	}
}

/*
 * clock_probe: a yearless line before the first dated one takes the dated
 * one's year, from the first line on; a file whose first timed line is
 * dated, or that has no dated line, keeps the mtime as its reference.
 */
static void
test_year_probe(void)
{
	static const char glog_first[] =
	    "+ echo start\n"
	    "W0501 22:03:53.288000 1396 torch/distributed/run.py:757] x\n"
	    "[NeMo W 2024-05-01 22:04:11 nemo_logging:349] y\n";
	static const char dated_first[] =
	    "2025-11-28 15:28:09,929 - INFO - x\n"
	    "INFO 11-28 15:28:13 [a.py:1] y\n";
	static const char no_dates[] =
	    "INFO 11-28 15:28:13 [a.py:1] y\n"
	    "INFO 11-28 15:28:14 [a.py:1] z\n";
	struct clock_ctx	 ctx, before;
	struct rl_time		 t;
	char			 got[64];
	const char		*l;

	clock_init(&ctx, ref_of("202612050000"));
	clock_probe(&ctx, glog_first, sizeof glog_first - 1);
	l = "W0501 22:03:53.288000 1396 torch/distributed/run.py:757] x";
	is_str(show(parse_exact(&ctx, l, strlen(l), &t), &t, got, sizeof got),
	    "2024-05-01T22:03:53.288", "probe: glog before a 2024 date");
	l = "[NeMo W 2024-05-01 22:04:11 nemo_logging:349] y";
	is_str(show(parse_exact(&ctx, l, strlen(l), &t), &t, got, sizeof got),
	    "2024-05-01T22:04:11.000", "probe: the dated line itself");

	clock_init(&ctx, ref_of("202612050000"));
	before = ctx;
	clock_probe(&ctx, dated_first, sizeof dated_first - 1);
	ok(memcmp(&ctx, &before, sizeof ctx) == 0,
	    "probe: a dated first line leaves the reference to the reading");
	clock_probe(&ctx, no_dates, sizeof no_dates - 1);
	ok(memcmp(&ctx, &before, sizeof ctx) == 0,
	    "probe: no dated line, the mtime stays");
	/* A dated line past the look's bytes is not seen: bounded. */
	clock_probe(&ctx, glog_first, 20);
	ok(memcmp(&ctx, &before, sizeof ctx) == 0,
	    "probe: only whole lines within its bytes");
}

/*
 * clock_parse_msg is the message's time, else the whole line's, at every
 * place the message could start: the same answer and the same state as
 * the two calls it stands for, on every line of cases[] and nontimes[].
 */
static void
test_parse_msg(void)
{
	struct clock_ctx	 a, b;
	struct rl_time		 ta, tb;
	const char		*l;
	size_t			 i, len, off, bad = 0, tried = 0;
	bool			 fa, fb;

	for (i = 0; i < nitems(cases) + nitems(nontimes); i++) {
		l = i < nitems(cases) ? cases[i].line :
		    nontimes[i - nitems(cases)];
		len = strlen(l);
		clock_init(&a, ref_of(REF_CORPUS));
		clock_init(&b, ref_of(REF_CORPUS));
		for (off = 0; off <= len; off++) {
			memset(&ta, 0, sizeof ta);
			memset(&tb, 0, sizeof tb);
			fa = clock_parse_msg(&a, l, len, off, &ta);
			fb = clock_parse(&b, l + off, len - off, &tb);
			if (!fb && off > 0)
				fb = clock_parse(&b, l, len, &tb);
			tried++;
			/* Field by field: a struct's padding is not its value. */
			if (fa != fb || ta.ms != tb.ms ||
			    ta.tz_min != tb.tz_min || ta.flags != tb.flags ||
			    ta.form != tb.form || a.form != b.form ||
			    a.form2 != b.form2 ||
			    memcmp(a.seen, b.seen, sizeof a.seen) != 0) {
				if (bad++ == 0)
					printf("# differs at %zu: %s\n", off,
					    l);
			}
		}
	}
	is_int(bad, 0, "clock_parse_msg is the two parses, %zu places",
	    tried);
	clock_init(&a, ref_of(REF_CORPUS));
	l = "Dec  2 13:06:43 node07 kernel: no time in the message";
	ok(clock_parse_msg(&a, l, strlen(l), 31, &ta) &&
	    ta.form == CLOCK_SYSLOG, "the prefix carries the time");
}

/* Zoned and unzoned sources order by instant; no time sorts last. */
static void
test_order(void)
{
	struct clock_ctx	ctx;
	struct rl_time		local, zoned, winter, wz, none;

	set_tz("EST5EDT,M3.2.0,M11.1.0");
	clock_init(&ctx, ref_of(REF_CORPUS));
	clock_parse(&ctx, "2025-08-28 17:54:59,000 a", 25, &local);
	clock_parse(&ctx, "2025-08-28T21:54:59.000Z b", 26, &zoned);
	clock_parse(&ctx, "2025-01-15 12:00:00 c", 21, &winter);
	clock_parse(&ctx, "2025-01-15T12:00:00-05:00 d", 27, &wz);
	memset(&none, 0, sizeof none);
	is_int(clock_cmp(&local, &zoned), 0, "EDT wall clock = its UTC");
	is_int(clock_utc_ms(&winter), clock_utc_ms(&wz), "EST wall clock");
	is_int(clock_utc_ms(&wz), ref_of("202501151200") * 1000LL,
	    "an offset is applied");
	ok(clock_cmp(&winter, &local) < 0, "January before August");
	ok(clock_cmp(&local, &none) < 0 && clock_cmp(&none, &local) > 0,
	    "no time sorts last");
	is_int(clock_cmp(&none, &none), 0, "two without time are equal");
	is_int(clock_utc_ms(&none) == INT64_MAX, 1, "no time is INT64_MAX");
	set_tz("UTC");
}

/* The reference is the local wall clock of the instant. */
static void
test_init(void)
{
	struct clock_ctx	ctx;

	set_tz("IST-5:30");
	clock_init(&ctx, 0);
	is_int(ctx.ref_ms, 19800000, "ref_ms is local wall clock (UTC+5:30)");
	set_tz("UTC");
	clock_init(&ctx, 1756403699);
	is_int(ctx.ref_ms, 1756403699000LL, "ref_ms in UTC");
	ok(ctx.form == CLOCK_NONE && ctx.boot_ms == 0, "a fresh context");
}

/* Formatting: zones, truncation, and the forms' names. */
static void
test_format(void)
{
	static const char *const names[CLOCK_NFORMS] = {
		"none", "iso", "pylog", "bracket", "us", "vllm", "glog", "c10",
		"elastic", "syslog", "dmesg-T", "dmesg", "epoch", "clock12",
	};
	struct rl_time	t;
	char		buf[64];
	unsigned	i;

	memset(&t, 0, sizeof t);
	is_int(clock_format(&t, buf, sizeof buf), 0, "no time, no text");
	t.ms = 1756403699123LL;
	t.flags = RL_TIME_VALID | RL_TIME_ZONED;
	t.tz_min = -(7 * 60 + 30);
	is_int(clock_format(&t, buf, sizeof buf), 29, "length returned");
	is_str(buf, "2025-08-28T17:54:59.123-07:30", "a negative offset");
	is_int(clock_format(&t, buf, 5), 4, "truncated to the buffer");
	is_str(buf, "2025", "and NUL-terminated");
	is_int(clock_format(&t, buf, 0), 0, "an empty buffer");
	for (i = 0; i < CLOCK_NFORMS; i++)
		is_str(clock_form_name(i), names[i], "form %u's name", i);
	is_str(clock_form_name(CLOCK_NFORMS), "none", "an unknown form");
}

int
main(void)
{
	set_tz("UTC");
	test_cases();
	test_nontimes();
	test_bounds();
	test_short();
	test_unterminated();
	test_ctx();
	test_boot();
	test_year_edge();
	test_year_dated();
	test_year_probe();
	test_parse_msg();
	test_order();
	test_init();
	test_format();
	return (tap_done());
}
