/* MPI_Scatter: a block of the root's buffer to each rank.
 * osu_scatter, osu_iscatter and osu_scatter_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(scatter, MPI_Scatter, MPI_Iscatter, MPI_Scatter_init, a->sbuf, a->count, a->type,
                    CS_RECV_OR_IN_PLACE(a), a->count, a->type, a->root, a->comm)
CS_COLLECTIVE_BENCHES(scatter, "Scatter", "a block of the root's buffer to each rank (MPI_Scatter)", cs_flow_scatter,
                      CS_COLL_DATA | CS_CAP_ROOT | CS_CAP_IN_PLACE)
