/* NCCL patterns: MPI only starts them (rank 0's ncclGetUniqueId, MPI_Bcast), then every
 * operation is an NCCL call on one CUDA stream. Timing: the host clock around a batch of
 * launches ended by cudaStreamSynchronize, as nccl-tests times its loop (events would time
 * the GPU alone and miss launch costs that a host-driven application pays). nccl.h
 * brings the CUDA runtime's types; nothing outside patterns/nccl and mem/cuda.c sees them. */
#ifndef CS_PATTERN_NCCL_H
#define CS_PATTERN_NCCL_H

#include <nccl.h>

#include "core/pattern.h"
#include "patterns/collective.h"

typedef struct cs_nccl {
    ncclComm_t comm;
    cudaStream_t stream;
} cs_nccl_t;

/* An NCCL collective, launched on n->stream with the collective family's arguments. */
typedef struct cs_nccl_op {
    ncclResult_t (*launch)(const cs_coll_args_t *a, ncclDataType_t type, size_t esize, const cs_nccl_t *n);
} cs_nccl_op_t;

static inline cs_nccl_t *cs_nccl_of(const cs_ctx_t *c) { return c->nccl; }

/* An NCCL pattern's set-up: its family's (the MPI patterns' buffers and checks,
 * cs_coll_setup or cs_pair_setup), then the communicator over every rank and the stream. */
cs_status_t cs_nccl_setup(cs_ctx_t *c, cs_status_t (*family_setup)(cs_ctx_t *c));
/* The reverse: the communicator and stream, then the family's teardown even when the first
 * failed (the first error is returned); safe on a half-made set-up. */
cs_status_t cs_nccl_teardown(cs_ctx_t *c, cs_status_t (*family_teardown)(cs_ctx_t *c));

ncclDataType_t cs_nccl_datatype(cs_dtype_t t);

cs_status_t cs_nccl_failed(ncclResult_t rc, const char *call, const char *file, int line);
#define CS_NCCL(call)                                                                                                  \
    do {                                                                                                               \
        ncclResult_t cs_nrc_ = (call);                                                                                 \
        if (cs_nrc_ != ncclSuccess) return cs_nccl_failed(cs_nrc_, #call, __FILE__, __LINE__);                         \
    } while (0)

#endif
