/* Benchmark/option/rank-count fit, checked without MPI. */
#include "bench.h"
#include "check.h"

/* Descriptors as the registry has them, without their MPI patterns. */
static const cs_bench_t latency = {.name = "latency", .caps = CS_CAP_TWO_RANKS | CS_CAP_SEND_MODE,
                                   .iter_class = CS_ITERS_LATENCY, .directions = 1};
static const cs_bench_t bw = {.name = "bw", .caps = CS_CAP_TWO_RANKS | CS_CAP_WINDOW, .default_min_size = 1,
                              .iter_class = CS_ITERS_BANDWIDTH, .directions = 1};
static const cs_bench_t bibw = {.name = "bibw", .caps = CS_CAP_TWO_RANKS | CS_CAP_WINDOW, .directions = 2};
static const cs_bench_t mbw_mr = {
    .name = "mbw_mr",
    .caps = CS_CAP_PAIRS | CS_CAP_ALL_PAIRS | CS_CAP_WINDOW | CS_CAP_VARY_WINDOW | CS_CAP_RATE,
    .default_min_size = 1, .iter_class = CS_ITERS_BANDWIDTH, .directions = 1};
static const cs_bench_t multi_lat = {.name = "multi_lat", .caps = CS_CAP_ALL_PAIRS | CS_CAP_SEND_MODE,
                                     .iter_class = CS_ITERS_LATENCY, .directions = 1};

int main(void)
{
    cs_opts_t o;
    cs_plan_t p;
    char err[256];

    cs_opts_init(&o);
    CHECK(cs_bench_plan(&latency, &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.min_size == 0 && p.max_size == (size_t)1 << 22 && p.pairs == 1 && p.window == 1);
    CHECK(cs_bench_plan(&bw, &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.min_size == 1 && p.window == 64 && p.buffer_bytes == (size_t)2 << 22);

    CHECK(cs_bench_plan(&latency, &o, 3, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "latency needs exactly 2 ranks, got 3");
    CHECK(cs_bench_plan(&bw, &o, 1, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK(cs_bench_plan(&mbw_mr, &o, 5, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "mbw_mr needs an even number of ranks (at least 2), got 5");
    CHECK(cs_bench_plan(&multi_lat, &o, 3, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK(cs_bench_plan(&mbw_mr, &o, 8, &p, err, sizeof err) == CS_OK);
    CHECK(p.pairs == 4);
    CHECK(cs_bench_plan(&multi_lat, &o, 6, &p, err, sizeof err) == CS_OK);
    CHECK(p.pairs == 3);

    o.pairs = 2, o.pairs_set = true;
    CHECK(cs_bench_plan(&mbw_mr, &o, 8, &p, err, sizeof err) == CS_OK);
    CHECK(p.pairs == 2);
    o.pairs = 5;
    CHECK(cs_bench_plan(&mbw_mr, &o, 8, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-p 5: 8 ranks make at most 4 pairs");
    CHECK(cs_bench_plan(&multi_lat, &o, 8, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-p does not apply to multi_lat");

    cs_opts_init(&o);
    o.window_set = true;
    CHECK(cs_bench_plan(&latency, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-W does not apply to latency");
    cs_opts_init(&o);
    o.send_mode_set = true, o.send_mode = CS_SEND_SYNC;
    CHECK(cs_bench_plan(&bw, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "--send-mode does not apply to bw");
    cs_opts_init(&o);
    o.vary_window = true;
    CHECK(cs_bench_plan(&bibw, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-V does not apply to bibw");

    /* memory: 2 x max size (x slots with -b multiple) must fit under -M */
    cs_opts_init(&o);
    o.max_size = (size_t)256 << 20, o.max_size_set = true;
    CHECK(cs_bench_plan(&bw, &o, 2, &p, err, sizeof err) == CS_OK);
    o.max_size = (size_t)257 << 20;
    CHECK(cs_bench_plan(&bw, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "message size 269484032 needs 514 MiB of buffers per process, over the memory limit of 512 MiB (-M)");
    o.max_size = (size_t)1 << 20, o.buffers = CS_BUFFERS_MULTIPLE;
    o.mem_limit = (size_t)64 << 20;
    CHECK(cs_bench_plan(&bw, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE); /* 2 x 64 x 1 MiB */
    o.mem_limit = (size_t)128 << 20;
    CHECK(cs_bench_plan(&bw, &o, 2, &p, err, sizeof err) == CS_OK);
    cs_opts_init(&o);
    o.mem_limit = (size_t)-1;
    o.max_size = (size_t)3 << 30, o.max_size_set = true;
    CHECK(cs_bench_plan(&latency, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "MPI counts are int");

    cs_opts_init(&o);
    o.send_mode = CS_SEND_BUFFERED, o.send_mode_set = true;
    o.max_size = (size_t)1 << 30, o.max_size_set = true, o.mem_limit = (size_t)4 << 30;
    CHECK(cs_bench_plan(&latency, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "--send-mode bsend: messages above");

    cs_opts_init(&o);
    o.min_size = 64, o.min_size_set = true;
    CHECK(cs_bench_plan(&latency, &o, 2, &p, err, sizeof err) == CS_OK); /* MAX defaults to 4M */
    o.max_size = 32, o.max_size_set = true;
    CHECK(cs_bench_plan(&latency, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);

    /* OMB's default iteration tables, split at 8 KiB */
    long it, wu;
    cs_opts_init(&o);
    cs_bench_iterations(&latency, &o, 8192, &it, &wu);
    CHECK(it == 10000 && wu == 100);
    cs_bench_iterations(&latency, &o, 8193, &it, &wu);
    CHECK(it == 1000 && wu == 10);
    cs_bench_iterations(&bw, &o, 1, &it, &wu);
    CHECK(it == 100 && wu == 10);
    cs_bench_iterations(&bw, &o, 1 << 20, &it, &wu);
    CHECK(it == 20 && wu == 2);
    o.iterations = 7, o.iterations_set = true, o.warmup = 0, o.warmup_set = true;
    cs_bench_iterations(&bw, &o, 1 << 20, &it, &wu);
    CHECK(it == 7 && wu == 0);

    CHECK_NEAR(cs_bench_bytes_per_iteration(&bibw, 1000, 64, 1), 128000, 0);
    CHECK_NEAR(cs_bench_bytes_per_iteration(&mbw_mr, 1000, 16, 4), 64000, 0);
    return check_report("test_plan");
}
