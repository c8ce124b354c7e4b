#include "core/metrics.h"

#include <math.h>
#include <stdlib.h>

#include "core/bench.h"
#include "util/flow.h"

long cs_sample_cap(long iterations, long max_samples, int per_iteration)
{
    long cap = (max_samples > 0 ? max_samples : CS_MAX_SAMPLES) / (per_iteration > 0 ? per_iteration : 1);
    return iterations < cap ? (iterations > 0 ? iterations : 1) : (cap > 0 ? cap : 1);
}

long cs_min_batch(long iterations, long cap)
{
    if (cap < 1) cap = 1;
    return iterations > cap ? (iterations + cap - 1) / cap : 1;
}

long cs_samples_of(long iterations, long batch) { return batch < 1 ? iterations : (iterations + batch - 1) / batch; }

double cs_overlap_pct(double overall, double compute, double test, double pure_comm)
{
    if (!(pure_comm > 0)) return 0.0;
    double pct = 100.0 - (overall - (compute - test)) / pure_comm * 100.0;
    return pct > 0 ? pct : 0.0;
}

static void compute_overlap(const cs_measurement_t *m, cs_record_t *rec)
{
    const cs_overlap_t *v = &m->overlap;
    rec->overall_us = v->overall * 1e6;
    rec->compute_us = (v->compute - v->test) * 1e6; /* OMB's Compute column leaves the tests out */
    rec->init_us = v->init * 1e6;
    rec->test_us = v->test * 1e6;
    rec->wait_us = v->wait * 1e6;
    rec->pure_comm_us = m->mean_iteration_s * 1e6;
    rec->min_comm_us = m->rank_min_s * 1e6;
    rec->max_comm_us = m->rank_max_s * 1e6;
    rec->overlap_pct = cs_overlap_pct(v->overall, v->compute, v->test, m->mean_iteration_s);
}

void cs_record_compute(const cs_bench_t *b, const cs_opts_t *o, cs_measurement_t *m, cs_record_t *rec)
{
    rec->size = m->size;
    rec->window = m->window;
    rec->iterations = m->iterations;
    rec->warmup = m->warmup;
    rec->batch = m->batch;
    rec->dtype = m->dtype;
    rec->win_mode = m->win_mode;
    rec->sync_mode = m->sync_mode;
    rec->algbw_GBps = rec->busbw_GBps = NAN;
    rec->has_precision = m->has_precision;
    rec->target_pct = o->precision.target_pct;
    rec->achieved_pct = m->achieved_pct;
    rec->rounds = m->rounds;
    rec->stop = m->stop;
    for (size_t i = 0; i < m->nsamples; i++) m->samples_s[i] *= 1e6;
    double *us = m->samples_s;
    cs_stats_compute(us, m->nsamples, &rec->stats); /* sorts ascending */

    double mean_us = m->mean_iteration_s * 1e6;
    if (b->flow)
        cs_flow_bandwidth(b->flow, m->size, m->nranks, m->mean_iteration_s, &rec->algbw_GBps, &rec->busbw_GBps);
    rec->overall_us = rec->compute_us = rec->init_us = rec->test_us = rec->wait_us = 0;
    rec->pure_comm_us = rec->min_comm_us = rec->max_comm_us = rec->overlap_pct = 0;
    if (m->has_overlap) compute_overlap(m, rec);
    if (b->metric == CS_METRIC_LATENCY) {
        rec->latency_us = mean_us;
        /* collectives: OMB's Min/Max are the fastest and slowest rank's mean */
        rec->min_latency_us = m->across_ranks ? m->rank_min_s * 1e6 : rec->stats.min;
        rec->max_latency_us = m->across_ranks ? m->rank_max_s * 1e6 : rec->stats.max;
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
