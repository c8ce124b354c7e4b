/* Each rank says it got going, right after MPI_Init and before anything collective: a rank
 * whose MPI never started, or that hung or died at once, is the one rank 0 never hears
 * from. Point-to-point only (a collective would wait for that rank too). */
#ifndef CS_STARTED_H
#define CS_STARTED_H

#include <mpi.h>

#include "record/record.h"
#include "util/cs_status.h"

/* Rank 0 calls `each` with its own start and then with every other rank's as it arrives;
 * the other ranks send theirs and return at once. */
typedef void cs_started_each_t(void *arg, const cs_started_t *s);
cs_status_t cs_started_exchange(MPI_Comm comm, cs_started_each_t *each, void *arg);

#endif
