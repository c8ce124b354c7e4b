/* Every reporter against golden files built from hand-made records.
 * CS_UPDATE_GOLDEN=1 rewrites the golden files (review the diff before committing). */
#include <stdlib.h>

#include "check.h"
#include "core/bench.h"
#include "core/registry.h"
#include "util/flow.h"
#include "report/report.h"
#include "util/schedule.h"
#include "util/mask.h"

#ifndef CS_GOLDEN_DIR
#error "CS_GOLDEN_DIR must name tests/c/golden"
#endif

static const cs_bench_t latency = {.name = "latency",
                                   .description = "ping-pong latency",
                                   .osu_title = "Latency Test",
                                   .osu_value_label = "Avg Latency(us)",
                                   .osu_leading_blank = true,
                                   .metric = CS_METRIC_LATENCY,
                                   .iter_class = CS_ITERS_LATENCY,
                                   .caps = CS_CAP_TWO_RANKS | CS_CAP_SEND_MODE,
                                   .directions = 1};
static const cs_bench_t bw = {.name = "bw",
                              .description = "one-way bandwidth",
                              .osu_title = "Bandwidth Test",
                              .osu_value_label = "Bandwidth (MB/s)",
                              .osu_leading_blank = true,
                              .metric = CS_METRIC_BANDWIDTH,
                              .iter_class = CS_ITERS_BANDWIDTH,
                              .caps = CS_CAP_TWO_RANKS | CS_CAP_WINDOW,
                              .default_min_size = 1,
                              .directions = 1};
static const cs_bench_t mbw_mr = {.name = "mbw_mr",
                                  .description = "multi-pair \"bandwidth\"",
                                  .osu_title = "Multiple Bandwidth / Message Rate Test",
                                  .osu_value_label = "MB/s",
                                  .metric = CS_METRIC_BANDWIDTH,
                                  .iter_class = CS_ITERS_BANDWIDTH,
                                  .caps = CS_CAP_PAIRS | CS_CAP_ALL_PAIRS | CS_CAP_WINDOW | CS_CAP_VARY_WINDOW |
                                          CS_CAP_RATE,
                                  .default_min_size = 1,
                                  .directions = 1};

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
    r.stats = (cs_stats_t){.n = 200,
                           .min = value * 0.9,
                           .max = value * 1.5,
                           .mean = value,
                           .median = value,
                           .p50 = value,
                           .p90 = value * 1.1,
                           .p99 = value * 1.4,
                           .stddev = value * 0.05,
                           .ci95_low = value * 0.99,
                           .ci95_high = value * 1.01};
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

/* The stream as the core writes it begins with a line per rank (main.c, before the header):
 * here in rank order, as they come when no rank is slow to start. */
static void write_started(FILE *out, const cs_run_info_t *info)
{
    for (int rank = 0; rank < info->nranks; rank++)
        for (int h = 0; h < info->nhosts; h++)
            for (int i = 0; i < info->hosts[h].nranks; i++)
                if (info->hosts[h].ranks[i] == rank) {
                    cs_started_t s = {.rank = rank, .pid = 4100 + rank};
                    snprintf(s.host, sizeof s.host, "%s", info->hosts[h].name);
                    cs_jsonl_started(out, &s);
                }
}

static void golden(const char *name, const cs_reporter_ops_t *ops, const cs_run_info_t *info, const cs_record_t *recs,
                   size_t n, cs_run_status_t status)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", CS_GOLDEN_DIR, name);
    FILE *tmp = tmpfile();
    if (ops == &cs_report_jsonl) write_started(tmp, info);
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

/* Descriptors of issue 3's families as src/collective.h, src/rma.h and src/bench build them. */
#define COLL(n, title, label, layout, f, c)                                                                            \
    {                                                                                                                  \
        .name = n, .description = "collective " n, .osu_title = title, .osu_value_label = label,                       \
        .osu_leading_blank = true, .metric = CS_METRIC_LATENCY, .iter_class = CS_ITERS_COLLECTIVE,                     \
        .caps = CS_CAP_COLLECTIVE | (c), .default_min_size = 1, .directions = 1, .default_max_size = CS_COLL_MAX_SIZE, \
        .osu_layout = layout, .flow = &f                                                                               \
    }
