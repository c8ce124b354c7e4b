/* Collective flows, MPI-free: buffer bytes, nccl-tests' algbw/busbw per collective, the
 * reduce_scatter segments, who sends what to whom, and validation values that stay exact. */
#include <math.h>

#include "check.h"
#include "util/dtype.h"
#include "util/flow.h"

/* One row per collective (a benchmark's .flow), with what it must come to at n = 4 ranks
 * and a message size of 1000 bytes: send and receive bytes per process, algbw numerator,
 * busbw factor (nccl-tests' doc/PERFORMANCE.md). */
static const struct {
    const char *collective;
    const cs_flow_t *flow;
    size_t send, recv, algbw_bytes;
    double busbw_factor; /* NaN: not defined */
} expected[] = {
    {"barrier", &cs_flow_barrier, 0, 0, 0, NAN},
    {"bcast", &cs_flow_bcast, 1000, 1000, 1000, 1.0},
    {"gather", &cs_flow_gather, 1000, 4000, 4000, 0.75},
    {"gatherv", &cs_flow_gather, 1000, 4000, 4000, 0.75},
    {"scatter", &cs_flow_scatter, 4000, 1000, 4000, 0.75},
    {"scatterv", &cs_flow_scatter, 4000, 1000, 4000, 0.75},
    {"allgather", &cs_flow_allgather, 1000, 4000, 4000, 0.75},
    {"allgatherv", &cs_flow_allgather, 1000, 4000, 4000, 0.75},
    {"alltoall", &cs_flow_alltoall, 4000, 4000, 4000, 0.75},
    {"alltoallv", &cs_flow_alltoall, 4000, 4000, 4000, 0.75},
    {"alltoallw", &cs_flow_alltoall, 4000, 4000, 4000, 0.75},
    {"reduce", &cs_flow_reduce, 1000, 1000, 1000, 1.0},
    {"allreduce", &cs_flow_allreduce, 1000, 1000, 1000, 1.5},
    {"reduce_scatter", &cs_flow_reduce_scatter, 1000, 1000, 1000, 0.75},
    {"reduce_scatter_block", &cs_flow_reduce_scatter_block, 1000, 1000, 1000, 0.75},
};

static void check_row(size_t i)
{
    const cs_flow_t *f = expected[i].flow;
    CHECK(cs_flow_buffer_bytes(f, 1000, 4, 0, 0) == expected[i].send + expected[i].recv);
    CHECK(cs_span_blocks(f->send, 4, 0, 0) * 1000 == expected[i].send);
    CHECK(cs_span_blocks(f->recv, 4, 0, 0) * 1000 == expected[i].recv);
    double algbw, busbw;
    cs_flow_bandwidth(f, 1000, 4, 2e-6, &algbw, &busbw); /* 1000 B in 2 us */
    if (isnan(expected[i].busbw_factor)) {
        CHECK(isnan(algbw) && isnan(busbw));
        return;
    }
    CHECK_NEAR(algbw, (double)expected[i].algbw_bytes / 2e-6 / 1e9, 1e-12);
    CHECK_NEAR(busbw, algbw * expected[i].busbw_factor, 1e-12);
    CHECK_NEAR(cs_busbw_factor(f->busbw, 4), expected[i].busbw_factor, 1e-15);
}

