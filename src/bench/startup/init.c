/* osu_init: how long MPI_Init takes, min/avg/max over ranks (ms). */
#include "core/bench.h"

const cs_bench_t cs_bench_init = {
    .name = "init",
    .description = "time of MPI_Init from the start of the program, min/max/avg over ranks (ms)",
    .osu_title = "Init Test",
    .osu_value_label = "Avg Latency(us)",
    .pattern = CS_PATTERN_INIT,
    .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY,
    .caps = CS_CAP_STARTUP | CS_CAP_SIZELESS,
    .directions = 1,
    .osu_layout = CS_OSU_INIT,
};