static const cs_bench_t allreduce = COLL("allreduce", "Allreduce Latency Test", "Avg Latency(us)", CS_OSU_COLLECTIVE,
                                         cs_flow_allreduce, CS_CAP_DATATYPES | CS_CAP_BUSBW | CS_CAP_IN_PLACE);
static const cs_bench_t bcast = COLL("bcast", "Broadcast Latency Test", "Avg Latency(us)", CS_OSU_COLLECTIVE,
                                     cs_flow_bcast, CS_CAP_DATATYPES | CS_CAP_BUSBW | CS_CAP_ROOT);
static const cs_bench_t barrier =
    COLL("barrier", "Barrier Latency Test", "Avg Latency(us)", CS_OSU_COLLECTIVE, cs_flow_barrier, CS_CAP_SIZELESS);
static const cs_bench_t iallreduce =
    COLL("iallreduce", "Non-blocking Allreduce Latency Test", "Overall(us)", CS_OSU_NBC, cs_flow_allreduce,
         CS_CAP_DATATYPES | CS_CAP_BUSBW | CS_CAP_IN_PLACE | CS_CAP_OVERLAP);
static const cs_bench_t ibarrier = COLL("ibarrier", "Non-blocking Barrier Latency Test", "Overall(us)", CS_OSU_NBC,
                                        cs_flow_barrier, CS_CAP_SIZELESS | CS_CAP_OVERLAP);
static const cs_bench_t put_latency = {.name = "put_latency",
                                       .description = "one-sided MPI_Put latency",
                                       .osu_title = "MPI_Put Latency Test",
                                       .osu_value_label = "Latency (us)",
                                       .metric = CS_METRIC_LATENCY,
                                       .iter_class = CS_ITERS_LATENCY,
                                       .caps = CS_CAP_TWO_RANKS | CS_CAP_RMA,
                                       .default_min_size = 1,
                                       .directions = 1,
                                       .rma_syncs = 0x3f,
                                       .default_sync = CS_SYNC_FLUSH};
static const cs_bench_t init = {.name = "init",
                                .description = "MPI_Init",
                                .osu_title = "Init Test",
                                .osu_value_label = "Avg Latency(us)",
                                .metric = CS_METRIC_LATENCY,
                                .caps = CS_CAP_STARTUP | CS_CAP_SIZELESS,
                                .osu_layout = CS_OSU_INIT};
static const cs_bench_t hello = {.name = "hello",
                                 .description = "MPI start",
                                 .osu_title = "Hello World Test",
                                 .osu_value_label = "",
                                 .metric = CS_METRIC_LATENCY,
                                 .caps = CS_CAP_STARTUP | CS_CAP_SIZELESS | CS_CAP_NO_MEASURE,
                                 .osu_layout = CS_OSU_HELLO};
static const cs_bench_t fan_in = {.name = "bw_fan_in",
                                  .description = "fan-in",
                                  .osu_title = "Fan-in Bandwidth Test",
                                  .osu_value_label = "Bandwidth (MB/s)",
                                  .osu_leading_blank = true,
                                  .metric = CS_METRIC_BANDWIDTH,
                                  .iter_class = CS_ITERS_BANDWIDTH,
                                  .caps = CS_CAP_FAN | CS_CAP_WINDOW,
                                  .default_min_size = 1,
                                  .directions = 1};

