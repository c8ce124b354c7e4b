/* The congestion benchmark's groups on every rank: which node each rank is on (by
 * MPI_Get_processor_name, in order of first appearance) and the split the plan asks for
 * (util/congestion.c). Every rank reaches the same verdict, so a split that leaves a
 * group too small is one usage error. */
#ifndef CS_CONGESTION_SPLIT_H
#define CS_CONGESTION_SPLIT_H

#include <mpi.h>

#include "record/descriptor.h"

cs_status_t cs_congestion_load(MPI_Comm comm, const cs_plan_t *plan, cs_congestion_split_t *split, char *err,
                               size_t errlen);

#endif
