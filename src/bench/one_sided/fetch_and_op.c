/* MPI_Fetch_and_op with MPI_SUM on one element: osu_fop_latency. OMB 7.4 takes -T for it
 * (MPI_CHAR by default) and reports the element's size as the message size. */
#include "patterns/rma_op.h"

static const cs_rma_op_t op = {.call = CS_RMA_FETCH_AND_OP, .fetches = true, .update = CS_RMA_SUM};

const cs_bench_t cs_bench_fop_latency = {
    .name = "fop_latency",
    .description = "one-sided MPI_Fetch_and_op (MPI_SUM, one element of -T) latency (us); -w, -s",
    .osu_title = "MPI_Fetch_and_op latency Test",
    .osu_value_label = "Latency (us)",
    .osu_leading_blank = false,
    .pattern = CS_PATTERN_RMA,
    .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY,
    .caps = CS_CAP_TWO_RANKS | CS_CAP_RMA | CS_CAP_FIXED_SIZE | CS_CAP_DATATYPES,
    .default_min_size = 1,
    .directions = 1,
    .osu_layout = CS_OSU_POINT_TO_POINT,
    .rma = &op,
    .rma_syncs = CS_RMA_ALL_SYNCS,
    .default_win = CS_WIN_ALLOCATE,
    .default_sync = CS_SYNC_FLUSH};
