/* The rank a launcher gave this process, from the variable it sets before MPI_Init (srun,
 * Open MPI's mpirun, Hydra, PMIx), or NULL outside a launch: the test stand-ins decide
 * whether to fail before MPI can say. */
#ifndef COMMSCOPE_TESTS_LAUNCHED_RANK_H
#define COMMSCOPE_TESTS_LAUNCHED_RANK_H

#include <stdlib.h>

static inline const char *rank_of_this_process(void)
{
    static const char *names[] = {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *value = getenv(names[i]);
        if (value) return value;
    }
    return NULL;
}

#endif
