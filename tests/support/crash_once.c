/* A stand-in for commscope-bench whose chosen rank dies by SIGSEGV at start, once: the rank
 * named by CRASH_RANK, read from the variable each launcher sets (srun's SLURM_PROCID,
 * Open MPI's OMPI_COMM_WORLD_RANK, Hydra's PMI_RANK), kills itself the first time, when
 * the file CRASH_MARKER does not exist yet (it creates it; without CRASH_MARKER it dies every
 * time); every other start, and every
 * other rank, runs the real core, CRASH_REAL_CORE, with the same arguments (without it, the
 * program of its arguments: `--wrap`). Built with the
 * MPI library's compiler, so the harness tells its MPI library from its libraries as it
 * does the core's (ldd). This is how a rank of Open MPI 4.1.4 dies in MPI_Init over TCP now
 * and then: the other ranks wait for it in their own MPI_Init. */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launched_rank.h"

int main(int argc, char **argv)
{
    const char *core = getenv("CRASH_REAL_CORE"), *chosen = getenv("CRASH_RANK"), *marker = getenv("CRASH_MARKER");
    if (!core && argc < 2) {
        fprintf(stderr, "crash_once: set CRASH_REAL_CORE or give the program to run\n");
        return 2;
    }
    const char *rank = rank_of_this_process();
    if (rank && chosen && strcmp(rank, chosen) == 0) {
        int fd = marker ? open(marker, O_CREAT | O_EXCL | O_WRONLY, 0644) : -1;
        if (!marker || fd >= 0) { /* the first start of this rank (every one without a marker) */
            if (fd >= 0) close(fd);
            signal(SIGSEGV, SIG_DFL);
            raise(SIGSEGV);
        }
    }
    int initialised = 0;
    MPI_Initialized(&initialised); /* links the MPI library, so ldd shows which one */
    if (!core) {                   /* a wrapper: run the program that follows */
        core = argv[1];
        argv++;
    }
    argv[0] = (char *)core;
    execv(core, argv);
    perror(core);
    return 127;
}
