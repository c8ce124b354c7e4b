/* The congestion benchmark's MPI-free parts: the impact factors from hand-made samples,
 * the split into canaries and congestors, the random rings and the options' refusals. */
#include "check.h"
#include "util/congestion.h"
#include "util/opts.h"

#include <math.h>
#include <stdlib.h>

static void check_impact(void)
{
    /* latency: isolated 1..100 us (avg 50.5, p99 = the 99th smallest = 99), congested the
     * same times 3 (avg 151.5, p99 297): impact 3 on both */
    double iso[100], cong[100];
    for (int i = 0; i < 100; i++) iso[99 - i] = i + 1, cong[i] = 3.0 * (i + 1);
    cs_impact_t im;
    cs_impact_compute(iso, 100, cong, 100, false, &im);
    CHECK(im.isolated_n == 100 && im.congested_n == 100);
    CHECK_NEAR(im.isolated_avg, 50.5, 1e-12);
    CHECK_NEAR(im.isolated_p99, 99, 0);
    CHECK_NEAR(im.congested_avg, 151.5, 1e-12);
    CHECK_NEAR(im.congested_p99, 297, 0);
    CHECK_NEAR(im.impact_avg, 3, 1e-12);
    CHECK_NEAR(im.impact_p99, 3, 1e-12);

    /* a slow tail alone: the average hardly moves, the p99 shows it */
    double a[100], b[100];
    for (int i = 0; i < 100; i++) a[i] = b[i] = 10;
    b[98] = b[99] = 1000; /* two slow samples out of 100: the nearest-rank 99th is one of them */
    cs_impact_compute(a, 100, b, 100, false, &im);
    CHECK_NEAR(im.congested_avg, 29.8, 1e-12);
    CHECK_NEAR(im.impact_avg, 2.98, 1e-12);
    CHECK_NEAR(im.impact_p99, 100, 1e-12);

    /* bandwidth, MB/s: isolated 1000 everywhere, congested half of it with a 1 % slow tail
     * of 50: the p99 is the 1st percentile (the slow tail), impact = isolated / congested */
    double bi[200], bc[200];
    for (int i = 0; i < 200; i++) bi[i] = 1000, bc[i] = i < 2 ? 50 : 500;
    cs_impact_compute(bi, 200, bc, 200, true, &im);
    CHECK_NEAR(im.isolated_avg, 1000, 1e-12);
    CHECK_NEAR(im.isolated_p99, 1000, 0);
    CHECK_NEAR(im.congested_avg, (2 * 50 + 198 * 500) / 200.0, 1e-12);
    CHECK_NEAR(im.congested_p99, 50, 0);
    CHECK_NEAR(im.impact_avg, 1000 / 495.5, 1e-12);
    CHECK_NEAR(im.impact_p99, 20, 1e-12);

    /* unequal sample counts (canaries of both phases are the same ranks, but a test that
     * folded iterations into batches has fewer): each side over its own */
    double one[] = {4}, two[] = {6, 10};
    cs_impact_compute(one, 1, two, 2, false, &im);
    CHECK_NEAR(im.impact_avg, 2, 1e-12);
    CHECK_NEAR(im.impact_p99, 2.5, 1e-12);
    double avg, tail;
    cs_impact_side(NULL, 0, false, &avg, &tail);
    CHECK(isnan(avg) && isnan(tail));
}

static cs_status_t spec_of(const char *const *words, int nranks, cs_congestion_spec_t *spec, char *err, size_t len)
{
    char *argv[8] = {"commscope-bench", "congestion"};
    int argc = 2;
    for (; *words; words++) argv[argc++] = (char *)*words;
    cs_opts_t o;
    CS_CHECK(cs_opts_parse(argc, argv, NULL, &o, err, len));
    return cs_congestion_spec_parse(&o, nranks, spec, err, len);
}

