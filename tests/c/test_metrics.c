#include "check.h"
#include "util/flow.h"
#include "core/metrics.h"

static const cs_bench_t latency = {.name = "latency", .metric = CS_METRIC_LATENCY, .directions = 1};
static const cs_bench_t bw = {.name = "bw", .metric = CS_METRIC_BANDWIDTH, .directions = 1};
static const cs_bench_t bibw = {.name = "bibw", .metric = CS_METRIC_BANDWIDTH, .directions = 2};

/* A measurement of `nsamples` iterations, a sample each (seconds per operation or window),
 * whose timed total comes to `mean_s` an iteration. */
static cs_measurement_t measured(size_t size, int window, int pairs, double *samples_s, size_t nsamples, double mean_s)
{
    return (cs_measurement_t){.size = size,
                              .window = window,
                              .pairs = pairs,
                              .iterations = (long)nsamples,
                              .batch = 1,
                              .mean_iteration_s = mean_s,
                              .samples_s = samples_s,
                              .nsamples = nsamples};
}

/* As a collective's reduction leaves it: every rank timed, the fastest and slowest rank's mean. */
static cs_measurement_t across_ranks(cs_measurement_t m, int nranks, double rank_min_s, double rank_max_s)
{
    m.across_ranks = true;
    m.nranks = nranks;
    m.rank_min_s = rank_min_s;
    m.rank_max_s = rank_max_s;
    return m;
}

