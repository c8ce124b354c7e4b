/* Command-line options: one typed struct, one getopt_long table, no globals.
 * MPI-free so every bad input can be unit-tested without mpirun. */
#ifndef CS_OPTS_H
#define CS_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/coll_modes.h"
#include "util/cs_status.h"
#include "util/format.h"
#include "util/mem_kind.h"
#include "util/p2p_modes.h"
#include "util/precision.h"
#include "util/rma_modes.h"

#define CS_MAX_PERCENTILES  5
#define CS_MAX_REPORT_FILES 2

/* One id per option of util/options.def, in its order. */
typedef enum cs_option_id {
#define CS_OPTION(id, ...) CS_OPT_##id,
#include "util/options.def"
#undef CS_OPTION
    CS_NOPTIONS
} cs_option_id_t;

typedef struct cs_opts {
    const char *bench_name;               /* positional, or implied by an osu_* program name */
    unsigned long long given;             /* options typed: bit CS_OPT_<ID> */
    const char *given_value[CS_NOPTIONS]; /* the last value typed for each ("" without one) */

    size_t min_size, max_size;
    bool min_size_set, max_size_set;
    long iterations, warmup; /* -i / -x set both the small- and large-message counts */
    bool iterations_set, warmup_set;
    int window;
    bool window_set;
    int pairs;
    bool pairs_set;
    bool vary_window;
    bool validate;
    const char *validation_log; /* -clog[:DIR]: OMB's per-rank mismatch logs; not written */
    int validation_warmup;      /* -u: untimed iterations before each checked one (OMB: 5) */
    bool full;
    bool print_rate;
    double percentiles[CS_MAX_PERCENTILES];
    int npercentiles;
    size_t mem_limit;
    cs_buffers_t buffers;
    cs_send_mode_t send_mode;
    bool send_mode_set;
    long batch; /* iterations per timed sample; 0 = chosen from the warm-up */

    /* collectives */
    unsigned dtypes;             /* -T: CS_MASK of cs_dtype_t; the driver sweeps them in order */
    bool dtypes_set, dtypes_all; /* -T all: every type the benchmark takes */
    cs_root_mode_t root_mode;    /* -k */
    int root;
    bool root_set;
    bool in_place; /* -l */
    int num_tests; /* -t: MPI_Test calls during the dummy compute of non-blocking collectives */
    bool num_tests_set;
    /* -t [SEND:]RECV: latency_mt's threads, latency_mp's forked processes (one number: the
     * receivers, as OMB); workers_pair: typed with a colon, which only they take */
    int workers[2];
    bool workers_pair;
    int partitions;         /* -q */
    bool busbw;             /* --busbw: algorithm and bus bandwidth columns */
    cs_nbr_kind_t nbr_kind; /* -N */
    int nbr_dims, nbr_radius;
    const char *nbr_file;
    bool nbr_set;
    /* one-sided: CS_MASK sets; "all" takes every mode the benchmark accepts */
    unsigned win_modes, sync_modes;
    bool win_modes_set, sync_modes_set, sync_all;

    /* OMB's trailing buffer placement: sender's and receiver's side (one word names both).
     * Kept for device memory; a build without it ignores them, as OMB built without an
     * accelerator does. */
    cs_mem_kind_t mem_kinds[2];
    bool mem_kinds_set;
    cs_accel_t accel; /* -d */
    bool accel_set;
    int gpu_device; /* --gpu-device N: the GPU among the visible ones (else the local rank's) */
    bool gpu_device_set;

    cs_format_t format;
    const char *json_out;  /* --json-out FILE: JSON document beside the text */
    const char *jsonl_out; /* --jsonl-out FILE: records streamed as they are measured */

    bool help, version, list;
    long corrupt_size; /* --debug-corrupt SIZE: flip a received byte at SIZE (tests of -c) */

    /* --precision, --max-time, --min-samples; target 0: OMB's fixed counts. A time or count
     * left 0 takes its default (util/precision.h) when a target is given. */
    cs_precision_cfg_t precision;
    long max_samples;    /* --debug-max-samples N: the sample bound (0: CS_MAX_SAMPLES) */
    double time_limit_s; /* --time-limit T: the run's measurements share T (util/budget.h); 0: none */
} cs_opts_t;

/* Defaults as OMB has them; see docs/core.md. */
#define CS_DEFAULT_WINDOW            64
#define CS_DEFAULT_MEM_LIMIT         ((size_t)512 << 20)
#define CS_MIN_MEM_LIMIT             ((size_t)1 << 20)
#define CS_DEFAULT_VALIDATION_WARMUP 5  /* OMB's VALIDATION_SKIP_DEFAULT */
#define CS_MAX_VALIDATION_WARMUP     10 /* OMB's VALIDATION_SKIP_MAX */
#define CS_DEFAULT_PARTITIONS        8  /* partitioned_latency's -q */
#define CS_MAX_PARTITIONS            (1 << 16)

void cs_opts_init(cs_opts_t *o);

/* Whether the option was typed. */
static inline bool cs_opts_given(const cs_opts_t *o, cs_option_id_t id) { return (o->given >> id) & 1u; }

/* Records that the option was typed with this value (the parser does; tests that build
 * options by hand may too). */
void cs_opts_mark(cs_opts_t *o, cs_option_id_t id, const char *value);

/* "-b" or "--send-mode": the option as the usage text names it. */
const char *cs_option_flag(cs_option_id_t id, char *buf, size_t len);

/* Parses argv into o. `implied_bench` is the benchmark named by the program name
 * (osu_latency -> "latency") or NULL. On a usage error returns CS_ERR_USAGE and
 * writes one line naming the flag and value into err. */
cs_status_t cs_opts_parse(int argc, char **argv, const char *implied_bench, cs_opts_t *o, char *err, size_t errlen);

/* "123", "4K", "2M", "1G" (powers of 1024). Returns false on anything else. */
bool cs_parse_bytes(const char *s, size_t *out);

/* The usage text printed for -h and after usage errors. */
void cs_opts_usage(FILE *out, const char *prog);

#endif
