/* --time-limit: the timed loops of a run share the time it may take. Each loop times one
 * warm-up iteration (the slowest rank's counts) and gets an equal share of the time left
 * (the least any rank sees) among the loops left: OMB's counts where they fit, fewer where
 * they do not, never fewer than one timed iteration. Small sizes come first and use less
 * than their share, so the large ones at the end get what was left over. MPI-free. */
#ifndef CS_BUDGET_H
#define CS_BUDGET_H

typedef struct cs_budget {
    double limit_s;  /* the time the run may take; 0: no limit */
    double start_s;  /* the clock when measuring began */
    long loops_left; /* timed loops still to run, the next one included */
} cs_budget_t;

/* The warm-up share of a loop's time, at most: the rest is timed. */
#define CS_BUDGET_WARMUP_SHARE 0.1

/* Seconds left at clock `now_s` (negative once past the limit). */
double cs_budget_left(const cs_budget_t *b, double now_s);

/* The next loop's counts, from `per_iter_s` (its first warm-up iteration, the probe, timed)
 * and `left_s`: *warmup and *iterations hold the planned counts, and get the warm-up
 * iterations still to run after the probe and the timed iterations, each at most as
 * planned, at least the probe and one timed. Counts the loop off. */
void cs_budget_fit(cs_budget_t *b, double per_iter_s, double left_s, long *warmup, long *iterations);

/* A share of the time left for a loop of its own clock (congestors alone): at most `planned_s`. */
double cs_budget_seconds(cs_budget_t *b, double left_s, double planned_s);

#endif
