/* Neighbourhoods for the neighbourhood collectives (-N): a periodic Cartesian grid with a
 * radius, as OMB builds it, or an edge list read from a file. Every rank holds every
 * rank's lists, so all ranks reach the same verdict on a bad file. MPI-free. */
#ifndef CS_TOPO_H
#define CS_TOPO_H

#include <stddef.h>

#include "util/cs_status.h"

#define CS_MAX_NBR_DIMS 8

typedef struct cs_topo {
    int nranks;
    int *indegree, *outdegree;     /* per rank */
    int **sources, **destinations; /* per rank, in the order MPI receives the blocks */
    int max_indegree, max_outdegree;
    int nedges;
    int ndims, dims[CS_MAX_NBR_DIMS]; /* cart: the grid */
    int radius;
} cs_topo_t;

/* A periodic grid of `ndims` dimensions of the sizes in dims (MPI_Dims_create's), in
 * row-major rank order (MPI_Cart_create without reordering). Every rank within `radius`
 * steps along every dimension is a neighbour, in both directions; OMB's rule that the
 * radius stays below half the smallest dimension (no duplicate neighbours) holds. */
cs_status_t cs_topo_cart(int nranks, const int *dims, int ndims, int radius, cs_topo_t *t, char *err, size_t errlen);

/* An edge list: one "SRC,DST" pair of ranks per line; blank lines and lines starting
 * with '#' are skipped. Errors name "FILE:LINE: ...". */
cs_status_t cs_topo_parse_graph(const char *text, const char *file, int nranks, cs_topo_t *t, char *err, size_t errlen);

void cs_topo_free(cs_topo_t *t);

#endif
