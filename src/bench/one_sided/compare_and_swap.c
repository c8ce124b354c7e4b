/* MPI_Compare_and_swap on one element: osu_cas_latency. The comparand is the target's
 * current value, so every operation swaps (and validation sees it). OMB 7.4 takes -T for
 * it (MPI_CHAR by default) and reports the element's size as the message size; MPI
 * defines compare-and-swap on integer types only, so mpi_float and mpi_double are refused. */
#include "patterns/rma_op.h"

static const cs_rma_op_t op = {.call = CS_RMA_COMPARE_AND_SWAP, .fetches = true, .update = CS_RMA_SWAP};

const cs_bench_t cs_bench_cas_latency = {
    .name = "cas_latency",
    .description = "one-sided MPI_Compare_and_swap (one element of -T: mpi_char, mpi_int) latency (us); -w, -s",
    .osu_title = "MPI_Compare_and_swap latency Test",
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
    .default_sync = CS_SYNC_FLUSH,
    .dtypes_allowed = CS_MASK(CS_DT_CHAR) | CS_MASK(CS_DT_INT)};
