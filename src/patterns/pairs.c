/* The pairs benchmark: a schedule of rank pairs measured inside one MPI_COMM_WORLD, a
 * record per (pair, metric). Each round's pairs run at once (or, with --serial, one at
 * a time while every other rank waits at the loop's barriers), through the same
 * ping-pong and window patterns as latency, bw and bibw (patterns/p2p.c), with the
 * partner the schedule names. Every rank works out its own partner from (round, rank)
 * in O(1); the initiator of each pair turns its samples into a record and sends it to
 * rank 0, which alone holds anything of size n (hosts and cores of the ranks). */
#define _GNU_SOURCE /* sched_getcpu */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/driver.h"
#include "core/metrics.h"
#include "mpi/check.h"
#include "patterns/p2p.h"
#include "util/mask.h"

#define TAG_RECORD 7301
#define TAG_WRONG  7302

/* For the run's JSON and --list only: the rounds below use the three point-to-point patterns. */
const cs_pattern_t cs_pattern_pairs = {.name = "pairs"};

typedef struct cs_pairs {
    cs_ctx_t ctx;
    const cs_schedule_t *schedule;
    const cs_pairs_spec_t *spec;
    const cs_output_t *out;
    double *samples;
    int *cpus, *host_of; /* rank 0: per rank */
    bool validation_failed;
} cs_pairs_t;

static const cs_pattern_t *pattern_of(cs_pair_metric_t m)
{
    static const cs_pattern_t *const patterns[CS_NPAIR_METRICS] = {[CS_PM_LATENCY] = &cs_pattern_pingpong,
                                                                   [CS_PM_BW] = &cs_pattern_window_uni,
                                                                   [CS_PM_BIBW] = &cs_pattern_window_bi};
    return patterns[m];
}

/* The descriptor as metrics.c and the iteration tables should see it for one metric:
 * latency's or bw's or bibw's. */
static cs_bench_t metric_view(const cs_bench_t *b, cs_pair_metric_t m)
{
    cs_bench_t v = *b;
    v.metric = m == CS_PM_LATENCY ? CS_METRIC_LATENCY : CS_METRIC_BANDWIDTH;
    v.iter_class = m == CS_PM_LATENCY ? CS_ITERS_LATENCY : CS_ITERS_BANDWIDTH;
    v.directions = m == CS_PM_BIBW ? 2 : 1;
    return v;
}

static long most_iterations(const cs_run_info_t *info)
{
    long most = 1;
    for (int m = 0; m < CS_NPAIR_METRICS; m++) {
        cs_bench_t v = metric_view(info->bench, (cs_pair_metric_t)m);
        long it, wu;
        cs_bench_iterations(&v, info->opts, cs_pairs_size(&info->plan->pairs_spec, (cs_pair_metric_t)m), &it, &wu);
        if (it > most) most = it;
    }
    return most;
}

static void emit(const cs_output_t *out, const cs_run_info_t *info, const cs_record_t *rec)
{
    for (int i = 0; i < out->nreporters; i++) out->reporters[i].ops->record(&out->reporters[i], info, rec);
}

/* Rank 0 takes the records of the pairs just measured, in slot order, from their initiators. */
static cs_status_t collect(cs_pairs_t *P, long round, long only_slot, const cs_record_t *own)
{
    cs_ctx_t *c = &P->ctx;
    long slots = cs_schedule_slots(P->schedule, round);
    for (long k = only_slot < 0 ? 0 : only_slot; k < (only_slot < 0 ? slots : only_slot + 1); k++) {
        cs_sched_pair_t p;
        if (!cs_schedule_pair(P->schedule, round, k, &p)) continue; /* the bye */
        cs_record_t rec;
        if (p.src == 0) rec = *own;
        else CS_MPI(MPI_Recv(&rec, (int)sizeof rec, MPI_BYTE, p.src, TAG_RECORD, c->comm, MPI_STATUS_IGNORE));
        rec.pair.src_host = P->host_of[p.src];
        rec.pair.dst_host = P->host_of[p.dst];
        rec.pair.src_cpu = P->cpus[p.src];
        rec.pair.dst_cpu = P->cpus[p.dst];
        if (rec.validated && rec.errors > 0) P->validation_failed = true;
        emit(P->out, c->info, &rec);
    }
    return CS_OK;
}

