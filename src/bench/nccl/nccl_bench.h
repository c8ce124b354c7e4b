/* What an NCCL benchmark file needs: its launch (only where NCCL is built, and not in
 * the MPI-free registry of the unit tests) and its descriptor. A benchmark is one file
 * here and one line in core/nccl.def. */
#ifndef CS_NCCL_BENCH_H
#define CS_NCCL_BENCH_H

#include "core/bench.h"
#include "util/flow.h"

#if defined(CS_HAVE_NCCL) && !defined(CS_DESCRIPTORS_ONLY)
#define CS_NCCL_CALLS 1
#include "patterns/nccl/nccl.h"
#define CS_NCCL_LAUNCH(name)                                                                                           \
    static ncclResult_t name##_launch(const cs_coll_args_t *a, ncclDataType_t type, size_t esize, const cs_nccl_t *n)
#define CS_NCCL_OP(name) (&(const cs_nccl_op_t){name##_launch})
#else
#define CS_NCCL_CALLS    0
#define CS_NCCL_OP(name) NULL
#endif

/* cs_bench_nccl_NAME: an NCCL collective with the collective family's flow (buffers,
 * validation, nccl-tests' algbw and busbw) */
#define CS_NCCL_COLLECTIVE(id, title, desc, flow_, caps_)                                                              \
    const cs_bench_t cs_bench_nccl_##id = {.name = "nccl_" #id,                                                        \
                                           .description = desc,                                                        \
                                           .osu_title = "NCCL " title " Latency Test",                                 \
                                           .osu_value_label = "Avg Latency(us)",                                       \
                                           .osu_leading_blank = true,                                                  \
                                           .pattern = CS_PATTERN_NCCL_COLLECTIVE,                                      \
                                           .metric = CS_METRIC_LATENCY,                                                \
                                           .iter_class = CS_ITERS_COLLECTIVE,                                          \
                                           .caps = CS_CAP_NCCL | CS_CAP_DATATYPES | CS_CAP_BUSBW | (caps_),            \
                                           .default_min_size = 1,                                                      \
                                           .directions = 1,                                                            \
                                           .default_max_size = CS_COLL_MAX_SIZE,                                       \
                                           .osu_layout = CS_OSU_COLLECTIVE,                                            \
                                           .flow = &flow_,                                                             \
                                           .nccl = CS_NCCL_OP(id)}

#endif
