/* MPI_Neighbor_alltoall: a block from each rank to each out-neighbour.
 * osu_neighbor_alltoall, osu_ineighbor_alltoall and osu_neighbor_alltoall_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(neighbor_alltoall, MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, MPI_Neighbor_alltoall_init,
                    a->sbuf, a->count, a->type, a->rbuf, a->count, a->type, a->comm)
CS_COLLECTIVE_BENCHES(neighbor_alltoall, "Neighborhood Alltoall",
                      "a block from each rank to each out-neighbour (MPI_Neighbor_alltoall, -N)",
                      cs_flow_neighbor_alltoall, CS_CAP_DATATYPES | CS_CAP_NEIGHBOR)
