/* The timed loops. Each communication pattern is one row of function pointers; the
 * warm-up, batching, clock reads, barriers, the overlap phase of non-blocking collectives
 * and the validation pass around it are written once, in pattern.c. A pattern family
 * (point-to-point, collective, one-sided, fan, start-up) keeps its buffers and MPI objects
 * in ctx->state; a benchmark's own operation reaches the pattern through its descriptor
 * (ctx->info->bench: the collective's calls, the one-sided operation). */
#ifndef CS_PATTERN_H
#define CS_PATTERN_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/cs_status.h"
#include "util/budget.h"
#include "util/precision.h"
#include "mem/mem.h"
#include "core/metrics.h"
#include "record/record.h"

/* One rank's view of the run and of the sweep point the driver is at. */
typedef struct cs_ctx {
    MPI_Comm comm; /* every rank of the run; loop barriers use it */
    int rank, nranks;
    const cs_run_info_t *info;
    const cs_mem_ops_t *mem;
    /* the sweep point, set by the driver before each measurement */
    size_t size;
    int window;
    cs_dtype_t dtype;
    cs_win_mode_t win_mode;
    cs_rma_sync_t sync_mode;
    /* set by the family's setup */
    bool active; /* runs iterations (false: only joins the barriers) */
    bool timer;  /* its samples count (CS_TIMERS_SOME) */
    void *state;
    void *nccl; /* NCCL patterns: the communicator and stream (patterns/nccl/nccl.h) */
    /* --time-limit: the run's time, shared by its timed loops (NULL: OMB's fixed counts) */
    cs_budget_t *budget;
} cs_ctx_t;

/* Whose clock makes the result. */
typedef enum cs_timers {
    CS_TIMERS_SOME,  /* the ranks with ctx->timer: their samples, their mean time (point-to-point) */
    CS_TIMERS_EVERY, /* every rank: per-iteration times averaged over ranks, the slowest and fastest
                        rank's mean (OMB's collectives) */
} cs_timers_t;

/* Which way data flows in the variants of one pattern family. */
typedef enum cs_direction {
    CS_DIR_OUT,  /* from rank 0 (the one-sided origin, the fan's hub) outwards */
    CS_DIR_IN,   /* into rank 0 (fan-in) */
    CS_DIR_BOTH, /* both ways at once (put_bibw) */
} cs_direction_t;

/* Hands one record (rank 0's) on to the reporters. */
typedef void cs_emit_t(void *arg, const cs_record_t *rec);

typedef struct cs_pattern {
    const char *name;
    cs_direction_t direction; /* the variant of a family that shares its code */
    /* a barrier before every iteration, outside the clock (OMB's multi-pair tests and collectives) */
    bool barrier_each_iteration;
    /* a sample of a ping-pong is a round trip; report half of it */
    double time_divisor;
    cs_timers_t timers;
    /* once per run: buffers, communicators; teardown frees what setup made, even half-made */
    cs_status_t (*setup)(cs_ctx_t *c);
    cs_status_t (*teardown)(cs_ctx_t *c);
    /* around every measurement (and validation pass): windows, persistent requests, locks;
     * begin is followed by a barrier */
    cs_status_t (*begin)(cs_ctx_t *c);
    /* n iterations back to back, the first being iteration `first` of the measurement (it
     * picks the root with -k rotate). The loop lives with the operation so that nothing
     * but the MPI calls runs between two iterations. */
    cs_status_t (*iterations)(cs_ctx_t *c, long first, long n);
    cs_status_t (*end)(cs_ctx_t *c);
    /* -c: known data in, data unlike the expected where results land; then, after one
     * iteration, the number of wrong elements this rank holds */
    cs_status_t (*fill)(cs_ctx_t *c, long iteration);
    cs_status_t (*check)(cs_ctx_t *c, long iteration, long *wrong);
    /* non-blocking collectives: starts iteration i; the overlap phase then computes and
     * waits (NULL: the pattern has no overlap phase) */
    cs_status_t (*start)(cs_ctx_t *c, long i, MPI_Request *req);
    /* start-up benchmarks: a time measured before the loop could run (MPI_Init); NULL for
     * everything that is timed by the loop */
    double (*given_seconds)(const cs_ctx_t *c);
    /* the pair-schedule axis: this rank's partner for the next measurements, or peer < 0 to
     * sit them out (it then only joins the barriers); the initiator's clock makes the
     * result. NULL: the pattern pairs ranks its own way. */
    void (*partner)(cs_ctx_t *c, int peer, bool initiator);
    /* a benchmark with axes of its own (congestion: congestors x canary tests, each in two
     * phases) walks them here, timing with cs_pattern_run and emitting rank 0's records;
     * NULL: the driver sweeps */
    cs_status_t (*own_sweep)(cs_ctx_t *c, cs_emit_t *emit, void *arg, cs_run_status_t *status);
} cs_pattern_t;

