/* Congestion: the ranks split into canaries and congestors (util/congestion.c, from the
 * plan's split). For every congestor and canary test: the canaries measure the test alone
 * while the congestors wait, then again while the congestors loop their traffic until the
 * canaries' done barrier completes, so the whole measurement window is loaded. Every
 * canary's samples of both phases go to rank 0, whose record holds the averages, the slow
 * tails and the impact factors (util/congestion.c). With --canary-fraction 0 every rank is
 * a congestor and each congestor runs for --duration: a load, recorded as its own MB/s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "mpi/check.h"
#include "patterns/congestion.h"
#include "util/mask.h"

#define TAG_RING 7411

static cs_cong_t *cong_of(const cs_ctx_t *c) { return c->state; }

static cs_status_t congestion_setup(cs_ctx_t *c)
{
    cs_cong_t *s = calloc(1, sizeof *s);
    if (s == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    c->state = s;
    s->group = MPI_COMM_NULL;
    s->win = MPI_WIN_NULL;
    s->spec = &c->info->plan->congestion;
    s->duration_s = s->spec->duration_s;
    s->canary = c->info->split->canary[c->rank];
    c->active = true;
    c->timer = s->canary;
    CS_MPI(MPI_Comm_split(c->comm, s->canary ? 0 : 1, c->rank, &s->group));
    CS_MPI(MPI_Comm_rank(s->group, &s->grank));
    CS_MPI(MPI_Comm_size(s->group, &s->gsize));
    if (!s->canary) {
        CS_CHECK(cs_congestors_setup(s));
    } else {
        size_t slots = 2 * CS_CANARY_BW_OUTSTANDING;
        s->sbuf = calloc(slots, CS_CANARY_BW_SIZE);
        s->rbuf = calloc(slots, CS_CANARY_BW_SIZE);
        s->requests = calloc(2 * slots, sizeof *s->requests);
        if (!s->sbuf || !s->rbuf || !s->requests) return CS_TRACE(CS_ERR_RUNTIME);
    }
    /* every rank, canaries too, learns whether the congestors' window opened: they skip the
     * same congestors */
    int mine = s->win_error;
    CS_MPI(MPI_Allreduce(&mine, &s->win_error, 1, MPI_INT, MPI_MAX, c->comm));
    return CS_OK;
}

/* Rank 0 says on stderr which congestor is skipped and why; the harness keeps it as the
 * run's note (execute/outcome.py reads "congestor NAME skipped: "). */
static void report_skipped(const cs_ctx_t *c, cs_congestor_t k, int error)
{
    if (c->rank != 0) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(error, text, &length) != MPI_SUCCESS) snprintf(text, sizeof text, "MPI error class %d", error);
    fprintf(stderr,
            "commscope-bench: congestor %s skipped: MPI_Win_allocate failed (%s): this MPI library cannot open a "
            "one-sided window over this fabric\n",
            cs_congestor_name(k), text);
}

static cs_status_t congestion_teardown(cs_ctx_t *c)
{
    cs_cong_t *s = cong_of(c);
    if (s == NULL) return CS_OK;
    if (!s->canary) cs_congestors_teardown(s);
    free(s->sbuf);
    free(s->rbuf);
    free(s->requests);
    if (s->group != MPI_COMM_NULL) MPI_Comm_free(&s->group);
    free(s);
    c->state = NULL;
    return CS_OK;
}

/* ---- the canary tests, timed by the shared loop on the canaries' communicator ---- */

/* GPCNeT's random-ring exchange: `count` messages of `size` to and from both neighbours. */
static cs_status_t ring_exchange(cs_cong_t *s, int left, int right, int size, int count)
{
    MPI_Request *r = s->requests;
    int k = 0;
    if (count > CS_CANARY_BW_OUTSTANDING) count = CS_CANARY_BW_OUTSTANDING;
    for (int m = 0; m < count; m++) {
        CS_MPI(MPI_Irecv(s->rbuf + (size_t)(2 * m) * CS_CANARY_BW_SIZE, size, MPI_BYTE, left, TAG_RING, s->group,
                         &r[k++]));
        CS_MPI(MPI_Irecv(s->rbuf + (size_t)(2 * m + 1) * CS_CANARY_BW_SIZE, size, MPI_BYTE, right, TAG_RING + 1,
                         s->group, &r[k++]));
    }
    for (int m = 0; m < count; m++) {
        CS_MPI(MPI_Isend(s->sbuf, size, MPI_BYTE, left, TAG_RING + 1, s->group, &r[k++]));
        CS_MPI(MPI_Isend(s->sbuf, size, MPI_BYTE, right, TAG_RING, s->group, &r[k++]));
    }
    MPI_Status statuses[4 * CS_CANARY_BW_OUTSTANDING]; /* MPICH's Waitall is declared to write them */
    CS_MPI(MPI_Waitall(k, r, statuses));
    return CS_OK;
}

