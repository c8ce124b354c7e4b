/* NCCL one-way bandwidth: a window of ncclSend in one group, then a 1-byte
 * acknowledgement (OMB's osu_xccl_bw). */
#include "core/bench.h"

const cs_bench_t cs_bench_nccl_bw = {
    .name = "nccl_bw",
    .description = "one-way bandwidth between two GPUs, windows of ncclSend in a group (MB/s)",
    .osu_title = "NCCL Bandwidth Test",
    .osu_value_label = "Bandwidth (MB/s)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_NCCL_WINDOW_UNI,
    .metric = CS_METRIC_BANDWIDTH,
    .iter_class = CS_ITERS_BANDWIDTH,
    .caps = CS_CAP_TWO_RANKS | CS_CAP_WINDOW | CS_CAP_NCCL,
    .default_min_size = 1,
    .directions = 1,
};
