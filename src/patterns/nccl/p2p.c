/* NCCL point-to-point: ping-pong and one- and two-way windows of ncclSend/ncclRecv, with
 * the point-to-point family's buffers and checks (patterns/p2p.h). A window is one NCCL
 * group; the one-way window ends with a 1-byte acknowledgement back, as the MPI one does. */
#include "mem/gpu.h"
#include "patterns/nccl/nccl.h"
#include "patterns/p2p.h"

static cs_status_t setup(cs_ctx_t *c) { return cs_nccl_setup(c, cs_pair_setup); }
static cs_status_t teardown(cs_ctx_t *c) { return cs_nccl_teardown(c, cs_pair_teardown); }

static cs_status_t pingpong_iterations(cs_ctx_t *c, long first, long n)
{
    (void)first;
    const cs_nccl_t *nc = cs_nccl_of(c);
    cs_pair_view_t v = cs_pair_view(c);
    for (long i = 0; i < n; i++) {
        if (v.initiator) {
            CS_NCCL(ncclSend(v.send_slots[0], c->size, ncclInt8, v.peer, nc->comm, nc->stream));
            CS_NCCL(ncclRecv(v.recv_slots[0], c->size, ncclInt8, v.peer, nc->comm, nc->stream));
        } else {
            CS_NCCL(ncclRecv(v.recv_slots[0], c->size, ncclInt8, v.peer, nc->comm, nc->stream));
            CS_NCCL(ncclSend(v.send_slots[0], c->size, ncclInt8, v.peer, nc->comm, nc->stream));
        }
    }
    return cs_gpu_stream_sync(nc->stream);
}

static cs_status_t window_iterations(cs_ctx_t *c, bool both_ways, long n)
{
    const cs_nccl_t *nc = cs_nccl_of(c);
    cs_pair_view_t v = cs_pair_view(c);
    for (long i = 0; i < n; i++) {
        CS_NCCL(ncclGroupStart());
        for (int w = 0; w < c->window; w++) {
            if (both_ways || !v.initiator)
                CS_NCCL(ncclRecv(v.recv_slots[w], c->size, ncclInt8, v.peer, nc->comm, nc->stream));
            if (both_ways || v.initiator)
                CS_NCCL(ncclSend(v.send_slots[w], c->size, ncclInt8, v.peer, nc->comm, nc->stream));
        }
        CS_NCCL(ncclGroupEnd());
        if (both_ways) continue;
        /* the acknowledgement: a byte of the receiver's send buffer into the sender's */
        if (v.initiator) CS_NCCL(ncclRecv(v.recv_slots[0], 1, ncclInt8, v.peer, nc->comm, nc->stream));
        else CS_NCCL(ncclSend(v.send_slots[0], 1, ncclInt8, v.peer, nc->comm, nc->stream));
    }
    return cs_gpu_stream_sync(nc->stream);
}

static cs_status_t uni_iterations(cs_ctx_t *c, long first, long n)
{
    (void)first;
    return window_iterations(c, false, n);
}

static cs_status_t bi_iterations(cs_ctx_t *c, long first, long n)
{
    (void)first;
    return window_iterations(c, true, n);
}

#define NCCL_PAIR(name_, divisor, iter_, check_)                                                                       \
    {                                                                                                                  \
        .name = name_, .time_divisor = divisor, .timers = CS_TIMERS_SOME, .setup = setup, .teardown = teardown,        \
        .begin = cs_pattern_nothing, .iterations = iter_, .end = cs_pattern_nothing, .fill = cs_pair_fill,             \
        .check = check_                                                                                                \
    }

const cs_pattern_t cs_pattern_nccl_pingpong = NCCL_PAIR("nccl_pingpong", 2.0, pingpong_iterations, cs_pair_check_both);
const cs_pattern_t cs_pattern_nccl_window_uni =
    NCCL_PAIR("nccl_window_uni", 1.0, uni_iterations, cs_pair_check_responder);
const cs_pattern_t cs_pattern_nccl_window_bi = NCCL_PAIR("nccl_window_bi", 1.0, bi_iterations, cs_pair_check_both);
