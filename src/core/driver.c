/* The sweep: datatypes x window creation x synchronisation x sizes x windows, each point
 * measured by the benchmark's pattern, collected across ranks, optionally validated,
 * turned into a record and handed to the reporters. The axes come from the plan; the
 * pattern knows nothing of them beyond the point it is given.
 *
 * A schedule of rank pairs (the pairs benchmark) is an axis of its own: rounds x pair
 * metrics (x slots with --serial). Each round's pairs run at once through the timed loop
 * of the two-rank benchmark that measures the metric, with the partner the schedule
 * names; every rank works out its partner from (round, rank) in O(1). The initiator of
 * each pair turns its samples into a record and sends it to rank 0, which alone holds
 * anything of size n (hosts and cores of the ranks). */
#define _GNU_SOURCE /* sched_getcpu */
#include "core/driver.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/bench.h"
#include "core/metrics.h"
#include "mpi/check.h"
#include "core/pattern.h"
#include "util/mask.h"
#include "util/schedule.h"
#include "util/sizes.h"

#define MAX_SIZES 64

#define TAG_RECORD 7301
#define TAG_WRONG  7302

typedef struct cs_sweep {
    cs_ctx_t ctx;
    const cs_pattern_t *pattern;
    int ntimers;                  /* CS_TIMERS_SOME: ranks whose samples count */
    long sample_cap;              /* samples a rank keeps per measurement (bounded: CS_MAX_SAMPLES) */
    double *samples;              /* this rank's samples, sample_cap of them */
    double *gathered;             /* rank 0: the timing ranks' samples, or their per-iteration sum */
    int *counts, *displs;         /* rank 0: for the gather */
    cs_precision_cfg_t precision; /* target 0: OMB's fixed counts */
    /* the point being measured: its descriptor and the pattern that times it (the run's,
     * or on the pair axis the metric's view of them) */
    const cs_bench_t *bench;
    const cs_pattern_t *timed;
    cs_bench_t pair_view;
    int *cpus, *host_of; /* pair axis, rank 0: the core and host of every rank */
    bool pair_failed;    /* pair axis: some pair's validation counted wrong data */
} cs_sweep_t;

/* The options' --precision with the defaults of what was left unsaid; start-up benchmarks
 * measure once, and the pair axis keeps OMB's fixed counts (its records carry no
 * precision). */
static cs_precision_cfg_t precision_config(const cs_run_info_t *info)
{
    if (cs_pattern_of(info->bench->pattern)->given_seconds || info->schedule)
        return (cs_precision_cfg_t){0}; /* nothing to repeat */
    return cs_precision_resolve(&info->opts->precision);
}

static long most_iterations_of(const cs_bench_t *b, const cs_opts_t *o)
{
    long small, large, wu;
    cs_bench_iterations(b, o, 0, &small, &wu);
    cs_bench_iterations(b, o, CS_LARGE_MESSAGE_SIZE + 1, &large, &wu);
    return small > large ? small : large;
}

/* ... over every descriptor the sweep measures with: on the pair axis, each metric's */
static long most_iterations(const cs_run_info_t *info)
{
    if (!info->schedule) return most_iterations_of(info->bench, info->opts);
    long most = 1;
    for (int m = 0; m < CS_NPAIR_METRICS; m++) {
        cs_bench_t view = cs_bench_pair_view(info->bench, (cs_pair_metric_t)m);
        long it = most_iterations_of(&view, info->opts);
        if (it > most) most = it;
    }
    return most;
}

/* --precision: samples per timing rank, so that rank 0's gathered copy stays within
 * CS_PRECISION_GATHERED samples whatever the rank count (a round of single-iteration
 * samples, -z, fills them fastest; the rule stops a size when they are full). */
#define CS_PRECISION_SAMPLES  65536
#define CS_PRECISION_GATHERED (1L << 21)

static long sample_capacity(const cs_sweep_t *s, long max_iters, int per_iteration)
{
    if (s->precision.target_pct <= 0) return max_iters;
    long room = CS_PRECISION_GATHERED / per_iteration;
    if (room > CS_PRECISION_SAMPLES) room = CS_PRECISION_SAMPLES;
    return room > max_iters ? room : max_iters;
}

