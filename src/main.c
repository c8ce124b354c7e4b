/* commscope-bench: parse -> look up -> plan -> sweep -> reporters -> exit code.
 * Only this file chooses the exit code and finalizes MPI. */
#include <errno.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/compat.h"
#include "core/driver.h"
#include "mem/gpu.h"
#include "mpi/check.h"
#include "mpi/gpu_aware.h"
#include "util/gpu_env.h"
#include "core/pattern.h"
#include "mpi/provenance.h"
#include "core/registry.h"
#include "mpi/congestion_split.h"
#include "mpi/schedule_load.h"
#include "mpi/started.h"
#include "mpi/topo_load.h"

#ifndef CS_VERSION
#define CS_VERSION "0.0.0"
#endif
#ifndef CS_GIT_COMMIT
#define CS_GIT_COMMIT "unknown"
#endif

#define COMPAT_PREFIX "osu_"

/* An osu_<name> program name (the compat links) implies benchmark <name>. */
static const char *implied_benchmark(const char *argv0)
{
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    return strncmp(base, COMPAT_PREFIX, strlen(COMPAT_PREFIX)) == 0 ? base + strlen(COMPAT_PREFIX) : NULL;
}

static int usage_exit(int rank, const char *prog, const char *msg)
{
    if (rank == 0) fprintf(stderr, "%s: %s\nTry '%s --help' for usage.\n", prog, msg, prog);
    MPI_Finalize();
    return CS_ERR_USAGE;
}

typedef struct cs_files {
    FILE *json, *jsonl;
} cs_files_t;

static void started_line(void *arg, const cs_started_t *s)
{
    if (arg) cs_jsonl_started(arg, s);
}

/* --jsonl-out: rank 0 opens the record stream before anything collective, and every rank
 * says there that it got going (mpi/started.h), so a launch that hangs or dies at start
 * shows which ranks never did. A stream that cannot be opened is told by open_files. */
static cs_status_t open_stream(MPI_Comm comm, int rank, const cs_opts_t *o, cs_files_t *f)
{
    if (o->jsonl_out == NULL) return CS_OK;
    if (rank == 0) f->jsonl = fopen(o->jsonl_out, "w");
    return cs_started_exchange(comm, started_line, f->jsonl);
}

static void close_files(cs_files_t *f)
{
    if (f->json) fclose(f->json);
    if (f->jsonl) fclose(f->jsonl);
    f->json = f->jsonl = NULL;
}

/* Rank 0 opens --json-out (the stream is open already); every rank learns whether both
 * worked. */
static cs_status_t open_files(MPI_Comm comm, int rank, const cs_opts_t *o, cs_files_t *f, char *err, size_t errlen)
{
    int ok = 1;
    if (rank == 0) {
        if (o->jsonl_out && f->jsonl == NULL) {
            snprintf(err, errlen, "--jsonl-out %s: cannot write this file", o->jsonl_out);
            ok = 0;
        }
        if (ok && o->json_out && (f->json = fopen(o->json_out, "w")) == NULL) {
            snprintf(err, errlen, "--json-out %s: cannot write this file", o->json_out);
            ok = 0;
        }
    }
    CS_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
    return ok ? CS_OK : CS_ERR_USAGE;
}

static int add_reporters(const cs_opts_t *o, const cs_files_t *f, cs_reporter_t *reps)
{
    static const cs_reporter_ops_t *const by_format[] = {
        [CS_FORMAT_OSU] = &cs_report_osu, [CS_FORMAT_JSON] = &cs_report_json, [CS_FORMAT_CSV] = &cs_report_csv};
    int n = 0;
    cs_reporter_init(&reps[n++], by_format[o->format], stdout);
    if (f->json) cs_reporter_init(&reps[n++], &cs_report_json, f->json);
    if (f->jsonl) cs_reporter_init(&reps[n++], &cs_report_jsonl, f->jsonl);
    return n;
}

/* The GPU chosen before MPI_Init, where the launcher told the local rank (CUDA-aware
 * MPI libraries want the device current before they start, OMB does the same). */
typedef struct cs_early_gpu {
    bool tried;
    cs_status_t status;
    char err[512];
} cs_early_gpu_t;

