/* Option parsing. Every rank parses the same argv, so every rank reaches the same
 * verdict and a usage error never leaves some ranks waiting in MPI. */
#include "util/opts.h"
#include "util/error.h"
#include "util/mask.h"

#include "util/dtype.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* getopt_long's value of an option: its short letter, or 256 + its id when it has none */
#define OPTION_VALUE(id, short_letter) ((short_letter) ? (short_letter) : 256 + (id))
#define LONG_ONLY(id)                  (256 + CS_OPT_##id)

static const struct option long_options[] = {
#define CS_OPTION(id, s, l, arg, ...) {l, arg##_argument, NULL, OPTION_VALUE(CS_OPT_##id, s)},
#include "util/options.def"
#undef CS_OPTION
    {NULL, 0, NULL, 0},
};

/* What the usage text shows of each option. */
static const struct {
    char short_letter;
    const char *long_name, *metavar, *help;
} usage_rows[] = {
#define CS_OPTION(id, s, l, arg, metavar, needs, excludes, when, help) {s, l, metavar, help},
#include "util/options.def"
#undef CS_OPTION
};

/* ":hvm:i:..." from the table: a leading ':' makes a missing value its own answer. */
static const char *short_options(void)
{
    static char buf[3 * CS_NOPTIONS + 2];
    if (buf[0]) return buf;
    char *p = buf;
    *p++ = ':';
    for (size_t i = 0; i < CS_NOPTIONS; i++) {
        const struct option *lo = &long_options[i];
        if (lo->val >= 256) continue;
        *p++ = (char)lo->val;
        if (lo->has_arg != no_argument) *p++ = ':';
        if (lo->has_arg == optional_argument) *p++ = ':';
    }
    *p = '\0';
    return buf;
}

static int option_id(int value)
{
    for (int i = 0; i < CS_NOPTIONS; i++)
        if (long_options[i].val == value) return i;
    return -1;
}

void cs_opts_mark(cs_opts_t *o, cs_option_id_t id, const char *value)
{
    o->given |= 1ull << id;
    o->given_value[id] = value ? value : "";
}

const char *cs_option_flag(cs_option_id_t id, char *buf, size_t len)
{
    if (usage_rows[id].short_letter) snprintf(buf, len, "-%c", usage_rows[id].short_letter);
    else snprintf(buf, len, "--%s", usage_rows[id].long_name);
    return buf;
}

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
    o->validation_warmup = CS_DEFAULT_VALIDATION_WARMUP;
    o->dtypes = CS_MASK(CS_DT_CHAR);
    o->root_mode = CS_ROOT_FIXED;
    o->nbr_kind = CS_NBR_CART;
    o->nbr_dims = 1; /* OMB's default neighbourhood: cart:1:1 */
    o->nbr_radius = 1;
}

_Static_assert(CS_NOPTIONS <= 64, "cs_opts_t.given holds one bit per option");

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
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
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

/* A finite number in [min, max] followed by one of `suffixes` (each with its factor) or
 * nothing. */
typedef struct unit {
    const char *suffix;
    double factor;
} unit_t;
static bool parse_scaled(const char *s, double min, double max, const unit_t *units, double *out)
{
    if (s == NULL || *s == '\0') return false;
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v)) return false;
    double factor = 1;
    if (*end != '\0') {
        const unit_t *u = units;
        while (u->suffix && strcmp(end, u->suffix) != 0) u++;
        if (!u->suffix) return false;
        factor = u->factor;
    }
    v *= factor;
    if (v < min || v > max) return false;
    *out = v;
    return true;
}

/* --precision, --max-time and --min-samples. */
static cs_status_t parse_precision(int c, const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    static const unit_t percent[] = {{"%", 1}, {NULL, 0}};
    static const unit_t seconds[] = {{"s", 1}, {"ms", 1e-3}, {NULL, 0}};
    long v;
    if (c == LONG_ONLY(PRECISION)) {
        if (!parse_scaled(arg, 1e-6, 100, percent, &o->precision.target_pct) || o->precision.target_pct <= 0)
            return cs_usage_error(err, errlen,
                                  "--precision %s: give a percentage above 0 and at most 100, "
                                  "e.g. 2 or 2%%",
                                  arg);
    } else if (c == LONG_ONLY(MAX_TIME)) {
        if (!parse_scaled(arg, 1e-3, 86400, seconds, &o->precision.max_time_s))
            return cs_usage_error(err, errlen,
                                  "--max-time %s: give seconds from 0.001 to 86400, e.g. 2, 0.5s "
                                  "or 200ms",
                                  arg);
    } else {
        if (!parse_long(arg, 2, 1 << 20, &v))
            return cs_usage_error(err, errlen, "--min-samples %s: give a whole number from 2 to 1048576", arg);
        o->precision.min_samples = v;
    }
    return CS_OK;
}

