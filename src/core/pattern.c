/* The loop around every pattern, written once: warm-up, batching, barriers, the overlap
 * phase of non-blocking collectives and the validation pass. */
#include "core/pattern.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/hot.h"
#include "mpi/check.h"

static cs_status_t steps(const cs_pattern_t *p, cs_ctx_t *c, long first, long n)
{
    if (!c->active || n == 0) return CS_OK;
    return p->iterations(c, first, n);
}

/* Warm-up; returns the mean time of its second half, where connection set-up and first
 * touches are over, to size the timing batches. */
static cs_status_t warm_up(const cs_pattern_t *p, cs_ctx_t *c, const cs_loop_t *loop, double *per_iter)
{
    long half = loop->warmup / 2, timed = loop->warmup - half;
    double t_half = 0;
    if (p->barrier_each_iteration) {
        for (long i = 0; i < loop->warmup; i++) {
            if (i == half) t_half = MPI_Wtime();
            CS_MPI(MPI_Barrier(c->comm));
            CS_CHECK(steps(p, c, i, 1));
        }
    } else {
        CS_CHECK(steps(p, c, 0, half));
        t_half = MPI_Wtime();
        CS_CHECK(steps(p, c, half, timed));
    }
    *per_iter = timed > 0 ? (MPI_Wtime() - t_half) / (double)timed : 0.0;
    return CS_OK;
}

/* Iterations per sample, at most `most`. */
static long wanted_batch(const cs_pattern_t *p, const cs_loop_t *loop, double per_iter, long most)
{
    if (p->barrier_each_iteration) return 1; /* the barrier separates iterations */
    if (loop->batch > 0) return loop->batch < most ? loop->batch : most;
    if (per_iter <= 0) return 1;
    double b = ceil(CS_BATCH_TARGET_S / per_iter);
    return b >= (double)most ? most : (long)b;
}

/* ... and never so small that the samples outgrow their bound */
static long choose_batch(const cs_pattern_t *p, const cs_loop_t *loop, double per_iter, long most)
{
    long b = wanted_batch(p, loop, per_iter, most);
    return b < loop->min_batch ? loop->min_batch : b;
}

/* Batched: one clock read per batch; consecutive stamps, so no time goes unaccounted. */
static cs_status_t timed_batches(const cs_pattern_t *p, cs_ctx_t *c, const cs_loop_t *loop, long batch, double *samples,
                                 cs_timing_t *out)
{
    size_t k = 0;
    double t_start = MPI_Wtime(), t_prev = t_start;
    for (long done = 0; done < loop->iterations;) {
        long n = loop->iterations - done < batch ? loop->iterations - done : batch;
        CS_CHECK(steps(p, c, loop->warmup + done, n));
        double t = MPI_Wtime();
        samples[k++] = (t - t_prev) / (double)n / p->time_divisor;
        t_prev = t;
        done += n;
    }
    out->nsamples = k;
    out->total = (t_prev - t_start) / p->time_divisor;
    return CS_OK;
}

/* Barrier before each iteration, outside the clock (OMB's multi-pair tests and collectives:
 * t_start; MPI_Bcast; t_stop; MPI_Barrier). Past the sample bound a sample is the mean of
 * `batch` such iterations. */
static cs_status_t timed_synchronised(const cs_pattern_t *p, cs_ctx_t *c, const cs_loop_t *loop, long batch,
                                      double *samples, cs_timing_t *out)
{
    double total = 0, in_batch = 0;
    size_t k = 0;
    for (long i = 0; i < loop->iterations; i++) {
        CS_MPI(MPI_Barrier(c->comm));
        double t0 = MPI_Wtime();
        CS_CHECK(steps(p, c, loop->warmup + i, 1));
        double dt = MPI_Wtime() - t0;
        total += dt;
        in_batch += dt;
        /* a sample: the mean of `batch` iterations (one, unless the bound folds them) */
        long in = i % batch + 1; /* iterations in the batch so far */
        if (in == batch || i + 1 == loop->iterations) {
            samples[k++] = in_batch / (double)in / p->time_divisor;
            in_batch = 0;
        }
    }
    out->nsamples = k;
    out->total = total / p->time_divisor;
    return CS_OK;
}

/* One sample: a batch of iterations, or one iteration after a barrier outside the clock.
 * Returns its seconds of operation (before the pattern's divisor). */
static inline cs_status_t one_sample(const cs_pattern_t *p, cs_ctx_t *c, long first, long batch, double *t_prev,
                                     double *seconds)
{
    if (p->barrier_each_iteration) {
        CS_MPI(MPI_Barrier(c->comm));
        *t_prev = MPI_Wtime();
    }
    CS_CHECK(steps(p, c, first, batch));
    double t = MPI_Wtime();
    *seconds = t - *t_prev;
    *t_prev = t;
    return CS_OK;
}

