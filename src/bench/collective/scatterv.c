/* MPI_Scatterv: a block of the root's buffer to each rank, with per-rank counts.
 * osu_scatterv, osu_iscatterv and osu_scatterv_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(scatterv, MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init, a->sbuf, a->scounts, a->sdispls, a->type,
                    CS_RECV_OR_IN_PLACE(a), a->count, a->type, a->root, a->comm)
CS_COLLECTIVE_BENCHES(scatterv, "Scatterv",
                      "a block of the root's buffer to each rank, with per-rank counts (MPI_Scatterv)", cs_flow_scatter,
                      CS_COLL_DATA | CS_CAP_ROOT | CS_CAP_IN_PLACE)