/* --time-limit T: seconds, minutes or hours, up to a week. */
static cs_status_t parse_time_limit(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    static const unit_t units[] = {{"s", 1}, {"ms", 1e-3}, {"m", 60}, {"min", 60}, {"h", 3600}, {NULL, 0}};
    if (!parse_scaled(arg, 1e-3, 7 * 86400, units, &o->time_limit_s))
        return cs_usage_error(err, errlen,
                              "--time-limit %s: give a time from 1ms to a week, e.g. 240, 240s, 4m "
                              "or 1h",
                              arg);
    return CS_OK;
}

/* --max-time and --min-samples shape --precision; -i fixes the count it would choose. */
static cs_status_t check_precision(const cs_opts_t *o, char *err, size_t errlen)
{
    bool target = cs_opts_given(o, CS_OPT_PRECISION);
    if (!target && cs_opts_given(o, CS_OPT_MAX_TIME))
        return cs_usage_error(err, errlen,
                              "--max-time %s needs --precision (without it the iteration count "
                              "is fixed: -i)",
                              o->given_value[CS_OPT_MAX_TIME]);
    if (!target && cs_opts_given(o, CS_OPT_MIN_SAMPLES))
        return cs_usage_error(err, errlen, "--min-samples %s needs --precision", o->given_value[CS_OPT_MIN_SAMPLES]);
    if (target && cs_opts_given(o, CS_OPT_TIME_LIMIT))
        return cs_usage_error(err, errlen,
                              "--time-limit %s and --precision %s: choose one (--precision bounds "
                              "each size's time with --max-time)",
                              o->given_value[CS_OPT_TIME_LIMIT], o->given_value[CS_OPT_PRECISION]);
    if (target && o->iterations_set)
        return cs_usage_error(err, errlen,
                              "-i %s and --precision %s: choose one (-i fixes the iterations, "
                              "--precision measures until the result is known well enough)",
                              o->given_value[CS_OPT_ITERATIONS], o->given_value[CS_OPT_PRECISION]);
    return CS_OK;
}

/* -m [MIN:]MAX, also MIN: and :MAX. */
static cs_status_t parse_sizes(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    const char *colon = strchr(arg, ':');
    if (colon == NULL) {
        if (!cs_parse_bytes(arg, &o->max_size))
            return cs_usage_error(err, errlen, "-m %s: not a message size (use [MIN:]MAX, e.g. 8, 4K, 1:1M)", arg);
        o->max_size_set = true;
        return CS_OK;
    }
    char min_part[64];
    size_t min_len = (size_t)(colon - arg);
    if (min_len >= sizeof min_part) return cs_usage_error(err, errlen, "-m %s: MIN is too long", arg);
    memcpy(min_part, arg, min_len);
    min_part[min_len] = '\0';
    const char *max_part = colon + 1;
    if (min_len == 0 && *max_part == '\0') return cs_usage_error(err, errlen, "-m %s: give MIN, MAX or both", arg);
    if (min_len > 0) {
        if (!cs_parse_bytes(min_part, &o->min_size))
            return cs_usage_error(err, errlen, "-m %s: MIN '%s' is not a message size", arg, min_part);
        o->min_size_set = true;
    }
    if (*max_part != '\0') {
        if (!cs_parse_bytes(max_part, &o->max_size))
            return cs_usage_error(err, errlen, "-m %s: MAX '%s' is not a message size", arg, max_part);
        o->max_size_set = true;
    }
    if (o->min_size_set && o->max_size_set && o->min_size > o->max_size)
        return cs_usage_error(err, errlen, "-m %s: MIN %zu is larger than MAX %zu", arg, o->min_size, o->max_size);
    return CS_OK;
}

