/* How one-sided benchmarks create their window and synchronise: the vocabulary of
 * patterns/rma.c, the plan's sweep axes, the options (-w, -s) and the reporters. MPI-free. */
#ifndef CS_RMA_MODES_H
#define CS_RMA_MODES_H

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

const char *cs_win_mode_option(cs_win_mode_t w); /* "allocate" */
const char *cs_win_mode_call(cs_win_mode_t w);   /* "MPI_Win_allocate" */
const char *cs_sync_option(cs_rma_sync_t s);     /* "flush" */
const char *cs_sync_calls(cs_rma_sync_t s);      /* "MPI_Win_flush" */

#endif
