/* MPI_Neighbor_alltoallw: a block from each rank to each out-neighbour, with byte displacements and types.
 * osu_neighbor_alltoallw, osu_ineighbor_alltoallw and osu_neighbor_alltoallw_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(neighbor_alltoallw, MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw, MPI_Neighbor_alltoallw_init,
                    a->sbuf, a->scounts, a->sadispls, a->stypes, a->rbuf, a->rcounts, a->radispls, a->rtypes, a->comm)
CS_COLLECTIVE_BENCHES(
    neighbor_alltoallw, "Neighborhood Alltoallw",
    "a block from each rank to each out-neighbour, with byte displacements and types (MPI_Neighbor_alltoallw, -N)",
    cs_flow_neighbor_alltoall, CS_CAP_DATATYPES | CS_CAP_NEIGHBOR)
