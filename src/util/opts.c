/* Option parsing. Every rank parses the same argv, so every rank reaches the same
 * verdict and a usage error never leaves some ranks waiting in MPI. */
#include "util/opts.h"

#include "util/dtype.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_FORMAT = 256,
    OPT_JSON_OUT,
    OPT_JSONL_OUT,
    OPT_SEND_MODE,
    OPT_LIST,
    OPT_BATCH,
    OPT_DEBUG_CORRUPT,
    OPT_BUSBW,
};

static const struct option long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'v'},
    {"message-size", required_argument, NULL, 'm'},
    {"iterations", required_argument, NULL, 'i'},
    {"warmup", required_argument, NULL, 'x'},
    {"window-size", required_argument, NULL, 'W'},
    {"num-pairs", required_argument, NULL, 'p'},
    {"vary-window", no_argument, NULL, 'V'},
    {"validation", optional_argument, NULL, 'c'},
    {"full", no_argument, NULL, 'f'},
    {"tail-lat", optional_argument, NULL, 'z'},
    {"mem-limit", required_argument, NULL, 'M'},
    {"buffer-num", required_argument, NULL, 'b'},
    {"print-rate", required_argument, NULL, 'R'},
    {"type", required_argument, NULL, 'T'},
    {"root-rank", required_argument, NULL, 'k'},
    {"in-place", no_argument, NULL, 'l'},
    {"num-test-calls", required_argument, NULL, 't'},
    {"nhbr", required_argument, NULL, 'N'},
    {"win-options", required_argument, NULL, 'w'},
    {"sync-option", required_argument, NULL, 's'},
    {"busbw", no_argument, NULL, OPT_BUSBW},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"json-out", required_argument, NULL, OPT_JSON_OUT},
    {"jsonl-out", required_argument, NULL, OPT_JSONL_OUT},
    {"send-mode", required_argument, NULL, OPT_SEND_MODE},
    {"list", no_argument, NULL, OPT_LIST},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"debug-corrupt", required_argument, NULL, OPT_DEBUG_CORRUPT},
    {NULL, 0, NULL, 0},
};

static const char short_options[] = ":hvm:i:x:W:p:Vc::fz::M:b:R:T:k:lt:N:w:s:";

void cs_opts_init(cs_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->window = CS_DEFAULT_WINDOW;
    o->mem_limit = CS_DEFAULT_MEM_LIMIT;
    o->buffers = CS_BUFFERS_SINGLE;
    o->send_mode = CS_SEND_STANDARD;
    o->format = CS_FORMAT_OSU;
    o->print_rate = true;
    o->corrupt_size = -1;
    o->dtypes = CS_MASK(CS_DT_CHAR);
    o->root_mode = CS_ROOT_FIXED;
    o->nbr_kind = CS_NBR_CART;
    o->nbr_dims = 1; /* OMB's default neighbourhood: cart:1:1 */
    o->nbr_radius = 1;
    o->win_modes = CS_MASK(CS_WIN_ALLOCATE);
}

static cs_status_t usage_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return CS_ERR_USAGE;
}

bool cs_parse_bytes(const char *s, size_t *out)
{
    if (s == NULL || !isdigit((unsigned char)*s)) return false; /* strtoull would skip spaces and signs */
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno == ERANGE) return false;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: return false;
    }
    if (*end != '\0') return false;
    if (shift && v > (SIZE_MAX >> shift)) return false;
    if (v > SIZE_MAX) return false;
    *out = (size_t)(v << shift);
    return true;
}

static bool parse_long(const char *s, long min, long max, long *out)
{
    if (s == NULL || *s == '\0') return false;
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < min || v > max) return false;
    *out = v;
    return true;
}

/* -m [MIN:]MAX, also MIN: and :MAX. */
static cs_status_t parse_sizes(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    const char *colon = strchr(arg, ':');
    if (colon == NULL) {
        if (!cs_parse_bytes(arg, &o->max_size))
            return usage_error(err, errlen, "-m %s: not a message size (use [MIN:]MAX, e.g. 8, 4K, 1:1M)", arg);
        o->max_size_set = true;
        return CS_OK;
    }
    char min_part[64];
    size_t min_len = (size_t)(colon - arg);
    if (min_len >= sizeof min_part)
        return usage_error(err, errlen, "-m %s: MIN is too long", arg);
    memcpy(min_part, arg, min_len);
    min_part[min_len] = '\0';
    const char *max_part = colon + 1;
    if (min_len == 0 && *max_part == '\0')
        return usage_error(err, errlen, "-m %s: give MIN, MAX or both", arg);
    if (min_len > 0) {
        if (!cs_parse_bytes(min_part, &o->min_size))
            return usage_error(err, errlen, "-m %s: MIN '%s' is not a message size", arg, min_part);
        o->min_size_set = true;
    }
    if (*max_part != '\0') {
        if (!cs_parse_bytes(max_part, &o->max_size))
            return usage_error(err, errlen, "-m %s: MAX '%s' is not a message size", arg, max_part);
        o->max_size_set = true;
    }
    if (o->min_size_set && o->max_size_set && o->min_size > o->max_size)
        return usage_error(err, errlen, "-m %s: MIN %zu is larger than MAX %zu", arg, o->min_size, o->max_size);
    return CS_OK;
}