/* What the collective pattern's reduction yields: across-rank Min/Max, busbw, overlap. */
static cs_record_t collective_record(size_t size, cs_dtype_t t, double avg, long errors, bool validated)
{
    cs_record_t r = make_record(size, 1, avg, errors, validated);
    r.iterations = size > 8192 ? 100 : 1000;
    r.warmup = size > 8192 ? 10 : 100;
    r.batch = 1;
    r.dtype = t;
    r.min_latency_us = avg * 0.5;
    r.max_latency_us = avg * 2;
    r.algbw_GBps = (double)size / (avg * 1e-6) / 1e9;
    r.busbw_GBps = r.algbw_GBps * 1.5;
    r.overall_us = avg * 1.6, r.compute_us = avg, r.init_us = avg * 0.1, r.test_us = 0.05;
    r.wait_us = avg * 0.45, r.pure_comm_us = avg, r.min_comm_us = avg * 0.8, r.max_comm_us = avg * 1.2;
    r.overlap_pct = 40.3;
    return r;
}

static void issue3_goldens(cs_run_info_t info, cs_opts_t *o, cs_plan_t *plan)
{
    char *argv[] = {"commscope-bench", "allreduce", "-T", "mpi_char,mpi_int", "-f", "-c", "--busbw"};
    info.argv = argv;
    info.argc = 7;
    info.nranks = 4;
    info.opts = o;
    info.plan = plan;

    /* collective -f -c --busbw over two datatypes: a new table per datatype */
    cs_opts_init(o);
    o->full = o->validate = o->busbw = true;
    o->dtypes = CS_MASK(CS_DT_CHAR) | CS_MASK(CS_DT_INT), o->dtypes_set = true;
    *plan = (cs_plan_t){.min_size = 1,
                        .max_size = 16384,
                        .pairs = 1,
                        .window = 1,
                        .buffer_bytes = 32768,
                        .ndtypes = 2,
                        .dtypes = {CS_DT_CHAR, CS_DT_INT},
                        .root = 0};
    info.bench = &allreduce;
    info.pattern_name = "collective";
    cs_record_t coll[] = {
        collective_record(1, CS_DT_CHAR, 1.02, 0, true), collective_record(16384, CS_DT_CHAR, 12.5, 0, true),
        collective_record(4, CS_DT_INT, 1.08, 0, true), collective_record(8, CS_DT_INT, 1.09, 0, true)};
    golden("allreduce_full.osu", &cs_report_osu, &info, coll, 4, CS_RUN_COMPLETE);
    golden("allreduce_full.json", &cs_report_json, &info, coll, 4, CS_RUN_COMPLETE);
    golden("allreduce_full.jsonl", &cs_report_jsonl, &info, coll, 4, CS_RUN_COMPLETE);
    golden("allreduce_full.csv", &cs_report_csv, &info, coll, 4, CS_RUN_COMPLETE);

    /* rooted, -z, no -f: OMB's plain table */
    cs_opts_init(o);
    o->npercentiles = 3, o->percentiles[0] = 50, o->percentiles[1] = 90, o->percentiles[2] = 99;
    *plan = (cs_plan_t){.min_size = 1, .max_size = 2, .pairs = 1, .window = 1, .ndtypes = 1, .root = -1};
    info.bench = &bcast;
    golden("bcast_tail.osu", &cs_report_osu, &info, coll, 1, CS_RUN_COMPLETE);
    golden("bcast_tail.json", &cs_report_json, &info, coll, 1, CS_RUN_COMPLETE);

    /* barrier: no size column, no datatype line */
    cs_opts_init(o);
    o->full = true;
    *plan = (cs_plan_t){.pairs = 1, .window = 1, .ndtypes = 1};
    info.bench = &barrier;
    cs_record_t bar = collective_record(0, CS_DT_CHAR, 1.89, 0, false);
    golden("barrier_full.osu", &cs_report_osu, &info, &bar, 1, CS_RUN_COMPLETE);

    /* non-blocking, without and with -f; the barrier form without a size */
    cs_opts_init(o);
    *plan = (cs_plan_t){.min_size = 4, .max_size = 8, .pairs = 1, .window = 1, .ndtypes = 1};
    info.bench = &iallreduce;
    info.pattern_name = "nbc_overlap";
    cs_record_t nbc[] = {collective_record(4, CS_DT_CHAR, 1.4, 0, false),
                         collective_record(8, CS_DT_CHAR, 1.41, 0, false)};
    golden("iallreduce.osu", &cs_report_osu, &info, nbc, 2, CS_RUN_COMPLETE);
    o->full = o->validate = true;
    o->num_tests = 4, o->num_tests_set = true;
    nbc[0].validated = nbc[1].validated = true;
    golden("iallreduce_full.osu", &cs_report_osu, &info, nbc, 2, CS_RUN_COMPLETE);
    golden("iallreduce_full.json", &cs_report_json, &info, nbc, 2, CS_RUN_COMPLETE);
    golden("iallreduce_full.csv", &cs_report_csv, &info, nbc, 2, CS_RUN_COMPLETE);
    cs_opts_init(o);
    *plan = (cs_plan_t){.pairs = 1, .window = 1, .ndtypes = 1};
    info.bench = &ibarrier;
    cs_record_t ibar = collective_record(0, CS_DT_CHAR, 2.88, 0, false);
    golden("ibarrier.osu", &cs_report_osu, &info, &ibar, 1, CS_RUN_COMPLETE);

    /* one-sided: a header per window creation and synchronisation mode (-w all -s ...) */
    cs_opts_init(o);
    o->validate = true;
    o->win_modes = CS_MASK(CS_WIN_CREATE) | CS_MASK(CS_WIN_ALLOCATE), o->win_modes_set = true;
    o->sync_modes = CS_MASK(CS_SYNC_LOCK) | CS_MASK(CS_SYNC_FLUSH), o->sync_modes_set = true;
    *plan = (cs_plan_t){.min_size = 1,
                        .max_size = 2,
                        .pairs = 1,
                        .window = 1,
                        .ndtypes = 1,
                        .nwin_modes = 2,
                        .nsync_modes = 2,
                        .win_modes = {CS_WIN_CREATE, CS_WIN_ALLOCATE},
                        .sync_modes = {CS_SYNC_LOCK, CS_SYNC_FLUSH}};
    info.bench = &put_latency;
    info.pattern_name = "one_sided";
    info.nranks = 2;
    cs_record_t rma[4];
    for (int i = 0; i < 4; i++) {
        rma[i] = make_record((size_t)(1 + i % 2), 1, 0.21 + 0.01 * i, 0, true);
        rma[i].win_mode = i < 2 ? CS_WIN_CREATE : CS_WIN_ALLOCATE;
        rma[i].sync_mode = CS_SYNC_LOCK;
    }
    golden("put_latency.osu", &cs_report_osu, &info, rma, 4, CS_RUN_COMPLETE);
    golden("put_latency.json", &cs_report_json, &info, rma, 4, CS_RUN_COMPLETE);
    golden("put_latency.csv", &cs_report_csv, &info, rma, 4, CS_RUN_COMPLETE);

    /* start-up: OMB's one line; hello has no records */
    cs_opts_init(o);
    *plan = (cs_plan_t){.pairs = 1, .window = 1, .ndtypes = 1};
    info.bench = &init;
    info.pattern_name = "startup";
    info.nranks = 2;
    cs_record_t start = make_record(0, 1, 229000, 0, false);
    start.min_latency_us = 226000, start.max_latency_us = 232400;
    golden("init.osu", &cs_report_osu, &info, &start, 1, CS_RUN_COMPLETE);
    golden("init.json", &cs_report_json, &info, &start, 1, CS_RUN_COMPLETE);
    info.bench = &hello;
    info.pattern_name = "none";
    golden("hello.osu", &cs_report_osu, &info, NULL, 0, CS_RUN_COMPLETE);

    /* congestion: the hub and its peers */
    *plan = (cs_plan_t){.min_size = 1, .max_size = 65536, .pairs = 3, .window = 64, .ndtypes = 1};
    info.bench = &fan_in;
    info.pattern_name = "fan_in";
    info.nranks = 4;
    cs_record_t fan[] = {make_record(1, 64, 9.53, 0, false), make_record(65536, 64, 3.63632, 0, false)};
    golden("bw_fan_in.osu", &cs_report_osu, &info, fan, 2, CS_RUN_COMPLETE);
}