/* One measurement of metric m: the pairs of a round, or only its slot `only_slot`. */
static cs_status_t measure(cs_pairs_t *P, long round, long only_slot, cs_pair_metric_t m)
{
    cs_ctx_t *c = &P->ctx;
    const cs_run_info_t *info = c->info;
    const cs_opts_t *o = info->opts;
    cs_sched_pair_t p;
    long k = cs_schedule_slot_of(P->schedule, round, c->rank, &p);
    bool mine = k >= 0 && (only_slot < 0 || k == only_slot), initiator = mine && c->rank == p.src;
    int peer = !mine ? -1 : (c->rank == p.src ? p.dst : p.src);
    cs_p2p_set_partner(c, peer, initiator);
    c->size = cs_pairs_size(P->spec, m);
    c->window = m == CS_PM_LATENCY ? 1 : info->plan->window;
    cs_bench_t view = metric_view(info->bench, m);
    cs_loop_t loop = {.batch = o->npercentiles > 0 ? 1 : o->batch};
    cs_bench_iterations(&view, o, c->size, &loop.iterations, &loop.warmup);
    cs_timing_t timing;
    const cs_pattern_t *pattern = pattern_of(m);
    CS_CHECK(cs_pattern_run(pattern, c, &loop, P->samples, &timing));
    long wrong = 0, peer_wrong = 0;
    if (o->validate) {
        CS_CHECK(cs_pattern_validate(pattern, c, 0, &wrong));
        if (mine)
            CS_MPI(MPI_Sendrecv(&wrong, 1, MPI_LONG, peer, TAG_WRONG, &peer_wrong, 1, MPI_LONG, peer, TAG_WRONG,
                                c->comm, MPI_STATUS_IGNORE));
    }
    cs_record_t rec;
    memset(&rec, 0, sizeof rec);
    if (initiator) {
        cs_measurement_t meas = {.size = c->size,
                                 .window = c->window,
                                 .pairs = 1,
                                 .iterations = loop.iterations,
                                 .warmup = loop.warmup,
                                 .batch = timing.batch,
                                 .mean_iteration_s = timing.total / (double)loop.iterations,
                                 .samples_s = P->samples,
                                 .nsamples = timing.nsamples,
                                 .nranks = 2,
                                 .dtype = CS_DT_CHAR};
        cs_record_compute(&view, o, &meas, &rec);
        rec.validated = o->validate;
        rec.errors = wrong + peer_wrong;
        rec.pair =
            (cs_pair_record_t){.has_pair = true, .metric = m, .src = p.src, .dst = p.dst, .round = round, .slot = k};
    }
    if (c->rank == 0) return collect(P, round, only_slot, &rec);
    if (initiator) CS_MPI(MPI_Send(&rec, (int)sizeof rec, MPI_BYTE, 0, TAG_RECORD, c->comm));
    return CS_OK;
}

static cs_status_t sweep(cs_pairs_t *P)
{
    for (long r = 0; r < cs_schedule_rounds(P->schedule); r++)
        for (int m = 0; m < CS_NPAIR_METRICS; m++) {
            if (!(P->spec->metrics & CS_MASK(m))) continue;
            if (!P->spec->serial) {
                CS_CHECK(measure(P, r, -1, (cs_pair_metric_t)m));
                continue;
            }
            for (long k = 0; k < cs_schedule_slots(P->schedule, r); k++) {
                cs_sched_pair_t p;
                if (cs_schedule_pair(P->schedule, r, k, &p)) CS_CHECK(measure(P, r, k, (cs_pair_metric_t)m));
            }
        }
    return CS_OK;
}

/* Rank 0 learns where every rank runs: its host (from the provenance's host list) and
 * the core it is on now. */
static cs_status_t locate_ranks(cs_pairs_t *P)
{
    cs_ctx_t *c = &P->ctx;
    int cpu = sched_getcpu();
    if (c->rank == 0) {
        P->cpus = malloc((size_t)c->nranks * sizeof *P->cpus);
        P->host_of = calloc((size_t)c->nranks, sizeof *P->host_of);
        if (!P->cpus || !P->host_of) return CS_TRACE(CS_ERR_RUNTIME);
        const cs_run_info_t *info = c->info;
        for (int h = 0; h < info->nhosts; h++)
            for (int i = 0; i < info->hosts[h].nranks; i++)
                if (info->hosts[h].ranks[i] < c->nranks) P->host_of[info->hosts[h].ranks[i]] = h;
    }
    CS_MPI(MPI_Gather(&cpu, 1, MPI_INT, P->cpus, 1, MPI_INT, 0, c->comm));
    return CS_OK;
}

cs_status_t cs_pairs_run(MPI_Comm comm, const cs_run_info_t *info, const cs_mem_ops_t *mem, const cs_output_t *output,
                         cs_run_status_t *status)
{
    cs_pairs_t P = {.schedule = info->schedule, .spec = &info->plan->pairs_spec, .out = output};
    P.ctx.comm = comm;
    P.ctx.info = info;
    P.ctx.mem = mem;
    CS_MPI(MPI_Comm_rank(comm, &P.ctx.rank));
    CS_MPI(MPI_Comm_size(comm, &P.ctx.nranks));
    *status = CS_RUN_COMPLETE;
    P.samples = malloc((size_t)most_iterations(info) * sizeof *P.samples);
    cs_status_t st = P.samples ? locate_ranks(&P) : CS_TRACE(CS_ERR_RUNTIME);
    /* the three patterns share p2p.c's set-up: buffers of the largest size and window */
    if (st == CS_OK) st = cs_pattern_pingpong.setup(&P.ctx);
    if (st == CS_OK) st = sweep(&P);
    cs_status_t st_free = cs_pattern_pingpong.teardown(&P.ctx);
    int failed = P.validation_failed, any = 0;
    if (st == CS_OK && MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        st = CS_TRACE(CS_ERR_RUNTIME);
    if (any) *status = CS_RUN_VALIDATION_FAILED;
    free(P.samples);
    free(P.cpus);
    free(P.host_of);
    return st != CS_OK ? st : st_free;
}
