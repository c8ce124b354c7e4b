/* ncclReduceScatter (sum): nccl_reduce_scatter, nccl-tests' reduce_scatter_perf. NCCL's
 * blocks are equal, so the flow is MPI_Reduce_scatter_block's: count/n elements each. */
#include "bench/nccl/nccl_bench.h"

#if CS_NCCL_CALLS
CS_NCCL_LAUNCH(reduce_scatter)
{
    (void)esize;
    int nranks;
    ncclResult_t rc = ncclCommCount(n->comm, &nranks);
    if (rc != ncclSuccess) return rc;
    return ncclReduceScatter(a->sbuf, a->rbuf, (size_t)a->count / (size_t)nranks, type, ncclSum, n->comm, n->stream);
}
#endif

CS_NCCL_COLLECTIVE(reduce_scatter, "Reduce_scatter",
                   "element-wise sum of every rank's vector, one block of it to each rank (ncclReduceScatter)",
                   cs_flow_reduce_scatter_block, 0);