static void check_spec_and_split(void)
{
    cs_congestion_spec_t spec;
    char err[512];
    const char *none[] = {NULL};
    CHECK(spec_of(none, 10, &spec, err, sizeof err) == CS_OK);
    CHECK_NEAR(spec.fraction, 0.2, 0);
    CHECK(spec.congestors == CS_CONG_DEFAULT_SET && cs_congestion_ncongestors(&spec) == 4);
    const char *all[] = {"--congestor", "all", "--canary-fraction", "50%", NULL};
    CHECK(spec_of(all, 10, &spec, err, sizeof err) == CS_OK);
    CHECK(cs_congestion_ncongestors(&spec) == 5);
    CHECK_NEAR(spec.fraction, 0.5, 0);
    const char *unknown[] = {"--congestor", "alltoall,flood", NULL};
    CHECK(spec_of(unknown, 10, &spec, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "unknown congestor");
    const char *whole[] = {"--canary-fraction", "1", NULL};
    CHECK(spec_of(whole, 10, &spec, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "leaves no congestor");
    const char *most[] = {"--canary-fraction", "0.7", NULL}; /* 3 of 4 canaries */
    CHECK(spec_of(most, 4, &spec, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "leaves 1 congestor");
    const char *bad[] = {"--canary-fraction", "-0.1", NULL};
    CHECK(spec_of(bad, 10, &spec, err, sizeof err) == CS_ERR_USAGE);
    const char *alone[] = {"--canary-fraction", "0", "--duration", "2.5s", NULL};
    CHECK(spec_of(alone, 4, &spec, err, sizeof err) == CS_OK);
    CHECK_NEAR(spec.duration_s, 2.5, 0);

    /* random: 20 % of 10 ranks is 2 canaries; of 4 ranks at least 2 */
    int node_of[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    cs_congestion_split_t split;
    CHECK(spec_of(none, 10, &spec, err, sizeof err) == CS_OK);
    CHECK(cs_congestion_split(&spec, 10, node_of, &split, err, sizeof err) == CS_OK);
    CHECK(split.ncanaries == 2 && split.ncongestors == 8 && split.nnodes == 4);
    cs_congestion_split_free(&split);
    /* by node: 25 % of 4 nodes is one node, its 3 ranks */
    const char *node[] = {"--canary-placement", "node", "--canary-fraction", "0.25", NULL};
    CHECK(spec_of(node, 12, &spec, err, sizeof err) == CS_OK);
    CHECK(cs_congestion_split(&spec, 12, node_of, &split, err, sizeof err) == CS_OK);
    CHECK(split.ncanaries == 3 && split.canary_nodes == 1);
    int first = -1, same = 1;
    for (int r = 0; r < 12; r++)
        if (split.canary[r]) {
            if (first < 0) first = node_of[r];
            same &= node_of[r] == first;
        }
    CHECK(same);
    cs_congestion_split_free(&split);
    /* by node on one node: no congestor is left */
    int one_node[4] = {0, 0, 0, 0};
    CHECK(cs_congestion_split(&spec, 4, one_node, &split, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "0 congestors on 1 node");
    /* congestors only */
    CHECK(spec_of(alone, 4, &spec, err, sizeof err) == CS_OK);
    CHECK(cs_congestion_split(&spec, 4, one_node, &split, err, sizeof err) == CS_OK);
    CHECK(split.ncanaries == 0 && split.ncongestors == 4);
    cs_congestion_split_free(&split);
}

static void check_rings(void)
{
    /* every member's neighbours are each other's: a ring through all n */
    enum { N = 7 };
    int scratch[N], left[N], right[N];
    for (int ring = 0; ring < 3; ring++) {
        for (int me = 0; me < N; me++) cs_congestion_ring(N, 42, ring, me, scratch, &left[me], &right[me]);
        for (int me = 0; me < N; me++) {
            CHECK(right[left[me]] == me);
            CHECK(left[right[me]] == me);
            CHECK(left[me] != me);
        }
        int steps = 1;
        for (int at = right[0]; at != 0; at = right[at]) steps++;
        CHECK(steps == N);
    }
}

int main(void)
{
    check_impact();
    check_spec_and_split();
    check_rings();
    return check_report("congestion");
}