/* Pair axis: rank 0 learns where every rank runs, its host (from the provenance's host
 * list) and the core it is on now. */
static cs_status_t locate_ranks(cs_sweep_t *s)
{
    cs_ctx_t *c = &s->ctx;
    int cpu = sched_getcpu();
    if (c->rank == 0) {
        s->cpus = malloc((size_t)c->nranks * sizeof *s->cpus);
        s->host_of = calloc((size_t)c->nranks, sizeof *s->host_of);
        if (!s->cpus || !s->host_of) return CS_TRACE(CS_ERR_RUNTIME);
        const cs_run_info_t *info = c->info;
        for (int h = 0; h < info->nhosts; h++)
            for (int i = 0; i < info->hosts[h].nranks; i++)
                if (info->hosts[h].ranks[i] < c->nranks) s->host_of[info->hosts[h].ranks[i]] = h;
    }
    CS_MPI(MPI_Gather(&cpu, 1, MPI_INT, s->cpus, 1, MPI_INT, 0, c->comm));
    return CS_OK;
}

static cs_status_t sweep_setup(cs_sweep_t *s, long max_iters)
{
    cs_ctx_t *c = &s->ctx;
    CS_CHECK(s->pattern->setup(c));
    int timer = c->timer;
    CS_MPI(MPI_Allreduce(&timer, &s->ntimers, 1, MPI_INT, MPI_SUM, c->comm));
    int per_iteration = s->pattern->timers == CS_TIMERS_EVERY ? 1 : (s->ntimers > 0 ? s->ntimers : 1);
    max_iters = sample_capacity(s, max_iters, per_iteration); /* --precision: room for its rounds */
    /* memory stays bounded whatever -i says: rank 0 gathers per_iteration ranks' samples,
     * so each keeps its share of the bound, and iterations beyond it fold into batches */
    s->sample_cap = cs_sample_cap(max_iters, c->info->opts->max_samples, per_iteration);
    s->samples = malloc((size_t)s->sample_cap * sizeof *s->samples);
    if (!s->samples) return CS_TRACE(CS_ERR_RUNTIME);
    if (c->rank == 0) {
        s->gathered = malloc((size_t)s->sample_cap * (size_t)per_iteration * sizeof *s->gathered);
        s->counts = calloc((size_t)c->nranks, sizeof *s->counts);
        s->displs = calloc((size_t)c->nranks, sizeof *s->displs);
        if (!s->gathered || !s->counts || !s->displs) return CS_TRACE(CS_ERR_RUNTIME);
    }
    return c->info->schedule ? locate_ranks(s) : CS_OK;
}

static cs_status_t sweep_teardown(cs_sweep_t *s)
{
    cs_status_t st = s->pattern->teardown(&s->ctx);
    free(s->samples);
    free(s->gathered);
    free(s->counts);
    free(s->displs);
    free(s->cpus);
    free(s->host_of);
    return st;
}

/* Samples of every timing rank go to rank 0, and the mean time per iteration is averaged
 * over them (OMB's multi-pair definition). */
static cs_status_t collect_some(cs_sweep_t *s, const cs_timing_t *t, long iterations, cs_measurement_t *m)
{
    const cs_ctx_t *c = &s->ctx;
    int mine = c->timer ? (int)t->nsamples : 0;
    double my_total = c->timer ? t->total : 0.0, sum_total = 0;
    CS_MPI(MPI_Gather(&mine, 1, MPI_INT, s->counts, 1, MPI_INT, 0, c->comm));
    int all = 0;
    if (c->rank == 0)
        for (int r = 0; r < c->nranks; r++) {
            s->displs[r] = all;
            all += s->counts[r];
        }
    CS_MPI(MPI_Gatherv(s->samples, mine, MPI_DOUBLE, s->gathered, s->counts, s->displs, MPI_DOUBLE, 0, c->comm));
    CS_MPI(MPI_Reduce(&my_total, &sum_total, 1, MPI_DOUBLE, MPI_SUM, 0, c->comm));
    m->samples_s = s->gathered;
    m->nsamples = (size_t)all;
    m->mean_iteration_s = sum_total / (s->ntimers > 0 ? s->ntimers : 1) / (double)iterations;
    return CS_OK;
}

