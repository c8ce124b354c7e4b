/* Benchmark/option/rank-count fit, checked without MPI. */
#include <limits.h>
#include <stdlib.h>

#include "core/bench.h"
#include "core/registry.h"
#include "check.h"
#include "util/flow.h"
#include "util/mask.h"

/* The real descriptors, from the registry the program is built from (CMake's
 * cs_registry_pure: the same files without their MPI calls). */
static const cs_bench_t *bench(const char *name)
{
    const cs_bench_t *b = cs_registry_find(name);
    if (b == NULL) {
        fprintf(stderr, "test_plan: no benchmark %s in the registry\n", name);
        exit(1);
    }
    return b;
}

#define PLAN_BAD(name, n, expect)                                                                                      \
    do {                                                                                                               \
        CHECK(cs_bench_plan(bench(name), &o, n, &p, err, sizeof err) == CS_ERR_USAGE);                                 \
        CHECK_CONTAINS(err, expect);                                                                                   \
    } while (0)

/* The plan of a command line as the program makes it: parsed, then planned for nranks ranks.
 * words: the benchmark and its options, NULL-terminated. */
static cs_status_t plan_line(const char *const *words, int nranks, cs_plan_t *p, char *err, size_t errlen)
{
    char *argv[8] = {"commscope-bench"};
    int argc = 1;
    for (; *words; words++) argv[argc++] = (char *)*words;
    cs_opts_t o;
    CS_CHECK(cs_opts_parse(argc, argv, NULL, &o, err, errlen));
    return cs_bench_plan(bench(o.bench_name), &o, nranks, p, err, errlen);
}

/* -t SEND:RECV or -t RECV of latency_mt and latency_mp: OMB's defaults (1 sender, 2
 * receivers), one number the receivers only (OMB's set_threads), 1 to 127 each; the colon
 * form nowhere else. */
static void check_workers(void)
{
    static const struct {
        const char *words[4];
        int send, recv;
        const char *refusal;
    } lines[] = {
        {{"latency_mt"}, 1, 2, NULL},
        {{"latency_mp"}, 1, 2, NULL},
        {{"latency_mt", "-t", "3"}, 1, 3, NULL},
        {{"latency_mp", "-t", "4"}, 1, 4, NULL},
        {{"latency_mp", "-t", "4:1"}, 4, 1, NULL},
        {{"latency_mt", "-t", "2:"}, 0, 0, "-t 2:: give a number of MPI_Test calls"},
        {{"latency_mt", "-t", "0:1"}, 0, 0, "-t 0:1: sender threads must be 1 to 127"},
        {{"latency_mp", "-t", "1:128"}, 0, 0, "-t 1:128: receiver processes must be 1 to 127"},
        {{"ibarrier", "-t", "2:3"}, 0, 0, "-t 2:3: SEND:RECV counts are for latency_mt and latency_mp"},
        {{"latency_persistent", "-t", "2"}, 0, 0, "-t does not apply to latency_persistent"},
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        cs_plan_t p;
        char err[256] = "";
        cs_status_t st = plan_line(lines[i].words, 2, &p, err, sizeof err);
        if (lines[i].refusal) {
            CHECK(st == CS_ERR_USAGE);
            CHECK_CONTAINS(err, lines[i].refusal);
        } else {
            CHECK(st == CS_OK);
            CHECK(p.workers[0] == lines[i].send && p.workers[1] == lines[i].recv);
        }
    }
}

/* Options that only some benchmarks take (options.def's needs and excludes): where one does
 * not apply the plan refuses it, naming the option and the benchmark; elsewhere it plans. */
