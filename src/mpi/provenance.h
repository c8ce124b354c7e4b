/* Where and with what a run happened: MPI library, hosts and their ranks, CPU, time,
 * and the environment variables that change MPI's behaviour. */
#ifndef CS_PROVENANCE_H
#define CS_PROVENANCE_H

#include <mpi.h>

#include "record/record.h"

/* Collective. Fills the provenance fields of info on rank 0 (MPI fields on all ranks). */
cs_status_t cs_provenance_collect(MPI_Comm comm, char **envp, cs_run_info_t *info);
void cs_provenance_free(cs_run_info_t *info);

/* UTC, ISO 8601 with seconds: 2026-11-21T22:14:02Z */
void cs_utc_now(char *buf, size_t len);

#endif
