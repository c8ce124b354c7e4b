/* osu_latency_persistent, osu_bw_persistent, osu_bibw_persistent: the ping-pong and the
 * windows of latency, bw and bibw with persistent requests (MPI_Send_init / MPI_Recv_init
 * once per size, MPI_Start / MPI_Startall every iteration). */
#include "core/bench.h"

#define PERSISTENT(bench_name, title, desc, pattern_, label, metric_, iters, caps_, min_size, dirs)                    \
    {                                                                                                                  \
        .name = bench_name, .description = desc, .osu_title = title, .osu_value_label = label,                         \
        .osu_leading_blank = true, .pattern = pattern_, .metric = metric_, .iter_class = iters,                        \
        .caps = CS_CAP_TWO_RANKS | CS_CAP_DATATYPES | (caps_), .default_min_size = min_size, .directions = dirs,       \
        .send_mode = CS_SEND_PERSISTENT                                                                                \
    }

const cs_bench_t cs_bench_latency_persistent =
    PERSISTENT("latency_persistent", "Latency Persistent Test",
               "ping-pong latency with persistent requests, MPI_Start + MPI_Wait per message (us)", CS_PATTERN_PINGPONG,
               "Avg Latency(us)", CS_METRIC_LATENCY, CS_ITERS_LATENCY, CS_CAP_PINGPONG, 0, 1);
const cs_bench_t cs_bench_bw_persistent =
    PERSISTENT("bw_persistent", "Bandwidth Persistent Test",
               "one-way bandwidth, a window of persistent sends started with MPI_Startall (MB/s)",
               CS_PATTERN_WINDOW_UNI, "Bandwidth (MB/s)", CS_METRIC_BANDWIDTH, CS_ITERS_BANDWIDTH, CS_CAP_WINDOW, 1, 1);
const cs_bench_t cs_bench_bibw_persistent =
    PERSISTENT("bibw_persistent", "Bi-Directional Bandwidth Persistent Test",
               "bidirectional bandwidth, both ranks start windows of persistent requests at once (MB/s)",
               CS_PATTERN_WINDOW_BI, "Bandwidth (MB/s)", CS_METRIC_BANDWIDTH, CS_ITERS_BANDWIDTH, CS_CAP_WINDOW, 1, 2);
