/* A benchmark is a const descriptor: what it measures, which timing pattern it uses,
 * which options and sweep axes apply; its plan is the sweep the options make of it. Both
 * are plain data that records point to and reporters read, with what follows from them
 * alone (sizes, iteration counts, records to expect); core/bench.h makes the plan.
 * MPI-free. */
#ifndef CS_DESCRIPTOR_H
#define CS_DESCRIPTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "util/cs_status.h"
#include "util/dtype.h"
#include "util/opts.h"
#include "util/congestion.h"
#include "util/pairs_spec.h"

/* The timed loop a benchmark uses, by name: core/pattern.c maps each to its code (with
 * MPI), so descriptors stay plain data that MPI-free tests can read. */
typedef enum cs_pattern_id {
    CS_PATTERN_PINGPONG,
    CS_PATTERN_PINGPONG_THREADS, /* sender and receiver threads on both ranks (latency_mt) */
    CS_PATTERN_PINGPONG_FORKED,  /* processes forked beside both ranks (latency_mp) */
    CS_PATTERN_MULTI_PINGPONG,
    CS_PATTERN_WINDOW_UNI,
    CS_PATTERN_MULTI_WINDOW_UNI,
    CS_PATTERN_WINDOW_BI,
    CS_PATTERN_COLLECTIVE,
    CS_PATTERN_NBC,
    CS_PATTERN_PERSISTENT,
    CS_PATTERN_RMA,
    CS_PATTERN_RMA_BI,
    CS_PATTERN_MULTI_RMA, /* rank i the origin of rank i + n/2, a barrier before every iteration */
    CS_PATTERN_FAN_IN,
    CS_PATTERN_FAN_OUT,
    CS_PATTERN_INIT,
    CS_PATTERN_HELLO,
    CS_PATTERN_NCCL_PINGPONG, /* patterns/nccl: built with NCCL only */
    CS_PATTERN_NCCL_WINDOW_UNI,
    CS_PATTERN_NCCL_WINDOW_BI,
    CS_PATTERN_NCCL_COLLECTIVE,
    CS_PATTERN_PAIRS,
    CS_PATTERN_CONGESTION,
    CS_NPATTERNS
} cs_pattern_id_t;

struct cs_coll_ops; /* a collective's MPI calls (collective.h) */
struct cs_rma_op;   /* a one-sided operation (pattern_rma.c) */
struct cs_flow;     /* how a collective moves data (flow.h, MPI-free) */
struct cs_nccl_op;  /* an NCCL collective's launch (patterns/nccl/nccl.h) */

typedef enum cs_metric { CS_METRIC_LATENCY, CS_METRIC_BANDWIDTH } cs_metric_t;

/* Which of OMB's default iteration tables applies. */
typedef enum cs_iter_class { CS_ITERS_LATENCY, CS_ITERS_BANDWIDTH, CS_ITERS_COLLECTIVE } cs_iter_class_t;

