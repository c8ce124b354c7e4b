/* MPI_Allreduce: element-wise sum of every rank's vector, to every rank.
 * osu_allreduce, osu_iallreduce and osu_allreduce_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(allreduce, MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, CS_SEND(a), a->rbuf, a->count,
                    a->type, a->op, a->comm)
CS_COLLECTIVE_BENCHES(allreduce, "Allreduce", "element-wise sum of every rank's vector, to every rank (MPI_Allreduce)",
                      cs_flow_allreduce, CS_COLL_DATA | CS_CAP_IN_PLACE)
