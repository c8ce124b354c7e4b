#include "mpi/bcast_file.h"

#include <stdio.h>
#include <stdlib.h>

#include "mpi/check.h"

#define MAX_FILE_BYTES (64L << 20)

static char *read_file(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && *len <= MAX_FILE_BYTES &&
        fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)*len + 1)) != NULL &&
        fread(text, 1, (size_t)*len, f) == (size_t)*len) {
        text[*len] = '\0';
    } else {
        free(text);
        text = NULL;
    }
    if (f) fclose(f);
    return text;
}

cs_status_t cs_bcast_file(MPI_Comm comm, const char *path, const char *what, char **text, char *err, size_t errlen)
{
    int rank;
    CS_MPI(MPI_Comm_rank(comm, &rank));
    long len = 0;
    *text = rank == 0 ? read_file(path, &len) : NULL;
    if (rank == 0 && *text == NULL) snprintf(err, errlen, "%s: cannot read this file", what);
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
