#include "patterns/send_mode.h"

#include <limits.h>
#include <stdlib.h>

#include "mpi/check.h"

static cs_status_t no_setup(cs_p2p_t *p, size_t max_size)
{
    (void)max_size;
    p->pending = p->psend = p->precv = MPI_REQUEST_NULL;
    p->attached = NULL;
    return CS_OK;
}
static cs_status_t no_teardown(cs_p2p_t *p)
{
    (void)p;
    return CS_OK;
}
static cs_status_t no_begin(cs_p2p_t *p, const void *sbuf, void *rbuf, int n, int peer, bool initiator)
{
    (void)p, (void)sbuf, (void)rbuf, (void)n, (void)peer, (void)initiator;
    return CS_OK;
}
static cs_status_t no_end(cs_p2p_t *p)
{
    (void)p;
    return CS_OK;
}

/* MPI_Bsend: a ping-pong has one message in flight per rank, so room for two messages
 * (and MPI's per-message overhead) is always enough. */
static cs_status_t buffered_setup(cs_p2p_t *p, size_t max_size)
{
    no_setup(p, max_size);
    if (max_size > (size_t)(INT_MAX / 2 - MPI_BSEND_OVERHEAD)) {
        fprintf(stderr, "commscope-bench: --send-mode bsend: %zu bytes is too large to buffer\n", max_size);
        return CS_TRACE(CS_ERR_RUNTIME); /* cs_bench_plan rejects such sizes first */
    }
    int bytes = 2 * ((int)max_size + MPI_BSEND_OVERHEAD);
    p->attached = malloc((size_t)bytes);
    if (p->attached == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    CS_MPI(MPI_Buffer_attach(p->attached, bytes));
    return CS_OK;
}

static cs_status_t buffered_teardown(cs_p2p_t *p)
{
    void *buf;
    int bytes;
    CS_MPI(MPI_Buffer_detach(&buf, &bytes)); /* waits until buffered messages are out */
    free(p->attached);
    p->attached = NULL;
    return CS_OK;
}

/* MPI_Rsend (cs_p2p_send in send_mode.h): the responder's first receive is posted in
 * begin, before the barrier; the receive it posts after the last round is never matched
 * and is cancelled in end. */
static cs_status_t ready_begin(cs_p2p_t *p, const void *sbuf, void *rbuf, int n, int peer, bool initiator)
{
    (void)sbuf;
    p->pending = MPI_REQUEST_NULL;
    if (!initiator) CS_MPI(MPI_Irecv(rbuf, n, p->type, peer, CS_TAG_PING, p->comm, &p->pending));
    return CS_OK;
}

static cs_status_t ready_end(cs_p2p_t *p)
{
    if (p->pending == MPI_REQUEST_NULL) return CS_OK;
    CS_MPI(MPI_Cancel(&p->pending));
    CS_MPI(MPI_Wait(&p->pending, MPI_STATUS_IGNORE));
    return CS_OK;
}

/* Persistent requests (OMB's osu_latency_persistent): made for the loop's size, started and
 * completed once per message, freed after the loop. */
static cs_status_t persistent_begin(cs_p2p_t *p, const void *sbuf, void *rbuf, int n, int peer, bool initiator)
{
    (void)initiator;
    CS_MPI(MPI_Send_init(sbuf, n, p->type, peer, CS_TAG_PING, p->comm, &p->psend));
    CS_MPI(MPI_Recv_init(rbuf, n, p->type, peer, CS_TAG_PING, p->comm, &p->precv));
    return CS_OK;
}

static cs_status_t persistent_end(cs_p2p_t *p)
{
    if (p->psend != MPI_REQUEST_NULL) CS_MPI(MPI_Request_free(&p->psend));
    if (p->precv != MPI_REQUEST_NULL) CS_MPI(MPI_Request_free(&p->precv));
    return CS_OK;
}

/* MPI-4 partitioned requests (OMB 7.5's osu_partitioned_latency): the message in
 * p->partitions equal partitions of n / partitions elements (sizes are whole partitions). */
#ifdef CS_HAVE_PARTITIONED
static cs_status_t partitioned_begin(cs_p2p_t *p, const void *sbuf, void *rbuf, int n, int peer, bool initiator)
{
    (void)initiator;
    MPI_Count per = n / p->partitions;
    CS_MPI(MPI_Psend_init(sbuf, p->partitions, per, p->type, peer, CS_TAG_PING, p->comm, MPI_INFO_NULL, &p->psend));
    CS_MPI(MPI_Precv_init(rbuf, p->partitions, per, p->type, peer, CS_TAG_PING, p->comm, MPI_INFO_NULL, &p->precv));
    return CS_OK;
}
#else
#define partitioned_begin no_begin /* the benchmark is unavailable (its descriptor says why) */
#endif

static const cs_send_ops_t modes[] = {
    [CS_SEND_STANDARD] = {no_setup, no_teardown, no_begin, no_end},
    [CS_SEND_SYNC] = {no_setup, no_teardown, no_begin, no_end},
    [CS_SEND_BUFFERED] = {buffered_setup, buffered_teardown, no_begin, no_end},
    [CS_SEND_READY] = {no_setup, no_teardown, ready_begin, ready_end},
    [CS_SEND_IMMEDIATE] = {no_setup, no_teardown, no_begin, no_end},
    [CS_SEND_PERSISTENT] = {no_setup, no_teardown, persistent_begin, persistent_end},
    [CS_SEND_PARTITIONED] = {no_setup, no_teardown, partitioned_begin, persistent_end},
};

const cs_send_ops_t *cs_send_ops_for(cs_send_mode_t mode) { return &modes[mode]; }
