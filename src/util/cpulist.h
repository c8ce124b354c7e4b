/* CPU sets as Linux writes them ("0-3,8,10-11"), for the provenance of rank binding.
 * MPI-free. */
#ifndef CS_CPULIST_H
#define CS_CPULIST_H

#include <stddef.h>

/* Ascending CPU numbers (n >= 0) into buf as ranges; "" for none. Returns false when buf
 * is too short (buf then ends in "..."). */
_Bool cs_cpulist_format(const int *cpus, int n, char *buf, size_t len);

#endif