/* pairs: a line per pair, the records of a round arriving metric by metric (the
 * schedule of 3 ranks, all-pairs: 3 rounds of one pair and a bye) */
static void pairs_goldens(cs_run_info_t info, cs_opts_t *o, cs_plan_t *plan)
{
    static const cs_bench_t pairs = {.name = "pairs",
                                     .description = "pair sweep",
                                     .osu_title = "Pair Sweep Test",
                                     .osu_value_label = "Latency(us)",
                                     .osu_leading_blank = true,
                                     .metric = CS_METRIC_BANDWIDTH,
                                     .caps = CS_CAP_SCHEDULE | CS_CAP_WINDOW,
                                     .directions = 1,
                                     .osu_layout = CS_OSU_PAIRS};
    int r0[] = {0}, r1[] = {1}, r2[] = {2};
    cs_host_t hosts[] = {{"vnode1", r0, 1, 0, NULL}, {"vnode2", r1, 1, 0, NULL}, {"vnode3", r2, 1, 0, NULL}};
    char *argv[] = {"commscope-bench", "pairs", "--metric", "latency,bw"};
    cs_opts_init(o);
    *plan =
        (cs_plan_t){.min_size = 8, .max_size = 1048576, .pairs = 1, .window = 64, .ndtypes = 1, .scheduled_pairs = 3};
    char err[256];
    cs_opts_mark(o, CS_OPT_PAIR_METRIC, "latency,bw");
    CHECK(cs_pairs_spec_parse(o, 3, &plan->pairs_spec, err, sizeof err) == CS_OK);
    cs_schedule_t sched;
    CHECK(cs_schedule_generated(&sched, CS_SCHED_ALL_PAIRS, 3, 0, err, sizeof err) == CS_OK);
    info.bench = &pairs;
    info.pattern_name = "pairs";
    info.argv = argv;
    info.argc = 4;
    info.nranks = 3;
    info.hosts = hosts;
    info.nhosts = 3;
    info.schedule = &sched;
    cs_record_t recs[6];
    for (int i = 0; i < 6; i++) {
        long round = i / 2;
        cs_pair_metric_t m = i % 2 ? CS_PM_BW : CS_PM_LATENCY;
        recs[i] = make_record(m == CS_PM_LATENCY ? 8 : 1048576, m == CS_PM_LATENCY ? 1 : 64, 20.5 + i, 0, false);
        cs_sched_pair_t p;
        for (long k = 0; k < cs_schedule_slots(&sched, round); k++)
            if (cs_schedule_pair(&sched, round, k, &p))
                recs[i].pair = (cs_pair_record_t){.has_pair = true,
                                                  .metric = m,
                                                  .src = p.src,
                                                  .dst = p.dst,
                                                  .round = round,
                                                  .slot = k,
                                                  .src_host = p.src,
                                                  .dst_host = p.dst,
                                                  .src_cpu = 0,
                                                  .dst_cpu = 1};
    }
    golden("pairs.osu", &cs_report_osu, &info, recs, 6, CS_RUN_COMPLETE);
    golden("pairs.json", &cs_report_json, &info, recs, 6, CS_RUN_COMPLETE);
}

