/* The stopping rule of --precision, fed with made-up rounds. */
#include <math.h>

#include "check.h"
#include "util/precision.h"

static const cs_precision_cfg_t CFG = {.target_pct = 1.0, .max_time_s = 2.0, .min_samples = 10};

/* Feeds rounds of `iters` operations at `per_op[i]` seconds each, 10 samples a round,
 * each round taking its own time of wall clock; returns the decision that ended it and
 * the rounds it took. */
static cs_stop_t run(const cs_precision_cfg_t *cfg, const double *per_op, int nrounds, long iters, size_t capacity,
                     long *rounds)
{
    cs_precision_t p;
    cs_precision_start(&p, cfg, capacity);
    double elapsed = 0;
    for (int i = 0; i < nrounds; i++) {
        double seconds = per_op[i] * (double)iters;
        elapsed += seconds;
        cs_precision_add_round(&p, seconds, iters, 10);
        cs_stop_t s = cs_precision_decide(&p, cs_precision_achieved_pct(&p), elapsed, seconds, 10);
        if (s != CS_STOP_NONE) {
            *rounds = p.rounds;
            return s;
        }
    }
    *rounds = p.rounds;
    return CS_STOP_NONE;
}

int main(void)
{
    enum { N = 4000 };
    static double v[N];
    long rounds;

    /* constant data converges as soon as the minimum rounds are in */
    for (int i = 0; i < N; i++) v[i] = 1e-6;
    CHECK(run(&CFG, v, N, 100, 100000, &rounds) == CS_STOP_TARGET);
    CHECK(rounds == CS_PRECISION_MIN_ROUNDS);

    /* ...but not before --min-samples samples: 10 per round, 200 wanted */
    cs_precision_cfg_t many = CFG;
    many.min_samples = 200;
    CHECK(run(&many, v, N, 100, 100000, &rounds) == CS_STOP_TARGET);
    CHECK(rounds == 20);

    /* a slow spell filling the first round: the rounds after it are steady, yet the
     * interval of the mean stays wide for long, so the size does not end early */
    v[0] = 10e-6;
    CHECK(run(&CFG, v, 40, 100, 100000, &rounds) == CS_STOP_NONE);
    CHECK(rounds == 40);

    /* mild noise (+-0.5%) converges, and the interval it reports is about right */
    for (int i = 0; i < N; i++) v[i] = 1e-6 * (1.0 + 0.005 * ((i * 7919) % 11 - 5) / 5.0);
    CHECK(run(&CFG, v, N, 100, 100000, &rounds) == CS_STOP_TARGET);
    CHECK(rounds >= CS_PRECISION_MIN_ROUNDS && rounds < 40);

    /* noise beyond the target: the time per size runs out (each round 1e-6 * 1e5 = 0.1 s
     * of a 2 s budget; stops when the next round would overrun it) */
    for (int i = 0; i < N; i++) v[i] = 1e-6 * (i % 2 ? 1.5 : 0.5);
    CHECK(run(&CFG, v, N, 100000, 1000000, &rounds) == CS_STOP_MAX_TIME);
    CHECK(rounds == 19 || rounds == 20);

    /* the sample array full before either (even before --min-samples) */
    CHECK(run(&CFG, v, N, 100, 95, &rounds) == CS_STOP_MAX_SAMPLES);
    CHECK(rounds == 9);
    cs_precision_cfg_t floor = CFG;
    floor.min_samples = 1000;
    CHECK(run(&floor, v, N, 100, 95, &rounds) == CS_STOP_MAX_SAMPLES && rounds == 9);

    /* operations slower than the budget still get --min-samples: rounds of 10 samples of
     * 0.5 s each (0.5e-6 s x 1e6), 2 s allowed, 50 samples asked */
    cs_precision_cfg_t slow = CFG;
    slow.min_samples = 50;
    CHECK(run(&slow, v, N, 1000000, 1000000, &rounds) == CS_STOP_MAX_TIME);
    CHECK(rounds == 5);

    /* achieved precision by hand: slot means 1,2,3,4,5 (mean 3, sd sqrt(2.5)), t(4) = 2.776 */
    cs_precision_t p;
    cs_precision_start(&p, &CFG, 1000);
    CHECK(isinf(cs_precision_achieved_pct(&p)));
    for (int i = 1; i <= 5; i++) cs_precision_add_round(&p, i * 10.0, 10, 1);
    CHECK_NEAR(cs_precision_achieved_pct(&p), 100 * 2.776 * sqrt(2.5) / sqrt(5.0) / 3, 1e-6);

    /* slots merge when full: memory stays bounded and means are kept */
    cs_precision_start(&p, &CFG, 100000);
    for (int i = 0; i < 100; i++) cs_precision_add_round(&p, 1.0, 1, 1);
    CHECK(p.nslots < CS_PRECISION_SLOTS && p.width == 4 && p.rounds == 100 && p.iterations == 100);
    CHECK_NEAR(cs_precision_achieved_pct(&p), 0, 1e-12);

    CHECK(cs_precision_round_batches(20e-6) == 50);
    CHECK(cs_precision_round_batches(5e-3) == 1);
    CHECK(cs_precision_rescale_round(50, 0.1e-3, 100000) == 500); /* the warm-up overestimated 10 times */
    CHECK(cs_precision_rescale_round(50, 10e-3, 100000) == 50);   /* a stretched round: never shorter */
    CHECK(cs_precision_rescale_round(50, 1e-9, 1000) == 1000);
    CHECK(cs_precision_rescale_round(1, 1.0, 1000) == 1);
    CHECK(strcmp(cs_stop_name(CS_STOP_MAX_TIME), "max_time") == 0);
    return check_report("test_precision");
}
