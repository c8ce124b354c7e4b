/* MPI_Barrier: every rank waits for every other.
 * osu_barrier, osu_ibarrier and osu_barrier_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(barrier, MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init, a->comm)
CS_COLLECTIVE_BENCHES(barrier, "Barrier", "every rank waits for every other (MPI_Barrier)", cs_flow_barrier,
                      CS_CAP_SIZELESS)