static cs_status_t canary_iterations(cs_ctx_t *c, long first, long n)
{
    cs_cong_t *s = cong_of(c);
    double one = 1, sum;
    for (long i = 0; i < n; i++) {
        int ring = (int)(((first + i) / s->per_ring) % CS_CANARY_RINGS);
        switch (s->test) {
        case CS_CANARY_RR_LAT:
            CS_CHECK(ring_exchange(s, s->left[ring], s->right[ring], (int)CS_CANARY_LAT_SIZE, 1));
            break;
        case CS_CANARY_RR_BW:
        case CS_CANARY_RR_BW_SYNC:
            CS_CHECK(ring_exchange(s, s->left[ring], s->right[ring], (int)CS_CANARY_BW_SIZE, CS_CANARY_BW_OUTSTANDING));
            if (s->test == CS_CANARY_RR_BW_SYNC) CS_MPI(MPI_Barrier(s->group));
            break;
        default: CS_MPI(MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, s->group)); break;
        }
    }
    return CS_OK;
}

#define CANARY_PATTERN(divisor)                                                                                        \
    {                                                                                                                  \
        .name = "congestion_canary", .time_divisor = divisor, .timers = CS_TIMERS_SOME, .begin = cs_pattern_nothing,   \
        .iterations = canary_iterations, .end = cs_pattern_nothing                                                     \
    }
/* the exchange with two neighbours sends two messages: a latency sample is half of it */
static const cs_pattern_t canary_latency = CANARY_PATTERN(2.0);
static const cs_pattern_t canary_other = CANARY_PATTERN(1.0);

typedef struct canary_run {
    long iterations, warmup, batch;
    double *samples; /* seconds per iteration (per message for the ring latency) */
    long nsamples;
} canary_run_t;

/* One measurement of test t by this canary: single-iteration samples (batches only past
 * the sample bound), a new random ring each quarter. */
static cs_status_t measure_canary(cs_ctx_t *c, cs_canary_t t, canary_run_t *run)
{
    cs_cong_t *s = cong_of(c);
    s->test = t;
    cs_loop_t loop = {.batch = 1};
    cs_bench_iterations(c->info->bench, c->info->opts, cs_canary_size(t), &loop.iterations, &loop.warmup);
    loop.min_batch = cs_min_batch(loop.iterations, CS_MAX_SAMPLES);
    s->per_ring = (loop.iterations + loop.warmup + CS_CANARY_RINGS - 1) / CS_CANARY_RINGS;
    if (s->per_ring < 1) s->per_ring = 1;
    int *scratch = malloc((size_t)s->gsize * sizeof *scratch);
    if (!scratch) return CS_TRACE(CS_ERR_RUNTIME);
    for (int r = 0; r < CS_CANARY_RINGS; r++)
        cs_congestion_ring(s->gsize, s->spec->seed, r, s->grank, scratch, &s->left[r], &s->right[r]);
    free(scratch);
    cs_ctx_t cc = *c;
    cc.comm = s->group;
    cc.rank = s->grank;
    cc.nranks = s->gsize;
    cs_timing_t timing;
    const cs_pattern_t *p = t == CS_CANARY_RR_LAT ? &canary_latency : &canary_other;
    CS_CHECK(cs_pattern_run(p, &cc, &loop, run->samples, &timing));
    run->iterations = timing.iterations;
    run->warmup = timing.warmup;
    run->batch = timing.batch;
    run->nsamples = (long)timing.nsamples;
    return CS_OK;
}

/* ---- collection at rank 0 ---- */

/* Every rank's `n` samples to rank 0 of the world (*all, *nall there; free it). */
static cs_status_t gather(const cs_ctx_t *c, const double *mine, long n, double **all, long *nall)
{
    int count = (int)n, *counts = NULL, *displs = NULL;
    *all = NULL;
    *nall = 0;
    if (c->rank == 0) {
        counts = calloc((size_t)c->nranks, sizeof *counts);
        displs = calloc((size_t)c->nranks, sizeof *displs);
        if (!counts || !displs) return free(counts), free(displs), CS_TRACE(CS_ERR_RUNTIME);
    }
    cs_status_t st = CS_OK;
    if (MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, c->comm) != MPI_SUCCESS) st = CS_TRACE(CS_ERR_RUNTIME);
    if (st == CS_OK && c->rank == 0) {
        for (int r = 0; r < c->nranks; r++) displs[r] = (int)*nall, *nall += counts[r];
        *all = malloc((size_t)(*nall > 0 ? *nall : 1) * sizeof **all);
        if (!*all) st = CS_TRACE(CS_ERR_RUNTIME);
    }
    if (st == CS_OK &&
        MPI_Gatherv(mine, count, MPI_DOUBLE, *all, counts, displs, MPI_DOUBLE, 0, c->comm) != MPI_SUCCESS)
        st = CS_TRACE(CS_ERR_RUNTIME);
    free(counts);
    free(displs);
    return st;
}

