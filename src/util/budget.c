#include "util/budget.h"

#include <math.h>

double cs_budget_left(const cs_budget_t *b, double now_s) { return b->limit_s - (now_s - b->start_s); }

static double share(cs_budget_t *b, double left_s)
{
    long loops = b->loops_left > 0 ? b->loops_left : 1;
    if (b->loops_left > 0) b->loops_left--;
    return left_s > 0 ? left_s / (double)loops : 0;
}

void cs_budget_fit(cs_budget_t *b, double per_iter_s, double left_s, long *warmup, long *iterations)
{
    double mine = share(b, left_s);
    /* the probe was the first warm-up iteration */
    double fits = per_iter_s > 0 ? floor(mine / per_iter_s) : INFINITY; /* iterations the share holds */
    double warm = fmax(fmin((double)*warmup, floor(fits * CS_BUDGET_WARMUP_SHARE)), 1);
    *warmup = (long)warm - 1;
    double timed = fits - warm;
    if (timed < (double)*iterations) *iterations = timed >= 1 ? (long)timed : 1;
}

double cs_budget_seconds(cs_budget_t *b, double left_s, double planned_s)
{
    double mine = share(b, left_s);
    return mine < planned_s ? mine : planned_s;
}
