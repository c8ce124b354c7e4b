/* Point-to-point patterns: ping-pong, one-way and two-way windows, for one pair or for
 * rank i with rank i + pairs. Buffers are window slots (one with -b single). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/hot.h"
#include "util/sizes.h"
#include "mpi/check.h"
#include "core/pattern.h"
#include "patterns/p2p.h"
#include "patterns/send_mode.h"
#include "util/forks.h"
#include "util/validate.h"

#define TAG_DATA 1
#define TAG_ACK  101

typedef struct cs_pair {
    int peer;
    bool initiator;                  /* sends first (ping-pong) or sends the data (one-way windows) */
    void *send_block, *recv_block;   /* slots laid out back to back */
    char **send_slots, **recv_slots; /* one per window slot; all equal with -b single */
    int nslots, distinct;
    uint8_t *staging;      /* host copy for filling and checking (-c) */
    MPI_Request *requests; /* room for two windows */
    char ack;
    cs_send_mode_t send_mode;
    const cs_send_ops_t *send_ops; /* set-up and the calls around a loop of send_mode */
    cs_p2p_t p2p;
    cs_forks_t forks; /* latency_mp: the processes forked beside this rank */
} cs_pair_t;

static cs_pair_t *pair_of(const cs_ctx_t *c) { return c->state; }

static int largest_window(const cs_run_info_t *info)
{
    return info->opts->vary_window ? CS_VARY_WINDOW_MAX : info->plan->window;
}

