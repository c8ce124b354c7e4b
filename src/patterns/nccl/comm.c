/* The NCCL communicator: rank 0 makes the unique id, MPI_Bcast hands it to every rank. */
#include <stdio.h>
#include <stdlib.h>

#include "mem/gpu.h"
#include "mpi/check.h"
#include "patterns/nccl/nccl.h"

cs_status_t cs_nccl_failed(ncclResult_t rc, const char *call, const char *file, int line)
{
    fprintf(stderr, "commscope-bench: %s: %s (%s:%d)\n", call, ncclGetErrorString(rc), file, line);
    return CS_ERR_RUNTIME;
}

static cs_status_t open_comm(cs_ctx_t *c)
{
    cs_nccl_t *n = calloc(1, sizeof *n);
    if (n == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    c->nccl = n;
    ncclUniqueId id;
    if (c->rank == 0) CS_NCCL(ncclGetUniqueId(&id));
    CS_MPI(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, c->comm));
    void *stream = NULL;
    CS_CHECK(cs_gpu_stream_create(&stream));
    n->stream = (cudaStream_t)stream;
    CS_NCCL(ncclCommInitRank(&n->comm, c->nranks, id, c->rank));
    return CS_OK;
}

static cs_status_t close_comm(cs_ctx_t *c)
{
    cs_nccl_t *n = cs_nccl_of(c);
    if (n == NULL) return CS_OK;
    cs_status_t st = CS_OK;
    if (n->stream) st = cs_gpu_stream_sync(n->stream);
    if (n->comm && ncclCommDestroy(n->comm) != ncclSuccess) st = CS_TRACE(CS_ERR_RUNTIME);
    cs_gpu_stream_destroy(n->stream);
    free(n);
    c->nccl = NULL;
    return st;
}

cs_status_t cs_nccl_setup(cs_ctx_t *c, cs_status_t (*family_setup)(cs_ctx_t *c))
{
    CS_CHECK(family_setup(c));
    return open_comm(c);
}

cs_status_t cs_nccl_teardown(cs_ctx_t *c, cs_status_t (*family_teardown)(cs_ctx_t *c))
{
    cs_status_t st = close_comm(c);
    cs_status_t st2 = family_teardown(c);
    return st != CS_OK ? st : st2;
}

ncclDataType_t cs_nccl_datatype(cs_dtype_t t)
{
    switch (t) {
    case CS_DT_INT: return ncclInt32;
    case CS_DT_FLOAT: return ncclFloat32;
    case CS_DT_DOUBLE: return ncclFloat64;
    case CS_DT_LONG_LONG: return ncclInt64;
    default: return ncclInt8;
    }
}
