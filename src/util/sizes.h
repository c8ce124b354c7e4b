/* The message-size sweep: a pure function, unit-tested. */
#ifndef CS_SIZES_H
#define CS_SIZES_H

#include <stddef.h>

/* OMB's sweep: min, then doubling (0 is followed by 1) while <= max.
 * Writes at most cap sizes into out and returns how many the sweep has in all. */
size_t cs_sizes(size_t min, size_t max, size_t *out, size_t cap);

/* Window sizes for -V: 1, 2, 4, ... 128. Same contract as cs_sizes. */
size_t cs_vary_windows(int *out, size_t cap);

#endif