/* What main knows before anything else runs. */
typedef struct cs_startup {
    double init_seconds; /* MPI_Init, timed from the first line of main (osu_init) */
    cs_early_gpu_t gpu;
    int thread_level; /* what MPI_Init_thread provided (MPI_THREAD_SINGLE after MPI_Init) */
} cs_startup_t;

/* What the plan loaded from files: -N's neighbourhood, --schedule's pairs. */
typedef struct cs_loaded {
    cs_topo_t topo;
    bool has_topo;
    cs_schedule_t schedule;
    bool has_schedule;
    cs_congestion_split_t split;
    bool has_split;
} cs_loaded_t;

static void loaded_free(cs_loaded_t *l)
{
    if (l->has_topo) cs_topo_free(&l->topo);
    if (l->has_schedule) cs_schedule_free(&l->schedule);
    if (l->has_split) cs_congestion_split_free(&l->split);
}

static cs_status_t run(MPI_Comm comm, int rank, int argc, char **argv, char **envp, const cs_opts_t *o,
                       const cs_bench_t *bench, const cs_plan_t *plan, const cs_files_t *files,
                       const cs_loaded_t *loaded, const cs_startup_t *startup)
{
    cs_run_info_t info = {.bench = bench,
                          .opts = o,
                          .plan = plan,
                          .pattern_name = cs_pattern_of(bench->pattern)->name,
                          .tool_version = CS_VERSION,
                          .git_commit = CS_GIT_COMMIT,
                          .argc = argc,
                          .argv = argv,
                          .topo = loaded->has_topo ? &loaded->topo : NULL,
                          .schedule = loaded->has_schedule ? &loaded->schedule : NULL,
                          .split = loaded->has_split ? &loaded->split : NULL,
                          .init_seconds = startup->init_seconds};
    cs_utc_now(info.start_time, sizeof info.start_time);
    CS_CHECK(cs_provenance_collect(comm, envp, &info));

    cs_reporter_t reps[3];
    cs_output_t out = {NULL, 0};
    if (rank == 0) {
        out.reporters = reps;
        out.nreporters = add_reporters(o, files, reps);
        for (int i = 0; i < out.nreporters; i++) reps[i].ops->begin(&reps[i], &info);
    }
    cs_run_status_t run_status = CS_RUN_ERROR;
    cs_status_t st = cs_driver_run(comm, &info, &out, &run_status);
    if (st != CS_OK) run_status = CS_RUN_ERROR;
    if (rank == 0) {
        cs_run_end_t end = {.status = run_status};
        cs_utc_now(end.end_time, sizeof end.end_time);
        for (int i = 0; i < out.nreporters; i++) {
            reps[i].ops->end(&reps[i], &info, &end);
            cs_reporter_free(&reps[i]);
        }
    }
    cs_provenance_free(&info);
    if (st != CS_OK) return st;
    return run_status == CS_RUN_VALIDATION_FAILED ? CS_ERR_VALIDATION : CS_OK;
}

static int run_parsed(MPI_Comm comm, int rank, int nranks, int argc, char **argv, char **envp, const cs_opts_t *o,
                      const cs_startup_t *startup);

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

/* getopt_long reorders the words it parses; the record keeps argv as typed. */
static cs_status_t parse_copy(int argc, char **argv, cs_opts_t *opts, char *err, size_t errlen)
{
    char **words = malloc(((size_t)argc + 1) * sizeof *words);
    if (words == NULL) return CS_ERR_RUNTIME;
    memcpy(words, argv, ((size_t)argc + 1) * sizeof *words);
    cs_status_t st = cs_opts_parse(argc, words, implied_benchmark(argv[0]), opts, err, errlen);
    free(words);
    return st;
}

/* The version, and the MPI library the binary runs with (which `commscope info` shows and
 * an installer checks): MPI_Get_library_version and MPI_Get_version may be called before
 * MPI_Init. Only the first line of the library's text: MPICH adds its configure flags. */
