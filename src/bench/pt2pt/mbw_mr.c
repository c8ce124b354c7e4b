/* osu_mbw_mr: ranks 0..p-1 each stream windows to rank i+p; aggregate MB/s and messages/s. */
#include "core/bench.h"

const cs_bench_t cs_bench_mbw_mr = {
    .name = "mbw_mr",
    .description = "multi-pair bandwidth and message rate, rank i sends to rank i+pairs (MB/s, messages/s)",
    .osu_title = "Multiple Bandwidth / Message Rate Test",
    .osu_value_label = "MB/s",
    .osu_leading_blank = false,
    .pattern = CS_PATTERN_MULTI_WINDOW_UNI,
    .metric = CS_METRIC_BANDWIDTH,
    .iter_class = CS_ITERS_BANDWIDTH,
    .caps = CS_CAP_PAIRS | CS_CAP_ALL_PAIRS | CS_CAP_WINDOW | CS_CAP_VARY_WINDOW | CS_CAP_RATE | CS_CAP_DATATYPES,
    .default_min_size = 1,
    .directions = 1,
};