/* The runs the harness's tests replay in place of the core (tests/support/fakes/commscope-bench):
 * each benchmark's command line parsed and planned as the program does it, for two ranks on one
 * host, a record per size of its sweep: the stream, the table and the document of <name>_sizes. */
static void replay_goldens(cs_run_info_t info, cs_opts_t *o, cs_plan_t *plan)
{
    static const struct {
        const char *name, *pattern, *sizes;
    } runs[] = {{"latency", "pingpong", "0:1024"},
                {"bw", "window_uni", "1:1024"},
                {"bibw", "window_bi", "1:1024"},
                {"mbw_mr", "multi_pair_window", "1:1024"},
                {"multi_lat", "multi_pair_pingpong", "0:1024"}};
    int ranks[] = {0, 1};
    cs_host_t host = {"node01", ranks, 2, 0, NULL};
    info.hosts = &host, info.nhosts = 1, info.nranks = 2;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char *argv[] = {"commscope-bench", (char *)runs[i].name, "-m", (char *)runs[i].sizes};
        char *words[] = {argv[0], argv[1], argv[2], argv[3]}; /* the parser may reorder its words */
        char err[256], name[64];
        CHECK(cs_opts_parse(4, words, NULL, o, err, sizeof err) == CS_OK);
        info.bench = cs_registry_find(runs[i].name);
        CHECK(info.bench != NULL && cs_bench_plan(info.bench, o, 2, plan, err, sizeof err) == CS_OK);
        info.pattern_name = runs[i].pattern, info.argv = argv, info.argc = 4, info.opts = o, info.plan = plan;
        size_t sizes[16];
        size_t n = cs_bench_sizes(info.bench, plan, plan->dtypes[0], sizes, 16);
        CHECK(n <= 16);
        cs_record_t recs[16];
        for (size_t k = 0; k < n && k < 16; k++)
            recs[k] = make_record(sizes[k], plan->window, 0.25 + 0.01 * (double)k + (double)sizes[k] / 512, 0, false);
        snprintf(name, sizeof name, "%s_sizes.jsonl", runs[i].name);
        golden(name, &cs_report_jsonl, &info, recs, n, CS_RUN_COMPLETE);
        snprintf(name, sizeof name, "%s_sizes.json", runs[i].name);
        golden(name, &cs_report_json, &info, recs, n, CS_RUN_COMPLETE);
        snprintf(name, sizeof name, "%s_sizes.osu", runs[i].name);
        golden(name, &cs_report_osu, &info, recs, n, CS_RUN_COMPLETE);
    }
}

