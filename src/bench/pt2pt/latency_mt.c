/* osu_latency_mt: ping-pong between rank 0's sender threads and rank 1's receiver threads
 * (-t SEND:RECV, OMB's default 1:2); needs MPI_THREAD_MULTIPLE. */
#include "core/bench.h"

const cs_bench_t cs_bench_latency_mt = {
    .name = "latency_mt",
    .description = "multi-threaded ping-pong latency, -t SEND:RECV threads, MPI_THREAD_MULTIPLE (us)",
    .osu_title = "Multi-threaded Latency Test",
    .osu_value_label = "Avg Latency(us)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_PINGPONG_THREADS,
    .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY,
    .caps = CS_CAP_TWO_RANKS | CS_CAP_DATATYPES | CS_CAP_PINGPONG | CS_CAP_THREADS,
    .default_min_size = 0,
    .directions = 1,
};
