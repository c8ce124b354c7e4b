#include "metrics.h"

#include <stdlib.h>

void cs_record_compute(const cs_bench_t *b, const cs_opts_t *o, cs_measurement_t *m, cs_record_t *rec)
{
    rec->size = m->size;
    rec->window = m->window;
    rec->iterations = m->iterations;
    rec->warmup = m->warmup;
    rec->batch = m->batch;
    for (size_t i = 0; i < m->nsamples; i++) m->samples_s[i] *= 1e6;
    double *us = m->samples_s;
    cs_stats_compute(us, m->nsamples, &rec->stats); /* sorts ascending */

    double mean_us = m->mean_iteration_s * 1e6;
    if (b->metric == CS_METRIC_LATENCY) {
        rec->latency_us = mean_us;
        rec->min_latency_us = rec->stats.min;
        rec->max_latency_us = rec->stats.max;
        for (int i = 0; i < o->npercentiles; i++)
            rec->percentile_values[i] = cs_percentile_sorted(us, m->nsamples, o->percentiles[i]);
        return;
    }
    /* Bandwidth in MB/s (10^6 B/s) is bytes per microsecond. */
    double bytes = cs_bench_bytes_per_iteration(b, m->size, m->window, m->pairs);
    rec->bandwidth_MBps = mean_us > 0 ? bytes / mean_us : 0;
    rec->min_bandwidth_MBps = rec->stats.max > 0 ? bytes / rec->stats.max : 0;
    rec->max_bandwidth_MBps = rec->stats.min > 0 ? bytes / rec->stats.min : 0;
    double messages = (double)m->window * m->pairs * b->directions;
    rec->message_rate = mean_us > 0 ? messages / (mean_us * 1e-6) : 0;
    /* OMB ranks bandwidth samples ascending: a high percentile is a fast sample.
     * Ascending bandwidth is descending time, so index the sorted times from the end. */
    for (int i = 0; i < o->npercentiles; i++) {
        double t = us[m->nsamples - 1 - cs_percentile_index(m->nsamples, o->percentiles[i])];
        rec->percentile_values[i] = t > 0 ? bytes / t : 0;
    }
}
