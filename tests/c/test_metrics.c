#include "check.h"
#include "metrics.h"

static const cs_bench_t latency = {.name = "latency", .metric = CS_METRIC_LATENCY, .directions = 1};
static const cs_bench_t bw = {.name = "bw", .metric = CS_METRIC_BANDWIDTH, .directions = 1};
static const cs_bench_t bibw = {.name = "bibw", .metric = CS_METRIC_BANDWIDTH, .directions = 2};

int main(void)
{
    cs_opts_t o;
    cs_opts_init(&o);
    o.percentiles[0] = 50, o.percentiles[1] = 99, o.npercentiles = 2;
    cs_record_t r;

    /* latency: one-way seconds in, microseconds out */
    double lat[] = {4e-6, 1e-6, 3e-6, 2e-6};
    cs_measurement_t m = {.size = 8, .window = 1, .pairs = 1, .iterations = 4, .warmup = 1, .batch = 1,
                          .mean_iteration_s = 2.5e-6, .samples_s = lat, .nsamples = 4};
    cs_record_compute(&latency, &o, &m, &r);
    CHECK(r.size == 8 && r.iterations == 4 && r.warmup == 1 && r.batch == 1);
    CHECK_NEAR(r.latency_us, 2.5, 1e-12);
    CHECK_NEAR(r.min_latency_us, 1, 1e-12);
    CHECK_NEAR(r.max_latency_us, 4, 1e-12);
    CHECK_NEAR(r.stats.mean, 2.5, 1e-12);
    CHECK_NEAR(r.percentile_values[0], 2, 1e-12); /* index round(2) - 1 */
    CHECK_NEAR(r.percentile_values[1], 4, 1e-12);

    /* bandwidth: 1000 B x window 10 per iteration; 10 us and 20 us samples, 15 us mean */
    double win[] = {20e-6, 10e-6};
    cs_measurement_t b = {.size = 1000, .window = 10, .pairs = 1, .iterations = 2, .warmup = 0, .batch = 1,
                          .mean_iteration_s = 15e-6, .samples_s = win, .nsamples = 2};
    cs_record_compute(&bw, &o, &b, &r);
    CHECK_NEAR(r.bandwidth_MBps, 10000.0 / 15, 1e-9);
    CHECK_NEAR(r.min_bandwidth_MBps, 500, 1e-9);
    CHECK_NEAR(r.max_bandwidth_MBps, 1000, 1e-9);
    CHECK_NEAR(r.message_rate, 10 / 15e-6, 1e-6);
    /* OMB ranks bandwidths ascending: P50 = 500 (slow sample), P99 = 1000 (fast sample) */
    CHECK_NEAR(r.percentile_values[0], 500, 1e-9);
    CHECK_NEAR(r.percentile_values[1], 1000, 1e-9);

    /* bibw counts both directions; multi-pair counts every pair */
    double bi[] = {10e-6};
    cs_measurement_t two = {.size = 1000, .window = 10, .pairs = 3, .iterations = 1, .samples_s = bi,
                            .nsamples = 1, .mean_iteration_s = 10e-6};
    cs_record_compute(&bibw, &o, &two, &r);
    CHECK_NEAR(r.bandwidth_MBps, 2.0 * 1000 * 10 * 3 / 10, 1e-9);
    CHECK_NEAR(r.message_rate, 60 / 10e-6, 1e-3);
    return check_report("test_metrics");
}
