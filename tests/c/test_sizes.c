#include "check.h"
#include "util/sizes.h"

static void sweep_is(size_t min, size_t max, const size_t *expect, size_t n)
{
    size_t got[64];
    size_t count = cs_sizes(min, max, got, 64);
    CHECK(count == n);
    for (size_t i = 0; i < n && i < count; i++) CHECK(got[i] == expect[i]);
}

int main(void)
{
    sweep_is(0, 0, (const size_t[]){0}, 1);
    sweep_is(0, 4, (const size_t[]){0, 1, 2, 4}, 4);
    sweep_is(1, 1, (const size_t[]){1}, 1);
    sweep_is(3, 20, (const size_t[]){3, 6, 12}, 3); /* OMB doubles from MIN */
    sweep_is(5, 4, NULL, 0);
    sweep_is(4096, 6000, (const size_t[]){4096}, 1);

    size_t big[64];
    CHECK(cs_sizes(1, (size_t)1 << 22, big, 64) == 23);
    CHECK(big[22] == (size_t)1 << 22);
    CHECK(cs_sizes(0, (size_t)1 << 22, big, 64) == 24);
    /* the largest size_t max must not overflow the doubling */
    CHECK(cs_sizes((size_t)1 << 62, (size_t)-1, big, 64) == 2);
    /* a short buffer still reports the full count */
    CHECK(cs_sizes(1, 1024, big, 3) == 11);

    int w[16];
    CHECK(cs_vary_windows(w, 16) == CS_VARY_WINDOW_COUNT && CS_VARY_WINDOW_COUNT == 8);
    CHECK(w[0] == 1 && w[7] == CS_VARY_WINDOW_MAX && CS_VARY_WINDOW_MAX == 128); /* OMB's WINDOW_SIZES */
    return check_report("test_sizes");
}
