/* A benchmark is a const descriptor: what it measures, which timing pattern it uses,
 * which options and sweep axes apply. The driver does everything else. MPI-free. */
#ifndef CS_BENCH_H
#define CS_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "cs_status.h"
#include "opts.h"

struct cs_pattern; /* the timed loop; defined with MPI in pattern.h */

typedef enum cs_metric { CS_METRIC_LATENCY, CS_METRIC_BANDWIDTH } cs_metric_t;

/* Which of OMB's default iteration tables applies. */
typedef enum cs_iter_class { CS_ITERS_LATENCY, CS_ITERS_BANDWIDTH } cs_iter_class_t;

enum cs_caps {
    CS_CAP_TWO_RANKS = 1u << 0,   /* exactly two ranks */
    CS_CAP_PAIRS = 1u << 1,       /* ranks i and i + pairs work together; -p applies */
    CS_CAP_ALL_PAIRS = 1u << 2,   /* every rank is in a pair: needs an even rank count */
    CS_CAP_WINDOW = 1u << 3,      /* -W, -b multiple apply */
    CS_CAP_VARY_WINDOW = 1u << 4, /* -V applies */
    CS_CAP_RATE = 1u << 5,        /* messages/s column; -R applies */
    CS_CAP_SEND_MODE = 1u << 6,   /* --send-mode applies */
};

typedef struct cs_bench {
    const char *name;
    const char *description;
    const char *osu_title;       /* "Latency Test" -> "# commscope MPI Latency Test v..." */
    const char *osu_value_label; /* header of the main OSU column */
    bool osu_leading_blank;      /* OMB prints an empty line before most titles */
    const struct cs_pattern *pattern;
    cs_metric_t metric;
    cs_iter_class_t iter_class;
    unsigned caps;
    size_t default_min_size;
    int directions; /* messages cross the link this many ways per window (bibw: 2) */
} cs_bench_t;

#define CS_LARGE_MESSAGE_SIZE 8192u /* OMB's small/large split for iteration counts */
#define CS_DEFAULT_MAX_SIZE ((size_t)1 << 22)
/* MPI_Buffer_attach takes an int; two messages and MPI's overhead must fit. */
#define CS_BSEND_MAX_SIZE (1 << 29)

typedef struct cs_plan {
    size_t min_size, max_size;
    int pairs;      /* pairs that communicate (ranks beyond 2 * pairs wait at barriers) */
    int window;
    size_t buffer_bytes; /* per process: send + receive buffers at the largest size */
} cs_plan_t;

/* Checks that the options fit this benchmark and the rank count, and works out the
 * effective sweep. Returns CS_ERR_USAGE with a one-line reason in err. */
cs_status_t cs_bench_plan(const cs_bench_t *b, const cs_opts_t *o, int nranks, cs_plan_t *plan,
                          char *err, size_t errlen);

/* Iterations and warm-up for one message size (OMB's defaults unless -i / -x). */
void cs_bench_iterations(const cs_bench_t *b, const cs_opts_t *o, size_t size, long *iterations,
                         long *warmup);

/* Bytes one timed iteration moves, the numerator of the bandwidth. */
double cs_bench_bytes_per_iteration(const cs_bench_t *b, size_t size, int window, int pairs);

#endif