/* OMB's collectives: each rank's mean; Avg, Min and Max over ranks. A sample is one
 * iteration's time averaged over ranks (what OMB's -z ranks). */
static cs_status_t collect_every(cs_sweep_t *s, const cs_timing_t *t, long iterations, cs_measurement_t *m)
{
    const cs_ctx_t *c = &s->ctx;
    double n = c->nranks, mean = t->total / (double)iterations, sum = 0;
    CS_MPI(MPI_Reduce(s->samples, s->gathered, (int)t->nsamples, MPI_DOUBLE, MPI_SUM, 0, c->comm));
    CS_MPI(MPI_Reduce(&mean, &m->rank_min_s, 1, MPI_DOUBLE, MPI_MIN, 0, c->comm));
    CS_MPI(MPI_Reduce(&mean, &m->rank_max_s, 1, MPI_DOUBLE, MPI_MAX, 0, c->comm));
    CS_MPI(MPI_Reduce(&mean, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, c->comm));
    if (c->rank == 0)
        for (size_t i = 0; i < t->nsamples; i++) s->gathered[i] /= n;
    m->samples_s = s->gathered;
    m->nsamples = t->nsamples;
    m->mean_iteration_s = sum / n;
    m->across_ranks = true;
    if (t->has_overlap) {
        double mine[5] = {t->overlap.overall, t->overlap.compute, t->overlap.test, t->overlap.wait, t->overlap.init};
        double total[5] = {0};
        CS_MPI(MPI_Reduce(mine, total, 5, MPI_DOUBLE, MPI_SUM, 0, c->comm));
        double per = n * (double)iterations;
        m->has_overlap = true;
        m->overlap = (cs_overlap_t){total[0] / per, total[1] / per, total[2] / per, total[3] / per, total[4] / per};
    }
    return CS_OK;
}

/* Untimed: known data through the same pattern, counted element by element. With a
 * rotating root every root is checked. */
static cs_status_t validate(cs_sweep_t *s, long *errors)
{
    const cs_run_info_t *info = s->ctx.info;
    long rounds = (s->bench->caps & CS_CAP_ROOT) && info->plan->root < 0 ? s->ctx.nranks : 1, wrong = 0;
    for (long r = 0; r < rounds; r++) {
        long w;
        CS_CHECK(cs_pattern_validate(s->timed, &s->ctx, r, &w));
        wrong += w;
    }
    CS_MPI(MPI_Allreduce(&wrong, errors, 1, MPI_LONG, MPI_SUM, s->ctx.comm));
    return CS_OK;
}

/* The timed loop at the current point; m gets what the loop says of it. */
static cs_status_t time_point(cs_sweep_t *s, cs_timing_t *timing, cs_measurement_t *m)
{
    cs_ctx_t *c = &s->ctx;
    const cs_opts_t *o = c->info->opts;
    cs_loop_t loop = {.num_tests = o->num_tests};
    cs_bench_iterations(s->bench, o, c->size, &loop.iterations, &loop.warmup);
    if (s->timed->given_seconds) loop.iterations = 1, loop.warmup = 0;
    /* -z wants the tail of single operations, as OMB reports it (up to the sample bound) */
    loop.batch = o->npercentiles > 0 ? 1 : o->batch;
    loop.min_batch = cs_min_batch(loop.iterations, s->sample_cap);
    if (s->precision.target_pct > 0) {
        loop.precision = &s->precision;
        loop.capacity = (size_t)s->sample_cap;
    }
    CS_CHECK(cs_pattern_run(s->timed, c, &loop, s->samples, timing));
    *m = (cs_measurement_t){.size = c->size,
                            .window = c->window,
                            .pairs = c->info->plan->pairs,
                            .iterations = timing->iterations,
                            .warmup = timing->warmup,
                            .batch = timing->batch,
                            .nranks = c->nranks,
                            .dtype = c->dtype,
                            .win_mode = c->win_mode,
                            .sync_mode = c->sync_mode,
                            .has_precision = loop.precision != NULL,
                            .rounds = timing->rounds,
                            .achieved_pct = timing->achieved_pct,
                            .stop = timing->stop};
    return CS_OK;
}