/* OMB's trailing buffer placement words. */
static bool parse_mem_kind(const char *word, cs_mem_kind_t *kind)
{
    static const struct {
        const char *word;
        cs_mem_kind_t kind;
    } words[] = {{"H", CS_MEM_HOST},
                 {"D", CS_MEM_DEVICE},
                 {"M", CS_MEM_MANAGED_DEVICE},
                 {"MD", CS_MEM_MANAGED_DEVICE},
                 {"MH", CS_MEM_MANAGED_HOST}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(word, words[i].word) == 0) {
            *kind = words[i].kind;
            return true;
        }
    return false;
}

/* "50", "50,90,99.9": what may follow -z as its own word */
static bool is_percentile_list(const char *word)
{
    if (!isdigit((unsigned char)word[0])) return false;
    for (const char *p = word; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != '.' && *p != ',') return false;
    return true;
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
            return cs_usage_error(err, errlen,
                                  "-z %s: percentiles must be numbers between 0 and 100, separated by commas", arg);
        if (o->npercentiles == CS_MAX_PERCENTILES)
            return cs_usage_error(err, errlen, "-z %s: at most %d percentiles", arg, CS_MAX_PERCENTILES);
        o->percentiles[o->npercentiles++] = v;
        if (*end == '\0') break;
        p = end + 1;
    }
    return CS_OK;
}

/* -t N: MPI_Test calls of the non-blocking collectives; -t [SEND:]RECV (OMB's latency_mt
 * and latency_mp): sender and receiver threads or processes, whose range the plan checks */
static cs_status_t parse_num_tests(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    const char *colon = strchr(arg, ':');
    char first[32];
    size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
    long send = 0, recv = 0;
    bool ok = len < sizeof first;
    if (ok) {
        memcpy(first, arg, len);
        first[len] = '\0';
        ok = parse_long(first, 0, 1 << 20, &send);
    }
    recv = send;
    if (ok && colon) ok = parse_long(colon + 1, 0, 1 << 20, &recv); /* "2:" is no count, as in OMB */
    if (!ok)
        return cs_usage_error(err, errlen,
                              "-t %s: give a number of MPI_Test calls (0 to 1048576), or SEND:RECV threads or "
                              "processes (latency_mt, latency_mp)",
                              arg);
    o->num_tests = (int)send;
    o->num_tests_set = true;
    o->workers[0] = (int)send;
    o->workers[1] = (int)recv;
    o->workers_pair = colon != NULL;
    return CS_OK;
}

static cs_status_t parse_send_mode(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    for (int m = CS_SEND_STANDARD; m <= CS_SEND_PERSISTENT; m++) {
        if (strcmp(arg, cs_send_mode_name((cs_send_mode_t)m)) == 0) {
            o->send_mode = (cs_send_mode_t)m;
            o->send_mode_set = true;
            return CS_OK;
        }
    }
    return cs_usage_error(err, errlen, "--send-mode %s: choose send, ssend, bsend, rsend, isend or persistent", arg);
}

static cs_status_t parse_format(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    for (int f = CS_FORMAT_OSU; f <= CS_FORMAT_CSV; f++) {
        if (strcmp(arg, cs_format_name((cs_format_t)f)) == 0) {
            o->format = (cs_format_t)f;
            return CS_OK;
        }
    }
    return cs_usage_error(err, errlen, "--format %s: choose osu, json or csv", arg);
}

/* A comma-separated list of names from `names` (or "all") into a CS_MASK set; any case,
 * as OMB compares them (-T MPI_INT, -s FLUSH). */
