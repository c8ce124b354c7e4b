/* Collective patterns: blocking (t_start; MPI_Bcast; t_stop; MPI_Barrier, as OMB times
 * them), non-blocking (start + wait, then OMB's overlap phase) and MPI-4 persistent
 * (start + wait of a request made once per size and root). The collective itself is the
 * benchmark's cs_coll_ops_t; how it moves data (buffers, validation) is its cs_flow_t. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "patterns/collective.h"
#include "core/hot.h"
#include "mpi/check.h"
#include "util/topo.h"

typedef struct cs_coll {
    cs_coll_args_t args;
    const cs_flow_t *flow;
    const cs_coll_ops_t *ops;
    void *sbuf, *rbuf;
    size_t sbytes, rbytes;
    uint8_t *staging_s, *staging_r; /* host copies for filling and checking (-c) */
    int nslots;                     /* entries of the per-peer arrays */
    int *scounts, *sdispls, *rcounts, *rdispls, *sbdispls, *rbdispls;
    MPI_Aint *sadispls, *radispls;
    MPI_Datatype *stypes, *rtypes;
    MPI_Comm nbr_comm; /* neighbourhood collectives: the distributed graph */
    int indegree, outdegree;
    const int *sources, *destinations;
    MPI_Request *persistent; /* one per root with -k rotate, else one */
    int npersistent;
    bool rotating; /* -k rotate: the root (and a root-only MPI_IN_PLACE) changes every iteration */
} cs_coll_t;

static cs_coll_t *coll_of(const cs_ctx_t *c) { return c->state; }

