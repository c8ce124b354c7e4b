/* The sweep: sizes x windows, or a schedule's rounds x pair metrics, each measured by the
 * benchmark's pattern, optionally validated, turned into records and handed to the
 * reporters. */
#ifndef CS_DRIVER_H
#define CS_DRIVER_H

#include <mpi.h>

#include "mem/mem.h"
#include "report/report.h"

typedef struct cs_output {
    cs_reporter_t *reporters; /* rank 0 only; NULL elsewhere */
    int nreporters;
} cs_output_t;

/* Collective. *status tells how the run ended (complete or validation failed). */
/* Each rank's buffers are of the memory kind of its side (plan->mem). */
cs_status_t cs_driver_run(MPI_Comm comm, const cs_run_info_t *info, const cs_output_t *output, cs_run_status_t *status);

#endif
