/* osu_latency_mp: the ping-pong of latency between ranks that have each forked processes
 * (-t SEND:RECV, OMB's default 1:2), which wait beside them until the run ends. */
#include "core/bench.h"

const cs_bench_t cs_bench_latency_mp = {
    .name = "latency_mp",
    .description = "ping-pong latency of ranks that forked -t SEND:RECV processes beside them (us)",
    .osu_title = "Multi-process Latency Test",
    .osu_value_label = "Avg Latency(us)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_PINGPONG_FORKED,
    .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY,
    .caps = CS_CAP_TWO_RANKS | CS_CAP_DATATYPES | CS_CAP_PINGPONG | CS_CAP_FORKS,
    .default_min_size = 0,
    .directions = 1,
};
