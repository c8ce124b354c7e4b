/* MPI_Reduce: element-wise sum of every rank's vector, to the root.
 * osu_reduce, osu_ireduce and osu_reduce_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(reduce, MPI_Reduce, MPI_Ireduce, MPI_Reduce_init, CS_SEND(a), a->rbuf, a->count, a->type, a->op,
                    a->root, a->comm)
CS_COLLECTIVE_BENCHES(reduce, "Reduce", "element-wise sum of every rank's vector, to the root (MPI_Reduce)",
                      cs_flow_reduce, CS_COLL_DATA | CS_CAP_ROOT | CS_CAP_IN_PLACE)
