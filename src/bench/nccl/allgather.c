/* ncclAllGather: nccl_allgather, nccl-tests' all_gather_perf. */
#include "bench/nccl/nccl_bench.h"

#if CS_NCCL_CALLS
CS_NCCL_LAUNCH(allgather)
{
    (void)esize;
    return ncclAllGather(a->sbuf, a->rbuf, (size_t)a->count, type, n->comm, n->stream);
}
#endif

CS_NCCL_COLLECTIVE(allgather, "Allgather", "every rank's block to every rank (ncclAllGather)", cs_flow_allgather, 0);