enum cs_caps {
    CS_CAP_TWO_RANKS = 1u << 0,    /* exactly two ranks */
    CS_CAP_PAIRS = 1u << 1,        /* ranks i and i + pairs work together; -p applies */
    CS_CAP_ALL_PAIRS = 1u << 2,    /* every rank is in a pair: needs an even rank count */
    CS_CAP_WINDOW = 1u << 3,       /* -W, -b multiple apply */
    CS_CAP_VARY_WINDOW = 1u << 4,  /* -V applies */
    CS_CAP_RATE = 1u << 5,         /* messages/s column; -R applies */
    CS_CAP_SEND_MODE = 1u << 6,    /* --send-mode applies */
    CS_CAP_COLLECTIVE = 1u << 7,   /* every rank times; -f Min/Max are across ranks; -M lowers MAX */
    CS_CAP_ROOT = 1u << 8,         /* rooted collective: -k applies */
    CS_CAP_IN_PLACE = 1u << 9,     /* -l applies */
    CS_CAP_DATATYPES = 1u << 10,   /* -T applies: the driver sweeps datatypes */
    CS_CAP_OVERLAP = 1u << 11,     /* non-blocking: overlap with a dummy compute; -t applies */
    CS_CAP_SIZELESS = 1u << 12,    /* barrier, init: no message size (-m does not apply) */
    CS_CAP_FIXED_SIZE = 1u << 13,  /* one size only (atomics): -m does not apply */
    CS_CAP_NEIGHBOR = 1u << 14,    /* neighbourhood collective: -N applies */
    CS_CAP_RMA = 1u << 15,         /* one-sided: -w and -s apply */
    CS_CAP_BUSBW = 1u << 16,       /* --busbw applies (nccl-tests defines it) */
    CS_CAP_FAN = 1u << 17,         /* one hub and -p peers (fan-in/out) */
    CS_CAP_STARTUP = 1u << 18,     /* init, hello: nothing is iterated */
    CS_CAP_NO_MEASURE = 1u << 19,  /* hello: no records at all */
    CS_CAP_NCCL = 1u << 20,        /* NCCL: every buffer on the GPU, MPI only starts it */
    CS_CAP_SCHEDULE = 1u << 21,    /* pairs: a schedule of rank pairs (--schedule ...), a record per pair */
    CS_CAP_PINGPONG = 1u << 22,    /* a point-to-point ping-pong without --send-mode: -b applies (one slot) */
    CS_CAP_THREADS = 1u << 23,     /* -t SEND:RECV threads per rank; needs MPI_THREAD_MULTIPLE (latency_mt) */
    CS_CAP_FORKS = 1u << 24,       /* -t SEND:RECV processes forked beside each rank (latency_mp) */
    CS_CAP_PARTITIONED = 1u << 25, /* -q partitions: MPI-4 partitioned communication */
    CS_CAP_CONGESTION = 1u << 26,  /* canary and congestor groups (--canary-fraction ...), a record per test */
};
#define CS_CAP_WORKERS (CS_CAP_THREADS | CS_CAP_FORKS) /* -t SEND:RECV applies */

/* OMB's defaults of -t SEND:RECV for latency_mt and latency_mp, and its bounds */
#define CS_DEFAULT_SEND_WORKERS 1
#define CS_DEFAULT_RECV_WORKERS 2
#define CS_MAX_WORKERS          127

/* The osu reporter's table layouts (report_osu.c holds their columns). */
typedef enum cs_osu_layout {
    CS_OSU_POINT_TO_POINT, /* OMB's pt2pt and one-sided tables */
    CS_OSU_COLLECTIVE,     /* Avg/Min/Max Latency(us) and Iterations with -f */
    CS_OSU_NBC,            /* Overall, Compute, Pure Comm., Overlap(%) (more with -f) */
    CS_OSU_INIT,           /* "nprocs: N, min: X ms, max: Y ms, avg: Z ms" */
    CS_OSU_HELLO,          /* "This is a test with N processes" */
    CS_OSU_PAIRS,          /* a line per pair: source, destination, a column per metric */
    CS_OSU_CONGESTION,     /* a line per canary test and congestor: isolated, congested, impact */
} cs_osu_layout_t;

/* An environment variable an MPI library reads at MPI_Init. */
typedef struct cs_env_setting {
    const char *name, *value;
} cs_env_setting_t;

typedef struct cs_bench {
    const char *name;
    const char *description;
    const char *osu_title;       /* "Latency Test" -> "# commscope MPI Latency Test v..." */
    const char *osu_value_label; /* header of the main OSU column */
    bool osu_leading_blank;      /* OMB prints an empty line before most titles */
    cs_pattern_id_t pattern;
    cs_metric_t metric;
    cs_iter_class_t iter_class;
    unsigned caps;
    size_t default_min_size;
    int directions;          /* messages cross the link this many ways per window (bibw: 2) */
    size_t default_max_size; /* 0: CS_DEFAULT_MAX_SIZE */
    cs_osu_layout_t osu_layout;
    const struct cs_flow *flow;     /* collectives */
    const struct cs_coll_ops *coll; /* collectives: the MPI calls */
    const struct cs_rma_op *rma;    /* one-sided: the operation */
    unsigned rma_syncs;             /* one-sided: CS_MASK of the cs_rma_sync_t it accepts */
    cs_win_mode_t default_win;      /* one-sided: OMB's -w default for it */
    cs_rma_sync_t default_sync;
    unsigned dtypes_allowed;       /* CS_MASK of the -T types the operation is defined on (0: all) */
    const char *unavailable;       /* why this build cannot run it (NULL: it can) */
    cs_dtype_t dtype;              /* the element type when -T does not apply (default MPI_CHAR) */
    const struct cs_nccl_op *nccl; /* NCCL collectives: the call */
    /* set before MPI_Init unless the user set it: steers a library away from a known fault
     * this benchmark meets (NULL: none); libraries that do not know the name ignore it */
    const cs_env_setting_t *library_env;
    /* point-to-point: the send mode it always runs with (CS_SEND_STANDARD: --send-mode's):
     * persistent requests made once per size and started each iteration, as OMB's
     * osu_*_persistent, or MPI-4 partitioned ones (osu_partitioned_latency) */
    cs_send_mode_t send_mode;
} cs_bench_t;

