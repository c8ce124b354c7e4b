/* MPI_Reduce_scatter_block: element-wise sum of every rank's vector, an equal block to each rank.
 * osu_reduce_scatter_block, osu_ireduce_scatter_block and osu_reduce_scatter_block_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(reduce_scatter_block, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block,
                    MPI_Reduce_scatter_block_init, CS_SEND(a), a->rbuf, a->rcounts[0], a->type, a->op, a->comm)
CS_COLLECTIVE_BENCHES(reduce_scatter_block, "Reduce_scatter_block",
                      "element-wise sum of every rank's vector, an equal block to each rank (MPI_Reduce_scatter_block)",
                      cs_flow_reduce_scatter_block, CS_COLL_DATA | CS_CAP_IN_PLACE)
