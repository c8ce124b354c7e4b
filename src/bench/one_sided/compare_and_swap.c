/* MPI_Compare_and_swap on one MPI_LONG_LONG: osu_cas_latency. The comparand is the
 * target's current value, so every operation swaps (and validation sees it). */
#include "patterns/rma_op.h"

static const cs_rma_op_t op = {.call = CS_RMA_COMPARE_AND_SWAP, .fetches = true, .update = CS_RMA_SWAP};

#define ATOMIC_SIZE 8 /* one MPI_LONG_LONG */
const cs_bench_t cs_bench_cas_latency = {.name = "cas_latency",
                                         .description =
                                             "one-sided MPI_Compare_and_swap (one MPI_LONG_LONG) latency (us); -w, -s",
                                         .osu_title = "MPI_Compare_and_swap latency Test",
                                         .osu_value_label = "Latency (us)",
                                         .osu_leading_blank = false,
                                         .pattern = CS_PATTERN_RMA,
                                         .metric = CS_METRIC_LATENCY,
                                         .iter_class = CS_ITERS_LATENCY,
                                         .caps = CS_CAP_TWO_RANKS | CS_CAP_RMA | CS_CAP_FIXED_SIZE,
                                         .default_min_size = ATOMIC_SIZE,
                                         .directions = 1,
                                         .osu_layout = CS_OSU_POINT_TO_POINT,
                                         .rma = &op,
                                         .rma_syncs = CS_RMA_ALL_SYNCS,
                                         .default_sync = CS_SYNC_FLUSH,
                                         .dtype = CS_DT_LONG_LONG};
