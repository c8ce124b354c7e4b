#include "mpi/schedule_load.h"

#include <stdio.h>
#include <stdlib.h>

#include "mpi/bcast_file.h"
#include "mpi/check.h"

cs_status_t cs_schedule_load(MPI_Comm comm, cs_plan_t *plan, cs_schedule_t *s, char *err, size_t errlen)
{
    int nranks;
    CS_MPI(MPI_Comm_size(comm, &nranks));
    const cs_pairs_spec_t *spec = &plan->pairs_spec;
    if (spec->kind != CS_SCHED_FILE) return cs_schedule_generated(s, spec->kind, nranks, spec->root, err, errlen);
    char *text, what[512];
    snprintf(what, sizeof what, "--schedule %s", spec->file);
    CS_CHECK(cs_bcast_file(comm, spec->file, what, &text, err, errlen));
    cs_status_t st = cs_schedule_parse_file(s, text, spec->file, nranks, err, errlen);
    free(text);
    if (st == CS_OK) plan->scheduled_pairs = cs_schedule_npairs(s);
    return st;
}
