/* The MPI side of one-sided benchmarks: the arguments of one operation. The operation
 * rows and descriptor macros are MPI-free in rma_op.h; the epochs (-s), the window (-w)
 * and validation are the one-sided pattern's (patterns/rma.c). */
#ifndef CS_RMA_H
#define CS_RMA_H

#include <mpi.h>
#include <stdbool.h>

#include "core/pattern.h"
#include "patterns/rma_op.h"

/* One operation of `count` elements at byte offset `off` of the local buffers and of the
 * target's window. */
typedef struct cs_rma_args {
    void *origin, *result, *compare;
    size_t off;
    int count;
    MPI_Datatype type;
    int target;
    MPI_Aint disp; /* the window's base at the target: 0, or its address with -w dynamic */
    MPI_Win win;
} cs_rma_args_t;

#define CS_RMA_AT(buf, a) ((char *)(buf) + (a)->off)
#define CS_RMA_DISP(a)    ((a)->disp + (MPI_Aint)(a)->off)

#endif