extern const cs_pattern_t cs_pattern_pingpong;
extern const cs_pattern_t cs_pattern_pingpong_threads;
extern const cs_pattern_t cs_pattern_pingpong_forked;
extern const cs_pattern_t cs_pattern_multi_pingpong;
extern const cs_pattern_t cs_pattern_window_uni;
extern const cs_pattern_t cs_pattern_multi_window_uni;
extern const cs_pattern_t cs_pattern_window_bi;
extern const cs_pattern_t cs_pattern_collective;
extern const cs_pattern_t cs_pattern_nbc;
extern const cs_pattern_t cs_pattern_persistent;
extern const cs_pattern_t cs_pattern_rma;
extern const cs_pattern_t cs_pattern_rma_bi;
extern const cs_pattern_t cs_pattern_multi_rma;
extern const cs_pattern_t cs_pattern_fan_in;
extern const cs_pattern_t cs_pattern_fan_out;
extern const cs_pattern_t cs_pattern_init;
extern const cs_pattern_t cs_pattern_hello;
#if CS_HAVE_NCCL
extern const cs_pattern_t cs_pattern_nccl_pingpong;
extern const cs_pattern_t cs_pattern_nccl_window_uni;
extern const cs_pattern_t cs_pattern_nccl_window_bi;
extern const cs_pattern_t cs_pattern_nccl_collective;
#endif
/* pairs: the point-to-point buffers with a partner per measurement; the driver times each
 * pair metric with the pattern of the two-rank benchmark that measures it */
extern const cs_pattern_t cs_pattern_pairs;
/* congestion: canary and congestor groups; it sweeps itself (own_sweep) */
extern const cs_pattern_t cs_pattern_congestion;

typedef struct cs_loop {
    long iterations, warmup;
    long batch;     /* 0: choose from the warm-up so one sample lasts about CS_BATCH_TARGET_S */
    long min_batch; /* at least this many iterations per sample: the sample bound (driver) */
    int num_tests;  /* MPI_Test calls during the overlap phase's compute (-t) */
    /* --precision: rounds until the interval is narrow enough (iterations is then unused);
     * NULL: OMB's fixed iteration count */
    const cs_precision_cfg_t *precision;
    size_t capacity; /* samples the caller has room for (with precision) */
} cs_loop_t;

#define CS_BATCH_TARGET_S 20e-6

typedef struct cs_timing {
    size_t nsamples;
    long batch;
    long iterations; /* timed iterations run: loop->iterations, or what the rounds took */
    long warmup;     /* warm-up iterations run: loop->warmup, or what --time-limit left of it */
    double total;    /* seconds for all timed iterations, after time_divisor */
    bool has_overlap;
    cs_overlap_t overlap; /* seconds summed over the timed iterations of the overlap phase */
    /* with --precision: rounds run, the interval every rank agreed on, why it stopped */
    long rounds;
    double achieved_pct;
    cs_stop_t stop;
} cs_timing_t;

/* The pattern a descriptor names. */
const cs_pattern_t *cs_pattern_of(cs_pattern_id_t id);

/* A setup/teardown/begin/end hook for patterns that need none. */
cs_status_t cs_pattern_nothing(cs_ctx_t *c);

/* Runs warm-up and timed iterations; samples (room for cs_samples_of(loop->iterations,
 * loop->min_batch), or loop->capacity with precision) receive seconds per iteration, one
 * per batch. Every rank of the communicator must call it. */
cs_status_t cs_pattern_run(const cs_pattern_t *p, cs_ctx_t *c, const cs_loop_t *loop, double *samples,
                           cs_timing_t *out);

/* The MPI datatype of an element type. */
MPI_Datatype cs_mpi_datatype(cs_dtype_t t);

/* Elements of c->dtype in one message of c->size bytes (sizes are whole elements). */
static inline int cs_ctx_count(const cs_ctx_t *c) { return (int)(c->size / cs_dtype_size(c->dtype)); }

/* The validation pass: fill, one untimed iteration with the same begin/end, check. */
cs_status_t cs_pattern_validate(const cs_pattern_t *p, cs_ctx_t *c, long iteration, long *wrong);

#endif
