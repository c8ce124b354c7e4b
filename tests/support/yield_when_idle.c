/* Preloaded (LD_PRELOAD) into Debian MPICH's ranks by tests that start more ranks than
 * this machine has cores: 4-rank runs of the core (tests/support/mpi_flavours.py) and the
 * cluster tests' 4-node jobs (seed 000's `srun --mpi=pmi2 osu_bcast`, sweeps under srun).
 *
 * Debian's MPICH (ch4:ucx) waits by polling UCX without ever giving its core up, and has
 * no setting to do otherwise (Open MPI has mpi_yield_when_idle, which --oversubscribe
 * turns on). Four such ranks on two cores each wait for a time slice of the others: a
 * 4-rank collective check takes 4-5 s instead of 0.2 s, and the seed's default bcast
 * sweep over ten minutes. Yielding after a poll that found nothing changes how a rank
 * waits, not what it computes; the programs and scripts stay as they are. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    if (!real)
        real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    unsigned events = real(worker);
    if (events == 0)
        sched_yield();
    return events;
}
