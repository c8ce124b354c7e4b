#include "mpi/topo_load.h"

#include <stdlib.h>
#include <string.h>

#include "mpi/bcast_file.h"
#include "mpi/check.h"

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
    char *text, flag[64];
    snprintf(flag, sizeof flag, "-N graph:%s", o->nbr_file);
    CS_CHECK(cs_bcast_file(comm, o->nbr_file, flag, &text, err, errlen));
    cs_status_t st = cs_topo_parse_graph(text, o->nbr_file, nranks, t, err, errlen);
    free(text);
    return st;
}