static void print_version(void)
{
    printf("# commscope-bench v%s (%s)\n", CS_VERSION, CS_GIT_COMMIT);
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, major = 0, minor = 0;
    if (MPI_Get_library_version(library, &len) != MPI_SUCCESS || MPI_Get_version(&major, &minor) != MPI_SUCCESS) return;
    library[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
    printf("# MPI library: %.*s (MPI %d.%d)\n", (int)strcspn(library, "\r\n"), library, major, minor);
}

static void print_information(const cs_opts_t *o, const char *prog)
{
    if (o->help) cs_opts_usage(stdout, prog);
    else if (o->version) print_version();
    else cs_registry_print(stdout);
}

/* Started by a launcher, the process sees one of these. */
static bool under_launcher(void)
{
    static const char *const vars[] = {"PMI_RANK",        "PMI_SIZE",     "PMIX_RANK", "OMPI_COMM_WORLD_SIZE",
                                       "MPI_LOCALRANKID", "SLURM_STEP_ID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]) != NULL) return true;
    return false;
}

/* --list, --help and --version started by hand answer before MPI_Init, which alone takes
 * a good part of a second (the harness asks for --list on every run). Under a launcher
 * they go through MPI as usual, so that rank 0 alone prints. */
static bool answered_without_mpi(int argc, char **argv)
{
    if (under_launcher()) return false;
    cs_opts_t opts;
    char err[512];
    if (parse_copy(argc, argv, &opts, err, sizeof err) != CS_OK) return false; /* reported with MPI */
    if (!(opts.help || opts.version || opts.list)) return false;
    print_information(&opts, argv[0]);
    return true;
}

static bool wants_gpu(const cs_opts_t *o)
{
    if (cs_opts_want_gpu(o)) return true;
    const cs_bench_t *b = o->bench_name ? cs_registry_find(o->bench_name) : NULL;
    return b && (b->caps & CS_CAP_NCCL);
}

/* Before MPI_Init: the device of this rank, where the launcher's environment tells the
 * local rank (or the user named the GPU). Failures are told after MPI_Init, by one rank. */
static void select_gpu_early(int argc, char **argv, cs_early_gpu_t *g)
{
    cs_opts_t opts;
    char err[512];
    if (parse_copy(argc, argv, &opts, err, sizeof err) != CS_OK || !wants_gpu(&opts) || !cs_gpu_built()) return;
    int device, local = cs_env_local_rank(NULL);
    if (cs_gpu_requested(&opts, &device, err, sizeof err) != CS_OK) return; /* told after MPI_Init */
    if (local < 0 && device < 0) return;                                    /* MPI will tell the local rank */
    g->tried = true;
    g->status = cs_gpu_select(local, device, g->err, sizeof g->err);
}

/* The benchmark the command line names, before MPI starts (NULL: none, or a usage error
 * that is reported once MPI has started). */
static const cs_bench_t *named_benchmark(int argc, char **argv)
{
    cs_opts_t opts;
    char err[512];
    if (parse_copy(argc, argv, &opts, err, sizeof err) != CS_OK || opts.bench_name == NULL) return NULL;
    return cs_registry_find(opts.bench_name);
}

/* Some benchmarks meet a known fault of some MPI library, which a setting read at MPI_Init
 * avoids (the descriptor's library_env). Set before MPI_Init, unless the user chose. */
static void avoid_known_library_faults(const cs_bench_t *b)
{
    if (b && b->library_env) setenv(b->library_env->name, b->library_env->value, 0);
}

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

int main(int argc, char **argv, char **envp)
{
    if (answered_without_mpi(argc, argv)) return 0;
    const cs_bench_t *named = named_benchmark(argc, argv);
    avoid_known_library_faults(named);
    cs_startup_t startup = {.thread_level = MPI_THREAD_SINGLE};
    select_gpu_early(argc, argv, &startup.gpu);
    /* the init benchmark times MPI_Init from here, as osu_init does; threaded benchmarks
     * ask for MPI_THREAD_MULTIPLE (refused after start-up when not provided) */
    struct timespec before_init, after_init;
    clock_gettime(CLOCK_MONOTONIC, &before_init);
    int init_rc = named && (named->caps & CS_CAP_THREADS)
                      ? MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &startup.thread_level)
                      : MPI_Init(&argc, &argv);
    clock_gettime(CLOCK_MONOTONIC, &after_init);
    startup.init_seconds = seconds_between(&before_init, &after_init);
    if (init_rc != MPI_SUCCESS) {
        fprintf(stderr, "commscope-bench: MPI_Init failed\n");
        return CS_ERR_RUNTIME;
    }
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    const char *prog = argv[0];

    cs_opts_t opts;
    char err[512];
    cs_status_t parsed = parse_copy(argc, argv, &opts, err, sizeof err);
    if (parsed == CS_ERR_RUNTIME) {
        MPI_Abort(comm, CS_ERR_RUNTIME);
        return CS_ERR_RUNTIME;
    }
    return parsed != CS_OK ? usage_exit(rank, prog, err)
                           : run_parsed(comm, rank, nranks, argc, argv, envp, &opts, &startup);
}

/* The plan; neighbourhood collectives first load -N (collective: every rank reaches the
 * same verdict) and plan again with the neighbour counts, which size their buffers. The
 * first plan checks the options, so -N on a benchmark without neighbours says so. The
 * pairs benchmark loads its schedule, which counts a FILE's pairs. */
static cs_status_t plan_with_topology(MPI_Comm comm, int nranks, const cs_bench_t *bench, const cs_opts_t *o,
                                      cs_plan_t *plan, cs_loaded_t *loaded, char *err, size_t errlen)
{
    cs_world_t world = {.nranks = nranks, .cuda_built = cs_gpu_built()};
    CS_CHECK(cs_bench_plan_world(bench, o, &world, plan, err, errlen));
    if (bench->caps & CS_CAP_SCHEDULE) {
        CS_CHECK(cs_schedule_load(comm, plan, &loaded->schedule, err, errlen));
        loaded->has_schedule = true;
    }
    if (bench->caps & CS_CAP_CONGESTION) {
        CS_CHECK(cs_congestion_load(comm, plan, &loaded->split, err, errlen));
        loaded->has_split = true;
    }
    if (!(bench->caps & CS_CAP_NEIGHBOR)) return CS_OK;
    cs_topo_t *topo = &loaded->topo;
    CS_CHECK(cs_topo_load(comm, o, topo, err, errlen));
    loaded->has_topo = true;
    world.max_indegree = topo->max_indegree;
    world.max_outdegree = topo->max_outdegree;
    return cs_bench_plan_world(bench, o, &world, plan, err, errlen);
}

/* This rank's part of getting the GPU ready: the MPI library must take GPU memory where
 * the plan hands it some, and the device must exist. Returns the reason it cannot. */
static bool gpu_problem(MPI_Comm comm, const cs_opts_t *o, const cs_plan_t *plan, const cs_early_gpu_t *early,
                        char *err, size_t errlen)
{
    if (plan->mpi_gpu_mem) {
        char how[160];
        cs_cuda_aware_t aware = cs_mpi_cuda_aware(how, sizeof how);
        if (aware == CS_CUDA_AWARE_NO) {
            char where[160];
            snprintf(err, errlen,
                     "-d %s (%s): this MPI library is not CUDA-aware (%s says no), so it cannot send from or receive "
                     "into GPU memory; use a CUDA-aware MPI, host buffers (H H) or the nccl_* benchmarks",
                     cs_accel_name(o->accel_set ? o->accel : CS_ACCEL_CUDA),
                     cs_bench_placement(cs_registry_find(o->bench_name), plan, where, sizeof where), how);
            return true;
        }
        int rank;
        MPI_Comm_rank(comm, &rank);
        if (aware == CS_CUDA_AWARE_UNKNOWN && rank == 0)
            fprintf(stderr, "commscope-bench: warning: cannot ask whether the MPI library is CUDA-aware (%s)\n", how);
    }
    if (early->tried) {
        if (early->status == CS_OK) return false;
        snprintf(err, errlen, "%s", early->err);
        return true;
    }
    int device;
    if (cs_gpu_requested(o, &device, err, errlen) != CS_OK) return true;
    /* no launcher variable: the rank among those sharing this node */
    MPI_Comm node;
    int local = 0;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
    return cs_gpu_select(local, device, err, errlen) != CS_OK;
}

/* Collective: every rank learns whether any failed; the lowest failing rank tells why. */
static bool gpu_ready(MPI_Comm comm, int rank, int nranks, const char *prog, const cs_opts_t *o, const cs_plan_t *plan,
                      const cs_early_gpu_t *early)
{
    char err[768] = "";
    int mine = gpu_problem(comm, o, plan, early, err, sizeof err) ? rank : nranks, first = nranks;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == nranks) return true;
    if (rank == first) fprintf(stderr, "%s: %s\n", prog, err);
    return false;
}

