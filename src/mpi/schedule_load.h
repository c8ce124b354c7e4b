/* --schedule: the pair schedule of the pairs benchmark on every rank. A generated one
 * costs nothing; a FILE is read by rank 0 and parsed by every rank (like -N graph:). */
#ifndef CS_SCHEDULE_LOAD_H
#define CS_SCHEDULE_LOAD_H

#include <mpi.h>

#include "record/descriptor.h"
#include "util/schedule.h"

/* Fills s and, for a FILE, plan->scheduled_pairs. Usage errors name FILE:LINE. */
cs_status_t cs_schedule_load(MPI_Comm comm, cs_plan_t *plan, cs_schedule_t *s, char *err, size_t errlen);

#endif