/* -z or -z50,90,99.9: up to CS_MAX_PERCENTILES values in (0, 100). */
static cs_status_t parse_percentiles(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    static const double defaults[] = {50.0, 90.0, 99.0};
    if (arg == NULL) {
        memcpy(o->percentiles, defaults, sizeof defaults);
        o->npercentiles = 3;
        return CS_OK;
    }
    o->npercentiles = 0;
    const char *p = arg;
    for (;;) {
        char *end = NULL;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno == ERANGE || !(v > 0.0 && v < 100.0) || (*end != ',' && *end != '\0'))
            return usage_error(err, errlen, "-z %s: percentiles must be numbers between 0 and 100, separated by commas", arg);
        if (o->npercentiles == CS_MAX_PERCENTILES)
            return usage_error(err, errlen, "-z %s: at most %d percentiles", arg, CS_MAX_PERCENTILES);
        o->percentiles[o->npercentiles++] = v;
        if (*end == '\0') break;
        p = end + 1;
    }
    return CS_OK;
}

static cs_status_t parse_send_mode(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    for (int m = CS_SEND_STANDARD; m <= CS_SEND_IMMEDIATE; m++) {
        if (strcmp(arg, cs_send_mode_name((cs_send_mode_t)m)) == 0) {
            o->send_mode = (cs_send_mode_t)m;
            o->send_mode_set = true;
            return CS_OK;
        }
    }
    return usage_error(err, errlen, "--send-mode %s: choose send, ssend, bsend, rsend or isend", arg);
}

static cs_status_t parse_format(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    for (int f = CS_FORMAT_OSU; f <= CS_FORMAT_CSV; f++) {
        if (strcmp(arg, cs_format_name((cs_format_t)f)) == 0) {
            o->format = (cs_format_t)f;
            return CS_OK;
        }
    }
    return usage_error(err, errlen, "--format %s: choose osu, json or csv", arg);
}

/* A comma-separated list of names from `names` (or "all") into a CS_MASK set. */
static bool parse_name_set(const char *arg, const char *(*name_of)(int), int count, unsigned *out)
{
    if (strcmp(arg, "all") == 0) {
        *out = (1u << count) - 1;
        return true;
    }
    unsigned set = 0;
    for (const char *p = arg;;) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int i = 0; i < count && found < 0; i++)
            if (strlen(name_of(i)) == len && strncmp(p, name_of(i), len) == 0) found = i;
        if (found < 0) return false;
        set |= CS_MASK(found);
        if (p[len] == '\0') break;
        p += len + 1;
    }
    *out = set;
    return true;
}

static const char *dtype_option(int i) { return cs_dtype_option((cs_dtype_t)i); }
static const char *win_option(int i) { return cs_win_mode_option((cs_win_mode_t)i); }
static const char *sync_option(int i) { return cs_sync_option((cs_rma_sync_t)i); }

/* -k fixed:R or -k rotate */
static cs_status_t parse_root(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    long v;
    if (strcmp(arg, "rotate") == 0) {
        o->root_mode = CS_ROOT_ROTATE;
    } else if (strncmp(arg, "fixed:", 6) == 0 && parse_long(arg + 6, 0, INT_MAX, &v)) {
        o->root_mode = CS_ROOT_FIXED;
        o->root = (int)v;
    } else {
        return usage_error(err, errlen, "-k %s: choose fixed:RANK (a rank number) or rotate", arg);
    }
    o->root_set = true;
    return CS_OK;
}