static void check_options_by_capability(void)
{
    static const struct {
        const char *words[4]; /* the benchmark, an option and its value; the rest NULL */
        int nranks;
        const char *refusal; /* NULL: the plan takes the line */
    } lines[] = {
        {{"bcast", "-l"}, 2, "-l does not apply to bcast"},
        {{"alltoall", "-l"}, 2, NULL},
        {{"allreduce", "-t", "3"}, 2, "-t does not apply to allreduce"},
        {{"ibarrier", "-t", "3"}, 2, NULL},
        {{"allreduce", "-N", "cart:1:1"}, 4, "-N does not apply to allreduce"},
        /* nccl-tests defines alltoall's bus bandwidth ((n-1)/n); a barrier moves no bytes */
        {{"alltoall", "--busbw"}, 4, NULL},
        {{"barrier", "--busbw"}, 4, "--busbw does not apply to barrier"},
        {{"latency", "--busbw"}, 2, "--busbw does not apply to latency"},
        {{"allreduce", "-w", "allocate"}, 2, "-w does not apply to allreduce"},
        {{"init", "-m", "8"}, 2, "-m does not apply to init"},
        /* OMB's barriers take -m and ignore it (core/compat.c notes it); OMB takes -m for the
         * atomics (their window's size), the element stays one */
        {{"ibarrier", "-m", "8"}, 2, NULL},
        {{"fop_latency", "-m", "8"}, 2, NULL},
        {{"init", "-z", "50"}, 2, "-z does not apply to init"},
        {{"init", "-i", "3"}, 2, "-i does not apply to init"},
        {{"put_bibw", "-b", "multiple"}, 2, "-b multiple does not apply to put_bibw"},
        {{"latency", "-W", "64"}, 2, "-W does not apply to latency"},
        {{"bw", "--send-mode", "ssend"}, 2, "--send-mode does not apply to bw"},
        {{"bibw", "-V"}, 2, "-V does not apply to bibw"},
    };
    cs_plan_t p;
    char err[256];
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        cs_status_t st = plan_line(lines[i].words, lines[i].nranks, &p, err, sizeof err);
        if (lines[i].refusal) {
            CHECK(st == CS_ERR_USAGE);
            CHECK_CONTAINS(err, lines[i].refusal);
        } else {
            CHECK(st == CS_OK);
            if (st != CS_OK) fprintf(stderr, "  %s %s: %s\n", lines[i].words[0], lines[i].words[1], err);
        }
    }
    /* a barrier has no size and no buffers, -m or not */
    const char *ibarrier_m[] = {"ibarrier", "-m", "8", NULL};
    CHECK(plan_line(ibarrier_m, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.min_size == 0 && p.max_size == 0 && p.buffer_bytes == 0);
}

/* Issue 11: OMB 7.4's atomics take -T (MPI_CHAR by default: a 1-byte element) and -m
 * (the window's size, by default OMB's MAX_MESSAGE_SIZE, 4 MiB); compare-and-swap is defined on integers only; get_acc_latency
 * keeps OMB's option defaults, MPI_Win_create and lock. */
