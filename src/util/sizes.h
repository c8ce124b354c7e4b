/* The message-size sweep: a pure function, unit-tested. */
#ifndef CS_SIZES_H
#define CS_SIZES_H

#include <stddef.h>

/* OMB's sweep: min, then doubling (0 is followed by 1) while <= max.
 * Writes at most cap sizes into out and returns how many the sweep has in all. */
size_t cs_sizes(size_t min, size_t max, size_t *out, size_t cap);

/* -V: OMB's window sizes 1, 2, 4, ... CS_VARY_WINDOW_MAX (WINDOW_SIZES in osu_util.h),
 * CS_VARY_WINDOW_COUNT of them. */
#define CS_VARY_WINDOW_MAX   128
#define CS_VARY_WINDOW_COUNT 8

/* Window sizes for -V. Same contract as cs_sizes. */
size_t cs_vary_windows(int *out, size_t cap);

#endif
