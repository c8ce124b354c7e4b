/* Benchmark/option/rank-count fit, checked without MPI. */
#include "core/bench.h"
#include "check.h"
#include "util/flow.h"

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
/* the families of issue 3, as src/collective.h, src/rma.h and the files in src/bench build them */
#define COLL(n, f, c)                                                                                         \
    {.name = n, .caps = CS_CAP_COLLECTIVE | (c), .iter_class = CS_ITERS_COLLECTIVE, .default_min_size = 1,    \
     .default_max_size = CS_COLL_MAX_SIZE, .directions = 1, .flow = &f}
static const cs_bench_t allreduce = COLL("allreduce", cs_flow_allreduce, CS_CAP_DATATYPES | CS_CAP_BUSBW | CS_CAP_IN_PLACE);
static const cs_bench_t bcast = COLL("bcast", cs_flow_bcast, CS_CAP_DATATYPES | CS_CAP_BUSBW | CS_CAP_ROOT);
static const cs_bench_t alltoall = COLL("alltoall", cs_flow_alltoall, CS_CAP_DATATYPES | CS_CAP_IN_PLACE);
static const cs_bench_t ibarrier = COLL("ibarrier", cs_flow_barrier, CS_CAP_SIZELESS | CS_CAP_OVERLAP);
static const cs_bench_t nbr = COLL("neighbor_alltoall", cs_flow_neighbor_alltoall, CS_CAP_DATATYPES | CS_CAP_NEIGHBOR);
static const cs_bench_t persistent = {.name = "allreduce_persistent", .caps = CS_CAP_COLLECTIVE,
                                      .unavailable = "no MPI-4 persistent collectives"};
static const cs_bench_t put_latency = {.name = "put_latency", .caps = CS_CAP_TWO_RANKS | CS_CAP_RMA,
                                       .default_min_size = 1, .directions = 1, .rma_syncs = 0x3f,
                                       .default_sync = CS_SYNC_FLUSH};
static const cs_bench_t put_bibw = {.name = "put_bibw", .caps = CS_CAP_TWO_RANKS | CS_CAP_RMA | CS_CAP_WINDOW,
                                    .default_min_size = 1, .directions = 2,
                                    .rma_syncs = CS_MASK(CS_SYNC_PSCW) | CS_MASK(CS_SYNC_FENCE),
                                    .default_sync = CS_SYNC_PSCW};
static const cs_bench_t fop = {.name = "fop_latency", .caps = CS_CAP_TWO_RANKS | CS_CAP_RMA | CS_CAP_FIXED_SIZE,
                               .default_min_size = 8, .rma_syncs = 0x3f, .default_sync = CS_SYNC_FLUSH,
                               .dtype = CS_DT_LONG_LONG};
static const cs_bench_t fan_in = {.name = "bw_fan_in", .caps = CS_CAP_FAN | CS_CAP_WINDOW, .default_min_size = 1,
                                  .iter_class = CS_ITERS_BANDWIDTH, .directions = 1};
static const cs_bench_t init = {.name = "init", .caps = CS_CAP_STARTUP | CS_CAP_SIZELESS};

#define PLAN_BAD(bench, n, expect)                                                  \
    do {                                                                            \
        CHECK(cs_bench_plan(&bench, &o, n, &p, err, sizeof err) == CS_ERR_USAGE);   \
        CHECK_CONTAINS(err, expect);                                                \
    } while (0)

