/* Congestion (GPCNeT's network_load_test on any allocation): canary tests measured alone
 * and beside congestor traffic on the other ranks, the impact factor of each; with
 * --canary-fraction 0, congestor traffic only, a load for other jobs. */
#include "core/bench.h"

const cs_bench_t cs_bench_congestion = {
    .name = "congestion",
    .description = "canary tests alone and beside congestors on the other ranks (--congestor), impact factors",
    .osu_title = "Congestion Test",
    .osu_value_label = "Impact avg",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_CONGESTION,
    .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY,
    .caps = CS_CAP_CONGESTION,
    .default_min_size = CS_CANARY_LAT_SIZE,
    .default_max_size = CS_CANARY_BW_SIZE,
    .directions = 1,
    .osu_layout = CS_OSU_CONGESTION,
};