/* Flushes (and closes, unless it is stdout) one output; false, with a message naming it
 * and the system's reason, when anything written to it was lost. NULL: not opened. */
static bool finish_output(FILE *f, const char *prog, const char *what, const char *path)
{
    if (f == NULL) return true;
    errno = 0;
    bool ok = fflush(f) == 0 && !ferror(f);
    int saved = errno;
    if (f != stdout && fclose(f) != 0 && ok) ok = false, saved = errno;
    if (!ok)
        fprintf(stderr, "%s: cannot write %s%s%s: %s\n", prog, what, path ? " " : "", path ? path : "",
                saved ? strerror(saved) : "write error");
    return ok;
}

/* After a successful parse: informational requests, planning, the run, the exit code. */
static int run_parsed(MPI_Comm comm, int rank, int nranks, int argc, char **argv, char **envp, const cs_opts_t *o,
                      const cs_startup_t *startup)
{
    const char *prog = argv[0];
    const cs_opts_t opts = *o;
    char err[512];
    if (opts.help || opts.version || opts.list) {
        if (rank == 0) print_information(&opts, prog);
        MPI_Finalize();
        return 0;
    }
    const cs_bench_t *bench = cs_registry_find(opts.bench_name);
    if (bench == NULL) {
        snprintf(err, sizeof err, "unknown benchmark '%s' (--list shows them)", opts.bench_name);
        return usage_exit(rank, prog, err);
    }
    if ((bench->caps & CS_CAP_THREADS) && startup->thread_level < MPI_THREAD_MULTIPLE) {
        snprintf(err, sizeof err,
                 "%s needs MPI_THREAD_MULTIPLE, and this MPI library provides only %s; use a library built with "
                 "thread support",
                 bench->name, thread_level_name(startup->thread_level));
        return usage_exit(rank, prog, err);
    }
    cs_files_t files = {NULL, NULL};
    if (open_stream(comm, rank, &opts, &files) != CS_OK) {
        MPI_Abort(comm, CS_ERR_RUNTIME);
        return CS_ERR_RUNTIME;
    }
    cs_plan_t plan;
    cs_loaded_t loaded = {0};
    cs_status_t planned = plan_with_topology(comm, nranks, bench, &opts, &plan, &loaded, err, sizeof err);
    if (planned == CS_ERR_RUNTIME) {
        MPI_Abort(comm, CS_ERR_RUNTIME);
        return CS_ERR_RUNTIME;
    }
    if (planned != CS_OK) {
        loaded_free(&loaded);
        close_files(&files);
        return usage_exit(rank, prog, err);
    }
    if (plan.gpu && !gpu_ready(comm, rank, nranks, prog, &opts, &plan, &startup->gpu)) {
        loaded_free(&loaded);
        close_files(&files);
        MPI_Finalize();
        return CS_ERR_USAGE;
    }
    if (rank == 0) cs_compat_notes(bench, &opts, prog, stderr);
    if (plan.max_size_clipped && rank == 0)
        fprintf(stderr,
                "Warning! Limiting max message size to: %zu. Increase -M, --mem-limit for higher message "
                "sizes.\n",
                plan.max_size);

    if (open_files(comm, rank, &opts, &files, err, sizeof err) != CS_OK) {
        /* only rank 0 knows which file failed; it says so */
        close_files(&files);
        loaded_free(&loaded);
        return usage_exit(rank, prog, err);
    }
    cs_status_t st = run(comm, rank, argc, argv, envp, &opts, bench, &plan, &files, &loaded, startup);
    loaded_free(&loaded);
    /* output that did not reach its file is a failed run, not a success */
    bool written = true;
    if (rank == 0) {
        written &= finish_output(stdout, prog, "standard output", NULL);
        written &= finish_output(files.json, prog, "--json-out", opts.json_out);
        written &= finish_output(files.jsonl, prog, "--jsonl-out", opts.jsonl_out);
    }
    if (st == CS_ERR_RUNTIME || st == CS_ERR_USAGE) {
        /* a peer may be blocked in a send or receive that will never complete */
        MPI_Abort(comm, CS_ERR_RUNTIME);
        return CS_ERR_RUNTIME;
    }
    MPI_Finalize();
    return st == CS_ERR_VALIDATION || !written ? 1 : 0;
}