static void check_issue3_families(void)
{
    cs_opts_t o;
    cs_plan_t p;
    char err[256];

    /* collectives: OMB's 1 B .. 1 MiB, 1000/100 and 100/10 iterations, one datatype by default */
    cs_opts_init(&o);
    CHECK(cs_bench_plan(&allreduce, &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(p.min_size == 1 && p.max_size == (size_t)1 << 20 && p.ndtypes == 1 && p.dtypes[0] == CS_DT_CHAR);
    CHECK(p.buffer_bytes == (size_t)2 << 20 && !p.max_size_clipped && p.root == 0 && p.nwin_modes == 0);
    long it, wu;
    cs_bench_iterations(&allreduce, &o, 8192, &it, &wu);
    CHECK(it == 1000 && wu == 100);
    cs_bench_iterations(&allreduce, &o, 8193, &it, &wu);
    CHECK(it == 100 && wu == 10);
    PLAN_BAD(allreduce, 1, "allreduce needs at least 2 ranks, got 1");
    CHECK(cs_bench_plan(&allreduce, &o, 3, &p, err, sizeof err) == CS_OK); /* any count from 2 */

    /* -T is an axis in the given order; sizes start at one element */
    o.dtypes = CS_MASK(CS_DT_INT) | CS_MASK(CS_DT_DOUBLE), o.dtypes_set = true;
    cs_opts_mark(&o, CS_OPT_TYPE, "mpi_int,mpi_double");
    o.min_size = 1, o.min_size_set = true, o.max_size = 64, o.max_size_set = true;
    CHECK(cs_bench_plan(&allreduce, &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(p.ndtypes == 2 && p.dtypes[0] == CS_DT_INT && p.dtypes[1] == CS_DT_DOUBLE);
    size_t sizes[64];
    CHECK(cs_bench_sizes(&allreduce, &p, CS_DT_INT, sizes, 64) == 5);
    CHECK(sizes[0] == 4 && sizes[4] == 64);
    CHECK(cs_bench_sizes(&allreduce, &p, CS_DT_DOUBLE, sizes, 64) == 4 && sizes[0] == 8);
    o.min_size = 6; /* 6, 12, 24, 48 in whole MPI_INTs */
    CHECK(cs_bench_plan(&allreduce, &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(cs_bench_sizes(&allreduce, &p, CS_DT_INT, sizes, 64) == 4 && sizes[0] == 4 && sizes[1] == 12);
    CHECK(cs_bench_sizes(&latency, &p, CS_DT_CHAR, sizes, 64) == 4 && sizes[0] == 6); /* bytes as given */
    PLAN_BAD(latency, 2, "-T does not apply to latency");

    /* -k: rooted collectives only, inside the communicator */
    cs_opts_init(&o);
    o.root_set = true, o.root_mode = CS_ROOT_ROTATE;
    cs_opts_mark(&o, CS_OPT_ROOT_RANK, "rotate");
    CHECK(cs_bench_plan(&bcast, &o, 4, &p, err, sizeof err) == CS_OK && p.root == -1);
    PLAN_BAD(allreduce, 4, "-k does not apply to allreduce");
    o.root_mode = CS_ROOT_FIXED, o.root = 3;
    CHECK(cs_bench_plan(&bcast, &o, 4, &p, err, sizeof err) == CS_OK && p.root == 3);
    o.root = 4;
    PLAN_BAD(bcast, 4, "-k fixed:4: root 4 is outside the communicator of 4 ranks");

    /* -l, -t, -N, --busbw, -w, -s by capability */
    cs_opts_init(&o);
    o.in_place = true;
    cs_opts_mark(&o, CS_OPT_IN_PLACE, NULL);
    PLAN_BAD(bcast, 2, "-l does not apply to bcast");
    CHECK(cs_bench_plan(&alltoall, &o, 2, &p, err, sizeof err) == CS_OK);
    cs_opts_init(&o);
    o.num_tests = 3, o.num_tests_set = true;
    cs_opts_mark(&o, CS_OPT_NUM_TEST_CALLS, "3");
    PLAN_BAD(allreduce, 2, "-t does not apply to allreduce");
    CHECK(cs_bench_plan(&ibarrier, &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.min_size == 0 && p.max_size == 0 && p.buffer_bytes == 0); /* no size, no buffers */
    cs_opts_init(&o);
    o.nbr_set = true;
    cs_opts_mark(&o, CS_OPT_NHBR, "cart:1:1");
    PLAN_BAD(allreduce, 4, "-N does not apply to allreduce");
    cs_opts_init(&o);
    o.busbw = true;
    cs_opts_mark(&o, CS_OPT_BUSBW, NULL);
    PLAN_BAD(alltoall, 4, "--busbw does not apply to alltoall"); /* this test copy has no CS_CAP_BUSBW */
    PLAN_BAD(latency, 2, "--busbw does not apply to latency");
    cs_opts_init(&o);
    o.win_modes_set = true;
    cs_opts_mark(&o, CS_OPT_WIN_OPTIONS, "allocate");
    PLAN_BAD(allreduce, 2, "-w does not apply to allreduce");
    cs_opts_init(&o);
    o.max_size = 8, o.max_size_set = true;
    cs_opts_mark(&o, CS_OPT_MESSAGE_SIZE, "8");
    PLAN_BAD(ibarrier, 2, "-m does not apply to ibarrier");
    PLAN_BAD(fop, 2, "-m does not apply to fop_latency");
    cs_opts_init(&o);
    o.npercentiles = 1, o.percentiles[0] = 50;
    cs_opts_mark(&o, CS_OPT_TAIL_LAT, "50");
    PLAN_BAD(init, 2, "-z does not apply to init");
    cs_opts_init(&o);
    o.iterations = 3, o.iterations_set = true;
    cs_opts_mark(&o, CS_OPT_ITERATIONS, "3");
    PLAN_BAD(init, 2, "-i does not apply to init");
    cs_opts_init(&o);
    CHECK(cs_bench_plan(&init, &o, 1, &p, err, sizeof err) == CS_OK); /* one rank is enough */
    PLAN_BAD(persistent, 2, "allreduce_persistent is not available in this build: no MPI-4 persistent collectives");

    /* -M: collectives lower MAX (OMB's warning), point-to-point still refuses */
    cs_opts_init(&o);
    o.mem_limit = (size_t)1 << 20;
    CHECK(cs_bench_plan(&alltoall, &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(p.max_size_clipped && p.max_size == ((size_t)1 << 20) / 8); /* 4 send + 4 receive blocks */
    CHECK(cs_bench_plan(&allreduce, &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(p.max_size_clipped && p.max_size == ((size_t)1 << 19));
    o.min_size = (size_t)1 << 18, o.min_size_set = true;
    PLAN_BAD(alltoall, 4, "-M 1048576: not even the smallest message size 262144 fits");
    cs_opts_init(&o);
    o.mem_limit = (size_t)1 << 20, o.max_size = (size_t)1 << 20, o.max_size_set = true;
    PLAN_BAD(bw, 2, "over the memory limit");
    /* neighbourhood: by the largest degree */
    cs_opts_init(&o);
    o.mem_limit = (size_t)1 << 20;
    cs_world_t world = {.nranks = 16, .max_indegree = 4, .max_outdegree = 4};
    CHECK(cs_bench_plan_world(&nbr, &o, &world, &p, err, sizeof err) == CS_OK);
    CHECK(p.max_size == ((size_t)1 << 20) / 8 && p.max_size_clipped);

    /* one-sided: default window and synchronisation, -w/-s sets, what each benchmark takes */
    cs_opts_init(&o);
    CHECK(cs_bench_plan(&put_latency, &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.nwin_modes == 1 && p.win_modes[0] == CS_WIN_ALLOCATE && p.nsync_modes == 1 &&
          p.sync_modes[0] == CS_SYNC_FLUSH && p.max_size == (size_t)1 << 22);
    CHECK(cs_bench_plan(&put_bibw, &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.sync_modes[0] == CS_SYNC_PSCW && p.window == 64 && p.buffer_bytes == 2 * 64 * ((size_t)1 << 22));
    o.sync_modes = 0x3f, o.sync_modes_set = true, o.sync_all = true;
    o.win_modes = 7, o.win_modes_set = true;
    CHECK(cs_bench_plan(&put_bibw, &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.nsync_modes == 2 && p.sync_modes[0] == CS_SYNC_PSCW && p.sync_modes[1] == CS_SYNC_FENCE);
    CHECK(p.nwin_modes == 3 && p.win_modes[2] == CS_WIN_DYNAMIC);
    o.sync_all = false, o.sync_modes = CS_MASK(CS_SYNC_FENCE) | CS_MASK(CS_SYNC_LOCK);
    PLAN_BAD(put_bibw, 2, "-s lock: put_bibw supports pscw, fence");
    PLAN_BAD(put_latency, 3, "put_latency needs exactly 2 ranks, got 3");
    cs_opts_init(&o);
    o.buffers = CS_BUFFERS_MULTIPLE;
    cs_opts_mark(&o, CS_OPT_BUFFER_NUM, "multiple");
    PLAN_BAD(put_bibw, 2, "-b multiple does not apply to put_bibw");
    cs_opts_init(&o);
    CHECK(cs_bench_plan(&fop, &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.min_size == 8 && p.max_size == 8 && p.dtypes[0] == CS_DT_LONG_LONG);

    /* fan-in: one hub, every other rank a peer unless -p */
    cs_opts_init(&o);
    CHECK(cs_bench_plan(&fan_in, &o, 5, &p, err, sizeof err) == CS_OK && p.pairs == 4);
    CHECK(cs_bench_bytes_per_iteration(&fan_in, 1000, 64, p.pairs) == 256000);
    o.pairs = 2, o.pairs_set = true;
    CHECK(cs_bench_plan(&fan_in, &o, 5, &p, err, sizeof err) == CS_OK && p.pairs == 2);
    o.pairs = 5;
    PLAN_BAD(fan_in, 5, "-p 5: 5 ranks have at most 4 peers besides the hub");
}

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
    cs_opts_mark(&o, CS_OPT_NUM_PAIRS, "5");
    CHECK(cs_bench_plan(&mbw_mr, &o, 8, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-p 5: 8 ranks make at most 4 pairs");
    CHECK(cs_bench_plan(&multi_lat, &o, 8, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-p does not apply to multi_lat");

    cs_opts_init(&o);
    o.window_set = true;
    cs_opts_mark(&o, CS_OPT_WINDOW_SIZE, "64");
    CHECK(cs_bench_plan(&latency, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-W does not apply to latency");
    cs_opts_init(&o);
    o.send_mode_set = true, o.send_mode = CS_SEND_SYNC;
    cs_opts_mark(&o, CS_OPT_SEND_MODE, "ssend");
    CHECK(cs_bench_plan(&bw, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "--send-mode does not apply to bw");
    cs_opts_init(&o);
    o.vary_window = true;
    cs_opts_mark(&o, CS_OPT_VARY_WINDOW, NULL);
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
    check_issue3_families();
    return check_report("test_plan");
}
