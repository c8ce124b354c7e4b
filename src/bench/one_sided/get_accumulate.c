/* MPI_Get_accumulate with MPI_SUM: osu_get_acc_latency. Unlike OMB's other one-sided
 * tests, OMB 7.4's sets no window or synchronisation of its own, so it runs with its
 * option defaults: MPI_Win_create and MPI_Win_lock/unlock. */
#include "patterns/rma_op.h"

static const cs_rma_op_t op = {.call = CS_RMA_GET_ACCUMULATE, .fetches = true, .update = CS_RMA_SUM};

const cs_bench_t cs_bench_get_acc_latency = CS_RMA_BENCH(
    "get_acc_latency", "MPI_Get_accumulate latency Test", "one-sided MPI_Get_accumulate (MPI_SUM) latency (us); -w, -s",
    CS_PATTERN_RMA, op, CS_METRIC_LATENCY, 0, CS_RMA_ALL_SYNCS, CS_WIN_CREATE, CS_SYNC_LOCK, 1);
