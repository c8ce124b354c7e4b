/* A one-sided benchmark's operation as a row of plain data (which MPI call, what it does
 * to the target and the origin) and the descriptor macro. MPI-free: the descriptors in
 * src/bench/one_sided are read by the unit tests; patterns/rma.h adds the MPI side. */
#ifndef CS_RMA_OP_H
#define CS_RMA_OP_H

#include <stdbool.h>

#include "core/bench.h"
#include "util/mask.h"

/* The MPI call of a one-sided benchmark. pattern_rma.c makes the call itself, inlined
 * into a loop compiled once per call, so that between two operations only the MPI calls
 * run: a put + flush takes 30-50 ns here, and a function pointer per operation cost
 * 5-10 % of that (docs/PERFORMANCE.md). */
typedef enum cs_rma_call {
    CS_RMA_PUT,
    CS_RMA_GET,
    CS_RMA_ACCUMULATE,     /* MPI_SUM */
    CS_RMA_GET_ACCUMULATE, /* MPI_SUM */
    CS_RMA_FETCH_AND_OP,   /* MPI_SUM, one element */
    CS_RMA_COMPARE_AND_SWAP,
} cs_rma_call_t;

/* What the target's window holds after the operation, for validation. */
typedef enum cs_rma_update {
    CS_RMA_KEEP,    /* get */
    CS_RMA_REPLACE, /* put: the origin's data */
    CS_RMA_SUM,     /* accumulate, fetch-and-op: old + origin (MPI_SUM) */
    CS_RMA_SWAP,    /* compare-and-swap with the old value as comparand: the origin's data */
} cs_rma_update_t;

typedef struct cs_rma_op {
    cs_rma_call_t call;
    bool fetches; /* the origin's result buffer receives the target's old data */
    cs_rma_update_t update;
} cs_rma_op_t;

/* Every synchronisation OMB offers, and the ones its active-target-only tests take. */
#define CS_RMA_ALL_SYNCS    ((1u << CS_NSYNC_MODES) - 1)
#define CS_RMA_ACTIVE_SYNCS (CS_MASK(CS_SYNC_PSCW) | CS_MASK(CS_SYNC_FENCE))

/* syncs: the -s modes it takes; win_default and sync_default: OMB's -w and -s defaults for it */
#define CS_RMA_BENCH(bench_name, title, desc, pattern_, op_, metric_, caps_, syncs, win_default, sync_default, dirs)   \
    CS_RMA_BENCH_RANKS(CS_CAP_TWO_RANKS, bench_name, title, desc, pattern_, op_, metric_, caps_, syncs, win_default,   \
                       sync_default, dirs)

/* ... on ranks_caps' ranks: CS_CAP_TWO_RANKS, or CS_CAP_ALL_PAIRS for the multi-pair forms
 * (rank i the origin of rank i + n/2's window) */
#define CS_RMA_BENCH_RANKS(ranks_caps, bench_name, title, desc, pattern_, op_, metric_, caps_, syncs, win_default,     \
                           sync_default, dirs)                                                                         \
    {                                                                                                                  \
        .name = bench_name, .description = desc, .osu_title = title,                                                   \
        .osu_value_label = (metric_) == CS_METRIC_LATENCY ? "Latency (us)" : "Bandwidth (MB/s)",                       \
        .osu_leading_blank = false, .pattern = pattern_, .metric = metric_,                                            \
        .iter_class = (metric_) == CS_METRIC_LATENCY ? CS_ITERS_LATENCY : CS_ITERS_BANDWIDTH,                          \
        .caps = (ranks_caps) | CS_CAP_RMA | CS_CAP_DATATYPES | (caps_), .default_min_size = 1, .directions = dirs,     \
        .osu_layout = CS_OSU_POINT_TO_POINT, .rma = &op_, .rma_syncs = syncs, .default_win = win_default,              \
        .default_sync = sync_default                                                                                   \
    }

/* The atomics (fop, cas): one element of each -T type per operation, whose size the
 * table shows as OMB does; -m only makes the window larger. dtypes_: the -T types the
 * operation is defined on (0: all). */
#define CS_RMA_ATOMIC_BENCH(bench_name, title, desc, op_, dtypes_)                                                     \
    {                                                                                                                  \
        .name = bench_name, .description = desc, .osu_title = title, .osu_value_label = "Latency (us)",                \
        .osu_leading_blank = false, .pattern = CS_PATTERN_RMA, .metric = CS_METRIC_LATENCY,                            \
        .iter_class = CS_ITERS_LATENCY, .caps = CS_CAP_TWO_RANKS | CS_CAP_RMA | CS_CAP_FIXED_SIZE | CS_CAP_DATATYPES,  \
        .default_min_size = 1, .directions = 1, .osu_layout = CS_OSU_POINT_TO_POINT, .rma = &op_,                      \
        .rma_syncs = CS_RMA_ALL_SYNCS, .default_win = CS_WIN_ALLOCATE, .default_sync = CS_SYNC_FLUSH,                  \
        .dtypes_allowed = dtypes_                                                                                      \
    }

#endif
