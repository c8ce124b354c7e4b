#include "mpi/topo_load.h"

#include <stdlib.h>
#include <string.h>

#include "mpi/check.h"

#define MAX_FILE_BYTES (64L << 20)

/* Rank 0 reads the file; *text is NULL-terminated, or NULL with the reason in err. */
static char *read_file(const char *path, long *len, char *err, size_t errlen)
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
        snprintf(err, errlen, "-N graph:%s: cannot read this file", path);
    }
    if (f) fclose(f);
    return text;
}

cs_status_t cs_topo_load(MPI_Comm comm, const cs_opts_t *o, cs_topo_t *t, char *err, size_t errlen)
{
    int rank, nranks;
    CS_MPI(MPI_Comm_rank(comm, &rank));
    CS_MPI(MPI_Comm_size(comm, &nranks));
    if (o->nbr_kind == CS_NBR_CART) {
        int dims[CS_MAX_NBR_DIMS] = {0};
        CS_MPI(MPI_Dims_create(nranks, o->nbr_dims, dims)); /* the same on every rank */
        return cs_topo_cart(nranks, dims, o->nbr_dims, o->nbr_radius, t, err, errlen);
    }
    long len = 0;
    char *text = rank == 0 ? read_file(o->nbr_file, &len, err, errlen) : NULL;
    long shared = rank == 0 && text == NULL ? -1 : len;
    CS_MPI(MPI_Bcast(&shared, 1, MPI_LONG, 0, comm));
    if (shared < 0) return CS_ERR_USAGE; /* rank 0 holds the reason */
    if (rank != 0 && (text = malloc((size_t)shared + 1)) == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    int rc = MPI_Bcast(text, (int)shared + 1, MPI_CHAR, 0, comm);
    cs_status_t st =
        rc == MPI_SUCCESS ? cs_topo_parse_graph(text, o->nbr_file, nranks, t, err, errlen) : CS_TRACE(CS_ERR_RUNTIME);
    free(text);
    return st;
}