int main(void)
{
    int ranks0[] = {0}, ranks1[] = {1};
    cs_host_t hosts[] = {{"node01", ranks0, 1, 0, NULL}, {"node02", ranks1, 1, 0, NULL}};
    const char *env[] = {"UCX_TLS=tcp,self", "SLURM_JOB_ID=4242"};
    char *argv[] = {"commscope-bench", "latency", "-m", "0:4", "--label=\"quoted\"\\path"};
    cs_opts_t o;
    cs_opts_init(&o);
    cs_plan_t plan = {.min_size = 0, .max_size = 4, .pairs = 1, .window = 1, .buffer_bytes = 8, .ndtypes = 1};
    cs_run_info_t info = {.bench = &latency,
                          .opts = &o,
                          .plan = &plan,
                          .pattern_name = "pingpong",
                          .tool_version = "0.1.0",
                          .git_commit = "abc123",
                          .argc = 5,
                          .argv = argv,
                          .mpi_library = "MPICH Version: 4.0.2",
                          .mpi_standard = "4.0",
                          .nranks = 2,
                          .hosts = hosts,
                          .nhosts = 2,
                          .cpu_model = "Test CPU @ 2.0GHz",
                          .start_time = "2026-11-21T10:00:00Z",
                          .environment = env,
                          .nenvironment = 2};
    cs_record_t lat[] = {make_record(0, 1, 0.21, 0, false), make_record(1, 1, 0.25, 0, false),
                         make_record(2, 1, 0.255, 0, false), make_record(4, 1, 1234.5678, 0, false)};
    golden("latency.osu", &cs_report_osu, &info, lat, 4, CS_RUN_COMPLETE);
    golden("latency.json", &cs_report_json, &info, lat, 4, CS_RUN_COMPLETE);
    golden("latency.jsonl", &cs_report_jsonl, &info, lat, 4, CS_RUN_COMPLETE);
    golden("latency.csv", &cs_report_csv, &info, lat, 4, CS_RUN_COMPLETE);
    pairs_goldens(info, &o, &plan);
    cs_opts_init(&o);
    plan = (cs_plan_t){.min_size = 0, .max_size = 4, .pairs = 1, .window = 1, .buffer_bytes = 8, .ndtypes = 1};

    /* -c -z -f and a failing size; rsend shows in the header */
    o.validate = o.full = true;
    o.npercentiles = 3, o.percentiles[0] = 50, o.percentiles[1] = 90, o.percentiles[2] = 99;
    o.send_mode = CS_SEND_READY;
    lat[0].validated = lat[1].validated = true;
    lat[1].errors = 3;
    golden("latency_full.osu", &cs_report_osu, &info, lat, 2, CS_RUN_VALIDATION_FAILED);
    golden("latency_full.json", &cs_report_json, &info, lat, 2, CS_RUN_VALIDATION_FAILED);
    golden("latency_full.jsonl", &cs_report_jsonl, &info, lat, 2, CS_RUN_VALIDATION_FAILED);
    golden("latency_full.csv", &cs_report_csv, &info, lat, 2, CS_RUN_VALIDATION_FAILED);

    cs_opts_init(&o);
    info.bench = &bw;
    info.pattern_name = "window_uni";
    plan = (cs_plan_t){
        .min_size = 1, .max_size = 65536, .pairs = 1, .window = 64, .ndtypes = 1}; /* records: two of its 17 */
    cs_record_t b[] = {make_record(1, 64, 9.53, 0, false), make_record(65536, 64, 3.63632, 0, false)};
    golden("bw.osu", &cs_report_osu, &info, b, 2, CS_RUN_COMPLETE);
    golden("bw.json", &cs_report_json, &info, b, 2, CS_RUN_COMPLETE);

    /* issue 14: -d cuda D H, two GPUs on two hosts (made by hand: no GPU here): OMB's title
     * and buffer line, the memory per side in options and records, the GPU of each rank */
    cs_gpu_info_t gpus[] = {{0, 2, "NVIDIA H100 80GB HBM3", "0000:17:00.0", 12040, 12080},
                            {1, 2, "NVIDIA H100 80GB HBM3", "0000:65:00.0", 12040, 12080}};
    o.accel = CS_ACCEL_CUDA, o.accel_set = true;
    plan.gpu = plan.mpi_gpu_mem = true;
    plan.mem[0] = CS_MEM_DEVICE, plan.mem[1] = CS_MEM_HOST;
    info.gpus = gpus, info.ngpus = 2;
    golden("bw_gpu.osu", &cs_report_osu, &info, b, 2, CS_RUN_COMPLETE);
    golden("bw_gpu.json", &cs_report_json, &info, b, 2, CS_RUN_COMPLETE);
    cs_opts_init(&o);
    plan.gpu = plan.mpi_gpu_mem = false;
    plan.mem[0] = CS_MEM_HOST;
    info.gpus = NULL, info.ngpus = 0;

    info.bench = &mbw_mr;
    info.pattern_name = "multi_pair_window";
    info.nranks = 4;
    plan.pairs = 2;
    golden("mbw_mr.osu", &cs_report_osu, &info, b, 2, CS_RUN_COMPLETE);
    o.print_rate = false;
    golden("mbw_mr_norate.osu", &cs_report_osu, &info, b, 2, CS_RUN_COMPLETE);
    o.print_rate = true;
    o.vary_window = true;
    cs_record_t v[] = {make_record(1, 1, 1, 0, false), make_record(1, 2, 2, 0, false), make_record(2, 1, 3, 0, false),
                       make_record(2, 2, 4, 0, false)};
    golden("mbw_mr_vary.osu", &cs_report_osu, &info, v, 4, CS_RUN_COMPLETE);
    golden("mbw_mr_vary.csv", &cs_report_csv, &info, v, 4, CS_RUN_COMPLETE);

    cs_opts_t o3;
    cs_plan_t plan3;
    issue3_goldens(info, &o3, &plan3);
    replay_goldens(info, &o3, &plan3);
    return check_report("test_report");
}
