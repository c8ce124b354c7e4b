/* MPI_Compare_and_swap on one element: osu_cas_latency. The comparand is the target's
 * current value, so every operation swaps (and validation sees it). OMB 7.4 takes -T for
 * it (MPI_CHAR by default) and reports the element's size as the message size; MPI
 * defines compare-and-swap on integer types only, so mpi_float and mpi_double are refused. */
#include "patterns/rma_op.h"
#include "util/mask.h"

static const cs_rma_op_t op = {.call = CS_RMA_COMPARE_AND_SWAP, .fetches = true, .update = CS_RMA_SWAP};

const cs_bench_t cs_bench_cas_latency =
    CS_RMA_ATOMIC_BENCH("cas_latency", "MPI_Compare_and_swap latency Test",
                        "one-sided MPI_Compare_and_swap (one element of -T: mpi_char, mpi_int) latency (us); -w, -s",
                        op, CS_MASK(CS_DT_CHAR) | CS_MASK(CS_DT_INT));