/* -N cart:DIMS:RADIUS or -N graph:FILE */
static cs_status_t parse_nbr(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    long d, r;
    if (strncmp(arg, "graph:", 6) == 0 && arg[6] != '\0') {
        o->nbr_kind = CS_NBR_GRAPH;
        o->nbr_file = arg + 6;
    } else if (strncmp(arg, "cart:", 5) == 0) {
        char dims[32];
        const char *colon = strchr(arg + 5, ':');
        size_t len = colon ? (size_t)(colon - arg - 5) : 0;
        if (colon == NULL || len == 0 || len >= sizeof dims)
            return usage_error(err, errlen, "-N %s: use cart:DIMS:RADIUS (e.g. cart:2:1) or graph:FILE", arg);
        memcpy(dims, arg + 5, len);
        dims[len] = '\0';
        if (!parse_long(dims, 1, 8, &d) || !parse_long(colon + 1, 1, 1 << 16, &r))
            return usage_error(err, errlen, "-N %s: DIMS must be 1 to 8 and RADIUS at least 1", arg);
        o->nbr_kind = CS_NBR_CART;
        o->nbr_dims = (int)d;
        o->nbr_radius = (int)r;
    } else {
        return usage_error(err, errlen, "-N %s: use cart:DIMS:RADIUS (e.g. cart:2:1) or graph:FILE", arg);
    }
    o->nbr_set = true;
    return CS_OK;
}

static cs_status_t apply_option(int c, const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    long v;
    switch (c) {
    case 'h': o->help = true; return CS_OK;
    case 'v': o->version = true; return CS_OK;
    case OPT_LIST: o->list = true; return CS_OK;
    case 'm': return parse_sizes(arg, o, err, errlen);
    case 'i':
        if (!parse_long(arg, 1, INT_MAX, &v))
            return usage_error(err, errlen, "-i %s: iterations must be a whole number >= 1", arg);
        o->iterations = v;
        o->iterations_set = true;
        return CS_OK;
    case 'x':
        if (!parse_long(arg, 0, INT_MAX, &v))
            return usage_error(err, errlen, "-x %s: warm-up iterations must be a whole number >= 0", arg);
        o->warmup = v;
        o->warmup_set = true;
        return CS_OK;
    case 'W':
        if (!parse_long(arg, 1, 1 << 20, &v))
            return usage_error(err, errlen, "-W %s: window size must be a whole number from 1 to 1048576", arg);
        o->window = (int)v;
        o->window_set = true;
        return CS_OK;
    case 'p':
        if (!parse_long(arg, 1, INT_MAX, &v))
            return usage_error(err, errlen, "-p %s: pairs must be a whole number >= 1", arg);
        o->pairs = (int)v;
        o->pairs_set = true;
        return CS_OK;
    case 'V': o->vary_window = true; return CS_OK;
    case 'c':
        if (arg != NULL)
            return usage_error(err, errlen, "-c%s: validation logs are not supported; use -c alone "
                                            "(failures are counted per size in the output)", arg);
        o->validate = true;
        return CS_OK;
    case 'f': o->full = true; return CS_OK;
    case 'z': return parse_percentiles(arg, o, err, errlen);
    case 'M':
        if (!cs_parse_bytes(arg, &o->mem_limit))
            return usage_error(err, errlen, "-M %s: not a memory size (e.g. 512M, 2G)", arg);
        if (o->mem_limit < CS_MIN_MEM_LIMIT)
            return usage_error(err, errlen, "-M %s: the memory limit must be at least 1M", arg);
        return CS_OK;
    case 'b':
        if (strcmp(arg, "single") == 0) o->buffers = CS_BUFFERS_SINGLE;
        else if (strcmp(arg, "multiple") == 0) o->buffers = CS_BUFFERS_MULTIPLE;
        else return usage_error(err, errlen, "-b %s: choose single or multiple", arg);
        return CS_OK;
    case 'R':
        if (strcmp(arg, "0") == 0) o->print_rate = false;
        else if (strcmp(arg, "1") == 0) o->print_rate = true;
        else return usage_error(err, errlen, "-R %s: choose 0 or 1", arg);
        return CS_OK;
    case 'T':
        if (!parse_name_set(arg, dtype_option, CS_DT_SELECTABLE, &o->dtypes))
            return usage_error(err, errlen, "-T %s: choose mpi_char, mpi_int, mpi_float, mpi_double, a "
                                            "comma-separated list of them, or all", arg);
        o->dtypes_set = true;
        return CS_OK;
    case 'k': return parse_root(arg, o, err, errlen);
    case 'l': o->in_place = true; return CS_OK;
    case 't':
        if (!parse_long(arg, 0, 1 << 20, &v))
            return usage_error(err, errlen, "-t %s: MPI_Test calls must be a whole number from 0 to 1048576", arg);
        o->num_tests = (int)v;
        o->num_tests_set = true;
        return CS_OK;
    case 'N': return parse_nbr(arg, o, err, errlen);
    case 'w':
        if (!parse_name_set(arg, win_option, CS_NWIN_MODES, &o->win_modes))
            return usage_error(err, errlen, "-w %s: choose create, allocate, dynamic, a comma-separated list "
                                            "of them, or all", arg);
        o->win_modes_set = true;
        return CS_OK;
    case 's':
        if (!parse_name_set(arg, sync_option, CS_NSYNC_MODES, &o->sync_modes))
            return usage_error(err, errlen, "-s %s: choose lock, pscw, fence, flush, flush_local, lock_all, a "
                                            "comma-separated list of them, or all", arg);
        o->sync_modes_set = true;
        o->sync_all = strcmp(arg, "all") == 0;
        return CS_OK;
    case OPT_BUSBW: o->busbw = true; return CS_OK;
    case OPT_FORMAT: return parse_format(arg, o, err, errlen);
    case OPT_JSON_OUT: o->json_out = arg; return CS_OK;
    case OPT_JSONL_OUT: o->jsonl_out = arg; return CS_OK;
    case OPT_SEND_MODE: return parse_send_mode(arg, o, err, errlen);
    case OPT_BATCH:
        if (strcmp(arg, "auto") == 0) { o->batch = 0; return CS_OK; }
        if (!parse_long(arg, 1, INT_MAX, &v))
            return usage_error(err, errlen, "--batch %s: give auto or a whole number >= 1", arg);
        o->batch = v;
        return CS_OK;
    case OPT_DEBUG_CORRUPT:
        if (!parse_long(arg, 0, LONG_MAX, &v))
            return usage_error(err, errlen, "--debug-corrupt %s: give a message size", arg);
        o->corrupt_size = v;
        return CS_OK;
    default:
        return usage_error(err, errlen, "internal: unhandled option %d", c);
    }
}

