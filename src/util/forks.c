#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "util/forks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void child(volatile int *release, pid_t parent)
{
    const struct timespec nap = {0, 1000000}; /* 1 ms */
    while (!*release && getppid() == parent) nanosleep(&nap, NULL);
    _exit(0);
}

cs_status_t cs_forks_start(cs_forks_t *f, int n, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (n <= 0) return CS_OK;
    void *page = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    f->pids = calloc((size_t)n, sizeof *f->pids);
    if (page == MAP_FAILED || f->pids == NULL) {
        snprintf(err, errlen, "cannot prepare %d forked processes: %s", n, strerror(errno));
        if (page != MAP_FAILED) munmap(page, sizeof(int));
        free(f->pids);
        f->pids = NULL;
        return CS_ERR_RUNTIME;
    }
    f->release = page;
    *f->release = 0;
    pid_t parent = getpid();
    fflush(NULL); /* nothing buffered is written twice */
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0) child(f->release, parent);
        if (pid < 0) {
            snprintf(err, errlen, "fork failed after %d of %d processes: %s", i, n, strerror(errno));
            cs_forks_stop(f);
            return CS_ERR_RUNTIME;
        }
        f->pids[f->n++] = pid;
    }
    return CS_OK;
}

int cs_forks_stop(cs_forks_t *f)
{
    int failed = 0;
    if (f->release) *f->release = 1;
    for (int i = 0; i < f->n; i++) {
        int status = 0;
        pid_t got;
        do got = waitpid(f->pids[i], &status, 0);
        while (got < 0 && errno == EINTR);
        failed += got < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    if (f->release) munmap((void *)f->release, sizeof(int));
    free(f->pids);
    memset(f, 0, sizeof *f);
    return failed;
}
