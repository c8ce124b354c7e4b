/* What a collective benchmark file needs: the arguments one call of a collective gets,
 * its three forms (blocking, non-blocking, MPI-4 persistent) as a row of functions, and
 * the macros that turn one MPI argument list into those functions and into the three
 * benchmark descriptors. A collective is then one small file (see bench/allreduce.c) and
 * one line in benchmarks.def. */
#ifndef CS_COLLECTIVE_H
#define CS_COLLECTIVE_H

#include <stdbool.h>

#include "core/bench.h"
#include "util/flow.h"

#ifdef CS_DESCRIPTORS_ONLY
/* The MPI-free registry the unit tests link (CMake's cs_registry_pure): descriptors
 * without their MPI calls, which those tests never make. Whether persistent forms exist
 * is known only where MPI is. */
#define CS_COLLECTIVE_CALLS(name, ...)
#define CS_COLL_OPS(name)         NULL
#define CS_PERSISTENT_UNAVAILABLE NULL
#else
#include <mpi.h>

#include "core/hot.h"
#include "core/pattern.h"

/* Everything one call needs, filled by the collective pattern for each size, datatype and
 * root. Counts and displacements are in elements unless named otherwise. */
typedef struct cs_coll_args {
    MPI_Comm comm; /* the world, or the neighbourhood's distributed graph */
    const void *sbuf;
    void *rbuf;
    int count; /* elements per block (the whole vector for reductions) */
    MPI_Datatype type;
    MPI_Op op;
    int root, rank;
    bool in_place; /* this call passes MPI_IN_PLACE (-l, and the root of root-only forms) */
    const int *scounts, *sdispls, *rcounts, *rdispls; /* v-forms; rcounts: reduce_scatter's segments */
    const int *sbdispls, *rbdispls;                   /* alltoallw: byte displacements */
    const MPI_Aint *sadispls, *radispls;              /* neighbor_alltoallw */
    const MPI_Datatype *stypes, *rtypes;              /* w-forms */
} cs_coll_args_t;

typedef struct cs_coll_ops {
    int (*blocking)(const cs_coll_args_t *a);
    int (*start)(const cs_coll_args_t *a, MPI_Request *req);
    int (*init)(const cs_coll_args_t *a, MPI_Request *req); /* NULL: the library has no MPI-4 form */
} cs_coll_ops_t;

#define CS_SEND(a)             ((a)->in_place ? MPI_IN_PLACE : (a)->sbuf)
#define CS_RECV_OR_IN_PLACE(a) ((a)->in_place ? MPI_IN_PLACE : (a)->rbuf) /* scatter's root */
#define CS_BCAST_BUF(a)        ((a)->rank == (a)->root ? (void *)(a)->sbuf : (a)->rbuf)

/* MPI-4 persistent collectives exist only where CMake found them (CS_HAVE_PERSISTENT_COLL). */
#ifdef CS_HAVE_PERSISTENT_COLL
#define CS_PERSISTENT_FORM(name, call, ...)                                                                            \
    CS_HOT static int name##_init(const cs_coll_args_t *a, MPI_Request *req)                                           \
    {                                                                                                                  \
        return call(__VA_ARGS__, MPI_INFO_NULL, req);                                                                  \
    }
#define CS_PERSISTENT_PTR(name)   name##_init
#define CS_PERSISTENT_UNAVAILABLE NULL
#else
#define CS_PERSISTENT_FORM(name, call, ...)
#define CS_PERSISTENT_PTR(name) NULL
#define CS_PERSISTENT_UNAVAILABLE                                                                                      \
    "built against an MPI library without MPI-4 persistent collectives (MPI_Allreduce_init, ...)"
#endif

