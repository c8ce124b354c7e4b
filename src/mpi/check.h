/* MPI calls return codes (MPI_ERRORS_RETURN is set on the communicator); this turns a
 * failure into a traced status instead of an abort deep inside a loop. The report lives
 * in a cold function of its own so that a timed loop carries no error-message buffer in
 * its stack frame, only a test and a branch. */
#ifndef CS_MPI_CHECK_H
#define CS_MPI_CHECK_H

#include <mpi.h>

#include "util/cs_status.h"

/* Prints "FILE:LINE: CALL failed: <MPI's message>"; returns CS_ERR_RUNTIME. */
__attribute__((cold, noinline)) cs_status_t cs_mpi_failed(int rc, const char *file, int line, const char *call);

#define CS_MPI(call)                                                                                                   \
    do {                                                                                                               \
        int cs_rc_ = (call);                                                                                           \
        if (__builtin_expect(cs_rc_ != MPI_SUCCESS, 0)) return cs_mpi_failed(cs_rc_, __FILE__, __LINE__, #call);       \
    } while (0)

#endif
