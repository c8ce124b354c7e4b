/* NCCL ping-pong: ncclSend then ncclRecv between two GPUs (OMB's osu_xccl_latency). */
#include "core/bench.h"

const cs_bench_t cs_bench_nccl_latency = {
    .name = "nccl_latency",
    .description = "ping-pong latency between two GPUs, ncclSend/ncclRecv (us)",
    .osu_title = "NCCL Latency Test",
    .osu_value_label = "Avg Latency(us)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_NCCL_PINGPONG,
    .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY,
    .caps = CS_CAP_TWO_RANKS | CS_CAP_NCCL,
    .default_min_size = 0,
    .directions = 1,
};
