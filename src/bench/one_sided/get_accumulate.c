/* MPI_Get_accumulate with MPI_SUM: osu_get_acc_latency. */
#include "patterns/rma_op.h"

static const cs_rma_op_t op = {.call = CS_RMA_GET_ACCUMULATE, .fetches = true, .update = CS_RMA_SUM};

const cs_bench_t cs_bench_get_acc_latency = CS_RMA_BENCH(
    "get_acc_latency", "MPI_Get_accumulate latency Test", "one-sided MPI_Get_accumulate (MPI_SUM) latency (us); -w, -s",
    CS_PATTERN_RMA, op, CS_METRIC_LATENCY, 0, CS_RMA_ALL_SYNCS, CS_SYNC_FLUSH, 1);