static cs_status_t measure(cs_sweep_t *s, cs_record_t *rec)
{
    cs_ctx_t *c = &s->ctx;
    const cs_opts_t *o = c->info->opts;
    cs_timing_t timing;
    cs_measurement_t m;
    CS_CHECK(time_point(s, &timing, &m));
    if (s->timed->timers == CS_TIMERS_EVERY) CS_CHECK(collect_every(s, &timing, timing.iterations, &m));
    else CS_CHECK(collect_some(s, &timing, timing.iterations, &m));
    memset(rec, 0, sizeof *rec);
    if (c->rank == 0) cs_record_compute(s->bench, o, &m, rec);
    if (o->validate && s->timed->fill) {
        rec->validated = true;
        CS_CHECK(validate(s, &rec->errors));
    }
    return CS_OK;
}

static void emit(const cs_output_t *out, const cs_run_info_t *info, const cs_record_t *rec)
{
    for (int i = 0; i < out->nreporters; i++) out->reporters[i].ops->record(&out->reporters[i], info, rec);
}

/* Measures every size (and -V window) at the current datatype and one-sided modes.
 * Returns false in *go_on when a size failed validation: like OMB, that ends the sweep. */
static cs_status_t sweep_sizes(cs_sweep_t *s, const int *windows, size_t nwindows, const cs_output_t *out,
                               cs_run_status_t *status, bool *go_on)
{
    cs_ctx_t *c = &s->ctx;
    size_t sizes[MAX_SIZES];
    size_t nsizes = cs_bench_sizes(c->info->bench, c->info->plan, c->dtype, sizes, MAX_SIZES);
    if (nsizes > MAX_SIZES) nsizes = MAX_SIZES;
    for (size_t i = 0; i < nsizes; i++) {
        for (size_t w = 0; w < nwindows; w++) {
            c->size = sizes[i];
            c->window = windows[w];
            cs_record_t rec;
            CS_CHECK(measure(s, &rec));
            if (c->rank == 0) emit(out, c->info, &rec);
            if (rec.validated && rec.errors > 0) {
                *status = CS_RUN_VALIDATION_FAILED;
                *go_on = false;
                if (c->rank == 0)
                    fprintf(stderr,
                            "DATA VALIDATION ERROR: %s exited with status 1 on message size %zu "
                            "(%ld wrong %s).\n",
                            c->info->argv[0], sizes[i], rec.errors, c->info->bench->flow ? "elements" : "bytes");
                return CS_OK;
            }
        }
    }
    return CS_OK;
}

static cs_status_t sweep(cs_sweep_t *s, const cs_output_t *out, cs_run_status_t *status)
{
    cs_ctx_t *c = &s->ctx;
    const cs_plan_t *plan = c->info->plan;
    int windows[CS_VARY_WINDOW_COUNT] = {plan->window};
    size_t nwindows = c->info->opts->vary_window ? cs_vary_windows(windows, CS_VARY_WINDOW_COUNT) : 1;
    /* one pass through each axis a benchmark does not have */
    int nwin = plan->nwin_modes ? plan->nwin_modes : 1, nsync = plan->nsync_modes ? plan->nsync_modes : 1;
    bool go_on = true;
    for (int d = 0; d < plan->ndtypes && go_on; d++) {
        c->dtype = plan->dtypes[d];
        for (int w = 0; w < nwin && go_on; w++) {
            c->win_mode = plan->nwin_modes ? plan->win_modes[w] : (cs_win_mode_t)0;
            for (int y = 0; y < nsync && go_on; y++) {
                c->sync_mode = plan->nsync_modes ? plan->sync_modes[y] : (cs_rma_sync_t)0;
                CS_CHECK(sweep_sizes(s, windows, nwindows, out, status, &go_on));
            }
        }
    }
    return CS_OK;
}

