/* Preloaded (LD_PRELOAD) into Debian MPICH's ranks by the cluster tests that start more
 * ranks than this machine has cores (seed 000's 4-node `srun --mpi=pmi2 osu_bcast`).
 *
 * Debian's MPICH (ch4:ucx) waits by polling UCX without ever giving its core up, and has
 * no setting to do otherwise (Open MPI has mpi_yield_when_idle). Four such ranks on two
 * cores each wait for a time slice of the others: a bcast takes milliseconds and the
 * seed's default sweep over ten minutes. Yielding after a poll that found nothing makes
 * it the same sweep in seconds; the script and the program stay as they are. */
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
