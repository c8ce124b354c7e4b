/* osu_multi_lat: every rank i ping-pongs with rank i+n/2 at once; mean over pairs. */
#include "core/bench.h"

const cs_bench_t cs_bench_multi_lat = {
    .name = "multi_lat",
    .description = "multi-pair latency, rank i ping-pongs with rank i+n/2, mean over pairs (us)",
    .osu_title = "Multi Latency Test",
    .osu_value_label = "Avg Latency(us)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_MULTI_PINGPONG,
    .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY,
    .caps = CS_CAP_ALL_PAIRS | CS_CAP_SEND_MODE | CS_CAP_DATATYPES,
    .default_min_size = 0,
    .directions = 1,
};
