/* NCCL collectives with the collective family's buffers, arguments and checks
 * (patterns/collective.h): a batch of launches on the stream, then one synchronisation.
 * Every rank times (the mean over ranks, nccl-tests' default -a 1); no barrier between
 * iterations, as nccl-tests runs its loop. */
#include "mem/gpu.h"
#include "patterns/nccl/nccl.h"

static cs_status_t setup(cs_ctx_t *c) { return cs_nccl_setup(c, cs_coll_setup); }
static cs_status_t teardown(cs_ctx_t *c) { return cs_nccl_teardown(c, cs_coll_teardown); }

static cs_status_t iterations(cs_ctx_t *c, long first, long n)
{
    const cs_nccl_t *nc = cs_nccl_of(c);
    const cs_nccl_op_t *op = c->info->bench->nccl;
    ncclDataType_t type = cs_nccl_datatype(c->dtype);
    size_t esize = cs_dtype_size(c->dtype);
    for (long i = first; i < first + n; i++) CS_NCCL(op->launch(cs_coll_place(c, i), type, esize, nc));
    return cs_gpu_stream_sync(nc->stream);
}

const cs_pattern_t cs_pattern_nccl_collective = {.name = "nccl_collective",
                                                 .time_divisor = 1.0,
                                                 .timers = CS_TIMERS_SOME,
                                                 .setup = setup,
                                                 .teardown = teardown,
                                                 .begin = cs_coll_begin,
                                                 .iterations = iterations,
                                                 .end = cs_pattern_nothing,
                                                 .fill = cs_coll_fill,
                                                 .check = cs_coll_check};