static void check_atomics_and_defaults(void)
{
    cs_opts_t o;
    cs_plan_t p;
    char err[256];
    size_t sizes[4];
    const char *atomics[] = {"fop_latency", "cas_latency"};
    for (int i = 0; i < 2; i++) {
        const cs_bench_t *b = bench(atomics[i]);
        cs_opts_init(&o);
        CHECK(cs_bench_plan(b, &o, 2, &p, err, sizeof err) == CS_OK);
        /* OMB's window: options.max_message_size, 4 MiB by default */
        CHECK(p.ndtypes == 1 && p.dtypes[0] == CS_DT_CHAR && p.min_size == 1 && p.max_size == (size_t)1 << 22);
        CHECK(cs_bench_sizes(b, &p, CS_DT_CHAR, sizes, 4) == 1 && sizes[0] == 1);
        CHECK(p.nwin_modes == 1 && p.win_modes[0] == CS_WIN_ALLOCATE && p.sync_modes[0] == CS_SYNC_FLUSH);
        CHECK(cs_bench_planned_records(b, &o, &p) == 1);
        o.dtypes = CS_MASK(CS_DT_INT), o.dtypes_set = true, o.max_size = (size_t)1 << 20, o.max_size_set = true;
        cs_opts_mark(&o, CS_OPT_TYPE, "mpi_int");
        cs_opts_mark(&o, CS_OPT_MESSAGE_SIZE, "1M");
        CHECK(cs_bench_plan(b, &o, 2, &p, err, sizeof err) == CS_OK);
        CHECK(p.max_size == (size_t)1 << 20 && cs_bench_sizes(b, &p, CS_DT_INT, sizes, 4) == 1 && sizes[0] == 4);
    }
    cs_opts_init(&o);
    o.dtypes = CS_MASK(CS_DT_FLOAT), o.dtypes_set = true;
    cs_opts_mark(&o, CS_OPT_TYPE, "mpi_float");
    CHECK(cs_bench_plan(bench("fop_latency"), &o, 2, &p, err, sizeof err) == CS_OK);
    PLAN_BAD("cas_latency", 2, "-T mpi_float: cas_latency is defined on mpi_char, mpi_int only");

    cs_opts_init(&o);
    CHECK(cs_bench_plan(bench("get_acc_latency"), &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.nwin_modes == 1 && p.win_modes[0] == CS_WIN_CREATE && p.nsync_modes == 1 &&
          p.sync_modes[0] == CS_SYNC_LOCK && p.min_size == 1 && p.max_size == (size_t)1 << 22);
}

static void check_issue3_families(void)
{
    cs_opts_t o;
    cs_plan_t p;
    char err[256];

    /* collectives: OMB's 1 B .. 1 MiB, 1000/100 and 100/10 iterations, one datatype by default
     * (OMB 7.5's MPI_INT for the reductions: its sweep starts at 4 B) */
    cs_opts_init(&o);
    CHECK(cs_bench_plan(bench("allreduce"), &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(p.min_size == 1 && p.max_size == (size_t)1 << 20 && p.ndtypes == 1 && p.dtypes[0] == CS_DT_INT);
    CHECK(cs_bench_sizes(bench("allreduce"), &p, CS_DT_INT, NULL, 0) == 19); /* 4 B .. 1 MiB */
    CHECK(cs_bench_plan(bench("bcast"), &o, 4, &p, err, sizeof err) == CS_OK && p.dtypes[0] == CS_DT_CHAR);
    CHECK(cs_bench_plan(bench("allreduce"), &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(p.buffer_bytes == (size_t)2 << 20 && !p.max_size_clipped && p.root == 0 && p.nwin_modes == 0);
    long it, wu;
    cs_bench_iterations(bench("allreduce"), &o, 8192, &it, &wu);
    CHECK(it == 1000 && wu == 100);
    cs_bench_iterations(bench("allreduce"), &o, 8193, &it, &wu);
    CHECK(it == 100 && wu == 10);
    PLAN_BAD("allreduce", 1, "allreduce needs at least 2 ranks, got 1");
    CHECK(cs_bench_plan(bench("allreduce"), &o, 3, &p, err, sizeof err) == CS_OK); /* any count from 2 */

    /* -T is an axis in the given order; sizes start at one element */
    o.dtypes = CS_MASK(CS_DT_INT) | CS_MASK(CS_DT_DOUBLE), o.dtypes_set = true;
    cs_opts_mark(&o, CS_OPT_TYPE, "mpi_int,mpi_double");
    o.min_size = 1, o.min_size_set = true, o.max_size = 64, o.max_size_set = true;
    CHECK(cs_bench_plan(bench("allreduce"), &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(p.ndtypes == 2 && p.dtypes[0] == CS_DT_INT && p.dtypes[1] == CS_DT_DOUBLE);
    size_t sizes[64];
    CHECK(cs_bench_sizes(bench("allreduce"), &p, CS_DT_INT, sizes, 64) == 5);
    CHECK(sizes[0] == 4 && sizes[4] == 64);
    CHECK(cs_bench_sizes(bench("allreduce"), &p, CS_DT_DOUBLE, sizes, 64) == 4 && sizes[0] == 8);
    o.min_size = 6; /* 6, 12, 24, 48 in whole MPI_INTs */
    CHECK(cs_bench_plan(bench("allreduce"), &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(cs_bench_sizes(bench("allreduce"), &p, CS_DT_INT, sizes, 64) == 4 && sizes[0] == 4 && sizes[1] == 12);
    CHECK(cs_bench_sizes(bench("latency"), &p, CS_DT_CHAR, sizes, 64) == 4 && sizes[0] == 6); /* bytes as given */
    PLAN_BAD("barrier", 2, "-T does not apply to barrier"); /* OMB's barrier takes no -T either */

    /* -k: rooted collectives only, inside the communicator */
    cs_opts_init(&o);
    o.root_set = true, o.root_mode = CS_ROOT_ROTATE;
    cs_opts_mark(&o, CS_OPT_ROOT_RANK, "rotate");
    CHECK(cs_bench_plan(bench("bcast"), &o, 4, &p, err, sizeof err) == CS_OK && p.root == -1);
    PLAN_BAD("allreduce", 4, "-k does not apply to allreduce");
    o.root_mode = CS_ROOT_FIXED, o.root = 3;
    CHECK(cs_bench_plan(bench("bcast"), &o, 4, &p, err, sizeof err) == CS_OK && p.root == 3);
    o.root = 4;
    PLAN_BAD("bcast", 4, "-k fixed:4: root 4 is outside the communicator of 4 ranks");

    /* -l, -t, -N, --busbw, -w, -m, -z, -i by capability: check_options_by_capability */
    cs_opts_init(&o);
    CHECK(cs_bench_plan(bench("init"), &o, 1, &p, err, sizeof err) == CS_OK); /* one rank is enough */
    /* whether this build has persistent collectives is the MPI build's to say; the plan
     * refuses any descriptor that says it is unavailable */
    cs_bench_t persistent = *bench("allreduce_persistent");
    persistent.unavailable = "no MPI-4 persistent collectives";
    CHECK(cs_bench_plan(&persistent, &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "allreduce_persistent is not available in this build: no MPI-4 persistent collectives");

    /* -M: collectives lower MAX (OMB's warning), point-to-point still refuses */
    cs_opts_init(&o);
    o.mem_limit = (size_t)1 << 20;
    CHECK(cs_bench_plan(bench("alltoall"), &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(p.max_size_clipped && p.max_size == ((size_t)1 << 20) / 8); /* 4 send + 4 receive blocks */
    CHECK(cs_bench_plan(bench("allreduce"), &o, 4, &p, err, sizeof err) == CS_OK);
    CHECK(p.max_size_clipped && p.max_size == ((size_t)1 << 19));
    o.min_size = (size_t)1 << 18, o.min_size_set = true;
    PLAN_BAD("alltoall", 4, "-M 1048576: not even the smallest message size 262144 fits");
    cs_opts_init(&o);
    o.mem_limit = (size_t)1 << 20, o.max_size = (size_t)1 << 20, o.max_size_set = true;
    PLAN_BAD("bw", 2, "over the memory limit");
    /* collectives' int displacements: (ranks - 1) x block must fit INT_MAX */
    cs_opts_init(&o);
    o.mem_limit = (size_t)64 << 30, o.max_size = (size_t)1 << 30, o.max_size_set = true;
    o.min_size = (size_t)1 << 30, o.min_size_set = true;
    CHECK(cs_bench_plan(bench("alltoallv"), &o, 2, &p, err, sizeof err) == CS_OK);
    PLAN_BAD("alltoallv", 3,
             "-m: 1073741824-byte blocks at 3 ranks put the last block 2147483648 bytes in, beyond "
             "the int displacements of MPI collectives (2147483647); lower -m to at most 1073741823");
    o.max_size = o.min_size = (size_t)INT_MAX / 15;
    CHECK(cs_bench_plan(bench("allgatherv"), &o, 16, &p, err, sizeof err) == CS_OK);
    o.max_size = o.min_size = (size_t)INT_MAX / 15 + 1;
    PLAN_BAD("allgatherv", 16, "beyond the int displacements");
    /* neighbourhood: by the largest degree */
    cs_opts_init(&o);
    o.mem_limit = (size_t)1 << 20;
    cs_world_t world = {.nranks = 16, .max_indegree = 4, .max_outdegree = 4};
    CHECK(cs_bench_plan_world(bench("neighbor_alltoall"), &o, &world, &p, err, sizeof err) == CS_OK);
    CHECK(p.max_size == ((size_t)1 << 20) / 8 && p.max_size_clipped);

    /* one-sided: default window and synchronisation, -w/-s sets, what each benchmark takes */
    cs_opts_init(&o);
    CHECK(cs_bench_plan(bench("put_latency"), &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.nwin_modes == 1 && p.win_modes[0] == CS_WIN_ALLOCATE && p.nsync_modes == 1 &&
          p.sync_modes[0] == CS_SYNC_FLUSH && p.max_size == (size_t)1 << 22);
    CHECK(cs_bench_plan(bench("put_bibw"), &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.sync_modes[0] == CS_SYNC_PSCW && p.window == 64 && p.buffer_bytes == 2 * 64 * ((size_t)1 << 22));
    o.sync_modes = 0x3f, o.sync_modes_set = true, o.sync_all = true;
    o.win_modes = 7, o.win_modes_set = true;
    CHECK(cs_bench_plan(bench("put_bibw"), &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.nsync_modes == 2 && p.sync_modes[0] == CS_SYNC_PSCW && p.sync_modes[1] == CS_SYNC_FENCE);
    CHECK(p.nwin_modes == 3 && p.win_modes[2] == CS_WIN_DYNAMIC);
    o.sync_all = false, o.sync_modes = CS_MASK(CS_SYNC_FENCE) | CS_MASK(CS_SYNC_LOCK);
    PLAN_BAD("put_bibw", 2, "-s lock: put_bibw supports pscw, fence");
    PLAN_BAD("put_latency", 3, "put_latency needs exactly 2 ranks, got 3");
    check_atomics_and_defaults();

    /* fan-in: one hub, every other rank a peer unless -p */
    cs_opts_init(&o);
    CHECK(cs_bench_plan(bench("bw_fan_in"), &o, 5, &p, err, sizeof err) == CS_OK && p.pairs == 4);
    CHECK(cs_bench_bytes_per_iteration(bench("bw_fan_in"), 1000, 64, p.pairs) == 256000);
    o.pairs = 2, o.pairs_set = true;
    CHECK(cs_bench_plan(bench("bw_fan_in"), &o, 5, &p, err, sizeof err) == CS_OK && p.pairs == 2);
    o.pairs = 5;
    PLAN_BAD("bw_fan_in", 5, "-p 5: 5 ranks have at most 4 peers besides the hub");
}

/* Issue 14: OMB's buffer placement. A build with CUDA (cuda_built) puts sides where the
 * words say (default H H), collectives' buffers all on the device, and a device word
 * without -d implies cuda; a build without CUDA refuses -d and ignores the words. */
static void check_gpu_placement(void)
{
    cs_opts_t o;
    cs_plan_t p;
    char err[512];
    cs_world_t gpu = {.nranks = 2, .cuda_built = true}, plain = {.nranks = 2};
#define PLAN_W(name, world) cs_bench_plan_world(bench(name), &o, &(world), &p, err, sizeof err)

    cs_opts_init(&o);
    CHECK(PLAN_W("latency", gpu) == CS_OK && !p.gpu && !p.mpi_gpu_mem);
    CHECK(p.mem[0] == CS_MEM_HOST && p.mem[1] == CS_MEM_HOST);

    o.accel = CS_ACCEL_CUDA, o.accel_set = true; /* -d cuda alone: OMB's H H, a GPU context */
    CHECK(PLAN_W("latency", gpu) == CS_OK && p.gpu && !p.mpi_gpu_mem && p.mem[0] == CS_MEM_HOST);
    o.mem_kinds[0] = CS_MEM_DEVICE, o.mem_kinds[1] = CS_MEM_HOST, o.mem_kinds_set = true;
    CHECK(PLAN_W("bw", gpu) == CS_OK && p.mpi_gpu_mem && p.mem[0] == CS_MEM_DEVICE && p.mem[1] == CS_MEM_HOST);
    CHECK(cs_bench_side(bench("bw"), &p, 0) == 0 && cs_bench_side(bench("bw"), &p, 1) == 1);
    CHECK_CONTAINS(cs_bench_placement(bench("bw"), &p, err, sizeof err),
                   "rank 0's buffers in device memory, its peer's in host memory");
    o.accel = CS_ACCEL_MANAGED; /* D under -d managed is managed memory (OMB) */
    CHECK(PLAN_W("bw", gpu) == CS_OK && p.mem[0] == CS_MEM_MANAGED_DEVICE && p.mem[1] == CS_MEM_HOST);
    o.mem_kinds[1] = CS_MEM_MANAGED_HOST;
    CHECK(PLAN_W("bw", gpu) == CS_OK && p.mem[1] == CS_MEM_MANAGED_HOST);

    cs_opts_init(&o); /* a device word without -d: CUDA (OMB's setAccel) */
    o.mem_kinds[0] = o.mem_kinds[1] = CS_MEM_DEVICE, o.mem_kinds_set = true;
    CHECK(PLAN_W("latency", gpu) == CS_OK && p.gpu && p.mem[0] == CS_MEM_DEVICE && p.mem[1] == CS_MEM_DEVICE);
    CHECK(PLAN_W("latency", plain) == CS_OK && !p.gpu && p.mem[0] == CS_MEM_HOST && p.mem[1] == CS_MEM_HOST);
    CHECK(PLAN_W("allreduce", gpu) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "allreduce: buffer placement words are for point-to-point and one-sided benchmarks");
    CHECK(PLAN_W("allreduce", plain) == CS_OK && !p.gpu);

    cs_opts_init(&o); /* collectives: every buffer on the device */
    o.accel = CS_ACCEL_CUDA, o.accel_set = true;
    cs_world_t four = {.nranks = 4, .cuda_built = true};
    CHECK(PLAN_W("allreduce", four) == CS_OK && p.mpi_gpu_mem && p.mem[0] == CS_MEM_DEVICE &&
          p.mem[1] == CS_MEM_DEVICE);
    CHECK_CONTAINS(cs_bench_placement(bench("allreduce"), &p, err, sizeof err), "every buffer in device memory");
    CHECK(PLAN_W("iallgather", four) == CS_OK && p.mem[1] == CS_MEM_DEVICE);

    /* one-sided: a GPU window is made with MPI_Win_create (MPI_Win_allocate's is host memory) */
    o.mem_kinds[0] = o.mem_kinds[1] = CS_MEM_DEVICE, o.mem_kinds_set = true;
    CHECK(PLAN_W("put_latency", gpu) == CS_OK && p.nwin_modes == 1 && p.win_modes[0] == CS_WIN_CREATE);
    o.win_modes = CS_MASK(CS_WIN_CREATE) | CS_MASK(CS_WIN_ALLOCATE) | CS_MASK(CS_WIN_DYNAMIC), o.win_modes_set = true;
    CHECK(PLAN_W("put_bw", gpu) == CS_OK && p.nwin_modes == 2 && p.win_modes[0] == CS_WIN_CREATE &&
          p.win_modes[1] == CS_WIN_DYNAMIC);
    cs_opts_init(&o);
    o.accel = CS_ACCEL_CUDA, o.accel_set = true; /* host windows keep MPI_Win_allocate */
    CHECK(PLAN_W("put_latency", gpu) == CS_OK && p.win_modes[0] == CS_WIN_ALLOCATE);

    CHECK(PLAN_W("latency", plain) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-d cuda: GPU buffers are not supported by this build (it was built without CUDA");
    o.accel = CS_ACCEL_MANAGED;
    CHECK(PLAN_W("allreduce", plain) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-d managed: GPU buffers are not supported by this build");

    /* -d does not apply where OMB has no accelerator support; OMB 7.5 has it for the
     * neighbourhood collectives: every buffer on the GPU, as other collectives */
    cs_opts_init(&o);
    o.accel = CS_ACCEL_CUDA, o.accel_set = true;
    cs_opts_mark(&o, CS_OPT_ACCELERATOR, "cuda");
    cs_world_t three = {.nranks = 3, .cuda_built = true};
    CHECK(PLAN_W("neighbor_allgather", three) == CS_OK && p.gpu && p.mem[0] == CS_MEM_DEVICE);
    CHECK(PLAN_W("init", gpu) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-d does not apply to init");
#undef PLAN_W
}

int main(void)
{
    check_gpu_placement();
    cs_opts_t o;
    cs_plan_t p;
    char err[256];

    cs_opts_init(&o);
    CHECK(cs_bench_plan(bench("latency"), &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.min_size == 0 && p.max_size == (size_t)1 << 22 && p.pairs == 1 && p.window == 1);
    CHECK(cs_bench_plan(bench("bw"), &o, 2, &p, err, sizeof err) == CS_OK);
    CHECK(p.min_size == 1 && p.window == 64 && p.buffer_bytes == (size_t)2 << 22);

    CHECK(cs_bench_plan(bench("latency"), &o, 3, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "latency needs exactly 2 ranks, got 3");
    CHECK(cs_bench_plan(bench("bw"), &o, 1, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK(cs_bench_plan(bench("mbw_mr"), &o, 5, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "mbw_mr needs an even number of ranks (at least 2), got 5");
    CHECK(cs_bench_plan(bench("multi_lat"), &o, 3, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK(cs_bench_plan(bench("mbw_mr"), &o, 8, &p, err, sizeof err) == CS_OK);
    CHECK(p.pairs == 4);
    CHECK(cs_bench_plan(bench("multi_lat"), &o, 6, &p, err, sizeof err) == CS_OK);
    CHECK(p.pairs == 3);

    o.pairs = 2, o.pairs_set = true;
    CHECK(cs_bench_plan(bench("mbw_mr"), &o, 8, &p, err, sizeof err) == CS_OK);
    CHECK(p.pairs == 2);
    o.pairs = 5;
    cs_opts_mark(&o, CS_OPT_NUM_PAIRS, "5");
    CHECK(cs_bench_plan(bench("mbw_mr"), &o, 8, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-p 5: 8 ranks make at most 4 pairs");
    CHECK(cs_bench_plan(bench("multi_lat"), &o, 8, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-p does not apply to multi_lat");

    /* memory: 2 x max size (x slots with -b multiple) must fit under -M */
    cs_opts_init(&o);
    o.max_size = (size_t)256 << 20, o.max_size_set = true;
    CHECK(cs_bench_plan(bench("bw"), &o, 2, &p, err, sizeof err) == CS_OK);
    o.max_size = (size_t)257 << 20;
    CHECK(cs_bench_plan(bench("bw"), &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(
        err, "message size 269484032 needs 514 MiB of buffers per process, over the memory limit of 512 MiB (-M)");
    o.max_size = (size_t)1 << 20, o.buffers = CS_BUFFERS_MULTIPLE;
    o.mem_limit = (size_t)64 << 20;
    CHECK(cs_bench_plan(bench("bw"), &o, 2, &p, err, sizeof err) == CS_ERR_USAGE); /* 2 x 64 x 1 MiB */
    o.mem_limit = (size_t)128 << 20;
    CHECK(cs_bench_plan(bench("bw"), &o, 2, &p, err, sizeof err) == CS_OK);
    cs_opts_init(&o);
    o.mem_limit = (size_t)-1;
    o.max_size = (size_t)3 << 30, o.max_size_set = true;
    CHECK(cs_bench_plan(bench("latency"), &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "MPI counts are int");

    cs_opts_init(&o);
    o.send_mode = CS_SEND_BUFFERED, o.send_mode_set = true;
    o.max_size = (size_t)1 << 30, o.max_size_set = true, o.mem_limit = (size_t)4 << 30;
    CHECK(cs_bench_plan(bench("latency"), &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "--send-mode bsend: messages above");

    cs_opts_init(&o);
    o.min_size = 64, o.min_size_set = true;
    CHECK(cs_bench_plan(bench("latency"), &o, 2, &p, err, sizeof err) == CS_OK); /* MAX defaults to 4M */
    o.max_size = 32, o.max_size_set = true;
    CHECK(cs_bench_plan(bench("latency"), &o, 2, &p, err, sizeof err) == CS_ERR_USAGE);

    /* OMB's default iteration tables, split at 8 KiB */
    long it, wu;
    cs_opts_init(&o);
    cs_bench_iterations(bench("latency"), &o, 8192, &it, &wu);
    CHECK(it == 10000 && wu == 100);
    cs_bench_iterations(bench("latency"), &o, 8193, &it, &wu);
    CHECK(it == 1000 && wu == 10);
    cs_bench_iterations(bench("bw"), &o, 1, &it, &wu);
    CHECK(it == 100 && wu == 10);
    cs_bench_iterations(bench("bw"), &o, 1 << 20, &it, &wu);
    CHECK(it == 20 && wu == 2);
    o.iterations = 7, o.iterations_set = true, o.warmup = 0, o.warmup_set = true;
    cs_bench_iterations(bench("bw"), &o, 1 << 20, &it, &wu);
    CHECK(it == 7 && wu == 0);

    CHECK_NEAR(cs_bench_bytes_per_iteration(bench("bibw"), 1000, 64, 1), 128000, 0);
    CHECK_NEAR(cs_bench_bytes_per_iteration(bench("mbw_mr"), 1000, 16, 4), 64000, 0);
    check_issue3_families();
    check_options_by_capability();
    check_workers();
    return check_report("test_plan");
}
