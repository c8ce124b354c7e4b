/* Pure statistics over timing samples. */
#ifndef CS_STATS_H
#define CS_STATS_H

#include <stddef.h>

typedef struct cs_stats {
    size_t n;
    double min, max, mean, median;
    double p50, p90, p99;
    double stddev;              /* sample standard deviation (n - 1) */
    double ci95_low, ci95_high; /* 95% confidence interval of the mean (Student's t) */
} cs_stats_t;

/* Sorts `samples` in place (ascending) and fills st. n must be >= 1. */
void cs_stats_compute(double *samples, size_t n, cs_stats_t *st);

/* Nearest-rank percentile of ascending data, as OMB computes -z:
 * element round(n * p / 100) - 1, clamped to the data. */
double cs_percentile_sorted(const double *sorted, size_t n, double p);
size_t cs_percentile_index(size_t n, double p);

/* Two-sided 97.5% quantile of Student's t with df degrees of freedom. */
double cs_t975(size_t df);

void cs_sort_doubles(double *v, size_t n);

#endif