static bool parse_name_set(const char *arg, const char *(*name_of)(int), int count, unsigned *out)
{
    if (strcasecmp(arg, "all") == 0) {
        *out = (1u << count) - 1;
        return true;
    }
    unsigned set = 0;
    for (const char *p = arg;;) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int i = 0; i < count && found < 0; i++)
            if (strlen(name_of(i)) == len && strncasecmp(p, name_of(i), len) == 0) found = i;
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
        return cs_usage_error(err, errlen, "-k %s: choose fixed:RANK (a rank number) or rotate", arg);
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
            return cs_usage_error(err, errlen, "-N %s: use cart:DIMS:RADIUS (e.g. cart:2:1) or graph:FILE", arg);
        memcpy(dims, arg + 5, len);
        dims[len] = '\0';
        if (!parse_long(dims, 1, 8, &d) || !parse_long(colon + 1, 1, 1 << 16, &r))
            return cs_usage_error(err, errlen, "-N %s: DIMS must be 1 to 8 and RADIUS at least 1", arg);
        o->nbr_kind = CS_NBR_CART;
        o->nbr_dims = (int)d;
        o->nbr_radius = (int)r;
    } else {
        return cs_usage_error(err, errlen, "-N %s: use cart:DIMS:RADIUS (e.g. cart:2:1) or graph:FILE", arg);
    }
    o->nbr_set = true;
    return CS_OK;
}

/* OMB's accelerators commscope has no backend for, as their users name them */
static const char *accel_word(const char *arg)
{
    if (strcasecmp(arg, "rocm") == 0) return "ROCm";
    return strcasecmp(arg, "sycl") == 0 ? "SYCL" : "OpenACC";
}

/* -d cuda|managed, OMB's spelling (case-insensitive, as OMB compares); OMB's other
 * accelerators (rocm, openacc, and sycl since OMB 7.5) are named so that the user knows
 * why they are refused. */
static cs_status_t parse_accel(const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    if (strcasecmp(arg, "cuda") == 0) o->accel = CS_ACCEL_CUDA;
    else if (strcasecmp(arg, "managed") == 0) o->accel = CS_ACCEL_MANAGED;
    else if (strcasecmp(arg, "openacc") == 0 || strcasecmp(arg, "rocm") == 0 || strcasecmp(arg, "sycl") == 0)
        return cs_usage_error(err, errlen,
                              "-d %s: %s buffers are not supported by this build (not built with %s; it has "
                              "cuda and managed)",
                              arg, accel_word(arg), accel_word(arg));
    else return cs_usage_error(err, errlen, "-d %s: choose cuda or managed", arg);
    o->accel_set = true;
    return CS_OK;
}

/* -G tty,png,pdf: OMB's graph terminals, any case */
static cs_status_t check_graph(const char *arg, char *err, size_t errlen)
{
    for (const char *p = arg;;) {
        size_t len = strcspn(p, ",");
        if (!(len == 3 &&
              (strncasecmp(p, "tty", 3) == 0 || strncasecmp(p, "png", 3) == 0 || strncasecmp(p, "pdf", 3) == 0)))
            return cs_usage_error(err, errlen, "-G %s: give tty, png, pdf or a comma-separated list of them", arg);
        if (p[len] == '\0') return CS_OK;
        p += len + 1;
    }
}

/* -D cont, vect[:STRIDE:BLOCKLEN], indx:FILE: OMB's derived datatypes */
static cs_status_t check_ddt(const char *arg, char *err, size_t errlen)
{
    if (strcasecmp(arg, "cont") == 0 || strcasecmp(arg, "vect") == 0) return CS_OK;
    if (strncasecmp(arg, "indx:", 5) == 0 && arg[5] != '\0') return CS_OK;
    if (strncasecmp(arg, "vect:", 5) == 0) {
        const char *colon = strchr(arg + 5, ':');
        char stride[32];
        size_t len = colon ? (size_t)(colon - arg - 5) : 0;
        long v;
        if (colon && len > 0 && len < sizeof stride) {
            memcpy(stride, arg + 5, len);
            stride[len] = '\0';
            if (parse_long(stride, 1, INT_MAX, &v) && parse_long(colon + 1, 1, INT_MAX, &v)) return CS_OK;
        }
    }
    return cs_usage_error(err, errlen, "-D %s: give cont, vect:STRIDE:BLOCKLEN or indx:FILE", arg);
}

