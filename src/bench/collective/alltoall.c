/* MPI_Alltoall: a block from every rank to every rank.
 * osu_alltoall, osu_ialltoall and osu_alltoall_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(alltoall, MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init, CS_SEND(a), a->count, a->type, a->rbuf,
                    a->count, a->type, a->comm)
CS_COLLECTIVE_BENCHES(alltoall, "All-to-All Personalized Exchange",
                      "a block from every rank to every rank (MPI_Alltoall)", cs_flow_alltoall,
                      CS_COLL_DATA | CS_CAP_IN_PLACE)
