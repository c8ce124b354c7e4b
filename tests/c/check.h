/* Minimal assertions for the MPI-free unit tests (run by ctest; no framework needed
 * on a machine that only has a compiler). Each test program returns non-zero if any
 * check failed and prints every failed check with file and line. */
#ifndef CS_TEST_CHECK_H
#define CS_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        check_count++;                                                                                                 \
        if (!(cond)) {                                                                                                 \
            check_failures++;                                                                                          \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
        }                                                                                                              \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                                          \
    do {                                                                                                               \
        double check_a_ = (a), check_b_ = (b);                                                                         \
        check_count++;                                                                                                 \
        if (!(fabs(check_a_ - check_b_) <= (tol))) {                                                                   \
            check_failures++;                                                                                          \
            fprintf(stderr, "%s:%d: %s = %.12g, expected %.12g (+-%g)\n", __FILE__, __LINE__, #a, check_a_, check_b_,  \
                    (double)(tol));                                                                                    \
        }                                                                                                              \
    } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                                               \
    do {                                                                                                               \
        check_count++;                                                                                                 \
        if (strstr((haystack), (needle)) == NULL) {                                                                    \
            check_failures++;                                                                                          \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, (haystack), (needle));      \
        }                                                                                                              \
    } while (0)

static inline int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
