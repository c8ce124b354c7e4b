/* Planning: whether the options fit a benchmark and the rank count, and the sweep they
 * make of it (record/descriptor.h holds the descriptor and plan as data). MPI-free. */
#ifndef CS_BENCH_H
#define CS_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "record/descriptor.h"
#include "util/cs_status.h"
#include "util/opts.h"

/* What the plan needs to know about the world beyond the rank count. */
typedef struct cs_world {
    int nranks;
    int max_indegree, max_outdegree; /* neighbourhood collectives (-N) */
    bool cuda_built;                 /* this build has GPU memory (-d, D words) */
} cs_world_t;

/* Checks that the options fit this benchmark and the rank count, and works out the
 * effective sweep. Returns CS_ERR_USAGE with a one-line reason in err. */
cs_status_t cs_bench_plan(const cs_bench_t *b, const cs_opts_t *o, int nranks, cs_plan_t *plan, char *err,
                          size_t errlen);
cs_status_t cs_bench_plan_world(const cs_bench_t *b, const cs_opts_t *o, const cs_world_t *world, cs_plan_t *plan,
                                char *err, size_t errlen);

/* Where the plan puts buffers, in words for messages: "every buffer in device memory", or
 * "rank 0's buffers in device memory, its peer's in host memory". */
const char *cs_bench_placement(const cs_bench_t *b, const cs_plan_t *plan, char *buf, size_t len);

/* Which side's memory this rank uses (cs_plan_t.mem): 0 or 1. */
int cs_bench_side(const cs_bench_t *b, const cs_plan_t *plan, int rank);

/* A schedule's metric as the two-rank benchmark that measures it (latency, bw, bibw): its
 * pattern, iteration table and how its time becomes the metric. */
cs_bench_t cs_bench_pair_view(const cs_bench_t *b, cs_pair_metric_t m);

/* Bytes one timed iteration moves, the numerator of the bandwidth. */
double cs_bench_bytes_per_iteration(const cs_bench_t *b, size_t size, int window, int pairs);

#endif
