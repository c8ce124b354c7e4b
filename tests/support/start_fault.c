/* Preloaded (LD_PRELOAD) into the ranks of a launch, it makes one host's MPI fail at start
 * as a bad node's does (a broken adapter or driver, a full /tmp): on the host whose name is
 * START_FAULT_HOST (a comma-separated list of names), or the rank START_FAULT_RANK, right
 * after MPI_Init returns the rank
 *   START_FAULT=segv   dies by SIGSEGV
 *   START_FAULT=hang   waits for ever (until a signal ends it)
 * With START_FAULT_BARRIERS=N it runs as usual until its Nth MPI_Barrier, and waits for ever
 * there instead: a host that stops half-way through measuring. Every other rank, and every
 * process that never calls MPI_Init (the launcher, the harness), runs as it is.
 *
 * Built without MPI's headers, the real functions found by dlsym, so one library serves
 * Open MPI and MPICH: MPI_Comm is passed through as a word (an int in MPICH's ABI, a
 * pointer in Open MPI's; either travels in the first argument's register). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launched_rank.h"

static int named(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

static int chosen(void)
{
    const char *hosts = getenv("START_FAULT_HOST"), *rank = getenv("START_FAULT_RANK"), *mine = rank_of_this_process();
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    return (hosts && named(hosts, host)) || (rank && mine && strcmp(rank, mine) == 0);
}

static void hang(void)
{
    for (;;) pause();
}

static void after_init(void)
{
    const char *fault = getenv("START_FAULT");
    if (!fault || getenv("START_FAULT_BARRIERS") || !chosen()) return;
    if (strcmp(fault, "segv") == 0) {
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    if (strcmp(fault, "hang") == 0) hang();
}

int MPI_Init(int *argc, char ***argv)
{
    int (*real)(int *, char ***) = (int (*)(int *, char ***))dlsym(RTLD_NEXT, "MPI_Init");
    int rc = real(argc, argv);
    after_init();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int (*real)(int *, char ***, int, int *) =
        (int (*)(int *, char ***, int, int *))dlsym(RTLD_NEXT, "MPI_Init_thread");
    int rc = real(argc, argv, required, provided);
    after_init();
    return rc;
}

int MPI_Barrier(intptr_t comm)
{
    static long calls;
    const char *at = getenv("START_FAULT_BARRIERS");
    if (at && ++calls == atol(at) && chosen()) hang();
    int (*real)(intptr_t) = (int (*)(intptr_t))dlsym(RTLD_NEXT, "MPI_Barrier");
    return real(comm);
}