int main(void)
{
    cs_opts_t o;
    cs_opts_init(&o);
    o.percentiles[0] = 50, o.percentiles[1] = 99, o.npercentiles = 2;
    cs_record_t r;

    /* latency: one-way seconds in, microseconds out */
    double lat[] = {4e-6, 1e-6, 3e-6, 2e-6};
    cs_measurement_t m = measured(8, 1, 1, lat, 4, 2.5e-6);
    m.warmup = 1;
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
    cs_measurement_t b = measured(1000, 10, 1, win, 2, 15e-6);
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
    cs_measurement_t two = measured(1000, 10, 3, bi, 1, 10e-6);
    cs_record_compute(&bibw, &o, &two, &r);
    CHECK_NEAR(r.bandwidth_MBps, 2.0 * 1000 * 10 * 3 / 10, 1e-9);
    CHECK_NEAR(r.message_rate, 60 / 10e-6, 1e-3);
    /* collectives: Min/Max are the fastest and slowest rank's mean; busbw from the flow */
    static const cs_bench_t allreduce = {.name = "allreduce",
                                         .metric = CS_METRIC_LATENCY,
                                         .directions = 1,
                                         .caps = CS_CAP_COLLECTIVE,
                                         .flow = &cs_flow_allreduce};
    double avg[] = {2e-6, 4e-6};
    cs_measurement_t c = across_ranks(measured(1000, 1, 1, avg, 2, 3e-6), 4, 1e-6, 5e-6);
    c.dtype = CS_DT_INT;
    cs_record_compute(&allreduce, &o, &c, &r);
    CHECK_NEAR(r.latency_us, 3, 1e-12);
    CHECK_NEAR(r.min_latency_us, 1, 1e-12);
    CHECK_NEAR(r.max_latency_us, 5, 1e-12);
    CHECK(r.dtype == CS_DT_INT);
    CHECK_NEAR(r.algbw_GBps, 1000 / 3e-6 / 1e9, 1e-12);
    CHECK_NEAR(r.busbw_GBps, r.algbw_GBps * 1.5, 1e-12); /* 2(n-1)/n at n = 4 */
    CHECK(r.overall_us == 0 && r.overlap_pct == 0);      /* no overlap phase */

    /* non-blocking: OMB's overlap = max(0, 100 - (overall - (compute - test)) / pure * 100) */
    CHECK_NEAR(cs_overlap_pct(10, 8, 1, 5), 100 - (10 - 7) / 5.0 * 100, 1e-12);
    CHECK_NEAR(cs_overlap_pct(10, 5, 0, 5), 0, 1e-12);  /* nothing hidden */
    CHECK_NEAR(cs_overlap_pct(20, 5, 0, 5), 0, 1e-12);  /* never negative */
    CHECK_NEAR(cs_overlap_pct(5, 5, 0, 5), 100, 1e-12); /* all of it hidden */
    CHECK_NEAR(cs_overlap_pct(5, 5, 0, 0), 0, 1e-12);   /* no communication time measured */
    double nb[] = {5e-6};
    cs_measurement_t n = across_ranks(measured(8, 1, 1, nb, 1, 5e-6), 2, 4e-6, 6e-6);
    n.has_overlap = true;
    n.overlap = (cs_overlap_t){.overall = 8e-6, .compute = 6e-6, .test = 1e-6, .wait = 1.5e-6, .init = 0.5e-6};
    cs_record_compute(&allreduce, &o, &n, &r);
    CHECK_NEAR(r.overall_us, 8, 1e-9);
    CHECK_NEAR(r.compute_us, 5, 1e-9); /* the compute column leaves the MPI_Test time out */
    CHECK_NEAR(r.test_us, 1, 1e-9);
    CHECK_NEAR(r.wait_us, 1.5, 1e-9);
    CHECK_NEAR(r.init_us, 0.5, 1e-9);
    CHECK_NEAR(r.pure_comm_us, 5, 1e-9);
    CHECK_NEAR(r.min_comm_us, 4, 1e-9);
    CHECK_NEAR(r.max_comm_us, 6, 1e-9);
    CHECK_NEAR(r.overlap_pct, 40, 1e-9);

    /* issue 15: samples stay within their bound whatever -i says; past it a sample is the
     * mean of a batch of consecutive iterations */
    CHECK(cs_min_batch(1000, CS_MAX_SAMPLES) == 1 && cs_min_batch(CS_MAX_SAMPLES, CS_MAX_SAMPLES) == 1);
    CHECK(cs_min_batch(CS_MAX_SAMPLES + 1, CS_MAX_SAMPLES) == 2);
    CHECK(cs_min_batch(100000000, CS_MAX_SAMPLES) == 96); /* barrier -i 1e8: 96 iterations a sample */
    CHECK(cs_samples_of(100000000, 96) == 1041667 && cs_samples_of(100000000, 96) <= CS_MAX_SAMPLES);
    for (long it = 1; it <= 5000; it += 7) /* every count, a small bound: never more samples than it */
        for (long cap = 1; cap <= 64; cap *= 4) CHECK(cs_samples_of(it, cs_min_batch(it, cap)) <= cap);
    CHECK(cs_samples_of(10, 4) == 3 && cs_samples_of(10, 1) == 10);

    /* barrier -i 20000 and -i 200000 under a bound of 4096 samples (--debug-max-samples): each
     * rank's array and rank 0's gathered one are as large for ten times the iterations, the
     * iterations fold into batches of 5 and 49, and neither count passes the bound; without a
     * bound a rank would keep 8 B per iteration */
    for (int ranks = 1; ranks <= 8; ranks *= 2) {
        long small = cs_sample_cap(20000, 4096, ranks), large = cs_sample_cap(200000, 4096, ranks);
        CHECK(small == 4096 / ranks && large == small); /* the same memory, whatever -i */
        CHECK(large * ranks <= 4096);                   /* rank 0's gathered samples too */
        CHECK(cs_samples_of(200000, cs_min_batch(200000, large)) <= large);
    }
    CHECK(cs_min_batch(20000, cs_sample_cap(20000, 4096, 1)) == 5);
    CHECK(cs_samples_of(20000, 5) == 4000);
    CHECK(cs_min_batch(200000, cs_sample_cap(200000, 4096, 1)) == 49);
    CHECK(cs_samples_of(200000, 49) == 4082);
    /* the default bound: 2^20 doubles a rank (8 MiB) for barrier -i 1e8; a short run keeps
     * only what it measures, and the smallest array is one sample */
    CHECK(cs_sample_cap(100000000, 0, 1) == CS_MAX_SAMPLES && cs_sample_cap(1000, 0, 1) == 1000);
    CHECK(cs_sample_cap(100000000, 0, 4) == CS_MAX_SAMPLES / 4);
    CHECK(cs_sample_cap(0, 0, 1) == 1 && cs_sample_cap(10, 3, 8) == 1);
    return check_report("test_metrics");
}
