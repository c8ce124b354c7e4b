/* --time-limit's arithmetic (util/budget.c): each timed loop gets its share of the time left,
 * OMB's counts where they fit, fewer where they do not, never fewer than one iteration. */
#include "check.h"
#include "util/budget.h"

int main(void)
{
    /* 10 loops in 100 s: a fast loop keeps OMB's counts, and is counted off */
    cs_budget_t b = {.limit_s = 100, .start_s = 5, .loops_left = 10};
    CHECK_NEAR(cs_budget_left(&b, 25), 80, 1e-9);
    long warmup = 100, iterations = 10000;
    cs_budget_fit(&b, 1e-6, 100, &warmup, &iterations);
    CHECK(warmup == 99 && iterations == 10000 && b.loops_left == 9); /* the probe and 99 more */

    /* a slow loop: 0.1 s an iteration, a share of 90 / 9 = 10 s holds 100 of them: a tenth
     * warm-up (the probe and 9 more) and 90 timed */
    warmup = 10, iterations = 1000;
    cs_budget_fit(&b, 0.1, 90, &warmup, &iterations);
    CHECK(warmup == 9 && iterations == 90 && b.loops_left == 8);
    warmup = 100, iterations = 1000;
    b.loops_left = 1;
    cs_budget_fit(&b, 0.1, 10, &warmup, &iterations);
    CHECK(warmup == 9 && iterations == 90);

    /* slower than its share, or past the limit: the probe and one timed iteration */
    warmup = 10, iterations = 20;
    b.loops_left = 4;
    cs_budget_fit(&b, 30, 8, &warmup, &iterations);
    CHECK(warmup == 0 && iterations == 1 && b.loops_left == 3);
    warmup = 10, iterations = 20;
    cs_budget_fit(&b, 0.5, -3, &warmup, &iterations);
    CHECK(warmup == 0 && iterations == 1 && b.loops_left == 2);

    /* the last loops never divide by zero; nothing timed keeps the planned counts; a planned
     * warm-up of 0 has had its probe all the same */
    b.loops_left = 0;
    warmup = 5, iterations = 7;
    cs_budget_fit(&b, 0, 10, &warmup, &iterations);
    CHECK(warmup == 4 && iterations == 7 && b.loops_left == 0);
    warmup = 0, iterations = 7;
    cs_budget_fit(&b, 1e-6, 10, &warmup, &iterations);
    CHECK(warmup == 0 && iterations == 7);

    /* a loop with its own clock (congestors alone): its share, at most what it planned */
    cs_budget_t alone = {.limit_s = 60, .start_s = 0, .loops_left = 4};
    CHECK_NEAR(cs_budget_seconds(&alone, 60, 10), 10, 1e-9);
    CHECK_NEAR(cs_budget_seconds(&alone, 30, 10), 10, 1e-9);
    CHECK_NEAR(cs_budget_seconds(&alone, 8, 10), 4, 1e-9);
    CHECK_NEAR(cs_budget_seconds(&alone, -1, 10), 0, 1e-9);
    return check_report("test_budget");
}
