/* MPI_Alltoallw: a block from every rank to every rank, with per-peer counts, byte displacements and types.
 * osu_alltoallw, osu_ialltoallw and osu_alltoallw_persistent. */
#include "patterns/collective.h"

CS_COLLECTIVE_CALLS(alltoallw, MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init, CS_SEND(a), a->scounts, a->sbdispls,
                    a->stypes, a->rbuf, a->rcounts, a->rbdispls, a->rtypes, a->comm)
CS_COLLECTIVE_BENCHES(
    alltoallw, "All-to-Allw Personalized Exchange",
    "a block from every rank to every rank, with per-peer counts, byte displacements and types (MPI_Alltoallw)",
    cs_flow_alltoall, CS_COLL_DATA | CS_CAP_IN_PLACE)
