#include "util/stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cs_sort_doubles(double *v, size_t n) { qsort(v, n, sizeof *v, cmp_double); }

size_t cs_percentile_index(size_t n, double p)
{
    long idx = lround((double)n * p / 100.0) - 1;
    if (idx < 0) idx = 0;
    if ((size_t)idx >= n) idx = (long)n - 1;
    return (size_t)idx;
}

double cs_percentile_sorted(const double *sorted, size_t n, double p) { return sorted[cs_percentile_index(n, p)]; }

double cs_t975(size_t df)
{
    /* Exact table for small samples, where the normal approximation is poor. */
    static const double table[] = {
        0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    };
    if (df == 0) return NAN;
    if (df < sizeof table / sizeof table[0]) return table[df];
    /* Cornish-Fisher expansion around the normal quantile; error < 1e-4 for df > 30. */
    const double z = 1.959963984540054, d = (double)df;
    const double z3 = z * z * z, z5 = z3 * z * z;
    return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d);
}

void cs_stats_compute(double *samples, size_t n, cs_stats_t *st)
{
    cs_sort_doubles(samples, n);
    st->n = n;
    st->min = samples[0];
    st->max = samples[n - 1];
    /* Two-pass mean and variance: robust for the tiny spreads of fast operations. */
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += samples[i];
    st->mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += (samples[i] - st->mean) * (samples[i] - st->mean);
    st->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    st->median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    st->p50 = cs_percentile_sorted(samples, n, 50);
    st->p90 = cs_percentile_sorted(samples, n, 90);
    st->p99 = cs_percentile_sorted(samples, n, 99);
    if (n > 1) {
        double half = cs_t975(n - 1) * st->stddev / sqrt((double)n);
        st->ci95_low = st->mean - half;
        st->ci95_high = st->mean + half;
    } else {
        st->ci95_low = st->ci95_high = st->mean;
    }
}
