/* osu_hello: start MPI on every rank and say how many there are; time it with `time mpirun`. */
#include "core/bench.h"

const cs_bench_t cs_bench_hello = {
    .name = "hello",
    .description = "start MPI and report the number of ranks (wrap it in `time mpirun`)",
    .osu_title = "Hello World Test",
    .osu_value_label = "",
    .pattern = CS_PATTERN_HELLO,
    .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY,
    .caps = CS_CAP_STARTUP | CS_CAP_SIZELESS | CS_CAP_NO_MEASURE,
    .directions = 1,
    .osu_layout = CS_OSU_HELLO,
};
