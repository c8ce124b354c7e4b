/* One-sided patterns: rank 0 (the origin) issues a window of operations per epoch on
 * rank 1's window; the bidirectional pattern has both ranks do it at once. The epoch is
 * the synchronisation of -s, as OMB opens and closes it; flush and flush_local keep one
 * lock for the whole measurement and flush per iteration. The window (-w) lives until the
 * creation mode changes, at the largest size, so no size pays for its set-up. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/hot.h"
#include "mpi/check.h"
#include "patterns/rma.h"

typedef struct cs_rma {
    MPI_Win win;
    bool has_win;
    cs_win_mode_t mode;
    void *win_base; /* the window's memory (MPI's with -w allocate) */
    void *origin, *result, *compare;
    size_t bytes;         /* the largest size times the window */
    MPI_Aint disp;        /* the peer's window base as this rank addresses it */
    MPI_Group peer_group; /* post/start */
    int peer;
    bool origin_side; /* issues the operations */
    bool bidirectional;
    uint8_t *staging;
    cs_rma_args_t args; /* the operation's arguments at the current size, made in begin */
} cs_rma_t;

static cs_rma_t *rma_of(const cs_ctx_t *c) { return c->state; }

/* ---- the MPI calls of one iteration, inlined into the loop (see rma.h) ---- */

CS_INLINE int issue(cs_rma_call_t call, const cs_rma_args_t *a)
{
    switch (call) {
    case CS_RMA_PUT:
        return MPI_Put(CS_RMA_AT(a->origin, a), a->count, a->type, a->target, CS_RMA_DISP(a), a->count, a->type,
                       a->win);
    case CS_RMA_GET:
        return MPI_Get(CS_RMA_AT(a->result, a), a->count, a->type, a->target, CS_RMA_DISP(a), a->count, a->type,
                       a->win);
    case CS_RMA_ACCUMULATE:
        return MPI_Accumulate(CS_RMA_AT(a->origin, a), a->count, a->type, a->target, CS_RMA_DISP(a), a->count, a->type,
                              MPI_SUM, a->win);
    case CS_RMA_GET_ACCUMULATE:
        return MPI_Get_accumulate(CS_RMA_AT(a->origin, a), a->count, a->type, CS_RMA_AT(a->result, a), a->count,
                                  a->type, a->target, CS_RMA_DISP(a), a->count, a->type, MPI_SUM, a->win);
    case CS_RMA_FETCH_AND_OP:
        return MPI_Fetch_and_op(a->origin, a->result, a->type, a->target, a->disp, MPI_SUM, a->win);
    case CS_RMA_COMPARE_AND_SWAP:
        return MPI_Compare_and_swap(a->origin, a->compare, a->result, a->type, a->target, a->disp, a->win);
    }
    return MPI_ERR_OTHER;
}

/* The origin's access epoch around its operations, as OMB opens and closes it per -s.
 * flush and flush_local hold one lock for the whole measurement (rma_begin/rma_end). */
CS_INLINE int access_open(cs_rma_sync_t s, const cs_rma_t *r)
{
    switch (s) {
    case CS_SYNC_LOCK: return MPI_Win_lock(MPI_LOCK_SHARED, r->peer, 0, r->win);
    case CS_SYNC_LOCK_ALL: return MPI_Win_lock_all(0, r->win);
    case CS_SYNC_FENCE: return MPI_Win_fence(0, r->win);
    case CS_SYNC_PSCW: return MPI_Win_start(r->peer_group, 0, r->win);
    default: return MPI_SUCCESS;
    }
}

CS_INLINE int access_close(cs_rma_sync_t s, const cs_rma_t *r)
{
    switch (s) {
    case CS_SYNC_LOCK: return MPI_Win_unlock(r->peer, r->win);
    case CS_SYNC_LOCK_ALL: return MPI_Win_unlock_all(r->win);
    case CS_SYNC_FENCE: return MPI_Win_fence(0, r->win);
    case CS_SYNC_PSCW: return MPI_Win_complete(r->win);
    case CS_SYNC_FLUSH: return MPI_Win_flush(r->peer, r->win);
    default: return MPI_Win_flush_local(r->peer, r->win);
    }
}

/* The target's part under active target synchronisation (passive modes: nothing). */
static bool is_active_target(cs_rma_sync_t s) { return s == CS_SYNC_PSCW || s == CS_SYNC_FENCE; }

CS_INLINE int exposure_open(cs_rma_sync_t s, const cs_rma_t *r)
{
    return s == CS_SYNC_PSCW ? MPI_Win_post(r->peer_group, 0, r->win) : MPI_Win_fence(0, r->win);
}

