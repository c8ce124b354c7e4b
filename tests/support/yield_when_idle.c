/* Preloaded (LD_PRELOAD) into Debian MPICH's ranks by tests that start more ranks than
 * this machine has cores, or share its cores with other test workers: 4-rank runs of the
 * core and every run of make pytest's parallel step (tests/support/mpi_flavours.py), and
 * the cluster tests' MPICH jobs (SJTU's OSU page's `srun --mpi=pmi2` scripts, sweeps).
 *
 * Debian's MPICH (ch4:ucx) waits by polling UCX without ever giving its core up, and has
 * no setting to do otherwise (Open MPI has mpi_yield_when_idle, which --oversubscribe
 * turns on). Four such ranks on two cores each wait for a time slice of the others: a
 * 4-rank collective check takes 4-5 s instead of 0.2 s, and the seed's default bcast
 * sweep over ten minutes. So a poll that found nothing yields the core; after
 * SLEEP_AFTER_EMPTY_POLLS of them in a row (about 0.1 ms of waiting) the rank sleeps
 * briefly instead, since a yielding rank is still scheduled its fair share, and in make
 * pytest's parallel step the waiting ranks of four test workers held the cores the other
 * tests needed (docs/PERFORMANCE.md, performance/test_suite). This changes how a rank
 * waits, not what it computes; the programs and scripts stay as they are. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <time.h>

#define SLEEP_AFTER_EMPTY_POLLS 64
#define SLEEP_NS                20000

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    static __thread unsigned empty_polls;
    if (!real) real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    unsigned events = real(worker);
    if (events != 0) {
        empty_polls = 0;
    } else if (++empty_polls < SLEEP_AFTER_EMPTY_POLLS) {
        sched_yield();
    } else {
        const struct timespec pause = {0, SLEEP_NS};
        nanosleep(&pause, NULL);
    }
    return events;
}
