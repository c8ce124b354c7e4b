#include "util/precision.h"

#include <math.h>
#include <string.h>

#include "util/stats.h"

cs_precision_cfg_t cs_precision_resolve(const cs_precision_cfg_t *cfg)
{
    cs_precision_cfg_t r = *cfg;
    if (r.target_pct <= 0) return (cs_precision_cfg_t){0};
    if (r.max_time_s <= 0) r.max_time_s = CS_PRECISION_DEFAULT_MAX_TIME_S;
    if (r.min_samples <= 0) r.min_samples = CS_PRECISION_DEFAULT_MIN_SAMPLES;
    return r;
}

void cs_precision_start(cs_precision_t *p, const cs_precision_cfg_t *cfg, size_t capacity)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    p->capacity = capacity;
    p->width = 1;
}

/* Neighbouring slots merge: half as many, each twice as long. */
static void merge_slots(cs_precision_t *p)
{
    for (int i = 0; i < CS_PRECISION_SLOTS / 2; i++) {
        p->slot_time[i] = p->slot_time[2 * i] + p->slot_time[2 * i + 1];
        p->slot_iterations[i] = p->slot_iterations[2 * i] + p->slot_iterations[2 * i + 1];
    }
    /* the slot being filled moves down too, empty */
    for (int i = CS_PRECISION_SLOTS / 2; i < CS_PRECISION_SLOTS; i++) p->slot_time[i] = 0, p->slot_iterations[i] = 0;
    p->nslots = CS_PRECISION_SLOTS / 2;
    p->width *= 2;
}

void cs_precision_add_round(cs_precision_t *p, double seconds, long iterations, size_t samples)
{
    p->rounds++;
    p->iterations += iterations;
    p->samples += samples;
    p->time += seconds;
    p->slot_time[p->nslots] += seconds;
    p->slot_iterations[p->nslots] += iterations;
    if (++p->filling < p->width) return;
    p->filling = 0;
    if (++p->nslots == CS_PRECISION_SLOTS) merge_slots(p);
}

double cs_precision_achieved_pct(const cs_precision_t *p)
{
    int k = p->nslots;
    if (k < 2) return INFINITY;
    double mean = 0, ss = 0;
    for (int i = 0; i < k; i++) mean += p->slot_time[i] / (double)p->slot_iterations[i];
    mean /= k;
    if (!(mean > 0)) return INFINITY;
    for (int i = 0; i < k; i++) {
        double d = p->slot_time[i] / (double)p->slot_iterations[i] - mean;
        ss += d * d;
    }
    double half = cs_t975((size_t)k - 1) * sqrt(ss / (k - 1)) / sqrt((double)k);
    return 100.0 * half / mean;
}

cs_stop_t cs_precision_decide(const cs_precision_t *p, double achieved_pct, double elapsed_s, double round_s,
                              size_t next_samples)
{
    const cs_precision_cfg_t *c = &p->cfg;
    bool enough = (long)p->samples >= c->min_samples;
    if (p->rounds >= CS_PRECISION_MIN_ROUNDS && enough && achieved_pct <= c->target_pct) return CS_STOP_TARGET;
    if (p->samples + next_samples > p->capacity) return CS_STOP_MAX_SAMPLES;
    /* --min-samples is a floor even past --max-time: a size whose operation outlasts the
     * budget (a 4 MiB window) still gets that many, as OMB's counts would give it more */
    if (!enough) return CS_STOP_NONE;
    /* the budget is a limit: stop when another round like the last would overrun it */
    if (elapsed_s >= c->max_time_s || elapsed_s + round_s > c->max_time_s) return CS_STOP_MAX_TIME;
    return CS_STOP_NONE;
}

const char *cs_stop_name(cs_stop_t s)
{
    switch (s) {
    case CS_STOP_TARGET: return "target";
    case CS_STOP_MAX_TIME: return "max_time";
    case CS_STOP_MAX_SAMPLES: return "max_samples";
    case CS_STOP_NONE: break;
    }
    return "none";
}

long cs_precision_round_batches(double batch_s)
{
    if (!(batch_s > 0)) return 1;
    double n = ceil(CS_PRECISION_ROUND_S / batch_s);
    return n < 1 ? 1 : (long)n;
}

long cs_precision_rescale_round(long batches, double round_s, long most)
{
    /* only longer: a round stretched by one descheduling says nothing about the batches,
     * and a round longer than planned costs nothing but rounds */
    double n = round_s > 0 ? ceil((double)batches * CS_PRECISION_ROUND_S / round_s) : (double)batches;
    if (n < (double)batches) n = (double)batches;
    if (n > (double)most) n = (double)most;
    return n < 1 ? 1 : (long)n;
}
