/* MPI_Neighbor_allgather: each rank's block to its out-neighbours.
 * osu_neighbor_allgather, osu_ineighbor_allgather and osu_neighbor_allgather_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(neighbor_allgather, MPI_Neighbor_allgather, MPI_Ineighbor_allgather, MPI_Neighbor_allgather_init,
                    a->sbuf, a->count, a->type, a->rbuf, a->count, a->type, a->comm)
CS_COLLECTIVE_BENCHES(neighbor_allgather, "Neighborhood Allgather",
                      "each rank's block to its out-neighbours (MPI_Neighbor_allgather, -N)",
                      cs_flow_neighbor_allgather, CS_CAP_DATATYPES | CS_CAP_NEIGHBOR)