int main(void)
{
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) check_row(i);

    /* busbw factors at other sizes of the communicator */
    CHECK_NEAR(cs_busbw_factor(CS_BUSBW_ALLREDUCE, 2), 1.0, 1e-15);
    CHECK_NEAR(cs_busbw_factor(CS_BUSBW_RING, 8), 0.875, 1e-15);
    CHECK_NEAR(cs_busbw_factor(CS_BUSBW_ONE, 64), 1.0, 1e-15);
    double a, b;
    cs_flow_bandwidth(&cs_flow_allreduce, 1 << 20, 8, 0.0, &a, &b); /* no time measured: undefined */
    CHECK(isnan(a) && isnan(b));

    /* neighbourhood: extents by degree, no nccl-tests definition */
    CHECK(cs_flow_buffer_bytes(&cs_flow_neighbor_allgather, 100, 16, 3, 5) == 100 + 300);
    CHECK(cs_flow_buffer_bytes(&cs_flow_neighbor_alltoall, 100, 16, 3, 5) == 500 + 300);
    cs_flow_bandwidth(&cs_flow_neighbor_alltoall, 100, 16, 1e-6, &a, &b);
    CHECK(isnan(a) && isnan(b));

    /* reduce_scatter: 10 elements on 4 ranks are 3, 3, 2, 2; the block form 2 each */
    size_t off, len;
    cs_flow_segment(&cs_flow_reduce_scatter, 10, 4, 0, &off, &len);
    CHECK(off == 0 && len == 3);
    cs_flow_segment(&cs_flow_reduce_scatter, 10, 4, 1, &off, &len);
    CHECK(off == 3 && len == 3);
    cs_flow_segment(&cs_flow_reduce_scatter, 10, 4, 3, &off, &len);
    CHECK(off == 8 && len == 2);
    cs_flow_segment(&cs_flow_reduce_scatter_block, 10, 4, 3, &off, &len);
    CHECK(off == 6 && len == 2);
    cs_flow_segment(&cs_flow_allreduce, 10, 4, 3, &off, &len);
    CHECK(off == 0 && len == 10);

    /* who sends and receives what */
    int dst[] = {2, 0}, src[] = {0, 2};
    cs_flow_env_t e = {
        .me = 1, .nranks = 4, .root = 2, .indegree = 2, .outdegree = 2, .sources = src, .destinations = dst};
    int s, tag;
    CHECK(cs_flow_bcast.send_blocks(&e) == 0 && cs_flow_bcast.recv_blocks(&e) == 1);
    cs_flow_bcast.recv_from(&e, 0, &s, &tag);
    CHECK(s == 2 && tag == -1);
    CHECK(cs_flow_gather.recv_blocks(&e) == 0 && cs_flow_scatter.send_blocks(&e) == 0);
    cs_flow_scatter.recv_from(&e, 0, &s, &tag);
    CHECK(s == 2 && tag == 1); /* the root's block meant for rank 1 */
    cs_flow_alltoall.recv_from(&e, 3, &s, &tag);
    CHECK(s == 3 && tag == 1 && cs_flow_alltoall.send_tag(&e, 3) == 3);
    cs_flow_neighbor_alltoall.recv_from(&e, 1, &s, &tag);
    CHECK(s == 2 && tag == 1 && cs_flow_neighbor_alltoall.send_tag(&e, 0) == 2);
    e.me = 2;
    CHECK(cs_flow_gather.recv_blocks(&e) == 4 && cs_flow_scatter.send_blocks(&e) == 4);
    CHECK(cs_flow_reduce.recv_blocks(&e) == 1 && cs_flow_bcast.send_blocks(&e) == 1);
    e.in_place = true; /* scatter in place: the root keeps its block */
    CHECK(cs_flow_scatter.recv_blocks(&e) == 0);

    /* validation data: bounded, and reductions stay exact in every type (no MPI_CHAR overflow) */
    for (cs_dtype_t t = CS_DT_CHAR; t < CS_DT_SELECTABLE; t++) {
        for (int n = 2; n <= 130; n += 64) {
            long long bound = cs_flow_bound(&cs_flow_allreduce, t, n);
            CHECK(bound * n <= cs_dtype_exact_max(t));
            char buf[64];
            for (size_t i = 0; i < 100; i++) {
                long long sum = cs_flow_sum(n, i, bound);
                CHECK(sum >= 0 && sum <= cs_dtype_exact_max(t));
                cs_dtype_store(t, buf, 0, sum);
                CHECK(cs_dtype_equals(t, buf, 0, sum));
                CHECK(!cs_dtype_equals(t, buf, 0, -1)); /* the pre-fill never passes */
            }
        }
    }
    CHECK(cs_flow_bound(&cs_flow_allreduce, CS_DT_CHAR, 4) == 31);
    CHECK(cs_flow_bound(&cs_flow_alltoall, CS_DT_CHAR, 4) == 127);
    CHECK(cs_flow_bound(&cs_flow_allreduce, CS_DT_CHAR, 200) == 0); /* more ranks than exact sums: zeros */
    /* values depend on sender, tag and element: misrouted blocks are caught */
    int differ = 0;
    for (size_t i = 0; i < 64; i++) {
        differ += cs_flow_value(1, 2, i, 127) != cs_flow_value(2, 2, i, 127);
        differ += cs_flow_value(1, 2, i, 127) != cs_flow_value(1, 3, i, 127);
        CHECK(cs_flow_value(3, -1, i, 127) >= 0 && cs_flow_value(3, -1, i, 127) <= 127);
    }
    CHECK(differ > 100);

    /* datatypes: names, option spellings, sizes */
    CHECK(strcmp(cs_dtype_name(CS_DT_DOUBLE), "MPI_DOUBLE") == 0);
    CHECK(strcmp(cs_dtype_option(CS_DT_INT), "mpi_int") == 0);
    CHECK(cs_dtype_size(CS_DT_CHAR) == 1 && cs_dtype_size(CS_DT_LONG_LONG) == 8);
    return check_report("test_flow");
}
