/* osu_bw_fan_in and osu_bw_fan_out (OMB 7.4's congestion tests): aggregate bandwidth at
 * one hub with -p peers sending to it, or it sending to them. */
#include "core/bench.h"

#define FAN(bench_name, title, desc, pattern_)                                                                         \
    {                                                                                                                  \
        .name = bench_name, .description = desc, .osu_title = title, .osu_value_label = "Bandwidth (MB/s)",            \
        .osu_leading_blank = true, .pattern = pattern_, .metric = CS_METRIC_BANDWIDTH,                                 \
        .iter_class = CS_ITERS_BANDWIDTH, .caps = CS_CAP_FAN | CS_CAP_WINDOW | CS_CAP_DATATYPES,                       \
        .default_min_size = 1, .directions = 1                                                                         \
    }

const cs_bench_t cs_bench_bw_fan_in =
    FAN("bw_fan_in", "Fan-in Bandwidth Test",
        "congestion: -p peers (default every other rank) each send a window to rank 0 at once (MB/s at rank 0)",
        CS_PATTERN_FAN_IN);
const cs_bench_t cs_bench_bw_fan_out =
    FAN("bw_fan_out", "Fan-out Bandwidth Test",
        "congestion: rank 0 sends a window to each of -p peers (default every other rank) at once (MB/s at rank 0)",
        CS_PATTERN_FAN_OUT);
