/* What the pairs benchmark was asked to measure: its schedule, --serial, --metric and
 * the two message sizes. Parsed from the typed values of the options (util/options.def)
 * after the common parser has taken them, so opts.c needs no code of its own for them.
 * MPI-free. */
#ifndef CS_PAIRS_SPEC_H
#define CS_PAIRS_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "util/cs_status.h"
#include "util/schedule.h"

struct cs_opts; /* util/opts.h: the typed values this reads */

/* One record per pair and metric, in this order within a round. */
typedef enum cs_pair_metric { CS_PM_LATENCY, CS_PM_BW, CS_PM_BIBW, CS_NPAIR_METRICS } cs_pair_metric_t;

/* OMB-like defaults: latency at 8 B (a ping-pong of one double), bandwidth at 1 MiB with
 * OMB's window of 64: past every eager/rendezvous switch, near the peak of common
 * networks, and short enough that an all-pairs sweep of 64 hosts takes minutes. */
#define CS_PAIRS_DEFAULT_LAT_SIZE ((size_t)8)
#define CS_PAIRS_DEFAULT_BW_SIZE  ((size_t)1 << 20)

typedef struct cs_pairs_spec {
    const char *schedule; /* as typed ("all-pairs" by default) */
    cs_sched_kind_t kind;
    int root;
    const char *file; /* CS_SCHED_FILE */
    bool serial;
    unsigned metrics; /* CS_MASK of cs_pair_metric_t */
    size_t lat_size, bw_size;
} cs_pairs_spec_t;

cs_status_t cs_pairs_spec_parse(const struct cs_opts *o, int nranks, cs_pairs_spec_t *spec, char *err, size_t errlen);

int cs_pairs_nmetrics(const cs_pairs_spec_t *spec);
const char *cs_pair_metric_name(cs_pair_metric_t m); /* "latency", "bw", "bibw" */
/* The message size a metric is measured at. */
size_t cs_pairs_size(const cs_pairs_spec_t *spec, cs_pair_metric_t m);

#endif
