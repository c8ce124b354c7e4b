/* ncclBroadcast: nccl_broadcast, nccl-tests' broadcast_perf. The root sends from and
 * keeps its buffer (in place, as MPI_Bcast), the others receive. */
#include "bench/nccl/nccl_bench.h"

#if CS_NCCL_CALLS
CS_NCCL_LAUNCH(broadcast)
{
    (void)esize;
    void *buf = CS_BCAST_BUF(a);
    return ncclBroadcast(buf, buf, (size_t)a->count, type, a->root, n->comm, n->stream);
}
#endif

CS_NCCL_COLLECTIVE(broadcast, "Broadcast", "the root's buffer to every rank (ncclBroadcast)", cs_flow_bcast,
                   CS_CAP_ROOT);