/* Names the offending flag the way the user typed it. */
static void describe_bad_flag(int c, int argc, char **argv, char *buf, size_t len)
{
    if (c > 0 && c < 256) { /* a short option; long-only ones have values above 255 */
        snprintf(buf, len, "-%c", c);
        return;
    }
    /* optind points past the bad word; fall back to the last word if it does not. */
    int idx = optind - 1;
    if (idx < 1 || idx >= argc) idx = argc - 1;
    snprintf(buf, len, "%s", argv[idx]);
}

cs_status_t cs_opts_parse(int argc, char **argv, const char *implied_bench, cs_opts_t *o,
                          char *err, size_t errlen)
{
    cs_opts_init(o);
    o->bench_name = implied_bench;
    err[0] = '\0';
    optind = 0; /* glibc: full re-initialisation, so the parser can run more than once */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
        char flag[128];
        if (c == '?') {
            describe_bad_flag(optopt, argc, argv, flag, sizeof flag);
            return usage_error(err, errlen, "unknown option %s", flag);
        }
        if (c == ':') {
            describe_bad_flag(optopt, argc, argv, flag, sizeof flag);
            return usage_error(err, errlen, "option %s needs a value", flag);
        }
        CS_CHECK(apply_option(c, optarg, o, err, errlen));
    }
    for (int i = optind; i < argc; i++) {
        if (o->bench_name == NULL) {
            o->bench_name = argv[i];
            continue;
        }
        return usage_error(err, errlen, "unexpected argument '%s' (benchmark is already '%s')", argv[i],
                           o->bench_name);
    }
    if (o->help || o->version || o->list) return CS_OK;
    if (o->bench_name == NULL)
        return usage_error(err, errlen, "no benchmark named (see --list)");
    return CS_OK;
}

const char *cs_send_mode_name(cs_send_mode_t m)
{
    static const char *const names[] = {"send", "ssend", "bsend", "rsend", "isend"};
    return names[m];
}

const char *cs_win_mode_option(cs_win_mode_t w)
{
    static const char *const names[] = {"create", "allocate", "dynamic"};
    return names[w];
}

const char *cs_win_mode_call(cs_win_mode_t w)
{
    static const char *const names[] = {"MPI_Win_create", "MPI_Win_allocate", "MPI_Win_create_dynamic"};
    return names[w];
}

const char *cs_sync_option(cs_rma_sync_t s)
{
    static const char *const names[] = {"lock", "pscw", "fence", "flush", "flush_local", "lock_all"};
    return names[s];
}

