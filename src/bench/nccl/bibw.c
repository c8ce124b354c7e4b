/* NCCL bidirectional bandwidth: both GPUs send and receive a window in one group (OMB's
 * osu_xccl_bibw). */
#include "core/bench.h"

const cs_bench_t cs_bench_nccl_bibw = {
    .name = "nccl_bibw",
    .description = "two-way bandwidth between two GPUs, windows of ncclSend/ncclRecv in a group (MB/s)",
    .osu_title = "NCCL Bi-Directional Bandwidth Test",
    .osu_value_label = "Bandwidth (MB/s)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_NCCL_WINDOW_BI,
    .metric = CS_METRIC_BANDWIDTH,
    .iter_class = CS_ITERS_BANDWIDTH,
    .caps = CS_CAP_TWO_RANKS | CS_CAP_WINDOW | CS_CAP_NCCL,
    .default_min_size = 1,
    .directions = 2,
};