CS_INLINE int exposure_close(cs_rma_sync_t s, const cs_rma_t *r)
{
    return s == CS_SYNC_PSCW ? MPI_Win_wait(r->win) : MPI_Win_fence(0, r->win);
}

static bool holds_lock_throughout(cs_rma_sync_t s) { return s == CS_SYNC_FLUSH || s == CS_SYNC_FLUSH_LOCAL; }

/* ---- the window ---- */

static cs_status_t free_window(cs_ctx_t *c)
{
    cs_rma_t *r = rma_of(c);
    if (!r->has_win) return CS_OK;
    if (r->mode == CS_WIN_DYNAMIC) CS_MPI(MPI_Win_detach(r->win, r->win_base));
    CS_MPI(MPI_Win_free(&r->win)); /* frees MPI_Win_allocate's memory too */
    if (r->mode != CS_WIN_ALLOCATE) c->mem->free(r->win_base);
    r->win_base = NULL;
    r->has_win = false;
    return CS_OK;
}

static cs_status_t ensure_window(cs_ctx_t *c)
{
    cs_rma_t *r = rma_of(c);
    if (r->has_win && r->mode == c->win_mode) return CS_OK;
    CS_CHECK(free_window(c));
    MPI_Aint bytes = (MPI_Aint)r->bytes;
    r->disp = 0;
    switch (c->win_mode) {
    case CS_WIN_ALLOCATE:
        CS_MPI(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, c->comm, &r->win_base, &r->win));
        memset(r->win_base, 0, r->bytes); /* touch every page before timing */
        break;
    case CS_WIN_CREATE:
        CS_CHECK(c->mem->alloc(r->bytes, &r->win_base));
        CS_MPI(MPI_Win_create(r->win_base, bytes, 1, MPI_INFO_NULL, c->comm, &r->win));
        break;
    default: {
        CS_CHECK(c->mem->alloc(r->bytes, &r->win_base));
        CS_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, c->comm, &r->win));
        CS_MPI(MPI_Win_attach(r->win, r->win_base, bytes));
        MPI_Aint mine;
        CS_MPI(MPI_Get_address(r->win_base, &mine));
        /* a dynamic window is addressed by the target's absolute addresses */
        CS_MPI(MPI_Sendrecv(&mine, 1, MPI_AINT, r->peer, 7, &r->disp, 1, MPI_AINT, r->peer, 7, c->comm,
                            MPI_STATUS_IGNORE));
    }
    }
    CS_MPI(MPI_Win_set_errhandler(r->win, MPI_ERRORS_RETURN));
    r->has_win = true;
    r->mode = c->win_mode;
    return CS_OK;
}