/* Pair axis, rank 0: the records of the pairs just measured, in slot order, from their
 * initiators. */
static cs_status_t collect_pairs(cs_sweep_t *s, long round, long only_slot, const cs_record_t *own,
                                 const cs_output_t *out)
{
    cs_ctx_t *c = &s->ctx;
    const cs_schedule_t *schedule = c->info->schedule;
    long slots = cs_schedule_slots(schedule, round);
    for (long k = only_slot < 0 ? 0 : only_slot; k < (only_slot < 0 ? slots : only_slot + 1); k++) {
        cs_sched_pair_t p;
        if (!cs_schedule_pair(schedule, round, k, &p)) continue; /* the bye */
        cs_record_t rec;
        if (p.src == 0) rec = *own;
        else CS_MPI(MPI_Recv(&rec, (int)sizeof rec, MPI_BYTE, p.src, TAG_RECORD, c->comm, MPI_STATUS_IGNORE));
        rec.pair.src_host = s->host_of[p.src];
        rec.pair.dst_host = s->host_of[p.dst];
        rec.pair.src_cpu = s->cpus[p.src];
        rec.pair.dst_cpu = s->cpus[p.dst];
        if (rec.validated && rec.errors > 0) s->pair_failed = true;
        emit(out, c->info, &rec);
    }
    return CS_OK;
}

/* Pair axis: metric m of the pairs of a round, or of its slot `only_slot` alone. Each
 * pair's initiator makes the record from its own samples; a pair's validation counts the
 * wrong data of both its ranks. */
static cs_status_t measure_pairs(cs_sweep_t *s, long round, long only_slot, cs_pair_metric_t m, const cs_output_t *out)
{
    cs_ctx_t *c = &s->ctx;
    const cs_run_info_t *info = c->info;
    const cs_opts_t *o = info->opts;
    cs_sched_pair_t p;
    long k = cs_schedule_slot_of(info->schedule, round, c->rank, &p);
    bool mine = k >= 0 && (only_slot < 0 || k == only_slot), initiator = mine && c->rank == p.src;
    int peer = !mine ? -1 : (c->rank == p.src ? p.dst : p.src);
    s->pattern->partner(c, peer, initiator);
    s->pair_view = cs_bench_pair_view(info->bench, m);
    s->timed = cs_pattern_of(s->pair_view.pattern);
    c->size = cs_pairs_size(&info->plan->pairs_spec, m);
    c->window = m == CS_PM_LATENCY ? 1 : info->plan->window;
    cs_timing_t timing;
    cs_measurement_t meas;
    CS_CHECK(time_point(s, &timing, &meas));
    long wrong = 0, peer_wrong = 0;
    if (o->validate) {
        CS_CHECK(cs_pattern_validate(s->timed, c, 0, &wrong));
        if (mine)
            CS_MPI(MPI_Sendrecv(&wrong, 1, MPI_LONG, peer, TAG_WRONG, &peer_wrong, 1, MPI_LONG, peer, TAG_WRONG,
                                c->comm, MPI_STATUS_IGNORE));
    }
    cs_record_t rec;
    memset(&rec, 0, sizeof rec);
    if (initiator) {
        meas.pairs = 1;
        meas.nranks = 2;
        meas.samples_s = s->samples;
        meas.nsamples = timing.nsamples;
        meas.mean_iteration_s = timing.total / (double)timing.iterations;
        cs_record_compute(s->bench, o, &meas, &rec);
        rec.validated = o->validate;
        rec.errors = wrong + peer_wrong;
        rec.pair =
            (cs_pair_record_t){.has_pair = true, .metric = m, .src = p.src, .dst = p.dst, .round = round, .slot = k};
    }
    if (c->rank == 0) return collect_pairs(s, round, only_slot, &rec, out);
    if (initiator) CS_MPI(MPI_Send(&rec, (int)sizeof rec, MPI_BYTE, 0, TAG_RECORD, c->comm));
    return CS_OK;
}

/* The pair axis: rounds x the metrics asked for, a round's pairs at once or (--serial) one
 * slot at a time. Wrong data does not end a link sweep; every rank learns of it at the end. */