static cs_status_t apply_option(int c, const char *arg, cs_opts_t *o, char *err, size_t errlen)
{
    long v;
    switch (c) {
    case 'h': o->help = true; return CS_OK;
    case 'v': o->version = true; return CS_OK;
    case LONG_ONLY(LIST): o->list = true; return CS_OK;
    case 'm': return parse_sizes(arg, o, err, errlen);
    case 'i':
        if (!parse_long(arg, 1, INT_MAX, &v))
            return cs_usage_error(err, errlen, "-i %s: iterations must be a whole number >= 1", arg);
        o->iterations = v;
        o->iterations_set = true;
        return CS_OK;
    case 'x':
        if (!parse_long(arg, 0, INT_MAX, &v))
            return cs_usage_error(err, errlen, "-x %s: warm-up iterations must be a whole number >= 0", arg);
        o->warmup = v;
        o->warmup_set = true;
        return CS_OK;
    case 'W':
        if (!parse_long(arg, 1, 1 << 20, &v))
            return cs_usage_error(err, errlen, "-W %s: window size must be a whole number from 1 to 1048576", arg);
        o->window = (int)v;
        o->window_set = true;
        return CS_OK;
    case 'p':
        if (!parse_long(arg, 1, INT_MAX, &v))
            return cs_usage_error(err, errlen, "-p %s: pairs must be a whole number >= 1", arg);
        o->pairs = (int)v;
        o->pairs_set = true;
        return CS_OK;
    case 'V': o->vary_window = true; return CS_OK;
    case 'c':
        /* OMB's -clog[:DIR] writes each rank's mismatches to DIR; commscope counts them in
         * the output instead, so the log is accepted and not written (core/compat.c) */
        if (arg != NULL && strcmp(arg, "log") != 0 && (strncmp(arg, "log:", 4) != 0 || arg[4] == '\0'))
            return cs_usage_error(err, errlen, "-c%s: use -c, or OMB's -clog or -clog:DIR", arg);
        o->validate = true;
        o->validation_log = arg;
        return CS_OK;
    case 'u':
        if (!parse_long(arg, 0, CS_MAX_VALIDATION_WARMUP, &v))
            return cs_usage_error(err, errlen,
                                  "-u %s: validation warm-up iterations must be a whole number from 0 to %d", arg,
                                  CS_MAX_VALIDATION_WARMUP);
        o->validation_warmup = (int)v;
        return CS_OK;
    case 'a':
        if (!parse_long(arg, 1, INT_MAX, &v))
            return cs_usage_error(err, errlen, "-a %s: the array size must be a whole number >= 1", arg);
        return CS_OK;
    case 'r':
        if (strcasecmp(arg, "cpu") != 0 && strcasecmp(arg, "gpu") != 0 && strcasecmp(arg, "both") != 0)
            return cs_usage_error(err, errlen, "-r %s: choose cpu, gpu or both", arg);
        return CS_OK;
    case 'G': return check_graph(arg, err, errlen);
    case 'D': return check_ddt(arg, err, errlen);
    case 'P':
        if (*arg == '\0') return cs_usage_error(err, errlen, "-P: give EVENTS:PATH");
        return CS_OK;
    case 'I': return CS_OK;
    case 'f': o->full = true; return CS_OK;
    case 'z': return parse_percentiles(arg, o, err, errlen);
    case 'M':
        if (!cs_parse_bytes(arg, &o->mem_limit))
            return cs_usage_error(err, errlen, "-M %s: not a memory size (e.g. 512M, 2G)", arg);
        if (o->mem_limit < CS_MIN_MEM_LIMIT)
            return cs_usage_error(err, errlen, "-M %s: the memory limit must be at least 1M", arg);
        return CS_OK;
    case 'b':
        if (strcasecmp(arg, "single") == 0) o->buffers = CS_BUFFERS_SINGLE;
        else if (strcasecmp(arg, "multiple") == 0) o->buffers = CS_BUFFERS_MULTIPLE;
        else return cs_usage_error(err, errlen, "-b %s: choose single or multiple", arg);
        return CS_OK;
    case 'R':
        if (strcmp(arg, "0") == 0) o->print_rate = false;
        else if (strcmp(arg, "1") == 0) o->print_rate = true;
        else return cs_usage_error(err, errlen, "-R %s: choose 0 or 1", arg);
        return CS_OK;
    case 'T': {
        unsigned set;
        if (!parse_name_set(arg, dtype_option, CS_DT_SELECTABLE, &set))
            return cs_usage_error(err, errlen,
                                  "-T %s: choose mpi_char, mpi_int, mpi_float, mpi_double, a "
                                  "comma-separated list of them, or all",
                                  arg);
        /* OMB adds each -T to its list: -T mpi_char -T mpi_int sweeps both */
        o->dtypes = o->dtypes_set ? o->dtypes | set : set;
        o->dtypes_all |= strcasecmp(arg, "all") == 0;
        o->dtypes_set = true;
        return CS_OK;
    }
    case 'k': return parse_root(arg, o, err, errlen);
    case 'l': o->in_place = true; return CS_OK;
    case 't': return parse_num_tests(arg, o, err, errlen);
    case 'q':
        if (!parse_long(arg, 1, CS_MAX_PARTITIONS, &v))
            return cs_usage_error(err, errlen, "-q %s: give a number of partitions from 1 to %d", arg,
                                  CS_MAX_PARTITIONS);
        o->partitions = (int)v;
        return CS_OK;
    case 'N': return parse_nbr(arg, o, err, errlen);
    case 'w':
        if (!parse_name_set(arg, win_option, CS_NWIN_MODES, &o->win_modes))
            return cs_usage_error(err, errlen,
                                  "-w %s: choose create, allocate, dynamic, a comma-separated list "
                                  "of them, or all",
                                  arg);
        o->win_modes_set = true;
        return CS_OK;
    case 's':
        if (!parse_name_set(arg, sync_option, CS_NSYNC_MODES, &o->sync_modes))
            return cs_usage_error(err, errlen,
                                  "-s %s: choose lock, pscw, fence, flush, flush_local, lock_all, a "
                                  "comma-separated list of them, or all",
                                  arg);
        o->sync_modes_set = true;
        o->sync_all = strcasecmp(arg, "all") == 0;
        return CS_OK;
    case LONG_ONLY(PRECISION):
    case LONG_ONLY(MAX_TIME):
    case LONG_ONLY(MIN_SAMPLES): return parse_precision(c, arg, o, err, errlen);
    case LONG_ONLY(TIME_LIMIT): return parse_time_limit(arg, o, err, errlen);
    case 'd': return parse_accel(arg, o, err, errlen);
    case LONG_ONLY(GPU_DEVICE):
        if (!parse_long(arg, 0, 1023, &v))
            return cs_usage_error(err, errlen, "--gpu-device %s: give a GPU index from 0 to 1023", arg);
        o->gpu_device = (int)v;
        o->gpu_device_set = true;
        return CS_OK;
    case LONG_ONLY(BUSBW): o->busbw = true; return CS_OK;
    case LONG_ONLY(SCHEDULE):
    case LONG_ONLY(SERIAL):
    case LONG_ONLY(PAIR_METRIC):
    case LONG_ONLY(LAT_SIZE):
    case LONG_ONLY(BW_SIZE): return CS_OK; /* the pairs benchmark reads them (util/pairs_spec.c) */
    case LONG_ONLY(CANARY_FRACTION):
    case LONG_ONLY(CANARY_PLACEMENT):
    case LONG_ONLY(CONGESTOR):
    case LONG_ONLY(DURATION): return CS_OK; /* congestion reads them (util/congestion.c) */
    case LONG_ONLY(FORMAT): return parse_format(arg, o, err, errlen);
    case LONG_ONLY(JSON_OUT): o->json_out = arg; return CS_OK;
    case LONG_ONLY(JSONL_OUT): o->jsonl_out = arg; return CS_OK;
    case LONG_ONLY(SEND_MODE): return parse_send_mode(arg, o, err, errlen);
    case LONG_ONLY(BATCH):
        if (strcmp(arg, "auto") == 0) {
            o->batch = 0;
            return CS_OK;
        }
        if (!parse_long(arg, 1, INT_MAX, &v))
            return cs_usage_error(err, errlen, "--batch %s: give auto or a whole number >= 1", arg);
        o->batch = v;
        return CS_OK;
    case LONG_ONLY(DEBUG_MAX_SAMPLES):
        if (!parse_long(arg, 1, LONG_MAX, &v))
            return cs_usage_error(err, errlen, "--debug-max-samples %s: give a whole number >= 1", arg);
        o->max_samples = v;
        return CS_OK;
    case LONG_ONLY(DEBUG_CORRUPT):
        if (!parse_long(arg, 0, LONG_MAX, &v))
            return cs_usage_error(err, errlen, "--debug-corrupt %s: give a message size", arg);
        o->corrupt_size = v;
        return CS_OK;
    default: return cs_usage_error(err, errlen, "internal: unhandled option %d", c);
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

cs_status_t cs_opts_parse(int argc, char **argv, const char *implied_bench, cs_opts_t *o, char *err, size_t errlen)
{
    cs_opts_init(o);
    o->bench_name = implied_bench;
    err[0] = '\0';
    optind = 0; /* glibc: full re-initialisation, so the parser can run more than once */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, short_options(), long_options, NULL)) != -1) {
        char flag[128];
        if (c == '?') {
            describe_bad_flag(optopt, argc, argv, flag, sizeof flag);
            return cs_usage_error(err, errlen, "unknown option %s", flag);
        }
        if (c == ':') {
            describe_bad_flag(optopt, argc, argv, flag, sizeof flag);
            return cs_usage_error(err, errlen, "option %s needs a value", flag);
        }
        /* -z 50,90: OMB's users put the list in the next word too */
        if (c == 'z' && optarg == NULL && optind < argc && is_percentile_list(argv[optind])) optarg = argv[optind++];
        int id = option_id(c);
        if (id < 0) return cs_usage_error(err, errlen, "internal: unhandled option %d", c);
        cs_opts_mark(o, (cs_option_id_t)id, optarg);
        CS_CHECK(apply_option(c, optarg, o, err, errlen));
    }
    int nkinds = 0;
    for (int i = optind; i < argc; i++) {
        if (o->bench_name == NULL) {
            o->bench_name = argv[i];
            continue;
        }
        cs_mem_kind_t kind;
        if (nkinds < 2 && parse_mem_kind(argv[i], &kind)) {
            o->mem_kinds[nkinds++] = kind;
            continue;
        }
        return cs_usage_error(err, errlen,
                              "unexpected argument '%s' (benchmark is already '%s'; buffer placements are two of "
                              "H, D, M, MH, MD)",
                              argv[i], o->bench_name);
    }
    if (nkinds == 1) o->mem_kinds[1] = o->mem_kinds[0];
    o->mem_kinds_set = nkinds > 0;
    if (o->help || o->version || o->list) return CS_OK;
    CS_CHECK(check_precision(o, err, errlen));
    if (o->bench_name == NULL) return cs_usage_error(err, errlen, "no benchmark named (see --list)");
    return CS_OK;
}