static cs_status_t rma_setup(cs_ctx_t *c)
{
    cs_rma_t *r = calloc(1, sizeof *r);
    if (r == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    c->state = r;
    r->peer_group = MPI_GROUP_NULL;
    /* rank i (the origin) and rank i + pairs (the target); two ranks make one pair. Every
     * rank is in a pair (CS_CAP_ALL_PAIRS), so fences, which involve every rank, match. */
    int pairs = c->info->plan->pairs;
    bool first_half = c->rank < pairs;
    r->peer = first_half ? c->rank + pairs : c->rank - pairs;
    r->bidirectional = cs_pattern_of(c->info->bench->pattern)->direction == CS_DIR_BOTH;
    r->origin_side = r->bidirectional || first_half;
    c->active = true;
    c->timer = first_half;
    size_t max = c->info->plan->max_size ? c->info->plan->max_size : 1;
    r->bytes = max * (size_t)c->info->plan->window;
    /* at least a cache line: MPICH 4.0.2 lands atomics on the wrong rank's memory when
     * every rank's MPI_Win_allocate window is 8 bytes (fop_latency, cas_latency) */
    if (r->bytes < 64) r->bytes = 64;
    /* only the local buffers the operation uses: the plan's memory limit counts those */
    const cs_rma_op_t *op = c->info->bench->rma;
    if (op->update != CS_RMA_KEEP) CS_CHECK(c->mem->alloc(r->bytes, &r->origin));
    if (op->fetches) CS_CHECK(c->mem->alloc(r->bytes, &r->result));
    if (op->update == CS_RMA_SWAP) CS_CHECK(c->mem->alloc(r->bytes, &r->compare));
    r->staging = malloc(r->bytes);
    if (r->staging == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    MPI_Group world;
    CS_MPI(MPI_Comm_group(c->comm, &world));
    int rc = MPI_Group_incl(world, 1, &r->peer, &r->peer_group);
    MPI_Group_free(&world);
    if (rc != MPI_SUCCESS) return CS_TRACE(CS_ERR_RUNTIME);
    return CS_OK;
}

static cs_status_t rma_teardown(cs_ctx_t *c)
{
    cs_rma_t *r = rma_of(c);
    if (r == NULL) return CS_OK;
    cs_status_t st = free_window(c);
    if (r->peer_group != MPI_GROUP_NULL) MPI_Group_free(&r->peer_group);
    if (r->origin) c->mem->free(r->origin);
    if (r->result) c->mem->free(r->result);
    if (r->compare) c->mem->free(r->compare);
    free(r->staging);
    free(r);
    c->state = NULL;
    return st;
}

static cs_status_t rma_begin(cs_ctx_t *c)
{
    cs_rma_t *r = rma_of(c);
    CS_CHECK(ensure_window(c));
    r->args = (cs_rma_args_t){.origin = r->origin,
                              .result = r->result,
                              .compare = r->compare,
                              .count = (int)(c->size / cs_dtype_size(c->dtype)),
                              .type = cs_mpi_datatype(c->dtype),
                              .target = r->peer,
                              .disp = r->disp,
                              .win = r->win};
    if (holds_lock_throughout(c->sync_mode) && r->origin_side)
        CS_MPI(MPI_Win_lock(MPI_LOCK_SHARED, r->peer, 0, r->win));
    return CS_OK;
}

static cs_status_t rma_end(cs_ctx_t *c)
{
    cs_rma_t *r = rma_of(c);
    if (holds_lock_throughout(c->sync_mode) && r->origin_side) CS_MPI(MPI_Win_unlock(r->peer, r->win));
    return CS_OK;
}

/* n iterations of `call` under synchronisation `s`; inlined once per pair by
 * rma_iterations, so the loop holds nothing but direct MPI calls. Bidirectional pscw: each
 * rank also exposes its own window around its access epoch (fence does both in one call). */
CS_INLINE cs_status_t epochs_of(cs_ctx_t *c, long n, cs_rma_call_t call, cs_rma_sync_t s)
{
    const cs_rma_t *r = rma_of(c);
    if (!r->origin_side) { /* the target: only active target synchronisation involves it */
        if (!is_active_target(s)) return CS_OK;
        for (long i = 0; i < n; i++) {
            CS_MPI(exposure_open(s, r));
            CS_MPI(exposure_close(s, r));
        }
        return CS_OK;
    }
    const bool also_exposes = r->bidirectional && s == CS_SYNC_PSCW;
    const int window = c->window;
    const size_t size = c->size;
    cs_rma_args_t a = r->args;
    if (window == 1 && !also_exposes) { /* the latency tests: nothing but open, call, close */
        for (long i = 0; i < n; i++) {
            CS_MPI(access_open(s, r));
            CS_MPI(issue(call, &a));
            CS_MPI(access_close(s, r));
        }
        return CS_OK;
    }
    for (long i = 0; i < n; i++) {
        if (also_exposes) CS_MPI(exposure_open(s, r));
        CS_MPI(access_open(s, r));
        for (int j = 0; j < window; j++) {
            a.off = (size_t)j * size;
            CS_MPI(issue(call, &a));
        }
        CS_MPI(access_close(s, r));
        if (also_exposes) CS_MPI(exposure_close(s, r));
    }
    return CS_OK;
}

CS_INLINE cs_status_t epochs_with_sync(cs_ctx_t *c, long n, cs_rma_call_t call)
{
    switch (c->sync_mode) {
    case CS_SYNC_LOCK: return epochs_of(c, n, call, CS_SYNC_LOCK);
    case CS_SYNC_PSCW: return epochs_of(c, n, call, CS_SYNC_PSCW);
    case CS_SYNC_FENCE: return epochs_of(c, n, call, CS_SYNC_FENCE);
    case CS_SYNC_FLUSH: return epochs_of(c, n, call, CS_SYNC_FLUSH);
    case CS_SYNC_FLUSH_LOCAL: return epochs_of(c, n, call, CS_SYNC_FLUSH_LOCAL);
    case CS_SYNC_LOCK_ALL: return epochs_of(c, n, call, CS_SYNC_LOCK_ALL);
    default: return CS_TRACE(CS_ERR_RUNTIME);
    }
}

static cs_status_t rma_iterations(cs_ctx_t *c, long first, long n)
{
    (void)first;
    switch (c->info->bench->rma->call) {
    case CS_RMA_PUT: return epochs_with_sync(c, n, CS_RMA_PUT);
    case CS_RMA_GET: return epochs_with_sync(c, n, CS_RMA_GET);
    case CS_RMA_ACCUMULATE: return epochs_with_sync(c, n, CS_RMA_ACCUMULATE);
    case CS_RMA_GET_ACCUMULATE: return epochs_with_sync(c, n, CS_RMA_GET_ACCUMULATE);
    case CS_RMA_FETCH_AND_OP: return epochs_with_sync(c, n, CS_RMA_FETCH_AND_OP);
    case CS_RMA_COMPARE_AND_SWAP: return epochs_with_sync(c, n, CS_RMA_COMPARE_AND_SWAP);
    }
    return CS_TRACE(CS_ERR_RUNTIME);
}

/* ---- validation: origin data 1, window data 2, bounded so that sums stay exact ---- */

#define RMA_BOUND 63 /* 63 + 63 fits MPI_CHAR */

static long long origin_value(int rank, size_t i)
{
    return (long long)((i * 7 + (size_t)rank * 13 + 1) % (RMA_BOUND + 1));
}
static long long window_value(int rank, size_t i)
{
    return (long long)((i * 11 + (size_t)rank * 5 + 3) % (RMA_BOUND + 1));
}

static cs_status_t store_all(cs_ctx_t *c, void *dst, long long (*value)(int, size_t), int rank)
{
    cs_rma_t *r = rma_of(c);
    if (dst == NULL) return CS_OK; /* a buffer this operation does not use */
    size_t n = c->size * (size_t)c->window / cs_dtype_size(c->dtype);
    for (size_t i = 0; i < n; i++) cs_dtype_store(c->dtype, r->staging, i, value ? value(rank, i) : -1);
    return c->mem->from_host(dst, r->staging, c->size * (size_t)c->window);
}

static cs_status_t rma_fill(cs_ctx_t *c, long iteration)
{
    (void)iteration;
    cs_rma_t *r = rma_of(c);
    CS_CHECK(ensure_window(c));
    CS_CHECK(store_all(c, r->origin, origin_value, c->rank));
    CS_CHECK(store_all(c, r->result, NULL, c->rank));
    CS_CHECK(store_all(c, r->compare, window_value, r->peer)); /* the comparand: the target's old data */
    CS_CHECK(store_all(c, r->win_base, window_value, c->rank));
    return CS_OK;
}

static long long window_after(cs_rma_update_t u, int me, int peer, size_t i)
{
    switch (u) {
    case CS_RMA_REPLACE:
    case CS_RMA_SWAP: return origin_value(peer, i);
    case CS_RMA_SUM: return window_value(me, i) + origin_value(peer, i);
    default: return window_value(me, i);
    }
}

static cs_status_t rma_check(cs_ctx_t *c, long iteration, long *wrong)
{
    (void)iteration;
    cs_rma_t *r = rma_of(c);
    const cs_rma_op_t *op = c->info->bench->rma;
    size_t n = c->size * (size_t)c->window / cs_dtype_size(c->dtype), bytes = c->size * (size_t)c->window;
    *wrong = 0;
    if (r->origin_side && op->fetches) { /* the target's old data came back */
        CS_CHECK(c->mem->to_host(r->staging, r->result, bytes));
        for (size_t i = 0; i < n; i++) *wrong += !cs_dtype_equals(c->dtype, r->staging, i, window_value(r->peer, i));
    }
    bool target_side = r->bidirectional || !r->origin_side;
    if (target_side) {
        CS_CHECK(c->mem->to_host(r->staging, r->win_base, bytes));
        for (size_t i = 0; i < n; i++)
            *wrong += !cs_dtype_equals(c->dtype, r->staging, i, window_after(op->update, c->rank, r->peer, i));
    }
    return CS_OK;
}

#define RMA_PATTERN(name_, direction_, barrier)                                                                        \
    {                                                                                                                  \
        .name = name_, .direction = direction_, .barrier_each_iteration = barrier, .time_divisor = 1.0,                \
        .timers = CS_TIMERS_SOME, .setup = rma_setup, .teardown = rma_teardown, .begin = rma_begin,                    \
        .iterations = rma_iterations, .end = rma_end, .fill = rma_fill, .check = rma_check                             \
    }

const cs_pattern_t cs_pattern_rma = RMA_PATTERN("one_sided", CS_DIR_OUT, false);
const cs_pattern_t cs_pattern_rma_bi = RMA_PATTERN("one_sided_bidirectional", CS_DIR_BOTH, false);
/* the multi-pair forms: every pair at once after a barrier, as OMB's multi-pair tests */
const cs_pattern_t cs_pattern_multi_rma = RMA_PATTERN("multi_pair_one_sided", CS_DIR_OUT, true);
