/* MPI_Scatter: a block of the root's buffer to each rank.
 * osu_scatter, osu_iscatter and osu_scatter_persistent. */
#include "patterns/collective.h"

/* MPICH up to 4.x runs a persistent scatter on more than two ranks with the binomial
 * schedule of MPI_Iscatter, whose state is not set up again on the second MPI_Start
 * (pmodels/mpich#7550): MPI_Wait fails with "Invalid communicator". The tree algorithm
 * has no such state. */
static const cs_env_setting_t mpich_scatter_tree = {"MPIR_CVAR_ISCATTER_INTRA_ALGORITHM", "tsp_tree"};

CS_COLLECTIVE_CALLS(scatter, MPI_Scatter, MPI_Iscatter, MPI_Scatter_init, a->sbuf, a->count, a->type,
                    CS_RECV_OR_IN_PLACE(a), a->count, a->type, a->root, a->comm)
CS_COLLECTIVE_BENCHES_PERSISTENT_ENV(scatter, "Scatter", "a block of the root's buffer to each rank (MPI_Scatter)",
                                     cs_flow_scatter, CS_COLL_DATA | CS_CAP_ROOT | CS_CAP_IN_PLACE, &mpich_scatter_tree)
