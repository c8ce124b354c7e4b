/* MPI_Alltoallv: a block from every rank to every rank, with per-peer counts.
 * osu_alltoallv, osu_ialltoallv and osu_alltoallv_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(alltoallv, MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init, CS_SEND(a), a->scounts, a->sdispls,
                    a->type, a->rbuf, a->rcounts, a->rdispls, a->type, a->comm)
CS_COLLECTIVE_BENCHES(alltoallv, "All-to-Allv Personalized Exchange",
                      "a block from every rank to every rank, with per-peer counts (MPI_Alltoallv)", cs_flow_alltoall,
                      CS_COLL_DATA | CS_CAP_IN_PLACE)
