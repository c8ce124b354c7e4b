/* The failure report of CS_MPI, out of line (see mpi_check.h). */
#include "mpi/check.h"

#include <stdio.h>

cs_status_t cs_mpi_failed(int rc, const char *file, int line, const char *call)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "MPI error code %d", rc);
    fprintf(stderr, "commscope-bench: %s:%d: %s failed: %s\n", file, line, call, msg);
    return CS_ERR_RUNTIME;
}