cs_status_t cs_pair_setup(cs_ctx_t *c)
{
    const cs_run_info_t *info = c->info;
    cs_pair_t *s = calloc(1, sizeof *s);
    if (s == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    c->state = s;
    int pairs = info->plan->pairs, max_window = largest_window(info);
    c->active = c->rank < 2 * pairs;
    s->initiator = c->rank < pairs;
    c->timer = c->active && s->initiator;
    s->peer = s->initiator ? c->rank + pairs : c->rank - pairs;
    size_t slot_bytes = info->plan->max_size ? info->plan->max_size : 1;
    s->nslots = max_window;
    s->distinct = info->opts->buffers == CS_BUFFERS_MULTIPLE ? max_window : 1;
    CS_CHECK(c->mem->alloc(slot_bytes * (size_t)s->distinct, &s->send_block));
    CS_CHECK(c->mem->alloc(slot_bytes * (size_t)s->distinct, &s->recv_block));
    s->send_slots = calloc((size_t)s->nslots, sizeof *s->send_slots);
    s->recv_slots = calloc((size_t)s->nslots, sizeof *s->recv_slots);
    s->staging = malloc(slot_bytes);
    s->requests = calloc(2 * (size_t)max_window, sizeof *s->requests);
    if (!s->send_slots || !s->recv_slots || !s->staging || !s->requests) return CS_TRACE(CS_ERR_RUNTIME);
    for (int i = 0; i < s->nslots; i++) {
        size_t at = (size_t)(i % s->distinct) * slot_bytes;
        s->send_slots[i] = (char *)s->send_block + at;
        s->recv_slots[i] = (char *)s->recv_block + at;
    }
    s->send_mode = cs_bench_send_mode(info->bench, info->opts);
    s->send_ops = cs_send_ops_for(s->send_mode);
    s->p2p.comm = c->comm;
    s->p2p.partitions = info->plan->partitions;
    if (c->active && (info->bench->caps & CS_CAP_SEND_MODE))
        CS_CHECK(s->send_ops->setup(&s->p2p, info->plan->max_size));
    return CS_OK;
}

static void set_partner(cs_ctx_t *c, int peer, bool initiator)
{
    cs_pair_t *s = pair_of(c);
    c->active = peer >= 0;
    c->timer = c->active && initiator;
    s->peer = peer;
    s->initiator = initiator;
}

cs_status_t cs_pair_teardown(cs_ctx_t *c)
{
    cs_pair_t *s = pair_of(c);
    if (s == NULL) return CS_OK;
    cs_status_t st = CS_OK;
    if (c->active && s->send_ops && (c->info->bench->caps & CS_CAP_SEND_MODE)) st = s->send_ops->teardown(&s->p2p);
    if (s->send_block) c->mem->free(s->send_block);
    if (s->recv_block) c->mem->free(s->recv_block);
    free(s->send_slots);
    free(s->recv_slots);
    free(s->staging);
    free(s->requests);
    free(s);
    c->state = NULL;
    return st;
}

cs_pair_view_t cs_pair_view(const cs_ctx_t *c)
{
    const cs_pair_t *s = pair_of(c);
    return (cs_pair_view_t){s->peer, s->initiator, s->send_slots, s->recv_slots};
}

/* ---- ping-pong: one message there, one back ---- */

static cs_status_t pingpong_begin(cs_ctx_t *c)
{
    cs_pair_t *s = pair_of(c);
    if (!c->active) return CS_OK;
    s->p2p.type = cs_mpi_datatype(c->dtype);
    return s->send_ops->begin(&s->p2p, s->send_slots[0], s->recv_slots[0], cs_ctx_count(c), s->peer, s->initiator);
}

/* `iterations` round trips with the send mode's calls made directly (see send_mode.h). */
CS_INLINE cs_status_t round_trips(cs_pair_t *s, int n, long iterations, cs_send_mode_t mode)
{
    const int peer = s->peer;
    char *sbuf = s->send_slots[0], *rbuf = s->recv_slots[0];
    if (s->initiator) {
        for (long i = 0; i < iterations; i++) {
            CS_MPI(cs_p2p_send(mode, &s->p2p, sbuf, rbuf, n, peer));
            CS_MPI(cs_p2p_recv(mode, &s->p2p, rbuf, n, peer));
        }
        return CS_OK;
    }
    for (long i = 0; i < iterations; i++) {
        CS_MPI(cs_p2p_recv(mode, &s->p2p, rbuf, n, peer));
        CS_MPI(cs_p2p_send(mode, &s->p2p, sbuf, rbuf, n, peer));
    }
    return CS_OK;
}

CS_HOT static cs_status_t pingpong_iterations(cs_ctx_t *c, long first, long iterations)
{
    (void)first;
    cs_pair_t *s = pair_of(c);
    int n = cs_ctx_count(c);
    switch (s->send_mode) {
    case CS_SEND_SYNC: return round_trips(s, n, iterations, CS_SEND_SYNC);
    case CS_SEND_BUFFERED: return round_trips(s, n, iterations, CS_SEND_BUFFERED);
    case CS_SEND_READY: return round_trips(s, n, iterations, CS_SEND_READY);
    case CS_SEND_IMMEDIATE: return round_trips(s, n, iterations, CS_SEND_IMMEDIATE);
    case CS_SEND_PERSISTENT: return round_trips(s, n, iterations, CS_SEND_PERSISTENT);
    case CS_SEND_PARTITIONED: return round_trips(s, n, iterations, CS_SEND_PARTITIONED);
    default: return round_trips(s, n, iterations, CS_SEND_STANDARD);
    }
}

static cs_status_t pingpong_end(cs_ctx_t *c)
{
    cs_pair_t *s = pair_of(c);
    return c->active ? s->send_ops->end(&s->p2p) : CS_OK;
}

/* ---- windows: `window` non-blocking messages an iteration, one way or both ---- */

/* What a window's MPI calls take, read once before the loop into a local that nothing
 * can point to: fields read through c or s would be reloaded after every MPI call. */
typedef struct window_args {
    int n, window, peer;
    MPI_Datatype type;
    MPI_Comm comm;
    char **send_slots, **recv_slots;
    MPI_Request *requests; /* room for two windows */
} window_args_t;

CS_INLINE window_args_t window_args(const cs_ctx_t *c, const cs_pair_t *s)
{
    return (window_args_t){.n = cs_ctx_count(c),
                           .window = c->window,
                           .peer = s->peer,
                           .type = cs_mpi_datatype(c->dtype),
                           .comm = c->comm,
                           .send_slots = s->send_slots,
                           .recv_slots = s->recv_slots,
                           .requests = s->requests};
}

/* Persistent windows (OMB's osu_bw_persistent, osu_bibw_persistent): one send request per
 * slot in requests[0, window) and one receive request in requests[window, 2 window), made
 * for the measurement's size and window and started together every iteration. */
static cs_status_t window_requests(cs_ctx_t *c, bool sends, bool recvs)
{
    cs_pair_t *s = pair_of(c);
    if (!c->active || s->send_mode != CS_SEND_PERSISTENT) return CS_OK;
    const window_args_t a = window_args(c, s);
    for (int w = 0; w < 2 * a.window; w++) a.requests[w] = MPI_REQUEST_NULL;
    for (int w = 0; w < a.window; w++) {
        if (sends) CS_MPI(MPI_Send_init(a.send_slots[w], a.n, a.type, a.peer, TAG_DATA, a.comm, &a.requests[w]));
        if (recvs)
            CS_MPI(MPI_Recv_init(a.recv_slots[w], a.n, a.type, a.peer, TAG_DATA, a.comm, &a.requests[a.window + w]));
    }
    return CS_OK;
}

static cs_status_t window_uni_begin(cs_ctx_t *c)
{
    bool initiator = pair_of(c)->initiator;
    return window_requests(c, initiator, !initiator);
}

static cs_status_t window_bi_begin(cs_ctx_t *c) { return window_requests(c, true, true); }

static cs_status_t window_end(cs_ctx_t *c)
{
    cs_pair_t *s = pair_of(c);
    if (!c->active || s->send_mode != CS_SEND_PERSISTENT) return CS_OK;
    for (int w = 0; w < 2 * c->window; w++)
        if (s->requests[w] != MPI_REQUEST_NULL) CS_MPI(MPI_Request_free(&s->requests[w]));
    return CS_OK;
}

/* Posts a window of sends (or receives): the persistent requests started at once, or one
 * MPI_Isend (MPI_Irecv) per slot; `persistent` is a constant where it is inlined. */
CS_INLINE int post_window(const window_args_t *a, bool send, MPI_Request *reqs, const bool persistent)
{
    if (persistent) return MPI_Startall(a->window, reqs);
    for (int w = 0; w < a->window; w++) {
        int rc = send ? MPI_Isend(a->send_slots[w], a->n, a->type, a->peer, TAG_DATA, a->comm, &reqs[w])
                      : MPI_Irecv(a->recv_slots[w], a->n, a->type, a->peer, TAG_DATA, a->comm, &reqs[w]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* one-way: the initiator sends the window, the responder receives it and sends back a
 * small acknowledgement */
/* `persistent` and `initiator` are constants where it is inlined: each of the four loops
 * posts its window with no test per message or per iteration (the side a rank is on was
 * once read again after every MPI call) */
CS_INLINE cs_status_t window_uni_loop(cs_ctx_t *c, long iterations, const bool persistent, const bool initiator)
{
    cs_pair_t *s = pair_of(c);
    const window_args_t a = window_args(c, s);
    MPI_Request *const reqs = initiator || !persistent ? a.requests : a.requests + a.window;
    for (long i = 0; i < iterations; i++) {
        CS_MPI(post_window(&a, initiator, reqs, persistent));
        CS_MPI(MPI_Waitall(a.window, reqs, MPI_STATUSES_IGNORE));
        if (initiator) CS_MPI(MPI_Recv(&s->ack, 1, MPI_CHAR, a.peer, TAG_ACK, a.comm, MPI_STATUS_IGNORE));
        else CS_MPI(MPI_Send(&s->ack, 1, MPI_CHAR, a.peer, TAG_ACK, a.comm));
    }
    return CS_OK;
}

CS_HOT static cs_status_t window_uni_iterations(cs_ctx_t *c, long first, long iterations)
{
    (void)first;
    const cs_pair_t *s = pair_of(c);
    if (s->send_mode == CS_SEND_PERSISTENT)
        return s->initiator ? window_uni_loop(c, iterations, true, true) : window_uni_loop(c, iterations, true, false);
    return s->initiator ? window_uni_loop(c, iterations, false, true) : window_uni_loop(c, iterations, false, false);
}

/* two-way: both sides receive and send `window` messages at once */
CS_INLINE cs_status_t window_bi_loop(cs_ctx_t *c, long iterations, const bool persistent)
{
    const window_args_t a = window_args(c, pair_of(c));
    MPI_Request *const recvs = a.requests + a.window, *const sends = a.requests;
    for (long i = 0; i < iterations; i++) {
        CS_MPI(post_window(&a, false, recvs, persistent));
        CS_MPI(post_window(&a, true, sends, persistent));
        CS_MPI(MPI_Waitall(a.window, sends, MPI_STATUSES_IGNORE));
        CS_MPI(MPI_Waitall(a.window, recvs, MPI_STATUSES_IGNORE));
    }
    return CS_OK;
}

CS_HOT static cs_status_t window_bi_iterations(cs_ctx_t *c, long first, long iterations)
{
    (void)first;
    if (pair_of(c)->send_mode == CS_SEND_PERSISTENT) return window_bi_loop(c, iterations, true);
    return window_bi_loop(c, iterations, false);
}

/* ---- validation: each (sender, size, slot) has its own byte sequence ---- */

cs_status_t cs_pair_fill(cs_ctx_t *c, long iteration)
{
    (void)iteration;
    cs_pair_t *s = pair_of(c);
    int slots = c->window < s->distinct ? c->window : s->distinct;
    for (int w = 0; w < slots; w++) {
        cs_pattern_fill(s->staging, c->size, c->rank, c->size, w);
        CS_CHECK(c->mem->from_host(s->send_slots[w], s->staging, c->size));
        cs_pattern_fill_unlike(s->staging, c->size, s->peer, c->size, w);
        CS_CHECK(c->mem->from_host(s->recv_slots[w], s->staging, c->size));
    }
    return CS_OK;
}

static cs_status_t pair_check(cs_ctx_t *c, bool receives, long *wrong)
{
    cs_pair_t *s = pair_of(c);
    *wrong = 0;
    if (!c->active || !receives) return CS_OK;
    int slots = c->window < s->distinct ? c->window : s->distinct;
    for (int w = 0; w < slots; w++) {
        CS_CHECK(c->mem->to_host(s->staging, s->recv_slots[w], c->size));
        *wrong += cs_pattern_mismatches(s->staging, c->size, s->peer, c->size, w);
    }
    return CS_OK;
}

/* ping-pong and two-way windows: both sides receive data; one-way: only the responder */
cs_status_t cs_pair_check_both(cs_ctx_t *c, long iteration, long *wrong)
{
    (void)iteration;
    return pair_check(c, true, wrong);
}
cs_status_t cs_pair_check_responder(cs_ctx_t *c, long iteration, long *wrong)
{
    (void)iteration;
    return pair_check(c, !pair_of(c)->initiator, wrong);
}

/* ---- latency_mp: the ping-pong of ranks that have forked processes (OMB's -t SEND:RECV) ---- */

static cs_status_t forked_setup(cs_ctx_t *c)
{
    CS_CHECK(cs_pair_setup(c));
    char err[256];
    int n = c->info->plan->workers[c->rank == 0 ? 0 : 1];
    if (cs_forks_start(&pair_of(c)->forks, n, err, sizeof err) != CS_OK) {
        fprintf(stderr, "commscope-bench: rank %d: %s\n", c->rank, err);
        return CS_TRACE(CS_ERR_RUNTIME);
    }
    return CS_OK;
}

static cs_status_t forked_teardown(cs_ctx_t *c)
{
    cs_pair_t *s = pair_of(c);
    int failed = s ? cs_forks_stop(&s->forks) : 0;
    cs_status_t st = cs_pair_teardown(c);
    if (failed)
        fprintf(stderr, "commscope-bench: rank %d: %d forked processes did not exit cleanly\n", c->rank, failed);
    return failed ? CS_TRACE(CS_ERR_RUNTIME) : st;
}

#define PAIR_PATTERN_SET_UP(name_, setup_, teardown_, barrier, divisor, begin_, iter_, end_, check_)                   \
    {                                                                                                                  \
        .name = name_, .barrier_each_iteration = barrier, .time_divisor = divisor, .timers = CS_TIMERS_SOME,           \
        .setup = setup_, .teardown = teardown_, .begin = begin_, .iterations = iter_, .end = end_,                     \
        .fill = cs_pair_fill, .check = check_                                                                          \
    }
#define PAIR_PATTERN(name_, barrier, divisor, begin_, iter_, end_, check_)                                             \
    PAIR_PATTERN_SET_UP(name_, cs_pair_setup, cs_pair_teardown, barrier, divisor, begin_, iter_, end_, check_)

const cs_pattern_t cs_pattern_pingpong =
    PAIR_PATTERN("pingpong", false, 2.0, pingpong_begin, pingpong_iterations, pingpong_end, cs_pair_check_both);
const cs_pattern_t cs_pattern_pingpong_forked =
    PAIR_PATTERN_SET_UP("pingpong_forked", forked_setup, forked_teardown, false, 2.0, pingpong_begin,
                        pingpong_iterations, pingpong_end, cs_pair_check_both);
const cs_pattern_t cs_pattern_multi_pingpong = PAIR_PATTERN("multi_pair_pingpong", true, 2.0, pingpong_begin,
                                                            pingpong_iterations, pingpong_end, cs_pair_check_both);
const cs_pattern_t cs_pattern_window_uni = PAIR_PATTERN("window_uni", false, 1.0, window_uni_begin,
                                                        window_uni_iterations, window_end, cs_pair_check_responder);
const cs_pattern_t cs_pattern_multi_window_uni = PAIR_PATTERN(
    "multi_pair_window", true, 1.0, window_uni_begin, window_uni_iterations, window_end, cs_pair_check_responder);
const cs_pattern_t cs_pattern_window_bi =
    PAIR_PATTERN("window_bi", false, 1.0, window_bi_begin, window_bi_iterations, window_end, cs_pair_check_both);
/* buffers of the largest size and window for the three patterns above, which time it */
const cs_pattern_t cs_pattern_pairs = {.name = "pairs",
                                       .timers = CS_TIMERS_SOME,
                                       .setup = cs_pair_setup,
                                       .teardown = cs_pair_teardown,
                                       .partner = set_partner};
