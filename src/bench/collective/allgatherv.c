/* MPI_Allgatherv: every rank's block to every rank, with per-rank counts.
 * osu_allgatherv, osu_iallgatherv and osu_allgatherv_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(allgatherv, MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init, CS_SEND(a), a->count, a->type,
                    a->rbuf, a->rcounts, a->rdispls, a->type, a->comm)
CS_COLLECTIVE_BENCHES(allgatherv, "Allgatherv",
                      "every rank's block to every rank, with per-rank counts (MPI_Allgatherv)", cs_flow_allgather,
                      CS_COLL_DATA | CS_CAP_IN_PLACE)
