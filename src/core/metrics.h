/* From timing samples to a record: statistics plus the numbers OMB prints. MPI-free. */
#ifndef CS_METRICS_H
#define CS_METRICS_H

#include "record/record.h"

/* Non-blocking collectives: OMB's second phase, seconds per iteration averaged over ranks. */
typedef struct cs_overlap {
    double overall, compute, test, wait, init;
} cs_overlap_t;

typedef struct cs_measurement {
    size_t size;
    int window, pairs;
    long iterations, warmup, batch;
    double mean_iteration_s; /* total timed time / iterations, averaged over timing ranks */
    double *samples_s;       /* per-operation seconds; sorted and scaled in place */
    size_t nsamples;
    /* collectives: every rank timed; the slowest and fastest rank's mean (OMB's -f Min/Max) */
    bool across_ranks;
    double rank_min_s, rank_max_s;
    int nranks;
    cs_dtype_t dtype;
    cs_win_mode_t win_mode;
    cs_rma_sync_t sync_mode;
    bool has_overlap;
    cs_overlap_t overlap;
    /* --precision: the rounds, the interval reached and why the size stopped */
    bool has_precision;
    long rounds;
    double achieved_pct;
    cs_stop_t stop;
} cs_measurement_t;

/* The bound on the samples a rank keeps for one measurement: 2^20 doubles, 8 MiB (rank 0
 * holds as many again for the gathered ones). Above it consecutive iterations fold into
 * batches, a sample being the mean of a batch (docs/core.md, "How time is measured"). */
#define CS_MAX_SAMPLES (1L << 20)

/* The samples one rank keeps per measurement, the size of its sample array: no more than
 * `iterations` (the most a measurement takes), nor than its share of the bound (`max_samples`,
 * 0: CS_MAX_SAMPLES) when rank 0 gathers the samples of `per_iteration` ranks, so that rank 0's
 * array of cap x per_iteration stays within the bound too; at least 1. */
long cs_sample_cap(long iterations, long max_samples, int per_iteration);

/* The smallest batch that keeps `iterations` within `cap` samples: ceil(iterations / cap). */
long cs_min_batch(long iterations, long cap);

/* Samples a loop of `iterations` in batches of `batch` yields: ceil(iterations / batch). */
long cs_samples_of(long iterations, long batch);

/* Fills rec (validation fields untouched). Samples become microseconds. */
void cs_record_compute(const cs_bench_t *b, const cs_opts_t *o, cs_measurement_t *m, cs_record_t *rec);

/* OMB's overlap: how much of the pure communication time the compute hid, in percent,
 * never below 0. compute includes the MPI_Test calls, which are overhead. */
double cs_overlap_pct(double overall, double compute, double test, double pure_comm);

#endif
