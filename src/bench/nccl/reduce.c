/* ncclReduce (sum): nccl_reduce, nccl-tests' reduce_perf. */
#include "bench/nccl/nccl_bench.h"

#if CS_NCCL_CALLS
CS_NCCL_LAUNCH(reduce)
{
    (void)esize;
    return ncclReduce(a->sbuf, a->rbuf, (size_t)a->count, type, ncclSum, a->root, n->comm, n->stream);
}
#endif

CS_NCCL_COLLECTIVE(reduce, "Reduce", "element-wise sum of every rank's vector, at the root (ncclReduce)",
                   cs_flow_reduce, CS_CAP_ROOT);
