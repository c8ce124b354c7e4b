/* From timing samples to a record: statistics plus the numbers OMB prints. MPI-free. */
#ifndef CS_METRICS_H
#define CS_METRICS_H

#include "record.h"

typedef struct cs_measurement {
    size_t size;
    int window, pairs;
    long iterations, warmup, batch;
    double mean_iteration_s; /* total timed time / iterations, averaged over timing ranks */
    double *samples_s;       /* per-operation seconds; sorted and scaled in place */
    size_t nsamples;
} cs_measurement_t;

/* Fills rec (validation fields untouched). Samples become microseconds. */
void cs_record_compute(const cs_bench_t *b, const cs_opts_t *o, cs_measurement_t *m, cs_record_t *rec);

#endif
