/* MPI_Gatherv: every rank's block to the root, with per-rank counts.
 * osu_gatherv, osu_igatherv and osu_gatherv_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(gatherv, MPI_Gatherv, MPI_Igatherv, MPI_Gatherv_init, CS_SEND(a), a->count, a->type, a->rbuf,
                    a->rcounts, a->rdispls, a->type, a->root, a->comm)
CS_COLLECTIVE_BENCHES(gatherv, "Gatherv", "every rank's block to the root, with per-rank counts (MPI_Gatherv)",
                      cs_flow_gather, CS_COLL_DATA | CS_CAP_ROOT | CS_CAP_IN_PLACE)
