#include "pattern.h"

#include <math.h>

#include "mpi_check.h"

#define TAG_DATA 1
#define TAG_ACK 101

/* ---- ping-pong: one message there, one back ---- */

static cs_status_t pingpong_begin(cs_pair_ctx_t *c, size_t size)
{
    if (!c->active) return CS_OK;
    return c->send_ops->begin(&c->p2p, c->recv_slots[0], (int)size, c->peer, c->initiator);
}

static cs_status_t pingpong_iterations(cs_pair_ctx_t *c, size_t size, int window, long iterations)
{
    (void)window;
    const cs_send_ops_t *ops = c->send_ops;
    int n = (int)size, peer = c->peer;
    char *sbuf = c->send_slots[0], *rbuf = c->recv_slots[0];
    if (c->initiator) {
        for (long i = 0; i < iterations; i++) {
            CS_CHECK(ops->send(&c->p2p, sbuf, rbuf, n, peer));
            CS_CHECK(ops->recv(&c->p2p, rbuf, n, peer));
        }
        return CS_OK;
    }
    for (long i = 0; i < iterations; i++) {
        CS_CHECK(ops->recv(&c->p2p, rbuf, n, peer));
        CS_CHECK(ops->send(&c->p2p, sbuf, rbuf, n, peer));
    }
    return CS_OK;
}

static cs_status_t pingpong_end(cs_pair_ctx_t *c)
{
    return c->active ? c->send_ops->end(&c->p2p) : CS_OK;
}

/* ---- one-way window: `window` non-blocking sends, then a small acknowledgement ---- */

static cs_status_t window_uni_iterations(cs_pair_ctx_t *c, size_t size, int window, long iterations)
{
    int n = (int)size;
    for (long i = 0; i < iterations; i++) {
        if (c->initiator) {
            for (int w = 0; w < window; w++)
                CS_MPI(MPI_Isend(c->send_slots[w], n, MPI_CHAR, c->peer, TAG_DATA, c->comm, &c->requests[w]));
            CS_MPI(MPI_Waitall(window, c->requests, MPI_STATUSES_IGNORE));
            CS_MPI(MPI_Recv(&c->ack, 1, MPI_CHAR, c->peer, TAG_ACK, c->comm, MPI_STATUS_IGNORE));
        } else {
            for (int w = 0; w < window; w++)
                CS_MPI(MPI_Irecv(c->recv_slots[w], n, MPI_CHAR, c->peer, TAG_DATA, c->comm, &c->requests[w]));
            CS_MPI(MPI_Waitall(window, c->requests, MPI_STATUSES_IGNORE));
            CS_MPI(MPI_Send(&c->ack, 1, MPI_CHAR, c->peer, TAG_ACK, c->comm));
        }
    }
    return CS_OK;
}

/* ---- two-way window: both sides receive and send `window` messages at once ---- */

static cs_status_t window_bi_iterations(cs_pair_ctx_t *c, size_t size, int window, long iterations)
{
    int n = (int)size;
    MPI_Request *recvs = c->requests + window, *sends = c->requests;
    for (long i = 0; i < iterations; i++) {
        for (int w = 0; w < window; w++)
            CS_MPI(MPI_Irecv(c->recv_slots[w], n, MPI_CHAR, c->peer, TAG_DATA, c->comm, &recvs[w]));
        for (int w = 0; w < window; w++)
            CS_MPI(MPI_Isend(c->send_slots[w], n, MPI_CHAR, c->peer, TAG_DATA, c->comm, &sends[w]));
        CS_MPI(MPI_Waitall(window, sends, MPI_STATUSES_IGNORE));
        CS_MPI(MPI_Waitall(window, recvs, MPI_STATUSES_IGNORE));
    }
    return CS_OK;
}

static cs_status_t nothing_begin(cs_pair_ctx_t *c, size_t size)
{
    (void)c, (void)size;
    return CS_OK;
}
static cs_status_t nothing_end(cs_pair_ctx_t *c)
{
    (void)c;
    return CS_OK;
}

const cs_pattern_t cs_pattern_pingpong = {
    "pingpong", false, 2.0, true, true, pingpong_begin, pingpong_iterations, pingpong_end};
const cs_pattern_t cs_pattern_multi_pingpong = {
    "multi_pair_pingpong", true, 2.0, true, true, pingpong_begin, pingpong_iterations, pingpong_end};
const cs_pattern_t cs_pattern_window_uni = {
    "window_uni", false, 1.0, false, true, nothing_begin, window_uni_iterations, nothing_end};
const cs_pattern_t cs_pattern_multi_window_uni = {
    "multi_pair_window", true, 1.0, false, true, nothing_begin, window_uni_iterations, nothing_end};
