/* MPI_Neighbor_allgatherv: each rank's block to its out-neighbours, with per-neighbour counts.
 * osu_neighbor_allgatherv, osu_ineighbor_allgatherv and osu_neighbor_allgatherv_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(neighbor_allgatherv, MPI_Neighbor_allgatherv, MPI_Ineighbor_allgatherv,
                    MPI_Neighbor_allgatherv_init, a->sbuf, a->count, a->type, a->rbuf, a->rcounts, a->rdispls, a->type,
                    a->comm)
CS_COLLECTIVE_BENCHES(
    neighbor_allgatherv, "Neighborhood Allgatherv",
    "each rank's block to its out-neighbours, with per-neighbour counts (MPI_Neighbor_allgatherv, -N)",
    cs_flow_neighbor_allgather, CS_CAP_DATATYPES | CS_CAP_NEIGHBOR)
