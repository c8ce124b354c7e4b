/* Every reporter against golden files built from hand-made records.
 * CS_UPDATE_GOLDEN=1 rewrites the golden files (review the diff before committing). */
#include <stdlib.h>

#include "check.h"
#include "report.h"

#ifndef CS_GOLDEN_DIR
#error "CS_GOLDEN_DIR must name tests/c/golden"
#endif

static const cs_bench_t latency = {
    .name = "latency", .description = "ping-pong latency", .osu_title = "Latency Test",
    .osu_value_label = "Avg Latency(us)", .osu_leading_blank = true, .metric = CS_METRIC_LATENCY,
    .iter_class = CS_ITERS_LATENCY, .caps = CS_CAP_TWO_RANKS | CS_CAP_SEND_MODE, .directions = 1};
static const cs_bench_t bw = {
    .name = "bw", .description = "one-way bandwidth", .osu_title = "Bandwidth Test",
    .osu_value_label = "Bandwidth (MB/s)", .osu_leading_blank = true, .metric = CS_METRIC_BANDWIDTH,
    .iter_class = CS_ITERS_BANDWIDTH, .caps = CS_CAP_TWO_RANKS | CS_CAP_WINDOW, .default_min_size = 1,
    .directions = 1};
static const cs_bench_t mbw_mr = {
    .name = "mbw_mr", .description = "multi-pair \"bandwidth\"", .osu_title = "Multiple Bandwidth / Message Rate Test",
    .osu_value_label = "MB/s", .metric = CS_METRIC_BANDWIDTH, .iter_class = CS_ITERS_BANDWIDTH,
    .caps = CS_CAP_PAIRS | CS_CAP_ALL_PAIRS | CS_CAP_WINDOW | CS_CAP_VARY_WINDOW | CS_CAP_RATE,
    .default_min_size = 1, .directions = 1};

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static cs_record_t make_record(size_t size, int window, double value, long errors, bool validated)
{
    cs_record_t r = {0};
    r.size = size;
    r.window = window;
    r.iterations = size > 8192 ? 1000 : 10000;
    r.warmup = size > 8192 ? 10 : 100;
    r.batch = 50;
    r.stats = (cs_stats_t){.n = 200, .min = value * 0.9, .max = value * 1.5, .mean = value, .median = value,
                           .p50 = value, .p90 = value * 1.1, .p99 = value * 1.4, .stddev = value * 0.05,
                           .ci95_low = value * 0.99, .ci95_high = value * 1.01};
    r.latency_us = value;
    r.min_latency_us = value * 0.9;
    r.max_latency_us = value * 1.5;
    r.bandwidth_MBps = value * 1000;
    r.min_bandwidth_MBps = value * 900;
    r.max_bandwidth_MBps = value * 1100;
    r.message_rate = value * 1e6;
    r.percentile_values[0] = value;
    r.percentile_values[1] = value * 1.1;
    r.percentile_values[2] = value * 1.4;
    r.validated = validated;
    r.errors = errors;
    return r;
}

static void golden(const char *name, const cs_reporter_ops_t *ops, const cs_run_info_t *info,
                   const cs_record_t *recs, size_t n, cs_run_status_t status)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", CS_GOLDEN_DIR, name);
    FILE *tmp = tmpfile();
    cs_reporter_t r;
    cs_reporter_init(&r, ops, tmp);
    ops->begin(&r, info);
    for (size_t i = 0; i < n; i++) ops->record(&r, info, &recs[i]);
    cs_run_end_t end = {.end_time = "2026-11-21T10:00:05Z", .status = status};
    ops->end(&r, info, &end);
    cs_reporter_free(&r);
    long len = ftell(tmp);
    rewind(tmp);
    char *got = malloc((size_t)len + 1);
    size_t read = fread(got, 1, (size_t)len, tmp);
    got[read] = '\0';
    fclose(tmp);

    if (getenv("CS_UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "wb");
        fputs(got, f);
        fclose(f);
    }
    char *want = slurp(path);
    CHECK(want != NULL);
    if (want && strcmp(want, got) != 0) {
        check_failures++;
        fprintf(stderr, "%s differs from the reporter's output:\n%s\n", path, got);
    }
    check_count++;
    free(want);
    free(got);
}

