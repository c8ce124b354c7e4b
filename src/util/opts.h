/* Command-line options: one typed struct, one getopt_long table, no globals.
 * MPI-free so every bad input can be unit-tested without mpirun. */
#ifndef CS_OPTS_H
#define CS_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/cs_status.h"
#include "util/precision.h"

#define CS_MAX_PERCENTILES  5
#define CS_MAX_REPORT_FILES 2

typedef enum cs_format { CS_FORMAT_OSU, CS_FORMAT_JSON, CS_FORMAT_CSV } cs_format_t;

typedef enum cs_send_mode {
    CS_SEND_STANDARD,  /* MPI_Send */
    CS_SEND_SYNC,      /* MPI_Ssend */
    CS_SEND_BUFFERED,  /* MPI_Bsend */
    CS_SEND_READY,     /* MPI_Rsend */
    CS_SEND_IMMEDIATE, /* MPI_Isend + MPI_Wait */
} cs_send_mode_t;

typedef enum cs_buffers { CS_BUFFERS_SINGLE, CS_BUFFERS_MULTIPLE } cs_buffers_t;

/* -k: a fixed root, or root i % n for iteration i (OMB's rotate) */
typedef enum cs_root_mode { CS_ROOT_FIXED, CS_ROOT_ROTATE } cs_root_mode_t;

/* -w: how one-sided benchmarks create their window */
typedef enum cs_win_mode { CS_WIN_CREATE, CS_WIN_ALLOCATE, CS_WIN_DYNAMIC, CS_NWIN_MODES } cs_win_mode_t;

/* -s: how one-sided benchmarks synchronise (OMB's order and names) */
typedef enum cs_rma_sync {
    CS_SYNC_LOCK,
    CS_SYNC_PSCW,
    CS_SYNC_FENCE,
    CS_SYNC_FLUSH,
    CS_SYNC_FLUSH_LOCAL,
    CS_SYNC_LOCK_ALL,
    CS_NSYNC_MODES
} cs_rma_sync_t;

/* Where a side's buffer lives, as OMB's trailing arguments name it (`osu_latency D H`):
 * H host, D device, M or MD managed memory preferring the device, MH preferring the host. */
typedef enum cs_mem_kind {
    CS_MEM_HOST,
    CS_MEM_DEVICE,
    CS_MEM_MANAGED_DEVICE,
    CS_MEM_MANAGED_HOST,
    CS_NMEM_KINDS
} cs_mem_kind_t;

/* -d: OMB's accelerator. CUDA device memory (cudaMalloc), or managed memory
 * (cudaMallocManaged) for the device words. */
typedef enum cs_accel { CS_ACCEL_NONE, CS_ACCEL_CUDA, CS_ACCEL_MANAGED } cs_accel_t;

/* -N: the neighbourhood of the neighbourhood collectives */
typedef enum cs_nbr_kind { CS_NBR_CART, CS_NBR_GRAPH } cs_nbr_kind_t;

#define CS_MASK(v) (1u << (v))

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
    long max_samples; /* --debug-max-samples N: the sample bound (0: CS_MAX_SAMPLES) */
} cs_opts_t;

/* Defaults as OMB has them; see docs/core.md. */
#define CS_DEFAULT_WINDOW            64
#define CS_DEFAULT_MEM_LIMIT         ((size_t)512 << 20)
#define CS_MIN_MEM_LIMIT             ((size_t)1 << 20)
#define CS_DEFAULT_VALIDATION_WARMUP 5  /* OMB's VALIDATION_SKIP_DEFAULT */
#define CS_MAX_VALIDATION_WARMUP     10 /* OMB's VALIDATION_SKIP_MAX */

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

const char *cs_send_mode_name(cs_send_mode_t m);
const char *cs_win_mode_option(cs_win_mode_t w); /* "allocate" */
const char *cs_win_mode_call(cs_win_mode_t w);   /* "MPI_Win_allocate" */
const char *cs_sync_option(cs_rma_sync_t s);     /* "flush" */
const char *cs_sync_calls(cs_rma_sync_t s);      /* "MPI_Win_flush" */
const char *cs_format_name(cs_format_t f);
const char *cs_accel_name(cs_accel_t a);       /* "none", "cuda", "managed" */
const char *cs_mem_kind_name(cs_mem_kind_t k); /* "host", "device", "managed", "managed_host" */

/* The usage text printed for -h and after usage errors. */
void cs_opts_usage(FILE *out, const char *prog);

#endif
