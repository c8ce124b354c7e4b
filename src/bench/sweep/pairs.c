/* Link sweeps: latency, bandwidth and bidirectional bandwidth of every pair of a
 * schedule (--schedule one-to-all|all-pairs|ring|FILE) in one job, a record per pair. */
#include "core/bench.h"

const cs_bench_t cs_bench_pairs = {
    .name = "pairs",
    .description = "latency, bw and bibw of every rank pair of a schedule (--schedule), a round's pairs at once",
    .osu_title = "Pair Sweep Test",
    .osu_value_label = "Latency(us)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_PAIRS,
    .metric = CS_METRIC_BANDWIDTH,
    .iter_class = CS_ITERS_BANDWIDTH,
    .caps = CS_CAP_SCHEDULE | CS_CAP_WINDOW,
    .default_min_size = CS_PAIRS_DEFAULT_LAT_SIZE,
    .default_max_size = CS_PAIRS_DEFAULT_BW_SIZE,
    .directions = 1,
    .osu_layout = CS_OSU_PAIRS,
};
