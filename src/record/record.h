/* What a measurement yields and what reporters render. MPI-free. */
#ifndef CS_RECORD_H
#define CS_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "record/descriptor.h"
#include "mem/gpu.h"
#include "util/opts.h"
#include "util/stats.h"

/* The pairs benchmark: which pair a record measured and what (has_pair false elsewhere). */
typedef struct cs_pair_record {
    bool has_pair;
    cs_pair_metric_t metric;
    int src, dst;           /* ranks: src sends (bw), initiates the ping-pong (latency) */
    long round, slot;       /* where in the schedule */
    int src_host, dst_host; /* indexes into cs_run_info_t.hosts */
    int src_cpu, dst_cpu;   /* the core each rank ran on (sched_getcpu at start; -1 unknown) */
} cs_pair_record_t;

/* The congestion benchmark: which canary test beside which congestor, both phases' numbers
 * over every canary rank's samples (has false elsewhere). A congestor-only record (canary
 * -1) holds the congestors' own MB/s per rank as its congested side. */
typedef struct cs_congestion_record {
    bool has;
    int canary;    /* cs_canary_t; -1: congestors only */
    int congestor; /* cs_congestor_t */
    bool bandwidth;
    cs_impact_t impact; /* us, or MB/s for bandwidth */
    long congestor_ops; /* operations each congestor ran in the congested phase (mean over them) */
} cs_congestion_record_t;

typedef struct cs_record {
    size_t size;
    int window;
    long iterations, warmup, batch;
    cs_stats_t stats; /* microseconds per operation (one-way latency or one window) */
    /* The OSU numbers, from the total timed time as OMB computes them. */
    double latency_us, min_latency_us, max_latency_us;
    double bandwidth_MBps, min_bandwidth_MBps, max_bandwidth_MBps, message_rate;
    double percentile_values[CS_MAX_PERCENTILES]; /* of the metric, for -z */
    bool validated;
    long errors;
    /* where in the sweep: the datatype (collectives) and the one-sided axes */
    cs_dtype_t dtype;
    cs_win_mode_t win_mode;
    cs_rma_sync_t sync_mode;
    /* collectives: nccl-tests' algorithm and bus bandwidth, GB/s (NaN where undefined) */
    double algbw_GBps, busbw_GBps;
    /* non-blocking collectives, as OMB prints them: means over ranks of per-rank means */
    double overall_us, compute_us, init_us, test_us, wait_us;
    double pure_comm_us, min_comm_us, max_comm_us, overlap_pct;
    /* --precision: the target and what was reached (percent of the mean, 95% interval) */
    bool has_precision;
    double target_pct, achieved_pct;
    long rounds;
    cs_stop_t stop;
    cs_pair_record_t pair;
    cs_congestion_record_t congestion;
} cs_record_t;

#define CS_AFFINITY_LEN 128
#define CS_HOST_LEN     256

/* A rank that got going: the first thing the record stream holds (--jsonl-out), written
 * right after MPI_Init and before anything collective, so a reader can tell the ranks that
 * never got past MPI's start (hung there, or died) from those that did. */
typedef struct cs_started {
    int rank;
    long pid;
    char host[CS_HOST_LEN];
} cs_started_t;

typedef struct cs_host {
    char name[CS_HOST_LEN];
    int *ranks;
    int nranks;
    int cpu_count;                     /* online CPUs the host reports; 0: unknown */
    char (*affinity)[CS_AFFINITY_LEN]; /* per rank, the CPUs it may run on ("0-3"); "" unknown */
} cs_host_t;

struct cs_topo;

typedef struct cs_run_info {
    const cs_bench_t *bench;
    const cs_opts_t *opts;
    const cs_plan_t *plan;
    const char *pattern_name;
    const char *tool_version, *git_commit;
    int argc;
    char **argv;
    char mpi_library[1024];
    char mpi_standard[16];
    int nranks;
    cs_host_t *hosts;
    int nhosts;
    char cpu_model[256];
    char start_time[32];
    const char *const *environment; /* "NAME=value" entries worth keeping */
    int nenvironment;
    const struct cs_topo *topo; /* neighbourhood collectives: every rank's neighbours */
    double init_seconds;        /* this rank's MPI_Init, timed from the start of main */
    cs_gpu_info_t *gpus;        /* rank 0, when the plan uses a GPU: each rank's, by rank */
    int ngpus;
    const struct cs_schedule *schedule; /* pairs: the schedule (a FILE's pairs loaded) */
    const cs_congestion_split_t *split; /* congestion: which ranks are canaries (every rank has it) */
} cs_run_info_t;

typedef enum cs_run_status { CS_RUN_COMPLETE, CS_RUN_VALIDATION_FAILED, CS_RUN_ERROR } cs_run_status_t;

typedef struct cs_run_end {
    char end_time[32];
    cs_run_status_t status;
} cs_run_end_t;

const char *cs_run_status_name(cs_run_status_t s);

#endif
