/* All-to-all as nccl-tests' alltoall_perf makes it: one NCCL group of a send and a
 * receive per peer (NCCL has no all-to-all call of its own in every version). */
#include "bench/nccl/nccl_bench.h"

#if CS_NCCL_CALLS
CS_NCCL_LAUNCH(alltoall)
{
    int nranks;
    ncclResult_t rc = ncclCommCount(n->comm, &nranks);
    if (rc != ncclSuccess) return rc;
    size_t block = (size_t)a->count * esize;
    if ((rc = ncclGroupStart()) != ncclSuccess) return rc;
    for (int p = 0; p < nranks && rc == ncclSuccess; p++) {
        rc = ncclSend((const char *)a->sbuf + (size_t)p * block, (size_t)a->count, type, p, n->comm, n->stream);
        if (rc == ncclSuccess)
            rc = ncclRecv((char *)a->rbuf + (size_t)p * block, (size_t)a->count, type, p, n->comm, n->stream);
    }
    ncclResult_t end = ncclGroupEnd();
    return rc != ncclSuccess ? rc : end;
}
#endif

CS_NCCL_COLLECTIVE(alltoall, "Alltoall", "a block from every rank to every rank (grouped ncclSend/ncclRecv)",
                   cs_flow_alltoall, 0);
