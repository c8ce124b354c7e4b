#include "check.h"
#include "util/dtype.h"
#include "util/opts.h"
#include "util/mask.h"

/* Parses a NULL-terminated word list; returns the status and leaves the message in err. */
static cs_status_t parse(cs_opts_t *o, char *err, const char *implied, const char *const *words)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"commscope-bench";
    for (; *words; words++) argv[argc++] = (char *)*words;
    argv[argc] = NULL;
    return cs_opts_parse(argc, argv, implied, o, err, 256);
}

#define PARSE_OK(...)                                                                                                  \
    do {                                                                                                               \
        const char *w_[] = {__VA_ARGS__, NULL};                                                                        \
        CHECK(parse(&o, err, NULL, w_) == CS_OK);                                                                      \
    } while (0)

/* Bad command lines: each must be a usage error whose message names the flag and the value. */
static const struct bad_line {
    const char *expect;
    const char *words[8]; /* the rest NULL */
} bad_lines[] = {
    /* trailing buffer placements (issue 11) */
    {"unexpected argument 'D'", {"latency", "D", "D", "D"}},
    {"unexpected argument 'X' (benchmark is already 'latency'; buffer placements are", {"latency", "X"}},
    /* -d and --gpu-device (issue 14) */
    {"-d openacc: OpenACC buffers are not supported by this build", {"latency", "-d", "openacc"}},
    {"-d rocm: ROCm buffers are not supported by this build", {"latency", "-d", "rocm", "D", "D"}},
    {"-d sycl: SYCL buffers are not supported by this build (not built with SYCL", {"bw", "-d", "sycl", "D", "D"}},
    {"-d gpu: choose cuda or managed", {"latency", "-d", "gpu"}},
    {"-d : choose cuda or managed", {"latency", "-d", ""}},
    {"option -d needs a value", {"latency", "-d"}},
    {"--gpu-device -1: give a GPU index from 0 to 1023", {"latency", "--gpu-device", "-1"}},
    {"--gpu-device x: give a GPU index", {"latency", "--gpu-device", "x"}},
    {"--gpu-device 1024: give a GPU index", {"latency", "--gpu-device", "1024"}},
    /* options of every benchmark */
    {"unknown option -y", {"latency", "-y"}},
    {"unknown option --bogus", {"latency", "--bogus"}},
    {"option -m needs a value", {"latency", "-m"}},
    {"-m abc: not a message size", {"latency", "-m", "abc"}},
    {"-m 1X: not a message size", {"latency", "-m", "1X"}},
    {"-m -4: not a message size", {"latency", "-m", "-4"}},
    {"-m 4KB: not a message size", {"latency", "-m", "4KB"}},
    {"MIN 'x' is not a message size", {"latency", "-m", "x:8"}},
    {"MAX 'y' is not a message size", {"latency", "-m", "8:y"}},
    {"-m ::: MAX ':' is not a message size", {"latency", "-m", "::"}},
    {"-m :: give MIN, MAX or both", {"latency", "-m", ":"}},
    {"MIN 1024 is larger than MAX 8", {"latency", "-m", "1K:8"}},
    {"-m 99999999999999999999: not a message size", {"latency", "-m", "99999999999999999999"}},
    {"-m 99999999999G: not a message size", {"latency", "-m", "99999999999G"}},
    {"-i 0: iterations", {"latency", "-i", "0"}},
    {"-i ten: iterations", {"latency", "-i", "ten"}},
    {"-x -1: warm-up", {"latency", "-x", "-1"}},
    {"-W 0: window size", {"bw", "-W", "0"}},
    {"-p 0: pairs", {"mbw_mr", "-p", "0"}},
    {"-z 0: percentiles", {"latency", "-z0"}},
    {"-z 100: percentiles", {"latency", "-z100"}},
    {"-z 50,: percentiles", {"latency", "-z50,"}},
    {"at most 5 percentiles", {"latency", "-z1,2,3,4,5,6"}},
    {"-M 10: the memory limit must be at least 1M", {"latency", "-M", "10"}},
    {"-M lots: not a memory size", {"latency", "-M", "lots"}},
    {"-b triple: choose single or multiple", {"bw", "-b", "triple"}},
    {"-R 2: choose 0 or 1", {"mbw_mr", "-R", "2"}},
    {"--send-mode fast: choose send, ssend, bsend, rsend, isend or persistent", {"latency", "--send-mode", "fast"}},
    {"--format xml: choose osu, json or csv", {"latency", "--format", "xml"}},
    {"-u 11: validation warm-up iterations must be a whole number from 0 to 10", {"latency", "-u", "11"}},
    {"-a 0: the array size must be a whole number >= 1", {"allreduce", "-a", "0"}},
    {"-r fpga: choose cpu, gpu or both", {"iallreduce", "-r", "fpga"}},
    {"-G svg: give tty, png, pdf", {"latency", "-G", "svg"}},
    {"-D vect:x:4: give cont, vect:STRIDE:BLOCKLEN or indx:FILE", {"latency", "-D", "vect:x:4"}},
    {"-D indx:: give cont", {"latency", "-D", "indx:"}},
    {"--debug-max-samples 0: give a whole number >= 1", {"barrier", "--debug-max-samples", "0"}},
    {"-cfoo: use -c, or OMB's -clog or -clog:DIR", {"latency", "-cfoo"}},
    {"-clog:: use -c, or OMB's -clog or -clog:DIR", {"latency", "-clog:"}},
    {"--batch 0: give auto or a whole number", {"latency", "--batch", "0"}},
    {"--precision 0: give a percentage above 0", {"latency", "--precision", "0"}},
    {"--precision 2x: give a percentage", {"latency", "--precision", "2x"}},
    {"--max-time 2h: give seconds", {"latency", "--precision", "2", "--max-time", "2h"}},
    {"--min-samples 1: give a whole number from 2", {"latency", "--precision", "2", "--min-samples", "1"}},
    {"--max-time 1 needs --precision", {"latency", "--max-time", "1"}},
    {"--min-samples 5 needs --precision", {"latency", "--min-samples", "5"}},
    {"-i 100 and --precision 2: choose one", {"latency", "-i", "100", "--precision", "2"}},
    {"--time-limit 0: give a time from 1ms to a week", {"latency", "--time-limit", "0"}},
    {"--time-limit -5: give a time", {"latency", "--time-limit", "-5"}},
    {"--time-limit soon: give a time", {"latency", "--time-limit", "soon"}},
    {"--time-limit 8d: give a time", {"latency", "--time-limit", "8d"}},
    {"--time-limit 4m and --precision 2: choose one", {"latency", "--time-limit", "4m", "--precision", "2"}},
    {"unexpected argument 'bw'", {"latency", "bw"}},
    {"no benchmark named", {"-m", "8"}},
    /* collectives and one-sided */
    {"-T mpi_long: choose mpi_char, mpi_int, mpi_float, mpi_double", {"allreduce", "-T", "mpi_long"}},
    {"-T mpi_int,: choose", {"allreduce", "-T", "mpi_int,"}},
    {"-T mpi_long_long: choose", {"allreduce", "-T", "mpi_long_long"}}, /* internal to the atomics */
    {"option -T needs a value", {"allreduce", "-T"}},
    {"-k middle: choose fixed:RANK (a rank number) or rotate", {"bcast", "-k", "middle"}},
    {"-k fixed:: choose fixed:RANK", {"bcast", "-k", "fixed:"}},
    {"-k fixed:-1: choose", {"bcast", "-k", "fixed:-1"}},
    {"-k fixed:2x: choose", {"bcast", "-k", "fixed:2x"}},
    {"-k 3: choose", {"bcast", "-k", "3"}},
    {"-t -1: give a number of MPI_Test calls (0 to 1048576)", {"iallreduce", "-t", "-1"}},
    {"-t many: give a number of MPI_Test calls", {"iallreduce", "-t", "many"}},
    {"-t 2:x: give a number of MPI_Test calls (0 to 1048576), or SEND:RECV", {"latency_mt", "-t", "2:x"}},
    {"-N torus:2: use cart:DIMS:RADIUS (e.g. cart:2:1) or graph:FILE", {"neighbor_alltoall", "-N", "torus:2"}},
    {"-N graph:: use cart:DIMS:RADIUS", {"neighbor_alltoall", "-N", "graph:"}},
    {"-N cart:2: use cart:DIMS:RADIUS", {"neighbor_alltoall", "-N", "cart:2"}},
    {"-N cart:0:1: DIMS must be 1 to 8 and RADIUS at least 1", {"neighbor_alltoall", "-N", "cart:0:1"}},
    {"-N cart:9:1: DIMS must be 1 to 8", {"neighbor_alltoall", "-N", "cart:9:1"}},
    {"-N cart:2:0: DIMS must be 1 to 8 and RADIUS at least 1", {"neighbor_alltoall", "-N", "cart:2:0"}},
    {"-N cart::1: use cart:DIMS:RADIUS", {"neighbor_alltoall", "-N", "cart::1"}},
    {"-w shared: choose create, allocate, dynamic", {"put_latency", "-w", "shared"}},
    {"-w create,,allocate: choose", {"put_latency", "-w", "create,,allocate"}},
    {"-s flushall: choose lock, pscw, fence, flush, flush_local, lock_all", {"put_latency", "-s", "flushall"}},
    {"-s : choose lock", {"put_latency", "-s", ""}},
    {"unknown option --busbw=1", {"allreduce", "--busbw=1"}},
};

