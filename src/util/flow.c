#include "util/flow.h"

#include <math.h>
#include <stdint.h>

size_t cs_span_blocks(cs_span_t s, int nranks, int indegree, int outdegree)
{
    static const int none = 0, one = 1;
    const int *by_span[] = {[CS_SPAN_NONE] = &none,
                            [CS_SPAN_ONE] = &one,
                            [CS_SPAN_ALL] = &nranks,
                            [CS_SPAN_IN] = &indegree,
                            [CS_SPAN_OUT] = &outdegree};
    return (size_t)*by_span[s];
}

size_t cs_flow_buffer_bytes(const cs_flow_t *f, size_t size, int nranks, int indegree, int outdegree)
{
    return size * (cs_span_blocks(f->send, nranks, indegree, outdegree) +
                   cs_span_blocks(f->recv, nranks, indegree, outdegree));
}

double cs_busbw_factor(cs_busbw_kind_t k, int nranks)
{
    double n = nranks;
    const double by_kind[] = {[CS_BUSBW_NONE] = NAN,
                              [CS_BUSBW_ONE] = 1.0,
                              [CS_BUSBW_RING] = (n - 1) / n,
                              [CS_BUSBW_ALLREDUCE] = 2 * (n - 1) / n};
    return by_kind[k];
}

void cs_flow_bandwidth(const cs_flow_t *f, size_t size, int nranks, double seconds, double *algbw_GBps,
                       double *busbw_GBps)
{
    if (f->busbw == CS_BUSBW_NONE || !(seconds > 0)) {
        *algbw_GBps = *busbw_GBps = NAN;
        return;
    }
    double bytes = (double)size * (double)cs_span_blocks(f->algbw_bytes, nranks, 0, 0);
    *algbw_GBps = bytes / seconds / 1e9;
    *busbw_GBps = *algbw_GBps * cs_busbw_factor(f->busbw, nranks);
}

void cs_flow_segment(const cs_flow_t *f, size_t count, int nranks, int r, size_t *offset, size_t *len)
{
    size_t n = (size_t)nranks, ur = (size_t)r, base = count / n, extra = count % n;
    switch (f->segment) {
    case CS_SEGMENT_SPLIT:
        *len = base + (ur < extra);
        *offset = ur * base + (ur < extra ? ur : extra);
        return;
    case CS_SEGMENT_BLOCK:
        *len = base;
        *offset = ur * base;
        return;
    default: *offset = 0; *len = count;
    }
}

long long cs_flow_bound(const cs_flow_t *f, cs_dtype_t t, int nranks)
{
    long long max = cs_dtype_exact_max(t);
    return f->reduces ? max / nranks : max;
}

long long cs_flow_value(int sender, int tag, size_t element, long long bound)
{
    /* a multiplicative hash of the three inputs, so misrouted blocks are caught */
    uint64_t x = (uint64_t)element * 2654435761u ^ (uint64_t)(uint32_t)sender * 40503u ^
                 (uint64_t)(uint32_t)(tag + 1) * 2246822519u;
    x ^= x >> 15;
    x *= 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    return (long long)(x % (uint64_t)(bound + 1));
}

long long cs_flow_sum(int nranks, size_t element, long long bound)
{
    long long sum = 0;
    for (int s = 0; s < nranks; s++) sum += cs_flow_value(s, -1, element, bound);
    return sum;
}

/* ---- the flows: who sends which blocks, who receives them from whom ---- */

static int zero(const cs_flow_env_t *e)
{
    (void)e;
    return 0;
}
static int one(const cs_flow_env_t *e)
{
    (void)e;
    return 1;
}
static int all(const cs_flow_env_t *e) { return e->nranks; }
static int at_root_one(const cs_flow_env_t *e) { return e->me == e->root; }
static int at_root_all(const cs_flow_env_t *e) { return e->me == e->root ? e->nranks : 0; }
static int not_root_one(const cs_flow_env_t *e) { return e->me != e->root; }
static int indegree(const cs_flow_env_t *e) { return e->indegree; }
static int outdegree(const cs_flow_env_t *e) { return e->outdegree; }
/* scatter in place: the root keeps its own block and receives nothing */
static int scatter_receives(const cs_flow_env_t *e) { return !(e->in_place && e->me == e->root); }

