/* MPI_Get_accumulate with MPI_SUM: osu_get_acc_latency. */
#include "../rma.h"

static int get_accumulate(const cs_rma_args_t *a)
{
    return MPI_Get_accumulate(CS_RMA_AT(a->origin, a), a->count, a->type, CS_RMA_AT(a->result, a), a->count, a->type,
                              a->target, CS_RMA_DISP(a), a->count, a->type, MPI_SUM, a->win);
}

static const cs_rma_op_t op = {.fetches = true, .update = CS_RMA_SUM, .issue = get_accumulate};

const cs_bench_t cs_bench_get_acc_latency = CS_RMA_BENCH(
    "get_acc_latency", "MPI_Get_accumulate latency Test",
    "one-sided MPI_Get_accumulate (MPI_SUM) latency (us); -w, -s", cs_pattern_rma, op, CS_METRIC_LATENCY, 0,
    CS_RMA_ALL_SYNCS, CS_SYNC_FLUSH, 1);