const char *cs_sync_calls(cs_rma_sync_t s)
{
    /* as OMB's header names them */
    static const char *const names[] = {"MPI_Win_lock/unlock", "MPI_Win_post/start/complete/wait", "MPI_Win_fence",
                                        "MPI_Win_flush", "MPI_Win_flush_local", "MPI_Win_lock_all/unlock_all"};
    return names[s];
}

const char *cs_format_name(cs_format_t f)
{
    static const char *const names[] = {"osu", "json", "csv"};
    return names[f];
}

void cs_opts_usage(FILE *out, const char *prog)
{
    fprintf(out,
            "Usage: %s BENCHMARK [options]\n"
            "       %s --list\n"
            "Measures MPI communication; prints OSU-compatible tables, JSON or CSV.\n"
            "\n"
            "Options (OSU Micro-Benchmarks compatible):\n"
            "  -h, --help                print this help\n"
            "  -v, --version             print version info\n"
            "  -m, --message-size        [MIN:]MAX - set the minimum and/or the maximum message size\n"
            "                            in bytes; K, M, G suffixes (powers of 1024). Examples:\n"
            "                            -m 128      // min = default, max = 128\n"
            "                            -m 2:128    // min = 2, max = 128\n"
            "                            -m 2:       // min = 2, max = default\n"
            "  -i, --iterations          ITER - timed iterations for every size\n"
            "                            (default: latency 10000 up to 8K, 1000 above;\n"
            "                             bandwidth 100 up to 8K, 20 above)\n"
            "  -x, --warmup              ITER - untimed warm-up iterations for every size\n"
            "                            (default: latency 100 / 10; bandwidth 10 / 2)\n"
            "  -W, --window-size         messages in flight per round (default 64)\n"
            "  -p, --num-pairs           pairs for multi-pair benchmarks (default ranks / 2)\n"
            "  -V, --vary-window         mbw_mr: sweep window sizes 1, 2, 4, ... 128\n"
            "  -R, --print-rate          mbw_mr: 0|1 print the message-rate column (default 1)\n"
            "  -c, --validation          check every size's data in an untimed pass;\n"
            "                            a failure exits non-zero\n"
            "  -f, --full                add min/max/iterations columns\n"
            "  -z, --tail-lat            [P1,P2,..] print percentiles (default 50,90,99; up to 5);\n"
            "                            samples become single iterations\n"
            "  -M, --mem-limit           SIZE - per-process buffer limit (default 512M, minimum 1M);\n"
            "                            collectives lower their largest size to fit, others refuse\n"
            "  -b, --buffer-num          single|multiple - one buffer, or one per window slot\n"
            "  -T, --type                mpi_char|mpi_int|mpi_float|mpi_double|all - datatypes of the\n"
            "                            collectives (default mpi_char); a list sweeps them in turn\n"
            "  -k, --root-rank           fixed:RANK|rotate - root of rooted collectives (default\n"
            "                            fixed:0); rotate moves the root every iteration\n"
            "  -l, --in-place            collectives: MPI_IN_PLACE where the collective has it\n"
            "  -t, --num-test-calls      N - non-blocking collectives: MPI_Test calls during the\n"
            "                            dummy compute (default 0)\n"
            "  -N, --nhbr                cart:DIMS:RADIUS|graph:FILE - neighbourhood of the\n"
            "                            neighbourhood collectives (default cart:1:1); FILE has\n"
            "                            one SRC,DST edge per line\n"
            "  -w, --win-options         create|allocate|dynamic|all - one-sided window creation\n"
            "                            (default allocate)\n"
            "  -s, --sync-option         lock|pscw|fence|flush|flush_local|lock_all|all - one-sided\n"
            "                            synchronisation (default flush; put_bibw pscw)\n"
            "\n"
            "commscope options:\n"
            "      --send-mode MODE      latency, multi_lat: send|ssend|bsend|rsend|isend\n"
            "                            (MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend, MPI_Isend+Wait)\n"
            "      --format FMT          osu (default) | json | csv, on stdout\n"
            "      --json-out FILE       also write the JSON document to FILE\n"
            "      --jsonl-out FILE      stream header, one record per size and an end line to FILE\n"
            "      --batch N|auto        iterations per timed sample (default auto: about 20 us\n"
            "                            per sample, from the warm-up; 1 with -z)\n"
            "      --busbw               collectives: algorithm and bus bandwidth columns (GB/s,\n"
            "                            nccl-tests' definitions)\n"
            "      --list                list the benchmarks\n"
            "\n"
            "Exit status: 0 success, 1 validation failure or MPI error, 2 usage error.\n",
            prog, prog);
}