static int untagged(const cs_flow_env_t *e, int k)
{
    (void)e, (void)k;
    return -1;
}
static int for_rank(const cs_flow_env_t *e, int k)
{
    (void)e;
    return k;
}
static int for_destination(const cs_flow_env_t *e, int k) { return e->destinations[k]; }

static void from_root(const cs_flow_env_t *e, int j, int *s, int *tag)
{
    (void)j;
    *s = e->root;
    *tag = -1;
}
static void from_root_for_me(const cs_flow_env_t *e, int j, int *s, int *tag)
{
    (void)j;
    *s = e->root;
    *tag = e->me;
}
static void from_rank(const cs_flow_env_t *e, int j, int *s, int *tag)
{
    (void)e;
    *s = j;
    *tag = -1;
}
static void from_rank_for_me(const cs_flow_env_t *e, int j, int *s, int *tag)
{
    *s = j;
    *tag = e->me;
}
static void from_source(const cs_flow_env_t *e, int j, int *s, int *tag)
{
    *s = e->sources[j];
    *tag = -1;
}
static void from_source_for_me(const cs_flow_env_t *e, int j, int *s, int *tag)
{
    *s = e->sources[j];
    *tag = e->me;
}
/* reductions: the block holds sums, checked with cs_flow_sum */
static void summed(const cs_flow_env_t *e, int j, int *s, int *tag)
{
    (void)e, (void)j;
    *s = -1;
    *tag = -1;
}

const cs_flow_t cs_flow_barrier = {.name = "barrier",
                                   .send = CS_SPAN_NONE,
                                   .recv = CS_SPAN_NONE,
                                   .algbw_bytes = CS_SPAN_NONE,
                                   .busbw = CS_BUSBW_NONE,
                                   .send_blocks = zero,
                                   .send_tag = untagged,
                                   .recv_blocks = zero,
                                   .recv_from = from_rank};
const cs_flow_t cs_flow_bcast = {.name = "bcast",
                                 .send = CS_SPAN_ONE,
                                 .recv = CS_SPAN_ONE,
                                 .algbw_bytes = CS_SPAN_ONE,
                                 .busbw = CS_BUSBW_ONE,
                                 .rooted = true,
                                 .send_blocks = at_root_one,
                                 .send_tag = untagged,
                                 .recv_blocks = not_root_one,
                                 .recv_from = from_root};
const cs_flow_t cs_flow_gather = {.name = "gather",
                                  .send = CS_SPAN_ONE,
                                  .recv = CS_SPAN_ALL,
                                  .algbw_bytes = CS_SPAN_ALL,
                                  .busbw = CS_BUSBW_RING,
                                  .rooted = true,
                                  .inplace = CS_INPLACE_OWN_BLOCK,
                                  .inplace_root_only = true,
                                  .send_blocks = one,
                                  .send_tag = untagged,
                                  .recv_blocks = at_root_all,
                                  .recv_from = from_rank};
const cs_flow_t cs_flow_scatter = {.name = "scatter",
                                   .send = CS_SPAN_ALL,
                                   .recv = CS_SPAN_ONE,
                                   .algbw_bytes = CS_SPAN_ALL,
                                   .busbw = CS_BUSBW_RING,
                                   .rooted = true,
                                   .inplace = CS_INPLACE_ROOT_KEEPS,
                                   .inplace_root_only = true,
                                   .send_blocks = at_root_all,
                                   .send_tag = for_rank,
                                   .recv_blocks = scatter_receives,
                                   .recv_from = from_root_for_me};
