/* MPI_Accumulate with MPI_SUM: osu_acc_latency. */
#include "patterns/rma_op.h"

static const cs_rma_op_t op = {.call = CS_RMA_ACCUMULATE, .fetches = false, .update = CS_RMA_SUM};

const cs_bench_t cs_bench_acc_latency = CS_RMA_BENCH(
    "acc_latency", "MPI_Accumulate latency Test", "one-sided MPI_Accumulate (MPI_SUM) latency (us); -w, -s",
    CS_PATTERN_RMA, op, CS_METRIC_LATENCY, 0, CS_RMA_ALL_SYNCS, CS_WIN_ALLOCATE, CS_SYNC_FLUSH, 1);
