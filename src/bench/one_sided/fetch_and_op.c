/* MPI_Fetch_and_op with MPI_SUM on one element: osu_fop_latency. OMB 7.4 takes -T for it
 * (MPI_CHAR by default) and reports the element's size as the message size. */
#include "patterns/rma_op.h"

static const cs_rma_op_t op = {.call = CS_RMA_FETCH_AND_OP, .fetches = true, .update = CS_RMA_SUM};

const cs_bench_t cs_bench_fop_latency =
    CS_RMA_ATOMIC_BENCH("fop_latency", "MPI_Fetch_and_op latency Test",
                        "one-sided MPI_Fetch_and_op (MPI_SUM, one element of -T) latency (us); -w, -s", op, 0);
