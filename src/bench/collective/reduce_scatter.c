/* MPI_Reduce_scatter: element-wise sum of every rank's vector, one segment to each rank.
 * osu_reduce_scatter, osu_ireduce_scatter and osu_reduce_scatter_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(reduce_scatter, MPI_Reduce_scatter, MPI_Ireduce_scatter, MPI_Reduce_scatter_init, CS_SEND(a),
                    a->rbuf, a->rcounts, a->type, a->op, a->comm)
CS_COLLECTIVE_BENCHES(reduce_scatter, "Reduce_scatter",
                      "element-wise sum of every rank's vector, one segment to each rank (MPI_Reduce_scatter)",
                      cs_flow_reduce_scatter, CS_COLL_DATA | CS_CAP_IN_PLACE)
