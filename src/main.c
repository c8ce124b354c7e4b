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
#include "mpi/check.h"
#include "core/pattern.h"
#include "mpi/provenance.h"
#include "core/registry.h"
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

/* Rank 0 opens the output files; every rank learns whether that worked. */
static cs_status_t open_files(MPI_Comm comm, int rank, const cs_opts_t *o, cs_files_t *f, char *err, size_t errlen)
{
    int ok = 1;
    if (rank == 0) {
        if (o->json_out && (f->json = fopen(o->json_out, "w")) == NULL) {
            snprintf(err, errlen, "--json-out %s: cannot write this file", o->json_out);
            ok = 0;
        }
        if (ok && o->jsonl_out && (f->jsonl = fopen(o->jsonl_out, "w")) == NULL) {
            snprintf(err, errlen, "--jsonl-out %s: cannot write this file", o->jsonl_out);
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

/* What main knows before anything else runs. */
typedef struct cs_startup {
    double init_seconds; /* MPI_Init, timed from the first line of main (osu_init) */
} cs_startup_t;

static cs_status_t run(MPI_Comm comm, int rank, int argc, char **argv, char **envp, const cs_opts_t *o,
                       const cs_bench_t *bench, const cs_plan_t *plan, const cs_files_t *files, const cs_topo_t *topo,
                       const cs_startup_t *startup)
{
    cs_run_info_t info = {.bench = bench,
                          .opts = o,
                          .plan = plan,
                          .pattern_name = cs_pattern_of(bench->pattern)->name,
                          .tool_version = CS_VERSION,
                          .git_commit = CS_GIT_COMMIT,
                          .argc = argc,
                          .argv = argv,
                          .topo = topo,
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
    cs_status_t st = cs_driver_run(comm, &info, &cs_mem_host, &out, &run_status);
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

static void print_information(const cs_opts_t *o, const char *prog)
{
    if (o->help) cs_opts_usage(stdout, prog);
    else if (o->version) printf("# commscope-bench v%s (%s)\n", CS_VERSION, CS_GIT_COMMIT);
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

int main(int argc, char **argv, char **envp)
{
    if (answered_without_mpi(argc, argv)) return 0;
    /* the init benchmark times MPI_Init from here, as osu_init does */
    struct timespec before_init, after_init;
    clock_gettime(CLOCK_MONOTONIC, &before_init);
    int init_rc = MPI_Init(&argc, &argv);
    clock_gettime(CLOCK_MONOTONIC, &after_init);
    cs_startup_t startup = {.init_seconds = seconds_between(&before_init, &after_init)};
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
 * first plan checks the options, so -N on a benchmark without neighbours says so. */
static cs_status_t plan_with_topology(MPI_Comm comm, int nranks, const cs_bench_t *bench, const cs_opts_t *o,
                                      cs_plan_t *plan, cs_topo_t *topo, bool *has_topo, char *err, size_t errlen)
{
    cs_world_t world = {.nranks = nranks};
    CS_CHECK(cs_bench_plan_world(bench, o, &world, plan, err, errlen));
    if (!(bench->caps & CS_CAP_NEIGHBOR)) return CS_OK;
    CS_CHECK(cs_topo_load(comm, o, topo, err, errlen));
    *has_topo = true;
    world.max_indegree = topo->max_indegree;
    world.max_outdegree = topo->max_outdegree;
    return cs_bench_plan_world(bench, o, &world, plan, err, errlen);
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
    cs_plan_t plan;
    cs_topo_t topo = {0};
    bool has_topo = false;
    cs_status_t planned = plan_with_topology(comm, nranks, bench, &opts, &plan, &topo, &has_topo, err, sizeof err);
    if (planned == CS_ERR_RUNTIME) {
        MPI_Abort(comm, CS_ERR_RUNTIME);
        return CS_ERR_RUNTIME;
    }
    if (planned != CS_OK) {
        if (has_topo) cs_topo_free(&topo);
        return usage_exit(rank, prog, err);
    }
    if (rank == 0) cs_compat_notes(bench, &opts, prog, stderr);
    if (plan.max_size_clipped && rank == 0)
        fprintf(stderr,
                "Warning! Limiting max message size to: %zu. Increase -M, --mem-limit for higher message "
                "sizes.\n",
                plan.max_size);

    cs_files_t files = {NULL, NULL};
    if (open_files(comm, rank, &opts, &files, err, sizeof err) != CS_OK) {
        /* only rank 0 knows which file failed; it says so */
        if (files.json) fclose(files.json);
        if (has_topo) cs_topo_free(&topo);
        return usage_exit(rank, prog, err);
    }
    cs_status_t st = run(comm, rank, argc, argv, envp, &opts, bench, &plan, &files, has_topo ? &topo : NULL, startup);
    if (has_topo) cs_topo_free(&topo);
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