/* --precision: rounds of samples until the stopping rule (util/precision.h) ends the size.
 * Every rank runs the same rounds: batch and round length come from the slowest rank's
 * warm-up, and the decision after each round from values agreed in one allreduce, which
 * lies outside the clock (each round's clock starts after it). */
static cs_status_t timed_rounds(const cs_pattern_t *p, cs_ctx_t *c, const cs_loop_t *loop, double per_iter,
                                double *samples, cs_timing_t *out)
{
    double slowest;
    CS_MPI(MPI_Allreduce(&per_iter, &slowest, 1, MPI_DOUBLE, MPI_MAX, c->comm));
    long batch = choose_batch(p, loop, slowest, LONG_MAX / 4);
    long per_round = cs_precision_round_batches(slowest * (double)batch);
    long room = (long)(loop->capacity / CS_PRECISION_MIN_ROUNDS);
    if (per_round > room) per_round = room > 0 ? room : 1;
    out->batch = batch;
    cs_precision_t pr;
    cs_precision_start(&pr, loop->precision, loop->capacity);
    bool counts = p->timers == CS_TIMERS_EVERY || c->timer; /* whose interval matters */
    double t_start = MPI_Wtime(), total = 0;
    size_t k = 0;
    long done = 0;
    do {
        double t_round = MPI_Wtime(), t_prev = t_round, round = 0;
        for (long b = 0; b < per_round; b++, done += batch) {
            double dt = 0;
            CS_CHECK(one_sample(p, c, loop->warmup + done, batch, &t_prev, &dt));
            samples[k++] = dt / (double)batch / p->time_divisor;
            round += dt;
        }
        double t_end = MPI_Wtime();
        total += round / p->time_divisor;
        cs_precision_add_round(&pr, round / p->time_divisor, per_round * batch, (size_t)per_round);
        double mine[3] = {counts ? cs_precision_achieved_pct(&pr) : 0.0, t_end - t_start, t_end - t_round}, agreed[3];
        CS_MPI(MPI_Allreduce(mine, agreed, 3, MPI_DOUBLE, MPI_MAX, c->comm));
        out->achieved_pct = agreed[0];
        /* the warm-up's estimate may be far off (it is short, and a busy machine stretches
         * it): the first round, timed on every rank, sets the length of the others */
        if (pr.rounds == 1) per_round = cs_precision_rescale_round(per_round, agreed[2], room);
        out->stop = cs_precision_decide(&pr, agreed[0], agreed[1], agreed[2], (size_t)per_round);
    } while (out->stop == CS_STOP_NONE);
    out->nsamples = k;
    out->iterations = done;
    out->rounds = pr.rounds;
    out->total = total;
    return CS_OK;
}

/* OMB's dummy compute: a small dense kernel repeated for `seconds`, cut into num_tests
 * pieces with an MPI_Test after each. Returns the time spent in MPI_Test. */
#define KERNEL_DIM 25
static double dummy_compute(double seconds, MPI_Request *req, int num_tests)
{
    float a[KERNEL_DIM][KERNEL_DIM], x[KERNEL_DIM], y[KERNEL_DIM];
    for (int i = 0; i < KERNEL_DIM; i++) {
        x[i] = y[i] = 1.0f;
        for (int j = 0; j < KERNEL_DIM; j++) a[i][j] = 2.0f;
    }
    int pieces = num_tests > 0 ? num_tests : 1;
    double test_time = 0;
    for (int k = 0; k < pieces; k++) {
        for (double elapsed = 0; elapsed < seconds / pieces;) {
            double t = MPI_Wtime();
            for (int i = 0; i < KERNEL_DIM; i++)
                for (int j = 0; j < KERNEL_DIM; j++) x[i] = x[i] + a[i][j] * a[j][i] + y[j];
            elapsed += MPI_Wtime() - t;
        }
        if (num_tests > 0) {
            int flag;
            double t = MPI_Wtime();
            MPI_Test(req, &flag, MPI_STATUS_IGNORE);
            test_time += MPI_Wtime() - t;
        }
    }
    volatile float sink = x[0]; /* keep the kernel from being optimised away */
    (void)sink;
    return test_time;
}

/* Non-blocking collectives, OMB's second phase: start, compute for as long as the pure
 * communication took on this rank, wait; each part timed. */