cs_status_t cs_coll_setup(cs_ctx_t *c)
{
    const cs_run_info_t *info = c->info;
    cs_coll_t *s = calloc(1, sizeof *s);
    if (s == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    c->state = s;
    c->active = c->timer = true;
    s->flow = info->bench->flow;
    s->ops = info->bench->coll;
    s->nbr_comm = MPI_COMM_NULL;
    if (info->bench->caps & CS_CAP_NEIGHBOR) {
        const cs_topo_t *t = info->topo;
        s->indegree = t->indegree[c->rank];
        s->outdegree = t->outdegree[c->rank];
        s->sources = t->sources[c->rank];
        s->destinations = t->destinations[c->rank];
        /* unit weights, as OMB passes them; Open MPI's MPI_UNWEIGHTED is a pointer constant
         * that GCC takes for a zero-sized array (-Wstringop-overread) */
        int most = s->indegree > s->outdegree ? s->indegree : s->outdegree;
        int *weights = malloc((size_t)(most > 0 ? most : 1) * sizeof *weights);
        if (weights == NULL) return CS_TRACE(CS_ERR_RUNTIME);
        for (int i = 0; i < most; i++) weights[i] = 1;
        int rc = MPI_Dist_graph_create_adjacent(c->comm, s->indegree, s->sources, weights, s->outdegree,
                                                s->destinations, weights, MPI_INFO_NULL, 0, &s->nbr_comm);
        free(weights);
        CS_MPI(rc);
        CS_MPI(MPI_Comm_set_errhandler(s->nbr_comm, MPI_ERRORS_RETURN));
    }
    size_t max = info->plan->max_size;
    s->sbytes = max * cs_span_blocks(s->flow->send, c->nranks, s->indegree, s->outdegree);
    s->rbytes = max * cs_span_blocks(s->flow->recv, c->nranks, s->indegree, s->outdegree);
    CS_CHECK(c->mem->alloc(s->sbytes, &s->sbuf));
    CS_CHECK(c->mem->alloc(s->rbytes, &s->rbuf));
    s->staging_s = malloc(s->sbytes ? s->sbytes : 1);
    s->staging_r = malloc(s->rbytes ? s->rbytes : 1);
    int n = c->nranks;
    if (s->indegree > n) n = s->indegree;
    if (s->outdegree > n) n = s->outdegree;
    s->nslots = n;
    size_t un = (size_t)n;
    s->scounts = calloc(un, sizeof(int));
    s->sdispls = calloc(un, sizeof(int));
    s->rcounts = calloc(un, sizeof(int));
    s->rdispls = calloc(un, sizeof(int));
    s->sbdispls = calloc(un, sizeof(int));
    s->rbdispls = calloc(un, sizeof(int));
    s->sadispls = calloc(un, sizeof(MPI_Aint));
    s->radispls = calloc(un, sizeof(MPI_Aint));
    s->stypes = calloc(un, sizeof(MPI_Datatype));
    s->rtypes = calloc(un, sizeof(MPI_Datatype));
    s->persistent = calloc((size_t)c->nranks, sizeof(MPI_Request));
    if (!s->staging_s || !s->staging_r || !s->scounts || !s->sdispls || !s->rcounts || !s->rdispls || !s->sbdispls ||
        !s->rbdispls || !s->sadispls || !s->radispls || !s->stypes || !s->rtypes || !s->persistent)
        return CS_TRACE(CS_ERR_RUNTIME);
    return CS_OK;
}

cs_status_t cs_coll_teardown(cs_ctx_t *c)
{
    cs_coll_t *s = coll_of(c);
    if (s == NULL) return CS_OK;
    if (s->sbuf) c->mem->free(s->sbuf);
    if (s->rbuf) c->mem->free(s->rbuf);
    void *arrays[] = {s->staging_s, s->staging_r, s->scounts,  s->sdispls, s->rcounts, s->rdispls,   s->sbdispls,
                      s->rbdispls,  s->sadispls,  s->radispls, s->stypes,  s->rtypes,  s->persistent};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(arrays[i]);
    cs_status_t st = CS_OK;
    if (s->nbr_comm != MPI_COMM_NULL && MPI_Comm_free(&s->nbr_comm) != MPI_SUCCESS) st = CS_TRACE(CS_ERR_RUNTIME);
    free(s);
    c->state = NULL;
    return st;
}

/* Whether this rank passes MPI_IN_PLACE when `root` is the root (-l). */
static bool passes_in_place(const cs_ctx_t *c, int root)
{
    const cs_flow_t *f = coll_of(c)->flow;
    return c->info->opts->in_place && f->inplace != CS_INPLACE_NONE && (!f->inplace_root_only || c->rank == root);
}

/* The arguments of every call at the current size and datatype. */
static void prepare(cs_ctx_t *c)
{
    cs_coll_t *s = coll_of(c);
    cs_coll_args_t *a = &s->args;
    size_t esize = cs_dtype_size(c->dtype);
    int count = (int)(c->size / esize);
    MPI_Datatype type = cs_mpi_datatype(c->dtype);
    for (int j = 0; j < s->nslots; j++) {
        s->scounts[j] = s->rcounts[j] = count;
        s->sdispls[j] = s->rdispls[j] = j * count;
        s->sbdispls[j] = s->rbdispls[j] = (int)((size_t)j * (size_t)count * esize);
        s->sadispls[j] = s->radispls[j] = (MPI_Aint)j * count * (MPI_Aint)esize;
        s->stypes[j] = s->rtypes[j] = type;
    }
    if (s->flow->reduces && s->flow->segment != CS_SEGMENT_NONE)
        for (int r = 0; r < c->nranks; r++) {
            size_t offset, len;
            cs_flow_segment(s->flow, (size_t)count, c->nranks, r, &offset, &len);
            s->rcounts[r] = (int)len;
        }
    *a = (cs_coll_args_t){.comm = s->nbr_comm != MPI_COMM_NULL ? s->nbr_comm : c->comm,
                          .sbuf = s->sbuf,
                          .rbuf = s->rbuf,
                          .count = count,
                          .type = type,
                          .op = MPI_SUM,
                          .root = 0,
                          .rank = c->rank,
                          .scounts = s->scounts,
                          .sdispls = s->sdispls,
                          .rcounts = s->rcounts,
                          .rdispls = s->rdispls,
                          .sbdispls = s->sbdispls,
                          .rbdispls = s->rbdispls,
                          .sadispls = s->sadispls,
                          .radispls = s->radispls,
                          .stypes = s->stypes,
                          .rtypes = s->rtypes};
    int root = c->info->plan->root;
    s->rotating = root < 0;
    a->root = s->rotating ? 0 : root;
    a->in_place = passes_in_place(c, a->root);
}

/* Root and MPI_IN_PLACE of iteration i: set once in prepare unless the root rotates, so
 * that a fixed-root iteration runs nothing before its MPI call. */
static void place(cs_ctx_t *c, long i)
{
    cs_coll_t *s = coll_of(c);
    if (!s->rotating) return;
    s->args.root = (int)(i % c->nranks);
    s->args.in_place = passes_in_place(c, s->args.root);
}

const cs_coll_args_t *cs_coll_place(cs_ctx_t *c, long i)
{
    place(c, i);
    return &coll_of(c)->args;
}

cs_status_t cs_coll_begin(cs_ctx_t *c)
{
    prepare(c);
    return CS_OK;
}

static cs_status_t coll_end(cs_ctx_t *c)
{
    (void)c;
    return CS_OK;
}

/* One iteration: the timed loop hands barrier-separated iterations over one at a time.
 * Kept out of line so that blocking_iterations reaches it by a jump, and nothing is
 * saved or restored around the MPI call inside the clock. */
CS_HOT __attribute__((noinline)) static cs_status_t blocking_one(cs_ctx_t *c, long i)
{
    cs_coll_t *s = coll_of(c);
    place(c, i);
    CS_MPI(s->ops->blocking(&s->args));
    return CS_OK;
}

__attribute__((noinline)) static cs_status_t blocking_many(cs_ctx_t *c, long first, long n)
{
    for (long i = first; i < first + n; i++) CS_CHECK(blocking_one(c, i));
    return CS_OK;
}

CS_HOT static cs_status_t blocking_iterations(cs_ctx_t *c, long first, long n)
{
    return n == 1 ? blocking_one(c, first) : blocking_many(c, first, n);
}

CS_HOT static cs_status_t nbc_start(cs_ctx_t *c, long i, MPI_Request *req)
{
    cs_coll_t *s = coll_of(c);
    place(c, i);
    CS_MPI(s->ops->start(&s->args, req));
    return CS_OK;
}

CS_HOT static cs_status_t nbc_iterations(cs_ctx_t *c, long first, long n)
{
    for (long i = first; i < first + n; i++) {
        MPI_Request req;
        CS_CHECK(nbc_start(c, i, &req));
        CS_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    return CS_OK;
}

/* Persistent: the requests are made outside the clock, one per root when it rotates. */
static cs_status_t persistent_begin(cs_ctx_t *c)
{
    cs_coll_t *s = coll_of(c);
    prepare(c);
    bool rotate = (c->info->bench->caps & CS_CAP_ROOT) && c->info->plan->root < 0;
    s->npersistent = rotate ? c->nranks : 1;
    for (int r = 0; r < s->npersistent; r++) {
        place(c, rotate ? r : 0);
        CS_MPI(s->ops->init(&s->args, &s->persistent[r]));
    }
    return CS_OK;
}

CS_HOT static cs_status_t persistent_iterations(cs_ctx_t *c, long first, long n)
{
    cs_coll_t *s = coll_of(c);
    for (long i = first; i < first + n; i++) {
        MPI_Request *req = &s->persistent[s->npersistent > 1 ? i % s->npersistent : 0];
        CS_MPI(MPI_Start(req));
        CS_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
    }
    return CS_OK;
}

static cs_status_t persistent_end(cs_ctx_t *c)
{
    cs_coll_t *s = coll_of(c);
    for (int r = 0; r < s->npersistent; r++) CS_MPI(MPI_Request_free(&s->persistent[r]));
    s->npersistent = 0;
    return CS_OK;
}

/* ---- validation: every rank can compute every rank's input, so each checks its own result ---- */

static cs_flow_env_t env_of(const cs_ctx_t *c)
{
    const cs_coll_t *s = coll_of(c);
    return (cs_flow_env_t){.me = c->rank,
                           .nranks = c->nranks,
                           .root = s->args.root,
                           .indegree = s->indegree,
                           .outdegree = s->outdegree,
                           .sources = s->sources,
                           .destinations = s->destinations,
                           .in_place = s->args.in_place};
}

cs_status_t cs_coll_fill(cs_ctx_t *c, long iteration)
{
    cs_coll_t *s = coll_of(c);
    const cs_flow_t *f = s->flow;
    prepare(c);
    place(c, iteration);
    cs_flow_env_t e = env_of(c);
    cs_dtype_t t = c->dtype;
    size_t esize = cs_dtype_size(t), count = (size_t)s->args.count;
    long long bound = cs_flow_bound(f, t, c->nranks);
    /* -1 is never an expected value: everything not written below is wrong if it arrives */
    for (size_t i = 0; i < s->sbytes / esize; i++) cs_dtype_store(t, s->staging_s, i, -1);
    for (size_t i = 0; i < s->rbytes / esize; i++) cs_dtype_store(t, s->staging_r, i, -1);
    /* where this rank's input goes: MPI_IN_PLACE reads it from the receive buffer */
    uint8_t *input = s->staging_s;
    size_t first_block = 0;
    if (e.in_place && f->inplace == CS_INPLACE_WHOLE) input = s->staging_r;
    if (e.in_place && f->inplace == CS_INPLACE_OWN_BLOCK) input = s->staging_r, first_block = (size_t)c->rank;
    int blocks = f->send_blocks(&e);
    for (int k = 0; k < blocks; k++)
        for (size_t i = 0; i < count; i++)
            cs_dtype_store(t, input, (first_block + (size_t)k) * count + i,
                           cs_flow_value(c->rank, f->send_tag(&e, k), i, bound));
    CS_CHECK(c->mem->from_host(s->sbuf, s->staging_s, s->sbytes));
    CS_CHECK(c->mem->from_host(s->rbuf, s->staging_r, s->rbytes));
    return CS_OK;
}

cs_status_t cs_coll_check(cs_ctx_t *c, long iteration, long *wrong)
{
    cs_coll_t *s = coll_of(c);
    const cs_flow_t *f = s->flow;
    place(c, iteration);
    cs_flow_env_t e = env_of(c);
    cs_dtype_t t = c->dtype;
    size_t count = (size_t)s->args.count;
    long long bound = cs_flow_bound(f, t, c->nranks);
    *wrong = 0;
    int blocks = f->recv_blocks(&e);
    if (blocks == 0) return CS_OK;
    CS_CHECK(c->mem->to_host(s->staging_r, s->rbuf, s->rbytes));
    if (f->reduces) {
        size_t offset, len;
        cs_flow_segment(f, count, c->nranks, c->rank, &offset, &len);
        for (size_t i = 0; i < len; i++)
            *wrong += !cs_dtype_equals(t, s->staging_r, i, cs_flow_sum(c->nranks, offset + i, bound));
        return CS_OK;
    }
    for (int j = 0; j < blocks; j++) {
        int sender, tag;
        f->recv_from(&e, j, &sender, &tag);
        for (size_t i = 0; i < count; i++)
            *wrong += !cs_dtype_equals(t, s->staging_r, (size_t)j * count + i, cs_flow_value(sender, tag, i, bound));
    }
    return CS_OK;
}

#define COLL_PATTERN(name_, begin_, iter_, end_, start_)                                                               \
    {                                                                                                                  \
        .name = name_, .barrier_each_iteration = true, .time_divisor = 1.0, .timers = CS_TIMERS_EVERY,                 \
        .setup = cs_coll_setup, .teardown = cs_coll_teardown, .begin = begin_, .iterations = iter_, .end = end_,       \
        .fill = cs_coll_fill, .check = cs_coll_check, .start = start_                                                  \
    }

const cs_pattern_t cs_pattern_collective =
    COLL_PATTERN("collective", cs_coll_begin, blocking_iterations, coll_end, NULL);
const cs_pattern_t cs_pattern_nbc = COLL_PATTERN("nbc_overlap", cs_coll_begin, nbc_iterations, coll_end, nbc_start);
const cs_pattern_t cs_pattern_persistent =
    COLL_PATTERN("persistent_collective", persistent_begin, persistent_iterations, persistent_end, NULL);
