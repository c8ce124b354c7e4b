/* OMB 7.4 options that commscope accepts but does not act on for a benchmark: one note
 * each on stderr, so an OMB command line runs and says what it did not do. MPI-free. */
#ifndef CS_COMPAT_H
#define CS_COMPAT_H

#include <stdio.h>

#include "core/bench.h"
#include "util/opts.h"

/* Writes "PROG: note: ..." lines for the options typed that have no effect on b; returns
 * how many. */
int cs_compat_notes(const cs_bench_t *b, const cs_opts_t *o, const char *prog, FILE *out);

#endif
