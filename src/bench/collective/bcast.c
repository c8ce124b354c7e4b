/* MPI_Bcast: the root's buffer to every rank.
 * osu_bcast, osu_ibcast and osu_bcast_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(bcast, MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, CS_BCAST_BUF(a), a->count, a->type, a->root, a->comm)
CS_COLLECTIVE_BENCHES(bcast, "Broadcast", "the root's buffer to every rank (MPI_Bcast)", cs_flow_bcast,
                      CS_COLL_DATA | CS_CAP_ROOT)