static cs_status_t overlap_phase(const cs_pattern_t *p, cs_ctx_t *c, const cs_loop_t *loop, double compute_s,
                                 cs_overlap_t *sum)
{
    memset(sum, 0, sizeof *sum);
    for (long i = 0; i < loop->warmup + loop->iterations; i++) {
        MPI_Request req = MPI_REQUEST_NULL;
        double t0 = MPI_Wtime();
        if (c->active) CS_CHECK(p->start(c, i, &req));
        double t1 = MPI_Wtime();
        double test = dummy_compute(compute_s, &req, loop->num_tests);
        double t2 = MPI_Wtime();
        CS_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        double t3 = MPI_Wtime();
        if (i >= loop->warmup) {
            sum->overall += t3 - t0;
            sum->init += t1 - t0;
            sum->compute += t2 - t1;
            sum->test += test;
            sum->wait += t3 - t2;
        }
        CS_MPI(MPI_Barrier(c->comm));
    }
    return CS_OK;
}

/* --time-limit: the first warm-up iteration, timed on every rank; the slowest rank's time
 * and the least time left any rank sees size the rest of the warm-up and the timed
 * iterations (util/budget.h), alike on every rank. A non-blocking collective runs its
 * iterations twice more in the overlap phase (communication, then as long computing). */
static cs_status_t fit_budget(const cs_pattern_t *p, cs_ctx_t *c, cs_loop_t *loop, double *probe)
{
    if (p->barrier_each_iteration) CS_MPI(MPI_Barrier(c->comm));
    double t0 = MPI_Wtime();
    CS_CHECK(steps(p, c, 0, 1));
    double now = MPI_Wtime(), cost = p->start ? 3.0 : 1.0;
    double mine[2] = {(now - t0) * cost, -cs_budget_left(c->budget, now)}, agreed[2];
    CS_MPI(MPI_Allreduce(mine, agreed, 2, MPI_DOUBLE, MPI_MAX, c->comm));
    *probe = (now - t0);
    cs_budget_fit(c->budget, agreed[0], -agreed[1], &loop->warmup, &loop->iterations);
    return CS_OK;
}

CS_HOT cs_status_t cs_pattern_run(const cs_pattern_t *p, cs_ctx_t *c, const cs_loop_t *loop, double *samples,
                                  cs_timing_t *out)
{
    memset(out, 0, sizeof *out);
    if (p->given_seconds) { /* measured before the loop could exist */
        samples[0] = p->given_seconds(c);
        out->nsamples = 1;
        out->batch = 1;
        out->iterations = 1;
        out->total = samples[0];
        return CS_OK;
    }
    CS_CHECK(p->begin(c));
    CS_MPI(MPI_Barrier(c->comm));
    double per_iter = 0, probe = 0;
    cs_loop_t fitted;
    if (c->budget && c->budget->limit_s > 0 && !loop->precision) {
        fitted = *loop;
        CS_CHECK(fit_budget(p, c, &fitted, &probe));
        loop = &fitted;
    }
    CS_CHECK(warm_up(p, c, loop, &per_iter));
    out->warmup = loop->warmup + (loop == &fitted ? 1 : 0); /* the probe was a warm-up iteration */
    if (per_iter <= 0) per_iter = probe; /* a warm-up too short to time: the probe sizes the batches */
    if (loop->precision) {
        CS_MPI(MPI_Barrier(c->comm));
        CS_CHECK(timed_rounds(p, c, loop, per_iter, samples, out));
    } else {
        out->batch = choose_batch(p, loop, per_iter, loop->iterations);
        out->iterations = loop->iterations;
        CS_MPI(MPI_Barrier(c->comm));
        if (p->barrier_each_iteration) CS_CHECK(timed_synchronised(p, c, loop, out->batch, samples, out));
        else CS_CHECK(timed_batches(p, c, loop, out->batch, samples, out));
    }
    CS_CHECK(p->end(c));
    CS_MPI(MPI_Barrier(c->comm));
    if (p->start) {
        out->has_overlap = true;
        cs_loop_t measured = *loop;
        measured.iterations = out->iterations; /* as many as the timed phase ran */
        double pure = out->iterations > 0 ? out->total / (double)out->iterations : 0;
        CS_CHECK(overlap_phase(p, c, &measured, pure, &out->overlap));
    }
    return CS_OK;
}

/* --debug-corrupt SIZE, the test hook of -c: at that size the first result a rank reads
 * back for checking has its first byte flipped, so tests can see that the checks find a
 * wrong byte. The patterns know nothing of it. */
static const cs_mem_ops_t *corrupt_real;
static bool corrupt_pending;

static cs_status_t corrupt_to_host(void *host_dst, const void *src, size_t bytes)
{
    CS_CHECK(corrupt_real->to_host(host_dst, src, bytes));
    if (corrupt_pending && bytes > 0) {
        ((unsigned char *)host_dst)[0] ^= 0x5a;
        corrupt_pending = false;
    }
    return CS_OK;
}

