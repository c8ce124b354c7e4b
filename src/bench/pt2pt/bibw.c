/* osu_bibw: both ranks send a window to each other at the same time. */
#include "core/bench.h"

const cs_bench_t cs_bench_bibw = {
    .name = "bibw",
    .description = "bidirectional bandwidth between two ranks, both sending windows at once (MB/s)",
    .osu_title = "Bi-Directional Bandwidth Test",
    .osu_value_label = "Bandwidth (MB/s)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_WINDOW_BI,
    .metric = CS_METRIC_BANDWIDTH,
    .iter_class = CS_ITERS_BANDWIDTH,
    .caps = CS_CAP_TWO_RANKS | CS_CAP_WINDOW | CS_CAP_DATATYPES,
    .default_min_size = 1,
    .directions = 2,
};
