#include "record/descriptor.h"

#include "util/flow.h"
#include "util/sizes.h"

size_t cs_bench_sizes(const cs_bench_t *b, const cs_plan_t *plan, cs_dtype_t t, size_t *out, size_t cap)
{
    if (b->caps & CS_CAP_FIXED_SIZE) { /* one element */
        if (cap > 0) out[0] = cs_dtype_size(t);
        return 1;
    }
    size_t all[64];
    size_t n = cs_sizes(plan->min_size, plan->max_size, all, 64);
    if (n > 64) n = 64;
    size_t elem = (b->caps & CS_CAP_DATATYPES) ? cs_dtype_size(t) : 1, kept = 0;
    if (b->caps & CS_CAP_PARTITIONED) elem *= (size_t)plan->partitions; /* whole partitions */
    for (size_t i = 0; i < n; i++) {
        /* whole elements, at least one: MPI_INT's sweep starts at 4 bytes (OMB prints 4, 8, ...) */
        size_t s = all[i] / elem * elem;
        if (all[i] > 0 && s == 0) continue;
        if (kept < cap) out[kept] = s;
        kept++;
    }
    return kept;
}

size_t cs_bench_planned_records(const cs_bench_t *b, const cs_opts_t *o, const cs_plan_t *plan)
{
    if (b->caps & CS_CAP_NO_MEASURE) return 0;
    if (b->caps & CS_CAP_SCHEDULE) return (size_t)plan->scheduled_pairs * (size_t)cs_pairs_nmetrics(&plan->pairs_spec);
    if (b->caps & CS_CAP_CONGESTION) /* a record per canary test and congestor, or per congestor alone */
        return (size_t)cs_congestion_ncongestors(&plan->congestion) *
               (plan->congestion.fraction > 0 ? CS_NCANARIES : 1);
    size_t per_modes = 0, windows = o->vary_window ? CS_VARY_WINDOW_COUNT : 1;
    for (int d = 0; d < plan->ndtypes; d++) per_modes += cs_bench_sizes(b, plan, plan->dtypes[d], NULL, 0) * windows;
    /* the driver makes one pass through an axis the benchmark does not have */
    size_t nwin = plan->nwin_modes ? (size_t)plan->nwin_modes : 1,
           nsync = plan->nsync_modes ? (size_t)plan->nsync_modes : 1;
    return per_modes * nwin * nsync;
}

void cs_bench_iterations(const cs_bench_t *b, const cs_opts_t *o, size_t size, long *iterations, long *warmup)
{
    /* OMB's tables (osu_util.h): [class][small, large] */
    static const long iters[3][2] = {{10000, 1000}, {100, 20}, {1000, 100}};
    static const long skips[3][2] = {{100, 10}, {10, 2}, {100, 10}};
    int large = size > CS_LARGE_MESSAGE_SIZE;
    *iterations = o->iterations_set ? o->iterations : iters[b->iter_class][large];
    *warmup = o->warmup_set ? o->warmup : skips[b->iter_class][large];
}

cs_send_mode_t cs_bench_send_mode(const cs_bench_t *b, const cs_opts_t *o)
{
    return b->send_mode != CS_SEND_STANDARD ? b->send_mode : o->send_mode;
}

cs_dtype_t cs_bench_default_dtype(const cs_bench_t *b)
{
    return b->flow && b->flow->reduces && !(b->caps & CS_CAP_NCCL) ? CS_DT_INT : b->dtype;
}