int main(void)
{
    int ranks0[] = {0}, ranks1[] = {1};
    cs_host_t hosts[] = {{"node01", ranks0, 1}, {"node02", ranks1, 1}};
    const char *env[] = {"UCX_TLS=tcp,self", "SLURM_JOB_ID=4242"};
    char *argv[] = {"commscope-bench", "latency", "-m", "0:4", "--label=\"quoted\"\\path"};
    cs_opts_t o;
    cs_opts_init(&o);
    cs_plan_t plan = {.min_size = 0, .max_size = 4, .pairs = 1, .window = 1, .buffer_bytes = 8};
    cs_run_info_t info = {.bench = &latency, .opts = &o, .plan = &plan, .pattern_name = "pingpong",
                          .tool_version = "0.1.0", .git_commit = "abc123", .argc = 5, .argv = argv,
                          .mpi_library = "MPICH Version: 4.0.2", .mpi_standard = "4.0", .nranks = 2,
                          .hosts = hosts, .nhosts = 2, .cpu_model = "Test CPU @ 2.0GHz",
                          .start_time = "2026-11-21T10:00:00Z", .environment = env, .nenvironment = 2};
    cs_record_t lat[] = {make_record(0, 1, 0.21, 0, false), make_record(1, 1, 0.25, 0, false),
                         make_record(2, 1, 0.255, 0, false), make_record(4, 1, 1234.5678, 0, false)};
    golden("latency.osu", &cs_report_osu, &info, lat, 4, CS_RUN_COMPLETE);
    golden("latency.json", &cs_report_json, &info, lat, 4, CS_RUN_COMPLETE);
    golden("latency.jsonl", &cs_report_jsonl, &info, lat, 4, CS_RUN_COMPLETE);
    golden("latency.csv", &cs_report_csv, &info, lat, 4, CS_RUN_COMPLETE);

    /* -c -z -f and a failing size; rsend shows in the header */
    o.validate = o.full = true;
    o.npercentiles = 3, o.percentiles[0] = 50, o.percentiles[1] = 90, o.percentiles[2] = 99;
    o.send_mode = CS_SEND_READY;
    lat[0].validated = lat[1].validated = true;
    lat[1].errors = 3;
    golden("latency_full.osu", &cs_report_osu, &info, lat, 2, CS_RUN_VALIDATION_FAILED);
    golden("latency_full.json", &cs_report_json, &info, lat, 2, CS_RUN_VALIDATION_FAILED);
    golden("latency_full.csv", &cs_report_csv, &info, lat, 2, CS_RUN_VALIDATION_FAILED);

    cs_opts_init(&o);
    info.bench = &bw;
    info.pattern_name = "window_uni";
    plan = (cs_plan_t){.min_size = 1, .max_size = 65536, .pairs = 1, .window = 64};
    cs_record_t b[] = {make_record(1, 64, 9.53, 0, false), make_record(65536, 64, 3.63632, 0, false)};
    golden("bw.osu", &cs_report_osu, &info, b, 2, CS_RUN_COMPLETE);
    golden("bw.json", &cs_report_json, &info, b, 2, CS_RUN_COMPLETE);

    info.bench = &mbw_mr;
    info.pattern_name = "multi_pair_window";
    info.nranks = 4;
    plan.pairs = 2;
    golden("mbw_mr.osu", &cs_report_osu, &info, b, 2, CS_RUN_COMPLETE);
    o.print_rate = false;
    golden("mbw_mr_norate.osu", &cs_report_osu, &info, b, 2, CS_RUN_COMPLETE);
    o.print_rate = true;
    o.vary_window = true;
    cs_record_t v[] = {make_record(1, 1, 1, 0, false), make_record(1, 2, 2, 0, false),
                       make_record(2, 1, 3, 0, false), make_record(2, 2, 4, 0, false)};
    golden("mbw_mr_vary.osu", &cs_report_osu, &info, v, 4, CS_RUN_COMPLETE);
    golden("mbw_mr_vary.csv", &cs_report_csv, &info, v, 4, CS_RUN_COMPLETE);
    return check_report("test_report");
}
