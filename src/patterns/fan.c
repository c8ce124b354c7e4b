/* Congestion patterns (OMB 7.4's osu_bw_fan_in / osu_bw_fan_out): one hub, rank 0, and
 * -p peers (default every other rank). Fan-in: every peer sends a window of messages to
 * the hub at once, the hub acknowledges each peer; fan-out: the hub sends a window to
 * every peer, each acknowledges. The hub's clock makes the aggregate bandwidth. */
#include <stdint.h>
#include <stdlib.h>

#include "core/hot.h"
#include "mpi/check.h"
#include "core/pattern.h"
#include "util/validate.h"

#define TAG_DATA 1
#define TAG_ACK  101

typedef struct cs_fan {
    bool hub, fan_in;
    bool receives;                   /* the data comes here: the hub in fan-in, the peers in fan-out */
    int first_partner, last_partner; /* the ranks it exchanges with: the hub 1..peers, a peer 0 */
    int peers, distinct;             /* distinct: buffers per peer (the window with -b multiple, else 1) */
    void *block;                     /* hub: one region per peer; a peer: its own */
    MPI_Request *requests;
    char ack;
    uint8_t *staging;
} cs_fan_t;

static cs_fan_t *fan_of(const cs_ctx_t *c) { return c->state; }

/* Buffer of window slot w for peer p (a peer's own buffers are region 0). */
static char *slot(const cs_ctx_t *c, int p, int w)
{
    const cs_fan_t *f = fan_of(c);
    size_t region = f->hub ? (size_t)(p - 1) : 0;
    size_t bytes = c->info->plan->max_size ? c->info->plan->max_size : 1;
    return (char *)f->block + (region * (size_t)f->distinct + (size_t)(w % f->distinct)) * bytes;
}

static cs_status_t fan_setup(cs_ctx_t *c)
{
    const cs_plan_t *plan = c->info->plan;
    cs_fan_t *f = calloc(1, sizeof *f);
    if (f == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    c->state = f;
    f->hub = c->rank == 0;
    f->fan_in = cs_pattern_of(c->info->bench->pattern)->direction == CS_DIR_IN;
    f->peers = plan->pairs;
    f->receives = f->hub == f->fan_in;
    f->first_partner = f->hub ? 1 : 0;
    f->last_partner = f->hub ? f->peers : 0;
    f->distinct = c->info->opts->buffers == CS_BUFFERS_MULTIPLE ? plan->window : 1;
    c->active = c->rank <= f->peers;
    c->timer = f->hub;
    size_t bytes = plan->max_size ? plan->max_size : 1, regions = f->hub ? (size_t)f->peers : 1;
    CS_CHECK(c->mem->alloc(bytes * regions * (size_t)f->distinct, &f->block));
    f->requests = calloc((size_t)plan->window * regions, sizeof *f->requests);
    f->staging = malloc(bytes);
    if (!f->requests || !f->staging) return CS_TRACE(CS_ERR_RUNTIME);
    return CS_OK;
}

static cs_status_t fan_teardown(cs_ctx_t *c)
{
    cs_fan_t *f = fan_of(c);
    if (f == NULL) return CS_OK;
    if (f->block) c->mem->free(f->block);
    free(f->requests);
    free(f->staging);
    free(f);
    c->state = NULL;
    return CS_OK;
}

/* Data flows towards `receiver`: the hub in fan-in, the peers in fan-out. */
CS_HOT static cs_status_t fan_iterations(cs_ctx_t *c, long first, long n)
{
    (void)first;
    cs_fan_t *f = fan_of(c);
    const int count = cs_ctx_count(c), window = c->window, lo = f->first_partner, hi = f->last_partner;
    const MPI_Datatype type = cs_mpi_datatype(c->dtype);
    const bool receives = f->receives;
    for (long i = 0; i < n; i++) {
        int k = 0;
        for (int p = lo; p <= hi; p++) {
            for (int w = 0; w < window; w++, k++) {
                if (receives) CS_MPI(MPI_Irecv(slot(c, p, w), count, type, p, TAG_DATA, c->comm, &f->requests[k]));
                else CS_MPI(MPI_Isend(slot(c, p, w), count, type, p, TAG_DATA, c->comm, &f->requests[k]));
            }
        }
        CS_MPI(MPI_Waitall(k, f->requests, MPI_STATUSES_IGNORE));
        /* the receiving side acknowledges, so a window ends when it has arrived */
        for (int p = lo; p <= hi; p++) {
            if (receives) CS_MPI(MPI_Send(&f->ack, 1, MPI_CHAR, p, TAG_ACK, c->comm));
            else CS_MPI(MPI_Recv(&f->ack, 1, MPI_CHAR, p, TAG_ACK, c->comm, MPI_STATUS_IGNORE));
        }
    }
    return CS_OK;
}

/* Buffer p/w carries the sender's sequence for (peer, slot): misrouted windows show. */
static cs_status_t fan_fill(cs_ctx_t *c, long iteration)
{
    (void)iteration;
    cs_fan_t *f = fan_of(c);
    if (!c->active) return CS_OK;
    int slots = c->window < f->distinct ? c->window : f->distinct;
    for (int p = f->first_partner; p <= f->last_partner; p++) {
        int peer = f->hub ? p : c->rank;
        for (int w = 0; w < slots; w++) {
            if (f->receives) cs_pattern_fill_unlike(f->staging, c->size, peer, c->size, w);
            else cs_pattern_fill(f->staging, c->size, peer, c->size, w);
            CS_CHECK(c->mem->from_host(slot(c, p, w), f->staging, c->size));
        }
    }
    return CS_OK;
}

static cs_status_t fan_check(cs_ctx_t *c, long iteration, long *wrong)
{
    (void)iteration;
    cs_fan_t *f = fan_of(c);
    *wrong = 0;
    if (!c->active || !f->receives) return CS_OK;
    int slots = c->window < f->distinct ? c->window : f->distinct;
    for (int p = f->first_partner; p <= f->last_partner; p++) {
        int peer = f->hub ? p : c->rank;
        for (int w = 0; w < slots; w++) {
            CS_CHECK(c->mem->to_host(f->staging, slot(c, p, w), c->size));
            *wrong += cs_pattern_mismatches(f->staging, c->size, peer, c->size, w);
        }
    }
    return CS_OK;
}

#define FAN_PATTERN(name_, direction_)                                                                                 \
    {                                                                                                                  \
        .name = name_, .direction = direction_, .barrier_each_iteration = false, .time_divisor = 1.0,                  \
        .timers = CS_TIMERS_SOME, .setup = fan_setup, .teardown = fan_teardown, .begin = cs_pattern_nothing,           \
        .iterations = fan_iterations, .end = cs_pattern_nothing, .fill = fan_fill, .check = fan_check                  \
    }

const cs_pattern_t cs_pattern_fan_in = FAN_PATTERN("fan_in", CS_DIR_IN);
const cs_pattern_t cs_pattern_fan_out = FAN_PATTERN("fan_out", CS_DIR_OUT);
