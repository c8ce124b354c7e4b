/* osu_latency: ping-pong between two ranks, half the round trip. */
#include "core/bench.h"

const cs_bench_t cs_bench_latency = {
    .name = "latency",
    .description = "ping-pong latency between two ranks (half round trip, us); --send-mode picks the send call",
    .osu_title = "Latency Test",
    .osu_value_label = "Avg Latency(us)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_PINGPONG,
    .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY,
    .caps = CS_CAP_TWO_RANKS | CS_CAP_SEND_MODE | CS_CAP_DATATYPES,
    .default_min_size = 0,
    .directions = 1,
};
