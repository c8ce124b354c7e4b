/* Collective choices: the vocabulary of the plan, patterns/collective.c, mpi/topo_load.c,
 * the options (-k, -N) and the reporters. MPI-free. */
#ifndef CS_COLL_MODES_H
#define CS_COLL_MODES_H

/* -k: a fixed root, or root i % n for iteration i (OMB's rotate) */
typedef enum cs_root_mode { CS_ROOT_FIXED, CS_ROOT_ROTATE } cs_root_mode_t;

/* -N: the neighbourhood of the neighbourhood collectives */
typedef enum cs_nbr_kind { CS_NBR_CART, CS_NBR_GRAPH } cs_nbr_kind_t;

#endif
