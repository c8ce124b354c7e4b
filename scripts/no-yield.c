/* Preloaded (LD_PRELOAD) into the ranks of the MPICH wheel from PyPI by the launcher
 * that scripts/find-mpi writes ($VENV/bin/commscope-mpiexec).
 *
 * That MPICH is built with per-VCI critical sections, and its blocking wait
 * (MPID_Progress_wait in ch4_progress.h) calls MPID_Thread_yield(), i.e. sched_yield(),
 * after every progress poll, whatever the thread level. Each poll thus costs a system
 * call, which on a VM is several times a shared-memory message (1.1 us instead of about
 * 0.2 us per 8-byte ping-pong). MPICH has no run-time setting for it. Returning at once
 * makes the wait a busy poll, as in Debian's MPICH and in Open MPI. */
#include <sched.h>

int sched_yield(void)
{
    return 0;
}
