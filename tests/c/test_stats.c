#include "check.h"
#include "util/stats.h"

int main(void)
{
    /* 1..10 shuffled: hand-computed mean 5.5, sd sqrt(82.5/9), nearest-rank percentiles */
    double s[] = {7, 3, 10, 1, 9, 2, 8, 6, 4, 5};
    cs_stats_t st;
    cs_stats_compute(s, 10, &st);
    CHECK(st.n == 10);
    CHECK_NEAR(st.min, 1, 0);
    CHECK_NEAR(st.max, 10, 0);
    CHECK_NEAR(st.mean, 5.5, 1e-12);
    CHECK_NEAR(st.median, 5.5, 1e-12);
    CHECK_NEAR(st.stddev, 3.0276503540974917, 1e-12);
    CHECK_NEAR(st.p50, 5, 0);  /* index round(5) - 1 = 4 */
    CHECK_NEAR(st.p90, 9, 0);  /* index round(9) - 1 = 8 */
    CHECK_NEAR(st.p99, 10, 0); /* index round(9.9) - 1 = 9 */
    /* t(0.975, 9) = 2.262: half width 2.262 * 3.02765 / sqrt(10) = 2.165700 */
    CHECK_NEAR(st.ci95_low, 5.5 - 2.165700, 1e-5);
    CHECK_NEAR(st.ci95_high, 5.5 + 2.165700, 1e-5);
    CHECK(s[0] == 1 && s[9] == 10); /* sorted in place */

    double odd[] = {4, 1, 3};
    cs_stats_compute(odd, 3, &st);
    CHECK_NEAR(st.median, 3, 0);
    CHECK_NEAR(st.mean, 8.0 / 3, 1e-12);

    double one[] = {2.5};
    cs_stats_compute(one, 1, &st);
    CHECK_NEAR(st.stddev, 0, 0);
    CHECK_NEAR(st.ci95_low, 2.5, 0);
    CHECK_NEAR(st.ci95_high, 2.5, 0);
    CHECK_NEAR(st.p99, 2.5, 0);

    /* Student's t: table and the large-sample expansion (reference values from tables) */
    CHECK_NEAR(cs_t975(1), 12.706, 1e-3);
    CHECK_NEAR(cs_t975(30), 2.042, 1e-3);
    CHECK_NEAR(cs_t975(60), 2.0003, 1e-3);
    CHECK_NEAR(cs_t975(120), 1.9799, 1e-3);
    CHECK_NEAR(cs_t975(100000), 1.95996, 1e-4);

    double pct[] = {10, 20, 30, 40};
    CHECK(cs_percentile_index(4, 1) == 0);  /* clamps below */
    CHECK(cs_percentile_index(4, 99) == 3); /* round(3.96) - 1 */
    CHECK_NEAR(cs_percentile_sorted(pct, 4, 50), 20, 0);
    return check_report("test_stats");
}