/* Rank 0: a record from the gathered seconds per iteration of both phases, `bytes` a rank
 * moves in one (bandwidth). stats: the congested times in us, as every record's; the
 * impact in the unit of the test: us, or MB/s (10^6 B/s). t < 0: congestors alone. */
static void make_record(const canary_run_t *run, int t, double *iso, long niso, double *cong, long ncong, double bytes,
                        cs_record_t *rec)
{
    memset(rec, 0, sizeof *rec);
    bool bandwidth = t < 0 || cs_canary_is_bandwidth((cs_canary_t)t);
    rec->size = t < 0 ? CS_CONG_MSG_SIZE : cs_canary_size((cs_canary_t)t);
    rec->window = t >= 0 && bandwidth ? CS_CANARY_BW_OUTSTANDING : 1;
    rec->iterations = run->iterations;
    rec->warmup = run->warmup;
    rec->batch = run->batch;
    double *us = malloc((size_t)(ncong > 0 ? ncong : 1) * sizeof *us);
    if (us && ncong > 0) {
        for (long i = 0; i < ncong; i++) us[i] = cong[i] * 1e6;
        cs_stats_compute(us, (size_t)ncong, &rec->stats);
    }
    free(us);
    for (long i = 0; i < niso; i++) iso[i] = bandwidth ? bytes / iso[i] / 1e6 : iso[i] * 1e6;
    for (long i = 0; i < ncong; i++) cong[i] = bandwidth ? bytes / cong[i] / 1e6 : cong[i] * 1e6;
    rec->congestion.has = true;
    rec->congestion.canary = t;
    rec->congestion.bandwidth = bandwidth;
    cs_impact_compute(iso, (size_t)niso, cong, (size_t)ncong, bandwidth, &rec->congestion.impact);
    const cs_impact_t *im = &rec->congestion.impact;
    if (bandwidth) rec->bandwidth_MBps = im->congested_avg;
    else rec->latency_us = im->congested_avg;
}

/* ---- the phases ---- */

/* Test t alone, then beside congestor s->congestor; rank 0 emits the record. */
static cs_status_t canary_pair(cs_ctx_t *c, cs_canary_t t, canary_run_t *iso, canary_run_t *cong, cs_emit_t *emit,
                               void *arg)
{
    cs_cong_t *s = cong_of(c);
    iso->nsamples = cong->nsamples = 0;
    long ops = 0;
    if (s->canary) CS_CHECK(measure_canary(c, t, iso));
    CS_MPI(MPI_Barrier(c->comm)); /* the congestors were silent until here */
    if (s->canary) {
        MPI_Request req;
        CS_MPI(MPI_Ibarrier(c->comm, &req)); /* released once the congestors are loading */
        CS_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CS_CHECK(measure_canary(c, t, cong));
        CS_MPI(MPI_Ibarrier(c->comm, &req)); /* done: the congestors stop */
        CS_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        CS_CHECK(cs_congestors_load(s, c->comm, &ops));
    }
    double *all_iso, *all_cong;
    long niso, ncong, total_ops = 0;
    CS_CHECK(gather(c, iso->samples, iso->nsamples, &all_iso, &niso));
    cs_status_t st = gather(c, cong->samples, cong->nsamples, &all_cong, &ncong);
    if (st == CS_OK && MPI_Reduce(&ops, &total_ops, 1, MPI_LONG, MPI_SUM, 0, c->comm) != MPI_SUCCESS)
        st = CS_TRACE(CS_ERR_RUNTIME);
    /* rank 0 may be a congestor: it learns the canaries' loop from canary rank 0 */
    long loop[3] = {cong->iterations, cong->warmup, cong->batch};
    int first_canary = 0;
    while (!c->info->split->canary[first_canary]) first_canary++;
    if (st == CS_OK && MPI_Bcast(loop, 3, MPI_LONG, first_canary, c->comm) != MPI_SUCCESS)
        st = CS_TRACE(CS_ERR_RUNTIME);
    if (st == CS_OK && c->rank == 0) {
        canary_run_t r = {loop[0], loop[1], loop[2], NULL, 0};
        cs_record_t rec;
        make_record(&r, (int)t, all_iso, niso, all_cong, ncong, cs_canary_bytes(t), &rec);
        rec.congestion.congestor = s->congestor;
        int ncongestors = c->info->split->ncongestors;
        rec.congestion.congestor_ops = ncongestors ? total_ops / ncongestors : 0;
        emit(arg, &rec);
    }
    free(all_iso);
    free(all_cong);
    return st;
}