const cs_flow_t cs_flow_allgather = {.name = "allgather",
                                     .send = CS_SPAN_ONE,
                                     .recv = CS_SPAN_ALL,
                                     .algbw_bytes = CS_SPAN_ALL,
                                     .busbw = CS_BUSBW_RING,
                                     .inplace = CS_INPLACE_OWN_BLOCK,
                                     .send_blocks = one,
                                     .send_tag = untagged,
                                     .recv_blocks = all,
                                     .recv_from = from_rank};
const cs_flow_t cs_flow_alltoall = {.name = "alltoall",
                                    .send = CS_SPAN_ALL,
                                    .recv = CS_SPAN_ALL,
                                    .algbw_bytes = CS_SPAN_ALL,
                                    .busbw = CS_BUSBW_RING,
                                    .inplace = CS_INPLACE_WHOLE,
                                    .send_blocks = all,
                                    .send_tag = for_rank,
                                    .recv_blocks = all,
                                    .recv_from = from_rank_for_me};
const cs_flow_t cs_flow_reduce = {.name = "reduce",
                                  .send = CS_SPAN_ONE,
                                  .recv = CS_SPAN_ONE,
                                  .algbw_bytes = CS_SPAN_ONE,
                                  .busbw = CS_BUSBW_ONE,
                                  .rooted = true,
                                  .reduces = true,
                                  .inplace = CS_INPLACE_WHOLE,
                                  .inplace_root_only = true,
                                  .send_blocks = one,
                                  .send_tag = untagged,
                                  .recv_blocks = at_root_one,
                                  .recv_from = summed};
const cs_flow_t cs_flow_allreduce = {.name = "allreduce",
                                     .send = CS_SPAN_ONE,
                                     .recv = CS_SPAN_ONE,
                                     .algbw_bytes = CS_SPAN_ONE,
                                     .busbw = CS_BUSBW_ALLREDUCE,
                                     .reduces = true,
                                     .inplace = CS_INPLACE_WHOLE,
                                     .send_blocks = one,
                                     .send_tag = untagged,
                                     .recv_blocks = one,
                                     .recv_from = summed};
const cs_flow_t cs_flow_reduce_scatter = {.name = "reduce_scatter",
                                          .send = CS_SPAN_ONE,
                                          .recv = CS_SPAN_ONE,
                                          .algbw_bytes = CS_SPAN_ONE,
                                          .busbw = CS_BUSBW_RING,
                                          .reduces = true,
                                          .segment = CS_SEGMENT_SPLIT,
                                          .inplace = CS_INPLACE_WHOLE,
                                          .send_blocks = one,
                                          .send_tag = untagged,
                                          .recv_blocks = one,
                                          .recv_from = summed};
const cs_flow_t cs_flow_reduce_scatter_block = {.name = "reduce_scatter_block",
                                                .send = CS_SPAN_ONE,
                                                .recv = CS_SPAN_ONE,
                                                .algbw_bytes = CS_SPAN_ONE,
                                                .busbw = CS_BUSBW_RING,
                                                .reduces = true,
                                                .segment = CS_SEGMENT_BLOCK,
                                                .inplace = CS_INPLACE_WHOLE,
                                                .send_blocks = one,
                                                .send_tag = untagged,
                                                .recv_blocks = one,
                                                .recv_from = summed};
const cs_flow_t cs_flow_neighbor_allgather = {.name = "neighbor_allgather",
                                              .send = CS_SPAN_ONE,
                                              .recv = CS_SPAN_IN,
                                              .algbw_bytes = CS_SPAN_NONE,
                                              .busbw = CS_BUSBW_NONE,
                                              .send_blocks = one,
                                              .send_tag = untagged,
                                              .recv_blocks = indegree,
                                              .recv_from = from_source};
const cs_flow_t cs_flow_neighbor_alltoall = {.name = "neighbor_alltoall",
                                             .send = CS_SPAN_OUT,
                                             .recv = CS_SPAN_IN,
                                             .algbw_bytes = CS_SPAN_NONE,
                                             .busbw = CS_BUSBW_NONE,
                                             .send_blocks = outdegree,
                                             .send_tag = for_destination,
                                             .recv_blocks = indegree,
                                             .recv_from = from_source_for_me};