/* The three forms of one collective from one argument list (`a` is the cs_coll_args_t). */
#define CS_COLLECTIVE_CALLS(name, blocking_call, start_call, init_call, ...)                                           \
    CS_HOT static int name##_blocking(const cs_coll_args_t *a) { return blocking_call(__VA_ARGS__); }                  \
    CS_HOT static int name##_start(const cs_coll_args_t *a, MPI_Request *req) { return start_call(__VA_ARGS__, req); } \
    CS_PERSISTENT_FORM(name, init_call, __VA_ARGS__)                                                                   \
    static const cs_coll_ops_t name##_ops = {name##_blocking, name##_start, CS_PERSISTENT_PTR(name)};
#define CS_COLL_OPS(name) (&name##_ops)

/* The collective family's buffers, arguments and checks, shared with patterns that make
 * the same collective another way (patterns/nccl). cs_coll_place: the arguments of
 * iteration i (its root with -k rotate). */
cs_status_t cs_coll_setup(cs_ctx_t *c);
cs_status_t cs_coll_teardown(cs_ctx_t *c);
cs_status_t cs_coll_begin(cs_ctx_t *c);
cs_status_t cs_coll_fill(cs_ctx_t *c, long iteration);
cs_status_t cs_coll_check(cs_ctx_t *c, long iteration, long *wrong);
const cs_coll_args_t *cs_coll_place(cs_ctx_t *c, long i);

#endif /* CS_DESCRIPTORS_ONLY */

#define CS_COLL_DESCRIPTOR(bench_name, title, desc, pattern_, label, layout, flow_, ops_, caps_, unavailable_, env_)   \
    {                                                                                                                  \
        .name = bench_name, .description = desc, .osu_title = title, .osu_value_label = label,                         \
        .osu_leading_blank = true, .pattern = pattern_, .metric = CS_METRIC_LATENCY,                                   \
        .iter_class = CS_ITERS_COLLECTIVE, .caps = CS_CAP_COLLECTIVE | (caps_), .default_min_size = 1,                 \
        .directions = 1, .default_max_size = CS_COLL_MAX_SIZE, .osu_layout = layout, .flow = &flow_, .coll = ops_,     \
        .unavailable = unavailable_, .library_env = env_                                                               \
    }

/* cs_bench_NAME, cs_bench_iNAME and cs_bench_NAME_persistent, as OMB's osu_NAME,
 * osu_iNAME and osu_NAME_persistent. */
#define CS_COLLECTIVE_BENCHES(name, title, desc, flow_, caps_)                                                         \
    CS_COLLECTIVE_BENCHES_PERSISTENT_ENV(name, title, desc, flow_, caps_, NULL)

/* ... where the persistent form needs an environment setting (cs_bench_t.library_env). */
#define CS_COLLECTIVE_BENCHES_PERSISTENT_ENV(name, title, desc, flow_, caps_, persistent_env)                          \
    const cs_bench_t cs_bench_##name =                                                                                 \
        CS_COLL_DESCRIPTOR(#name, title " Latency Test", desc, CS_PATTERN_COLLECTIVE, "Avg Latency(us)",               \
                           CS_OSU_COLLECTIVE, flow_, CS_COLL_OPS(name), caps_, NULL, NULL);                            \
    const cs_bench_t cs_bench_i##name = CS_COLL_DESCRIPTOR(                                                            \
        "i" #name, "Non-blocking " title " Latency Test", "non-blocking form, overlap with a dummy compute: " desc,    \
        CS_PATTERN_NBC, "Overall(us)", CS_OSU_NBC, flow_, CS_COLL_OPS(name), (caps_) | CS_CAP_OVERLAP, NULL, NULL);    \
    const cs_bench_t cs_bench_##name##_persistent =                                                                    \
        CS_COLL_DESCRIPTOR(#name "_persistent", "Persistent " title " Latency Test", "MPI-4 persistent form: " desc,   \
                           CS_PATTERN_PERSISTENT, "Avg Latency(us)", CS_OSU_COLLECTIVE, flow_, CS_COLL_OPS(name),      \
                           caps_, CS_PERSISTENT_UNAVAILABLE, persistent_env);

/* Caps most collectives with data share. */
#define CS_COLL_DATA (CS_CAP_DATATYPES | CS_CAP_BUSBW)

#endif