const cs_pattern_t cs_pattern_window_bi = {
    "window_bi", false, 1.0, true, true, nothing_begin, window_bi_iterations, nothing_end};

/* ---- the loop around every pattern ---- */

static cs_status_t steps(const cs_pattern_t *p, cs_pair_ctx_t *c, const cs_loop_t *loop, long n)
{
    if (!c->active) return CS_OK;
    return p->iterations(c, loop->size, loop->window, n);
}

/* Warm-up; returns the mean time of its second half, where connection set-up and first
 * touches are over, to size the timing batches. */
static cs_status_t warm_up(const cs_pattern_t *p, cs_pair_ctx_t *c, const cs_loop_t *loop, double *per_iter)
{
    long half = loop->warmup / 2, timed = loop->warmup - half;
    double t_half = 0;
    if (p->barrier_each_iteration) {
        for (long i = 0; i < loop->warmup; i++) {
            if (i == half) t_half = MPI_Wtime();
            CS_MPI(MPI_Barrier(c->comm));
            CS_CHECK(steps(p, c, loop, 1));
        }
    } else {
        CS_CHECK(steps(p, c, loop, half));
        t_half = MPI_Wtime();
        CS_CHECK(steps(p, c, loop, timed));
    }
    *per_iter = timed > 0 ? (MPI_Wtime() - t_half) / (double)timed : 0.0;
    return CS_OK;
}

static long choose_batch(const cs_pattern_t *p, const cs_loop_t *loop, double per_iter)
{
    if (p->barrier_each_iteration) return 1; /* the barrier separates iterations */
    if (loop->batch > 0) return loop->batch < loop->iterations ? loop->batch : loop->iterations;
    if (per_iter <= 0) return 1;
    double b = ceil(CS_BATCH_TARGET_S / per_iter);
    return b >= (double)loop->iterations ? loop->iterations : (long)b;
}

/* Batched: one clock read per batch; consecutive stamps, so no time goes unaccounted. */
static cs_status_t timed_batches(const cs_pattern_t *p, cs_pair_ctx_t *c, const cs_loop_t *loop,
                                 long batch, double *samples, cs_timing_t *out)
{
    size_t k = 0;
    double t_start = MPI_Wtime(), t_prev = t_start;
    for (long done = 0; done < loop->iterations;) {
        long n = loop->iterations - done < batch ? loop->iterations - done : batch;
        CS_CHECK(steps(p, c, loop, n));
        double t = MPI_Wtime();
        samples[k++] = (t - t_prev) / (double)n / p->time_divisor;
        t_prev = t;
        done += n;
    }
    out->nsamples = k;
    out->total = (t_prev - t_start) / p->time_divisor;
    return CS_OK;
}

/* Barrier before each iteration, outside the clock (OMB's multi-pair tests). */
static cs_status_t timed_synchronised(const cs_pattern_t *p, cs_pair_ctx_t *c, const cs_loop_t *loop,
                                      double *samples, cs_timing_t *out)
{
    double total = 0;
    for (long i = 0; i < loop->iterations; i++) {
        CS_MPI(MPI_Barrier(c->comm));
        double t0 = MPI_Wtime();
        CS_CHECK(steps(p, c, loop, 1));
        double dt = MPI_Wtime() - t0;
        samples[i] = dt / p->time_divisor;
        total += dt;
    }
    out->nsamples = (size_t)loop->iterations;
    out->total = total / p->time_divisor;
    return CS_OK;
}

cs_status_t cs_pattern_run(const cs_pattern_t *p, cs_pair_ctx_t *c, const cs_loop_t *loop,
                           double *samples, cs_timing_t *out)
{
    CS_CHECK(p->begin(c, loop->size));
    CS_MPI(MPI_Barrier(c->comm));
    double per_iter;
    CS_CHECK(warm_up(p, c, loop, &per_iter));
    out->batch = choose_batch(p, loop, per_iter);
    CS_MPI(MPI_Barrier(c->comm));
    if (p->barrier_each_iteration) CS_CHECK(timed_synchronised(p, c, loop, samples, out));
    else CS_CHECK(timed_batches(p, c, loop, out->batch, samples, out));
    CS_CHECK(p->end(c));
    CS_MPI(MPI_Barrier(c->comm));
    return CS_OK;
}

cs_status_t cs_pattern_once(const cs_pattern_t *p, cs_pair_ctx_t *c, size_t size, int window)
{
    cs_loop_t loop = {.size = size, .window = window, .iterations = 1, .warmup = 0, .batch = 1};
    CS_CHECK(p->begin(c, size));
    CS_MPI(MPI_Barrier(c->comm));
    CS_CHECK(steps(p, c, &loop, 1));
    CS_CHECK(p->end(c));
    CS_MPI(MPI_Barrier(c->comm));
    return CS_OK;
}