/* The option column is 28 wide; a help text's further lines start below its first. */
static void usage_option(FILE *out, size_t i)
{
    char name[64];
    if (usage_rows[i].short_letter)
        snprintf(name, sizeof name, "  -%c, --%s", usage_rows[i].short_letter, usage_rows[i].long_name);
    else
        snprintf(name, sizeof name, "      --%s%s%s", usage_rows[i].long_name, usage_rows[i].metavar[0] ? " " : "",
                 usage_rows[i].metavar);
    fprintf(out, "%-26s", name);
    for (const char *line = usage_rows[i].help; *line;) {
        size_t len = strcspn(line, "\n");
        fprintf(out, "%s%.*s\n", line == usage_rows[i].help ? "  " : "                            ", (int)len, line);
        line += len + (line[len] == '\n');
    }
}

void cs_opts_usage(FILE *out, const char *prog)
{
    fprintf(out,
            "Usage: %s BENCHMARK [options]\n"
            "       %s --list\n"
            "Measures MPI communication; prints OSU-compatible tables, JSON or CSV.\n"
            "\n"
            "Options (OSU Micro-Benchmarks compatible):\n",
            prog, prog);
    for (size_t i = 0; i < CS_NOPTIONS; i++)
        if (usage_rows[i].help && usage_rows[i].short_letter) usage_option(out, i);
    fprintf(out, "\ncommscope options:\n");
    for (size_t i = 0; i < CS_NOPTIONS; i++)
        if (usage_rows[i].help && !usage_rows[i].short_letter) usage_option(out, i);
    fprintf(out, "\nExit status: 0 success, 1 validation failure or MPI error, 2 usage error.\n");
}
