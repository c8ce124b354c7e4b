/* MPI_Put: osu_put_latency, osu_put_bw (a window of puts per epoch) and osu_put_bibw (both
 * ranks put at once; active target synchronisation only, pscw by default, as in OMB). */
#include "patterns/rma_op.h"

static const cs_rma_op_t op = {.call = CS_RMA_PUT, .fetches = false, .update = CS_RMA_REPLACE};

const cs_bench_t cs_bench_put_latency =
    CS_RMA_BENCH("put_latency", "MPI_Put Latency Test", "one-sided MPI_Put latency: one put per epoch (us); -w, -s",
                 CS_PATTERN_RMA, op, CS_METRIC_LATENCY, 0, CS_RMA_ALL_SYNCS, CS_WIN_ALLOCATE, CS_SYNC_FLUSH, 1);
const cs_bench_t cs_bench_put_bw = CS_RMA_BENCH(
    "put_bw", "MPI_Put Bandwidth Test", "one-sided MPI_Put bandwidth: -W puts per epoch (MB/s); -w, -s", CS_PATTERN_RMA,
    op, CS_METRIC_BANDWIDTH, CS_CAP_WINDOW, CS_RMA_ALL_SYNCS, CS_WIN_ALLOCATE, CS_SYNC_FLUSH, 1);
const cs_bench_t cs_bench_put_bibw =
    CS_RMA_BENCH("put_bibw", "MPI_Put Bi-directional Bandwidth Test",
                 "one-sided MPI_Put bandwidth with both ranks putting at once (MB/s); -s pscw|fence", CS_PATTERN_RMA_BI,
                 op, CS_METRIC_BANDWIDTH, CS_CAP_WINDOW, CS_RMA_ACTIVE_SYNCS, CS_WIN_ALLOCATE, CS_SYNC_PSCW, 2);
