#include "util/sizes.h"

#include <stdint.h>

size_t cs_sizes(size_t min, size_t max, size_t *out, size_t cap)
{
    size_t n = 0;
    if (min > max) return 0;
    for (size_t s = min;;) {
        if (n < cap) out[n] = s;
        n++;
        if (s > max / 2 && s != 0) break; /* doubling would pass max (or overflow) */
        size_t next = s == 0 ? 1 : s * 2;
        if (next > max) break;
        s = next;
    }
    return n;
}

size_t cs_vary_windows(int *out, size_t cap)
{
    size_t n = 0;
    for (int w = 1; w <= CS_VARY_WINDOW_MAX; w *= 2) {
        if (n < cap) out[n] = w;
        n++;
    }
    return n;
}
