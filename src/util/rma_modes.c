#include "util/rma_modes.h"

const char *cs_win_mode_option(cs_win_mode_t w)
{
    static const char *const names[] = {"create", "allocate", "dynamic"};
    return names[w];
}

const char *cs_win_mode_call(cs_win_mode_t w)
{
    static const char *const names[] = {"MPI_Win_create", "MPI_Win_allocate", "MPI_Win_create_dynamic"};
    return names[w];
}

const char *cs_sync_option(cs_rma_sync_t s)
{
    static const char *const names[] = {"lock", "pscw", "fence", "flush", "flush_local", "lock_all"};
    return names[s];
}

const char *cs_sync_calls(cs_rma_sync_t s)
{
    /* as OMB's header names them */
    static const char *const names[] = {"MPI_Win_lock/unlock", "MPI_Win_post/start/complete/wait",
                                        "MPI_Win_fence",       "MPI_Win_flush",
                                        "MPI_Win_flush_local", "MPI_Win_lock_all/unlock_all"};
    return names[s];
}
