/* ncclAllReduce (sum): nccl_allreduce, nccl-tests' all_reduce_perf. */
#include "bench/nccl/nccl_bench.h"

#if CS_NCCL_CALLS
CS_NCCL_LAUNCH(allreduce)
{
    (void)esize;
    return ncclAllReduce(a->sbuf, a->rbuf, (size_t)a->count, type, ncclSum, n->comm, n->stream);
}
#endif

CS_NCCL_COLLECTIVE(allreduce, "Allreduce", "element-wise sum of every rank's vector, to every rank (ncclAllReduce)",
                   cs_flow_allreduce, 0);
