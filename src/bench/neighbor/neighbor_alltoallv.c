/* MPI_Neighbor_alltoallv: a block from each rank to each out-neighbour, with per-neighbour counts.
 * osu_neighbor_alltoallv, osu_ineighbor_alltoallv and osu_neighbor_alltoallv_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(neighbor_alltoallv, MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv, MPI_Neighbor_alltoallv_init,
                    a->sbuf, a->scounts, a->sdispls, a->type, a->rbuf, a->rcounts, a->rdispls, a->type, a->comm)
CS_COLLECTIVE_BENCHES(
    neighbor_alltoallv, "Neighborhood Alltoallv",
    "a block from each rank to each out-neighbour, with per-neighbour counts (MPI_Neighbor_alltoallv, -N)",
    cs_flow_neighbor_alltoall, CS_CAP_DATATYPES | CS_CAP_NEIGHBOR)
