/* MPI_Get: osu_get_latency and osu_get_bw (a window of gets per epoch), and their
 * multi-pair forms osu_get_multi_lat and osu_get_mbw: rank i gets from rank i + n/2's
 * window, every pair at once, a barrier before each iteration (as osu_multi_lat and
 * osu_mbw_mr). */
#include "patterns/rma_op.h"

static const cs_rma_op_t op = {.call = CS_RMA_GET, .fetches = true, .update = CS_RMA_KEEP};

const cs_bench_t cs_bench_get_latency =
    CS_RMA_BENCH("get_latency", "MPI_Get latency Test", "one-sided MPI_Get latency: one get per epoch (us); -w, -s",
                 CS_PATTERN_RMA, op, CS_METRIC_LATENCY, 0, CS_RMA_ALL_SYNCS, CS_WIN_ALLOCATE, CS_SYNC_FLUSH, 1);
const cs_bench_t cs_bench_get_bw = CS_RMA_BENCH(
    "get_bw", "MPI_Get Bandwidth Test", "one-sided MPI_Get bandwidth: -W gets per epoch (MB/s); -w, -s", CS_PATTERN_RMA,
    op, CS_METRIC_BANDWIDTH, CS_CAP_WINDOW, CS_RMA_ALL_SYNCS, CS_WIN_ALLOCATE, CS_SYNC_FLUSH, 1);
const cs_bench_t cs_bench_get_multi_lat = CS_RMA_BENCH_RANKS(
    CS_CAP_ALL_PAIRS, "get_multi_lat", "MPI_Get Multi Latency Test",
    "multi-pair MPI_Get latency: rank i gets from rank i+n/2, mean over pairs (us); -w, -s", CS_PATTERN_MULTI_RMA, op,
    CS_METRIC_LATENCY, 0, CS_RMA_ALL_SYNCS, CS_WIN_ALLOCATE, CS_SYNC_FLUSH, 1);
const cs_bench_t cs_bench_get_mbw = CS_RMA_BENCH_RANKS(
    CS_CAP_ALL_PAIRS, "get_mbw", "MPI_Get Multiple Bandwidth Bandwidth Test",
    "multi-pair MPI_Get bandwidth: rank i gets -W messages from rank i+n/2 per epoch, aggregate MB/s; -w, -s",
    CS_PATTERN_MULTI_RMA, op, CS_METRIC_BANDWIDTH, CS_CAP_WINDOW, CS_RMA_ALL_SYNCS, CS_WIN_ALLOCATE, CS_SYNC_FLUSH, 1);
