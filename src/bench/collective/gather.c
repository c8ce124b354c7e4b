/* MPI_Gather: every rank's block to the root.
 * osu_gather, osu_igather and osu_gather_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(gather, MPI_Gather, MPI_Igather, MPI_Gather_init, CS_SEND(a), a->count, a->type, a->rbuf, a->count,
                    a->type, a->root, a->comm)
CS_COLLECTIVE_BENCHES(gather, "Gather", "every rank's block to the root (MPI_Gather)", cs_flow_gather,
                      CS_COLL_DATA | CS_CAP_ROOT | CS_CAP_IN_PLACE)