/* Congestors only: each rank's operation times for --duration, as MB/s per rank. */
static cs_status_t alone(cs_ctx_t *c, double *samples, long cap, cs_emit_t *emit, void *arg)
{
    cs_cong_t *s = cong_of(c);
    long n = 0, ops = 0, total_ops = 0, nall;
    double *all;
    CS_CHECK(cs_congestors_alone(s, samples, cap, &n, &ops));
    CS_CHECK(gather(c, samples, n, &all, &nall));
    cs_status_t st = CS_OK;
    if (MPI_Reduce(&ops, &total_ops, 1, MPI_LONG, MPI_SUM, 0, c->comm) != MPI_SUCCESS) st = CS_TRACE(CS_ERR_RUNTIME);
    if (st == CS_OK && c->rank == 0) {
        canary_run_t r = {total_ops / c->nranks, 1, 1, NULL, 0};
        double bytes = s->congestor == CS_CONG_ALLTOALL ? (double)CS_CONG_MSG_SIZE * (s->gsize - 1)
                                                        : (double)CS_CONG_MSG_SIZE; /* every rank with samples */
        cs_record_t rec;
        make_record(&r, -1, NULL, 0, all, nall, bytes, &rec);
        rec.congestion.congestor = s->congestor;
        rec.congestion.congestor_ops = r.iterations;
        emit(arg, &rec);
    }
    free(all);
    return st;
}

static cs_status_t congestion_sweep(cs_ctx_t *c, cs_emit_t *emit, void *arg, cs_run_status_t *status)
{
    (void)status;
    cs_cong_t *s = cong_of(c);
    long most = 1;
    for (int t = 0; t < CS_NCANARIES; t++) {
        long it, wu;
        cs_bench_iterations(c->info->bench, c->info->opts, cs_canary_size((cs_canary_t)t), &it, &wu);
        if (it > most) most = it;
    }
    long cap = most < CS_MAX_SAMPLES ? most : CS_MAX_SAMPLES;
    if (s->spec->fraction <= 0) cap = CS_MAX_SAMPLES;
    canary_run_t iso = {.samples = malloc((size_t)cap * sizeof(double))};
    canary_run_t cong = {.samples = malloc((size_t)cap * sizeof(double))};
    cs_status_t st = iso.samples && cong.samples ? CS_OK : CS_TRACE(CS_ERR_RUNTIME);
    for (int k = 0; k < CS_NCONGESTORS && st == CS_OK; k++) {
        if (!(s->spec->congestors & CS_MASK(k))) continue;
        if (s->win_error != MPI_SUCCESS && cs_congestor_one_sided((cs_congestor_t)k)) {
            report_skipped(c, (cs_congestor_t)k, s->win_error);
            continue;
        }
        s->congestor = (cs_congestor_t)k;
        if (s->spec->fraction <= 0) {
            if (c->budget) { /* its share of the time left, the least any rank sees */
                double late = -cs_budget_left(c->budget, MPI_Wtime()), latest;
                if (MPI_Allreduce(&late, &latest, 1, MPI_DOUBLE, MPI_MAX, c->comm) != MPI_SUCCESS)
                    st = CS_TRACE(CS_ERR_RUNTIME);
                else s->duration_s = cs_budget_seconds(c->budget, -latest, s->spec->duration_s);
            }
            if (st == CS_OK) st = alone(c, cong.samples, cap, emit, arg);
            continue;
        }
        for (int t = 0; t < CS_NCANARIES && st == CS_OK; t++)
            st = canary_pair(c, (cs_canary_t)t, &iso, &cong, emit, arg);
    }
    free(iso.samples);
    free(cong.samples);
    return st;
}

const cs_pattern_t cs_pattern_congestion = {.name = "congestion",
                                            .timers = CS_TIMERS_SOME,
                                            .setup = congestion_setup,
                                            .teardown = congestion_teardown,
                                            .own_sweep = congestion_sweep};
