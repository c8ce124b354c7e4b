/* osu_bw: a window of non-blocking sends from rank 0 to rank 1, then an acknowledgement. */
#include "core/bench.h"

const cs_bench_t cs_bench_bw = {
    .name = "bw",
    .description = "one-way bandwidth between two ranks, windows of non-blocking sends (MB/s)",
    .osu_title = "Bandwidth Test",
    .osu_value_label = "Bandwidth (MB/s)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_WINDOW_UNI,
    .metric = CS_METRIC_BANDWIDTH,
    .iter_class = CS_ITERS_BANDWIDTH,
    .caps = CS_CAP_TWO_RANKS | CS_CAP_WINDOW | CS_CAP_DATATYPES,
    .default_min_size = 1,
    .directions = 1,
};
