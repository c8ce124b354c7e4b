/* How a collective moves data, as plain data and small functions: buffer extents, the
 * algorithm and bus bandwidth of nccl-tests, and which rank's block lands where (the
 * expected result of a validation pass). Every collective benchmark names its flow;
 * blocking, non-blocking, persistent and v/w forms of one collective share it. MPI-free. */
#ifndef CS_FLOW_H
#define CS_FLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "util/dtype.h"

/* A buffer extent or byte count, in blocks of one message size. */
typedef enum cs_span {
    CS_SPAN_NONE,
    CS_SPAN_ONE,
    CS_SPAN_ALL, /* one block per rank of the communicator */
    CS_SPAN_IN,  /* one block per in-neighbour (neighbourhood collectives) */
    CS_SPAN_OUT, /* one block per out-neighbour */
} cs_span_t;

/* nccl-tests' busbw = algbw x factor (doc/PERFORMANCE.md). */
typedef enum cs_busbw_kind {
    CS_BUSBW_NONE,      /* no data, or no nccl-tests definition (barrier, neighbourhood) */
    CS_BUSBW_ONE,       /* broadcast, reduce */
    CS_BUSBW_RING,      /* (n-1)/n: allgather, reduce_scatter, alltoall, gather, scatter */
    CS_BUSBW_ALLREDUCE, /* 2(n-1)/n */
} cs_busbw_kind_t;

/* Where MPI_IN_PLACE takes a rank's input from (-l). */
typedef enum cs_inplace {
    CS_INPLACE_NONE,      /* the collective has no in-place form */
    CS_INPLACE_WHOLE,     /* the receive buffer holds the input and gets the result */
    CS_INPLACE_OWN_BLOCK, /* the rank's block already sits at its place in the receive buffer */
    CS_INPLACE_ROOT_KEEPS /* scatter: the root keeps its block where it is and receives nothing */
} cs_inplace_t;

/* How a reduction's result is cut among ranks. */
typedef enum cs_segment {
    CS_SEGMENT_NONE,  /* every receiving rank gets the whole vector */
    CS_SEGMENT_SPLIT, /* reduce_scatter: count/n each, the first count%n ranks one more */
    CS_SEGMENT_BLOCK, /* reduce_scatter_block: count/n each */
} cs_segment_t;

/* One rank's place in the collective. */
typedef struct cs_flow_env {
    int me, nranks, root;
    int indegree, outdegree;
    const int *sources, *destinations; /* neighbourhood lists of this rank */
    bool in_place;                     /* this call uses MPI_IN_PLACE */
} cs_flow_env_t;

typedef struct cs_flow {
    const char *name;
    cs_span_t send, recv;  /* largest buffer extents over all roles */
    cs_span_t algbw_bytes; /* nccl-tests' algbw numerator */
    cs_busbw_kind_t busbw;
    bool rooted;
    bool reduces; /* the result is the element-wise sum over ranks */
    cs_segment_t segment;
    cs_inplace_t inplace;
    bool inplace_root_only; /* gather, scatter, reduce: only the root may pass MPI_IN_PLACE */
    /* Send blocks this rank fills, and the tag block k carries: the rank it is meant for,
     * or -1 when every receiver gets the same data. */
    int (*send_blocks)(const cs_flow_env_t *e);
    int (*send_tag)(const cs_flow_env_t *e, int k);
    /* Receive blocks this rank checks, and the sender and tag of block j. */
    int (*recv_blocks)(const cs_flow_env_t *e);
    void (*recv_from)(const cs_flow_env_t *e, int j, int *sender, int *tag);
} cs_flow_t;

extern const cs_flow_t cs_flow_barrier, cs_flow_bcast, cs_flow_gather, cs_flow_scatter, cs_flow_allgather,
    cs_flow_alltoall, cs_flow_reduce, cs_flow_allreduce, cs_flow_reduce_scatter, cs_flow_reduce_scatter_block,
    cs_flow_neighbor_allgather, cs_flow_neighbor_alltoall;

size_t cs_span_blocks(cs_span_t s, int nranks, int indegree, int outdegree);

/* Send plus receive bytes one process needs at message size `size`. */
size_t cs_flow_buffer_bytes(const cs_flow_t *f, size_t size, int nranks, int indegree, int outdegree);

double cs_busbw_factor(cs_busbw_kind_t k, int nranks);

/* nccl-tests' algorithm and bus bandwidth, GB/s (10^9 B/s), for one operation of
 * `seconds`. NaN when the flow has no definition. */
void cs_flow_bandwidth(const cs_flow_t *f, size_t size, int nranks, double seconds, double *algbw_GBps,
                       double *busbw_GBps);

/* Reductions: the part of a `count`-element vector rank r receives. */
void cs_flow_segment(const cs_flow_t *f, size_t count, int nranks, int r, size_t *offset, size_t *len);

/* Validation data. Every value is in [0, bound]; a reduction's bound keeps the sum over
 * all ranks exact in the type (no MPI_CHAR overflow: OMB's false failures on Open MPI). */
long long cs_flow_bound(const cs_flow_t *f, cs_dtype_t t, int nranks);
long long cs_flow_value(int sender, int tag, size_t element, long long bound);
/* Expected element of a reduction's result: the sum over senders. */
long long cs_flow_sum(int nranks, size_t element, long long bound);

#endif
