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
 * tests needed (docs/PERFORMANCE.md, performance/test_suite).
 *
 * Beside other test workers it is preloaded into Open MPI's ranks as well, for its long
 * waits alone: with mpi_yield_when_idle a rank waiting for a peer that hangs (the planted
 * hangs of the sweep and start-up tests) spins in sched_yield, a core's worth of system
 * time, for the 25 s the sweep waits. This changes how a rank waits, not what it computes;
 * the programs and scripts stay as they are. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <time.h>

#define SLEEP_AFTER_EMPTY_POLLS 64
#define SLEEP_NS                20000
/* A rank that found nothing for this long (a peer that hangs, a launch that never gets
 * going) sleeps a millisecond at a time: a message after such a wait comes at most 1 ms
 * later, and the six ranks of a launch that wait 25 s for a hung host no longer take 7 s of
 * CPU each from the tests beside them. */
#define LONG_WAIT_NS            500000000L
#define LONG_SLEEP_NS           1000000L

static __thread unsigned empty_polls;
static __thread struct timespec idle_since;

static long waited_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return (now.tv_sec - idle_since.tv_sec) * 1000000000L + (now.tv_nsec - idle_since.tv_nsec);
}

/* One poll of the library's progress engine found something or not: how this thread waits
 * next. `own_waits`: yield, then sleep briefly (Debian MPICH's UCX polls without ever giving
 * its core up). Open MPI yields by itself (mpi_yield_when_idle) and gets the long sleeps
 * alone: its short waits, a collective's over shared memory, stay as they were. */
static void waited(int found, int own_waits)
{
    if (found) {
        empty_polls = 0;
        return;
    }
    if (empty_polls++ == 0) clock_gettime(CLOCK_MONOTONIC_COARSE, &idle_since);
    struct timespec pause = {0, 0};
    if (waited_ns() >= LONG_WAIT_NS) {
        pause.tv_nsec = LONG_SLEEP_NS;
    } else if (!own_waits) {
        return;
    } else if (empty_polls < SLEEP_AFTER_EMPTY_POLLS) {
        sched_yield();
        return;
    } else {
        pause.tv_nsec = SLEEP_NS;
    }
    nanosleep(&pause, NULL);
}

/* Open MPI's progress loop calls UCX's inside it (pml ucx): that poll is judged once, there. */
static __thread int in_opal_progress;
/* Open MPI's opal_progress returns nothing: it yields when it found nothing, so a yield
 * inside it is how an empty poll is told. */
static __thread int yielded;

typedef int (*yield_fn)(void);

int sched_yield(void)
{
    static yield_fn real;
    if (!real) real = (yield_fn)dlsym(RTLD_NEXT, "sched_yield");
    yielded = 1;
    return real();
}

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    if (!real) real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    unsigned events = real(worker);
    if (!in_opal_progress) waited(events != 0, 1);
    return events;
}

typedef void (*opal_progress_fn)(void);

void opal_progress(void)
{
    static opal_progress_fn real;
    if (!real) real = (opal_progress_fn)dlsym(RTLD_NEXT, "opal_progress");
    in_opal_progress = 1;
    yielded = 0;
    real();
    in_opal_progress = 0;
    waited(!yielded, 0);
}
