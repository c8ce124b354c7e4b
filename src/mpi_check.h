/* MPI calls return codes (MPI_ERRORS_RETURN is set on the communicator); this turns a
 * failure into a traced status instead of an abort deep inside a loop. */
#ifndef CS_MPI_CHECK_H
#define CS_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

#include "cs_status.h"

#define CS_MPI(call)                                                                        \
    do {                                                                                    \
        int cs_rc_ = (call);                                                                \
        if (cs_rc_ != MPI_SUCCESS) {                                                        \
            char cs_msg_[MPI_MAX_ERROR_STRING];                                             \
            int cs_len_ = 0;                                                                \
            MPI_Error_string(cs_rc_, cs_msg_, &cs_len_);                                    \
            fprintf(stderr, "commscope-bench: %s:%d: %s failed: %s\n", __FILE__, __LINE__, \
                    #call, cs_msg_);                                                        \
            return CS_ERR_RUNTIME;                                                          \
        }                                                                                   \
    } while (0)

#endif
