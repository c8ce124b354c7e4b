/* -N for the neighbourhood collectives: rank 0 reads the adjacency file and every rank
 * parses the same text, so a bad file is one verdict everywhere (and no hang). */
#ifndef CS_TOPO_LOAD_H
#define CS_TOPO_LOAD_H

#include <mpi.h>

#include "util/opts.h"
#include "util/topo.h"

/* Collective. CS_ERR_USAGE with the reason in err on rank 0 (and, for parse errors, on
 * every rank). */
cs_status_t cs_topo_load(MPI_Comm comm, const cs_opts_t *o, cs_topo_t *t, char *err, size_t errlen);

#endif