static cs_status_t sweep_schedule(cs_sweep_t *s, const cs_output_t *out, cs_run_status_t *status)
{
    const cs_schedule_t *schedule = s->ctx.info->schedule;
    const cs_pairs_spec_t *spec = &s->ctx.info->plan->pairs_spec;
    s->bench = &s->pair_view;
    for (long r = 0; r < cs_schedule_rounds(schedule); r++)
        for (int m = 0; m < CS_NPAIR_METRICS; m++) {
            if (!(spec->metrics & CS_MASK(m))) continue;
            if (!spec->serial) {
                CS_CHECK(measure_pairs(s, r, -1, (cs_pair_metric_t)m, out));
                continue;
            }
            for (long k = 0; k < cs_schedule_slots(schedule, r); k++) {
                cs_sched_pair_t p;
                if (cs_schedule_pair(schedule, r, k, &p)) CS_CHECK(measure_pairs(s, r, k, (cs_pair_metric_t)m, out));
            }
        }
    int failed = s->pair_failed, any = 0;
    CS_MPI(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, s->ctx.comm));
    if (any) *status = CS_RUN_VALIDATION_FAILED;
    return CS_OK;
}

/* A pattern's own sweep hands its records here. */
typedef struct emit_to {
    const cs_output_t *out;
    const cs_run_info_t *info;
} emit_to_t;

static void emit_own(void *arg, const cs_record_t *rec)
{
    const emit_to_t *to = arg;
    emit(to->out, to->info, rec);
}

/* --time-limit: the timed loops the run makes, which share its time (util/budget.h): a loop
 * per record; on the pair axis a loop per round and metric (per pair with --serial); a
 * congestion record measures its canary test twice, alone and beside the congestor. */
static long planned_loops(const cs_run_info_t *info)
{
    const cs_plan_t *plan = info->plan;
    long metrics = cs_pairs_nmetrics(&plan->pairs_spec);
    if (info->schedule)
        return (plan->pairs_spec.serial ? (long)plan->scheduled_pairs : cs_schedule_rounds(info->schedule)) * metrics;
    long records = (long)cs_bench_planned_records(info->bench, info->opts, plan);
    return (info->bench->caps & CS_CAP_CONGESTION) && plan->congestion.fraction > 0 ? 2 * records : records;
}

cs_status_t cs_driver_run(MPI_Comm comm, const cs_run_info_t *info, const cs_output_t *output, cs_run_status_t *status)
{
    const cs_pattern_t *pattern = cs_pattern_of(info->bench->pattern);
    cs_sweep_t s = {.pattern = pattern, .timed = pattern, .bench = info->bench, .precision = precision_config(info)};
    s.ctx.comm = comm;
    s.ctx.info = info;
    cs_budget_t budget = {
        .limit_s = info->opts->time_limit_s, .start_s = MPI_Wtime(), .loops_left = planned_loops(info)};
    if (budget.limit_s > 0) s.ctx.budget = &budget;
    CS_MPI(MPI_Comm_rank(comm, &s.ctx.rank));
    CS_MPI(MPI_Comm_size(comm, &s.ctx.nranks));
    s.ctx.mem = cs_mem_of(info->plan->mem[cs_bench_side(info->bench, info->plan, s.ctx.rank)]);
    if (s.ctx.mem == NULL) return CS_TRACE(CS_ERR_RUNTIME); /* the plan refuses GPU kinds without CUDA */
    *status = CS_RUN_COMPLETE;
    cs_status_t st = sweep_setup(&s, most_iterations(info));
    emit_to_t to = {output, info};
    if (st == CS_OK && pattern->own_sweep) st = pattern->own_sweep(&s.ctx, emit_own, &to, status);
    else if (st == CS_OK && info->schedule) st = sweep_schedule(&s, output, status);
    else if (st == CS_OK && !(info->bench->caps & CS_CAP_NO_MEASURE)) st = sweep(&s, output, status);
    cs_status_t st_free = sweep_teardown(&s);
    return st != CS_OK ? st : st_free;
}
