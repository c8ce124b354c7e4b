#include "mpi/congestion_split.h"

#include <stdlib.h>
#include <string.h>

#include "mpi/check.h"

cs_status_t cs_congestion_load(MPI_Comm comm, const cs_plan_t *plan, cs_congestion_split_t *split, char *err,
                               size_t errlen)
{
    int nranks, len;
    char name[MPI_MAX_PROCESSOR_NAME];
    CS_MPI(MPI_Comm_size(comm, &nranks));
    memset(name, 0, sizeof name);
    CS_MPI(MPI_Get_processor_name(name, &len));
    char *names = malloc((size_t)nranks * MPI_MAX_PROCESSOR_NAME);
    int *node_of = malloc((size_t)nranks * sizeof *node_of);
    if (!names || !node_of) {
        free(names);
        free(node_of);
        return CS_TRACE(CS_ERR_RUNTIME);
    }
    cs_status_t st = CS_OK;
    if (MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm) !=
        MPI_SUCCESS)
        st = CS_TRACE(CS_ERR_RUNTIME);
    for (int r = 0, nodes = 0; st == CS_OK && r < nranks; r++) {
        node_of[r] = -1;
        for (int q = 0; q < r && node_of[r] < 0; q++)
            if (strncmp(names + (size_t)q * MPI_MAX_PROCESSOR_NAME, names + (size_t)r * MPI_MAX_PROCESSOR_NAME,
                        MPI_MAX_PROCESSOR_NAME) == 0)
                node_of[r] = node_of[q];
        if (node_of[r] < 0) node_of[r] = nodes++;
    }
    if (st == CS_OK) st = cs_congestion_split(&plan->congestion, nranks, node_of, split, err, errlen);
    free(names);
    free(node_of);
    return st;
}