static void check_bad_line(const struct bad_line *b)
{
    cs_opts_t o;
    char err[256];
    CHECK(parse(&o, err, NULL, b->words) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, b->expect);
}

int main(void)
{
    cs_opts_t o;
    char err[256];

    PARSE_OK("latency");
    CHECK(o.bench_name && strcmp(o.bench_name, "latency") == 0);
    CHECK(!o.min_size_set && !o.max_size_set && !o.iterations_set && !o.warmup_set);
    CHECK(o.window == 64 && o.mem_limit == (size_t)512 << 20 && o.format == CS_FORMAT_OSU);
    CHECK(o.send_mode == CS_SEND_STANDARD && o.buffers == CS_BUFFERS_SINGLE && o.print_rate);

    PARSE_OK("bw", "-m", "4K:2M", "-i", "50", "-x", "5", "-W", "32", "-c", "-f", "-b", "multiple");
    CHECK(o.min_size == 4096 && o.max_size == 2u << 20 && o.min_size_set && o.max_size_set);
    CHECK(o.iterations == 50 && o.warmup == 5 && o.window == 32 && o.validate && o.full);
    CHECK(o.buffers == CS_BUFFERS_MULTIPLE);

    PARSE_OK("-m", "128", "latency"); /* options may come first */
    CHECK(o.max_size == 128 && !o.min_size_set);
    PARSE_OK("latency", "-m", "2:");
    CHECK(o.min_size == 2 && o.min_size_set && !o.max_size_set);
    PARSE_OK("latency", "--message-size=1G");
    CHECK(o.max_size == (size_t)1 << 30);
    PARSE_OK("mbw_mr", "-p", "3", "-V", "-R", "0");
    CHECK(o.pairs == 3 && o.pairs_set && o.vary_window && !o.print_rate);

    PARSE_OK("latency", "-z");
    CHECK(o.npercentiles == 3 && o.percentiles[0] == 50 && o.percentiles[2] == 99);
    PARSE_OK("latency", "-z1,50,99.9");
    CHECK(o.npercentiles == 3 && o.percentiles[2] == 99.9);
    PARSE_OK("latency", "--send-mode", "rsend", "--format", "json", "--json-out", "x.json");
    CHECK(o.send_mode == CS_SEND_READY && o.send_mode_set && o.format == CS_FORMAT_JSON);
    CHECK(strcmp(o.json_out, "x.json") == 0);
    PARSE_OK("latency", "--batch", "10");
    CHECK(o.batch == 10);
    /* --precision and its limits; without it nothing changes */
    PARSE_OK("latency");
    CHECK(o.precision.target_pct == 0);
    PARSE_OK("latency", "--precision", "2%", "--max-time", "500ms", "--min-samples", "20");
    CHECK(o.precision.target_pct == 2 && fabs(o.precision.max_time_s - 0.5) < 1e-12 && o.precision.min_samples == 20);
    PARSE_OK("bw", "--precision", "0.5", "--max-time", "1s");
    CHECK(o.precision.target_pct == 0.5 && o.precision.max_time_s == 1);
    /* --time-limit: seconds, or with a unit; without it, none */
    CHECK(o.time_limit_s == 0);
    PARSE_OK("bw", "--time-limit", "4m");
    CHECK(o.time_limit_s == 240);
    PARSE_OK("pairs", "--time-limit", "90");
    CHECK(o.time_limit_s == 90);
    PARSE_OK("congestion", "--time-limit", "1.5h");
    CHECK(o.time_limit_s == 5400);
    PARSE_OK("-M", "1M", "latency");
    CHECK(o.mem_limit == 1u << 20);

    /* osu_latency implies the benchmark */
    const char *none[] = {"-m", "8", NULL};
    CHECK(parse(&o, err, "latency", none) == CS_OK);
    CHECK(strcmp(o.bench_name, "latency") == 0 && o.max_size == 8);
    const char *extra[] = {"bw", NULL};
    CHECK(parse(&o, err, "latency", extra) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "unexpected argument 'bw'");

    /* OMB-valid lines of issue 11: -z's list as its own word, trailing buffer placements */
    PARSE_OK("latency", "-z", "50,90", "-m", "8:8");
    CHECK(o.npercentiles == 2 && o.percentiles[0] == 50 && o.percentiles[1] == 90 && o.max_size == 8);
    PARSE_OK("latency", "-z", "-m", "8:8");
    CHECK(o.npercentiles == 3 && o.max_size == 8);
    PARSE_OK("latency", "-m", "8:8", "-x", "5", "-i", "100", "-c", "D", "D");
    CHECK(o.mem_kinds_set && o.mem_kinds[0] == CS_MEM_DEVICE && o.mem_kinds[1] == CS_MEM_DEVICE && o.validate);
    PARSE_OK("bw", "D", "H");
    CHECK(o.mem_kinds[0] == CS_MEM_DEVICE && o.mem_kinds[1] == CS_MEM_HOST);
    PARSE_OK("bw", "H", "H");
    CHECK(o.mem_kinds[0] == CS_MEM_HOST && o.mem_kinds[1] == CS_MEM_HOST);
    PARSE_OK("bw", "M", "MH");
    CHECK(o.mem_kinds[0] == CS_MEM_MANAGED_DEVICE && o.mem_kinds[1] == CS_MEM_MANAGED_HOST);
    PARSE_OK("put_latency", "D");
    CHECK(o.mem_kinds[0] == CS_MEM_DEVICE && o.mem_kinds[1] == CS_MEM_DEVICE);
    PARSE_OK("latency");
    CHECK(!o.mem_kinds_set);
    const char *osu_dd[] = {"-m", "8:8", "D", "D", NULL};
    CHECK(parse(&o, err, "latency", osu_dd) == CS_OK && o.mem_kinds_set);

    /* issue 14: OMB's -d (accelerator) and --gpu-device, every form (the bad ones: bad_lines) */
    PARSE_OK("latency");
    CHECK(!o.accel_set && o.accel == CS_ACCEL_NONE && !o.gpu_device_set);
    PARSE_OK("latency", "-d", "cuda", "D", "D");
    CHECK(o.accel_set && o.accel == CS_ACCEL_CUDA && o.mem_kinds[0] == CS_MEM_DEVICE &&
          o.mem_kinds[1] == CS_MEM_DEVICE);
    PARSE_OK("bw", "-d", "managed", "M", "M");
    CHECK(o.accel == CS_ACCEL_MANAGED && o.mem_kinds[0] == CS_MEM_MANAGED_DEVICE);
    PARSE_OK("bw", "-dcuda", "H", "D");
    CHECK(o.accel == CS_ACCEL_CUDA && o.mem_kinds[0] == CS_MEM_HOST && o.mem_kinds[1] == CS_MEM_DEVICE);
    PARSE_OK("bibw", "--accelerator=CUDA", "D", "H"); /* OMB compares without case */
    CHECK(o.accel == CS_ACCEL_CUDA && o.mem_kinds[0] == CS_MEM_DEVICE && o.mem_kinds[1] == CS_MEM_HOST);
    PARSE_OK("allreduce", "-d", "cuda");
    CHECK(o.accel == CS_ACCEL_CUDA && !o.mem_kinds_set);
    PARSE_OK("-m", "67108864:67108864", "-d", "cuda", "bw", "D", "D"); /* the JUPITER rules' line */
    CHECK(o.accel == CS_ACCEL_CUDA && o.max_size == 67108864 && o.mem_kinds_set);
    PARSE_OK("latency", "--gpu-device", "3", "-d", "cuda");
    CHECK(o.gpu_device_set && o.gpu_device == 3);
    CHECK(strcmp(cs_accel_name(CS_ACCEL_MANAGED), "managed") == 0);
    CHECK(strcmp(cs_mem_kind_name(CS_MEM_DEVICE), "device") == 0);
    /* OMB 7.4's options outside commscope's scope parse (core/compat.c notes them) */
    PARSE_OK("latency", "-u", "7", "-G", "tty,PNG", "-D", "vect:8:4", "-P", "E:f", "-I", "-clog:dir");
    CHECK(o.validation_warmup == 7 && o.validate && strcmp(o.validation_log, "log:dir") == 0);
    CHECK(cs_opts_given(&o, CS_OPT_GRAPH) && cs_opts_given(&o, CS_OPT_SESSION));
    PARSE_OK("latency");
    CHECK(o.validation_warmup == 5 && o.validation_log == NULL && o.max_samples == 0); /* OMB's default -u */
    PARSE_OK("iallreduce", "-a", "64", "-r", "GPU", "--debug-max-samples", "4096");
    CHECK(o.max_samples == 4096);
    PARSE_OK("latency", "-T", "MPI_INT", "-T", "mpi_float"); /* any case; each -T adds, as OMB */
    CHECK(o.dtypes == (CS_MASK(CS_DT_INT) | CS_MASK(CS_DT_FLOAT)));

    PARSE_OK("--help");
    CHECK(o.help);
    PARSE_OK("--list");
    CHECK(o.list);

    for (size_t i = 0; i < sizeof bad_lines / sizeof bad_lines[0]; i++) check_bad_line(&bad_lines[i]);

    /* collectives and one-sided */
    PARSE_OK("allreduce");
    CHECK(o.dtypes == CS_MASK(CS_DT_CHAR) && !o.dtypes_set && o.root_mode == CS_ROOT_FIXED && o.root == 0);
    CHECK(!o.in_place && o.num_tests == 0 && !o.busbw && o.nbr_kind == CS_NBR_CART && o.nbr_dims == 1 &&
          o.nbr_radius == 1 && !o.win_modes_set && !o.sync_modes_set); /* -w, -s defaults are per benchmark */
    PARSE_OK("allreduce", "-T", "all", "-l", "--busbw");
    CHECK(o.dtypes == 0xfu && o.dtypes_set && o.in_place && o.busbw);
    PARSE_OK("allreduce", "-T", "mpi_double,mpi_int");
    CHECK(o.dtypes == (CS_MASK(CS_DT_DOUBLE) | CS_MASK(CS_DT_INT)));
    PARSE_OK("allreduce", "--type=mpi_float");
    CHECK(o.dtypes == CS_MASK(CS_DT_FLOAT));
    PARSE_OK("bcast", "-k", "rotate");
    CHECK(o.root_mode == CS_ROOT_ROTATE && o.root_set);
    PARSE_OK("bcast", "--root-rank", "fixed:3");
    CHECK(o.root_mode == CS_ROOT_FIXED && o.root == 3 && o.root_set);
    PARSE_OK("iallreduce", "-t", "10");
    CHECK(o.num_tests == 10 && o.num_tests_set);
    PARSE_OK("neighbor_alltoall", "-N", "cart:3:2");
    CHECK(o.nbr_kind == CS_NBR_CART && o.nbr_dims == 3 && o.nbr_radius == 2 && o.nbr_set);
    PARSE_OK("neighbor_alltoall", "-N", "graph:/tmp/a,b.adj");
    CHECK(o.nbr_kind == CS_NBR_GRAPH && strcmp(o.nbr_file, "/tmp/a,b.adj") == 0);
    PARSE_OK("put_latency", "-w", "all", "-s", "all");
    CHECK(o.win_modes == 7u && o.sync_modes == 0x3fu && o.sync_all);
    PARSE_OK("put_latency", "-w", "dynamic,create", "-s", "pscw,flush_local");
    CHECK(o.win_modes == (CS_MASK(CS_WIN_DYNAMIC) | CS_MASK(CS_WIN_CREATE)) && !o.sync_all);
    CHECK(o.sync_modes == (CS_MASK(CS_SYNC_PSCW) | CS_MASK(CS_SYNC_FLUSH_LOCAL)));
    CHECK(strcmp(cs_sync_calls(CS_SYNC_FLUSH), "MPI_Win_flush") == 0);
    CHECK(strcmp(cs_win_mode_call(CS_WIN_DYNAMIC), "MPI_Win_create_dynamic") == 0);

    size_t v;
    CHECK(cs_parse_bytes("0", &v) && v == 0);
    CHECK(cs_parse_bytes("3k", &v) && v == 3072);
    CHECK(cs_parse_bytes("2g", &v) && v == (size_t)2 << 30);
    CHECK(!cs_parse_bytes("", &v) && !cs_parse_bytes("+1", &v) && !cs_parse_bytes(" 1", &v));
    return check_report("test_opts");
}
