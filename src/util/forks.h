/* Processes forked beside a rank and held until released (OMB's osu_latency_mp: the
 * latency of an MPI library whose process has forked). A child calls nothing but
 * async-signal-safe functions: it sleeps until released, or until its parent is gone, and
 * leaves with _exit, so it never runs the MPI library's exit handlers. MPI-free. */
#ifndef CS_FORKS_H
#define CS_FORKS_H

#include <sys/types.h>

#include "util/cs_status.h"

typedef struct cs_forks {
    int n;
    pid_t *pids;
    volatile int *release; /* a page shared with the children */
} cs_forks_t;

/* Forks n children that wait; on failure the ones made are released (err says why). */
cs_status_t cs_forks_start(cs_forks_t *f, int n, char *err, size_t errlen);

/* Releases the children and waits for them; returns how many did not exit with status 0. */
int cs_forks_stop(cs_forks_t *f);

#endif
