#include "mpi/bcast_file.h"

#include <stdio.h>
#include <stdlib.h>

#include "mpi/check.h"
#include "util/textfile.h"

#define MAX_FILE_BYTES (64L << 20)

cs_status_t cs_bcast_file(MPI_Comm comm, const char *path, const char *what, char **text, char *err, size_t errlen)
{
    int rank;
    CS_MPI(MPI_Comm_rank(comm, &rank));
    long len = 0;
    *text = NULL;
    /* whatever rank 0 finds, every rank goes on to the broadcast of the length */
    if (rank == 0 && cs_read_text_file(path, what, MAX_FILE_BYTES, text, &len, err, errlen) == CS_ERR_RUNTIME)
        snprintf(err, errlen, "%s: cannot read this file: out of memory", what);
    long shared = rank == 0 && *text == NULL ? -1 : len;
    CS_MPI(MPI_Bcast(&shared, 1, MPI_LONG, 0, comm));
    if (shared < 0) return CS_ERR_USAGE; /* rank 0 holds the reason */
    if (rank != 0 && (*text = malloc((size_t)shared + 1)) == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    if (MPI_Bcast(*text, (int)shared + 1, MPI_CHAR, 0, comm) != MPI_SUCCESS) {
        free(*text);
        *text = NULL;
        return CS_TRACE(CS_ERR_RUNTIME);
    }
    return CS_OK;
}
