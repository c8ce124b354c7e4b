/* MPI_Allgather: every rank's block to every rank.
 * osu_allgather, osu_iallgather and osu_allgather_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(allgather, MPI_Allgather, MPI_Iallgather, MPI_Allgather_init, CS_SEND(a), a->count, a->type,
                    a->rbuf, a->count, a->type, a->comm)
CS_COLLECTIVE_BENCHES(allgather, "Allgather", "every rank's block to every rank (MPI_Allgather)", cs_flow_allgather,
                      CS_COLL_DATA | CS_CAP_IN_PLACE)
