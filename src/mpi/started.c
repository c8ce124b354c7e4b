#include "mpi/started.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpi/check.h"

#define TAG_STARTED 7201

cs_status_t cs_started_exchange(MPI_Comm comm, cs_started_each_t *each, void *arg)
{
    int rank, nranks, len = 0;
    CS_MPI(MPI_Comm_rank(comm, &rank));
    CS_MPI(MPI_Comm_size(comm, &nranks));
    char name[MPI_MAX_PROCESSOR_NAME];
    CS_MPI(MPI_Get_processor_name(name, &len));
    cs_started_t mine;
    memset(&mine, 0, sizeof mine);
    mine.rank = rank;
    mine.pid = (long)getpid();
    snprintf(mine.host, sizeof mine.host, "%.*s", len, name);
    /* a small message: sent eagerly, so a rank is not held by a rank 0 that hangs */
    if (rank != 0) {
        CS_MPI(MPI_Send(&mine, (int)sizeof mine, MPI_BYTE, 0, TAG_STARTED, comm));
        return CS_OK;
    }
    each(arg, &mine);
    for (int i = 1; i < nranks; i++) {
        cs_started_t other;
        CS_MPI(MPI_Recv(&other, (int)sizeof other, MPI_BYTE, MPI_ANY_SOURCE, TAG_STARTED, comm, MPI_STATUS_IGNORE));
        other.host[sizeof other.host - 1] = '\0';
        each(arg, &other);
    }
    return CS_OK;
}
