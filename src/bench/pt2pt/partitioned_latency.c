/* osu_partitioned_latency (OMB 7.5): the ping-pong of latency with MPI-4 partitioned
 * requests, each message in -q partitions (default 8) marked ready one by one. */
#include "core/bench.h"

/* the MPI-free registry of the unit tests plans it as a build with the feature would */
#if defined CS_HAVE_PARTITIONED || defined CS_DESCRIPTORS_ONLY
#define UNAVAILABLE NULL
#else
#define UNAVAILABLE "built against an MPI library without MPI-4 partitioned communication (MPI_Psend_init, ...)"
#endif

const cs_bench_t cs_bench_partitioned_latency = {
    .name = "partitioned_latency",
    .description = "ping-pong latency with MPI-4 partitioned requests, -q partitions per message (us)",
    .osu_title = "Partitioned Latency Test",
    .osu_value_label = "Avg Latency(us)",
    .osu_leading_blank = true,
    .pattern = CS_PATTERN_PINGPONG,
    .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY,
    .caps = CS_CAP_TWO_RANKS | CS_CAP_DATATYPES | CS_CAP_PINGPONG | CS_CAP_PARTITIONED,
    .default_min_size = 0,
    .directions = 1,
    .send_mode = CS_SEND_PARTITIONED,
    .unavailable = UNAVAILABLE,
};