#define CS_LARGE_MESSAGE_SIZE 8192u /* OMB's small/large split for iteration counts */
#define CS_DEFAULT_MAX_SIZE   ((size_t)1 << 22)
#define CS_COLL_MAX_SIZE      ((size_t)1 << 20) /* OMB's MAX_MSG_SIZE_COLL */
#define CS_MAX_DTYPES         CS_DT_SELECTABLE
/* MPI_Buffer_attach takes an int; two messages and MPI's overhead must fit. */
#define CS_BSEND_MAX_SIZE     (1 << 29)

typedef struct cs_plan {
    size_t min_size, max_size;
    int pairs; /* pairs that communicate (ranks beyond 2 * pairs wait at barriers); fan: peers */
    int window;
    size_t buffer_bytes; /* per process: send + receive buffers at the largest size */
    /* -M lowered a collective's largest size to this (OMB's "Limiting max message size") */
    bool max_size_clipped;
    /* the sweep axes the driver walks, outermost first */
    int ndtypes;
    cs_dtype_t dtypes[CS_MAX_DTYPES];
    int nwin_modes, nsync_modes;
    cs_win_mode_t win_modes[CS_NWIN_MODES];
    cs_rma_sync_t sync_modes[CS_NSYNC_MODES];
    int root; /* fixed root; -1 with -k rotate */
    /* where buffers live, per side: [0] rank 0's (OMB's sender, one-sided origin, the fan's
     * hub, the first half of the pairs), [1] the other ranks'; collectives: both the same */
    cs_mem_kind_t mem[2];
    bool gpu;         /* a GPU is selected for every rank (-d, or a device word) */
    bool mpi_gpu_mem; /* MPI is handed GPU memory: the library must be CUDA-aware */
    /* pairs: what to measure, and how many pairs the schedule has (a FILE's once loaded) */
    cs_pairs_spec_t pairs_spec;
    long scheduled_pairs;
    /* latency_mt, latency_mp: threads or forked processes of rank 0 (the sender) and rank 1 */
    int workers[2];
    int partitions;                  /* partitioned_latency: partitions per message (-q) */
    cs_congestion_spec_t congestion; /* congestion: the groups and congestors */
} cs_plan_t;

/* The sweep for one datatype: OMB's sizes from MIN to MAX, starting no lower than one
 * element and rounded down to whole elements. Same contract as cs_sizes. */
size_t cs_bench_sizes(const cs_bench_t *b, const cs_plan_t *plan, cs_dtype_t t, size_t *out, size_t cap);

/* The records the sweep writes when it runs to the end: over datatypes x window
 * creation x synchronisation, each datatype's sizes x windows (-V). The JSON header
 * states it ("planned_records"), so a reader knows how many to expect. */
size_t cs_bench_planned_records(const cs_bench_t *b, const cs_opts_t *o, const cs_plan_t *plan);

/* The send mode a point-to-point benchmark runs with: its own (persistent, partitioned),
 * else --send-mode's. */
cs_send_mode_t cs_bench_send_mode(const cs_bench_t *b, const cs_opts_t *o);

/* The datatype without -T: OMB 7.5's MPI_INT for the reductions (sums of MPI_CHAR are not
 * defined by the standard, and saturate in some libraries), else the descriptor's
 * (MPI_CHAR unless it says otherwise). */
cs_dtype_t cs_bench_default_dtype(const cs_bench_t *b);

/* Iterations and warm-up for one message size (OMB's defaults unless -i / -x). */
void cs_bench_iterations(const cs_bench_t *b, const cs_opts_t *o, size_t size, long *iterations, long *warmup);

#endif