static cs_status_t check(const cs_pattern_t *p, cs_ctx_t *c, long iteration, long *wrong)
{
    if (c->info->opts->corrupt_size != (long)c->size) return p->check(c, iteration, wrong);
    const cs_mem_ops_t *real = c->mem;
    cs_mem_ops_t corrupting = *real;
    corrupting.to_host = corrupt_to_host;
    corrupt_real = real;
    corrupt_pending = true;
    c->mem = &corrupting;
    cs_status_t st = p->check(c, iteration, wrong);
    c->mem = real;
    return st;
}

cs_status_t cs_pattern_validate(const cs_pattern_t *p, cs_ctx_t *c, long iteration, long *wrong)
{
    *wrong = 0;
    if (p->fill == NULL) return CS_OK; /* nothing to check (start-up) */
    /* -u: OMB's untimed iterations before each checked one; here before the fill, so an
     * in-place or accumulating operation cannot disturb the data checked */
    long warm = c->info->opts->validation_warmup;
    if (warm > 0) {
        CS_CHECK(p->begin(c));
        CS_MPI(MPI_Barrier(c->comm));
        CS_CHECK(steps(p, c, iteration, warm));
        CS_CHECK(p->end(c));
        CS_MPI(MPI_Barrier(c->comm));
    }
    CS_CHECK(p->fill(c, iteration));
    CS_CHECK(p->begin(c));
    CS_MPI(MPI_Barrier(c->comm));
    CS_CHECK(steps(p, c, iteration, 1));
    CS_CHECK(p->end(c));
    CS_MPI(MPI_Barrier(c->comm));
    return check(p, c, iteration, wrong);
}

MPI_Datatype cs_mpi_datatype(cs_dtype_t t)
{
    const MPI_Datatype types[CS_NDTYPES] = {[CS_DT_CHAR] = MPI_CHAR,
                                            [CS_DT_INT] = MPI_INT,
                                            [CS_DT_FLOAT] = MPI_FLOAT,
                                            [CS_DT_DOUBLE] = MPI_DOUBLE,
                                            [CS_DT_LONG_LONG] = MPI_LONG_LONG};
    return types[t];
}

const cs_pattern_t *cs_pattern_of(cs_pattern_id_t id)
{
    static const cs_pattern_t *const patterns[CS_NPATTERNS] = {
        [CS_PATTERN_PINGPONG] = &cs_pattern_pingpong,
        [CS_PATTERN_PINGPONG_THREADS] = &cs_pattern_pingpong_threads,
        [CS_PATTERN_PINGPONG_FORKED] = &cs_pattern_pingpong_forked,
        [CS_PATTERN_MULTI_PINGPONG] = &cs_pattern_multi_pingpong,
        [CS_PATTERN_WINDOW_UNI] = &cs_pattern_window_uni,
        [CS_PATTERN_MULTI_WINDOW_UNI] = &cs_pattern_multi_window_uni,
        [CS_PATTERN_WINDOW_BI] = &cs_pattern_window_bi,
        [CS_PATTERN_COLLECTIVE] = &cs_pattern_collective,
        [CS_PATTERN_NBC] = &cs_pattern_nbc,
        [CS_PATTERN_PERSISTENT] = &cs_pattern_persistent,
        [CS_PATTERN_RMA] = &cs_pattern_rma,
        [CS_PATTERN_RMA_BI] = &cs_pattern_rma_bi,
        [CS_PATTERN_MULTI_RMA] = &cs_pattern_multi_rma,
        [CS_PATTERN_FAN_IN] = &cs_pattern_fan_in,
        [CS_PATTERN_FAN_OUT] = &cs_pattern_fan_out,
        [CS_PATTERN_INIT] = &cs_pattern_init,
        [CS_PATTERN_HELLO] = &cs_pattern_hello,
#if CS_HAVE_NCCL
        [CS_PATTERN_NCCL_PINGPONG] = &cs_pattern_nccl_pingpong,
        [CS_PATTERN_NCCL_WINDOW_UNI] = &cs_pattern_nccl_window_uni,
        [CS_PATTERN_NCCL_WINDOW_BI] = &cs_pattern_nccl_window_bi,
        [CS_PATTERN_NCCL_COLLECTIVE] = &cs_pattern_nccl_collective,
#endif
        [CS_PATTERN_PAIRS] = &cs_pattern_pairs,
        [CS_PATTERN_CONGESTION] = &cs_pattern_congestion,
    };
    return patterns[id];
}

cs_status_t cs_pattern_nothing(cs_ctx_t *c)
{
    (void)c;
    return CS_OK;
}
