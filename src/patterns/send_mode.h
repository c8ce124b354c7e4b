/* The point-to-point calls of a ping-pong per --send-mode: set-up and the calls around a
 * loop in a table, the two legs of an iteration as inline calls that the ping-pong loop
 * compiles once per mode (a leg takes about 0.1 us; a function pointer per call on the
 * way to MPI was measurable, docs/PERFORMANCE.md). */
#ifndef CS_SEND_MODE_H
#define CS_SEND_MODE_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/cs_status.h"
#include "core/hot.h"
#include "util/p2p_modes.h"

typedef struct cs_p2p {
    MPI_Comm comm;
    MPI_Datatype type;        /* -T: n counts elements of it (MPI_CHAR by default) */
    MPI_Request pending;      /* MPI_Rsend: the receive posted ahead of the peer's send */
    void *attached;           /* MPI_Bsend: the buffer attached to MPI */
    MPI_Request psend, precv; /* persistent, partitioned: the requests of this loop's two messages */
    int partitions;           /* partitioned: partitions per message */
} cs_p2p_t;

typedef struct cs_send_ops {
    /* once per run, with the largest message size */
    cs_status_t (*setup)(cs_p2p_t *p, size_t max_size);
    cs_status_t (*teardown)(cs_p2p_t *p);
    /* around every loop (p->type set); begin is followed by a barrier, so a receive it
     * posts is in place before any peer sends */
    cs_status_t (*begin)(cs_p2p_t *p, const void *sbuf, void *rbuf, int n, int peer, bool initiator);
    cs_status_t (*end)(cs_p2p_t *p);
} cs_send_ops_t;

const cs_send_ops_t *cs_send_ops_for(cs_send_mode_t mode);

#define CS_TAG_PING 1

/* Sends one message; rbuf is where the next incoming message of this loop will land.
 * MPI_Rsend is only correct when the matching receive is already posted: each rank
 * posts the receive for the message it expects next before it sends, and the peer only
 * sends that message after it has received ours (see ready_begin in send_mode.c). */
CS_INLINE int cs_p2p_send(cs_send_mode_t mode, cs_p2p_t *p, const void *sbuf, void *rbuf, int n, int peer)
{
    int rc;
    MPI_Request req;
    switch (mode) {
    case CS_SEND_SYNC: return MPI_Ssend(sbuf, n, p->type, peer, CS_TAG_PING, p->comm);
    case CS_SEND_BUFFERED: return MPI_Bsend(sbuf, n, p->type, peer, CS_TAG_PING, p->comm);
    case CS_SEND_READY:
        rc = MPI_Irecv(rbuf, n, p->type, peer, CS_TAG_PING, p->comm, &p->pending);
        return rc != MPI_SUCCESS ? rc : MPI_Rsend(sbuf, n, p->type, peer, CS_TAG_PING, p->comm);
    case CS_SEND_IMMEDIATE:
        rc = MPI_Isend(sbuf, n, p->type, peer, CS_TAG_PING, p->comm, &req);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
    case CS_SEND_PERSISTENT:
        rc = MPI_Start(&p->psend);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&p->psend, MPI_STATUS_IGNORE);
#ifdef CS_HAVE_PARTITIONED
    case CS_SEND_PARTITIONED:
        rc = MPI_Start(&p->psend);
        for (int i = 0; i < p->partitions && rc == MPI_SUCCESS; i++) rc = MPI_Pready(i, p->psend);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&p->psend, MPI_STATUS_IGNORE);
#endif
    default: return MPI_Send(sbuf, n, p->type, peer, CS_TAG_PING, p->comm);
    }
}

/* Receives one message (ready mode: completes the receive posted ahead; persistent and
 * partitioned: starts and completes the loop's receive request). */
CS_INLINE int cs_p2p_recv(cs_send_mode_t mode, cs_p2p_t *p, void *rbuf, int n, int peer)
{
    if (mode == CS_SEND_READY) return MPI_Wait(&p->pending, MPI_STATUS_IGNORE);
    if (mode == CS_SEND_PERSISTENT || mode == CS_SEND_PARTITIONED) {
        int rc = MPI_Start(&p->precv);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&p->precv, MPI_STATUS_IGNORE);
    }
    return MPI_Recv(rbuf, n, p->type, peer, CS_TAG_PING, p->comm, MPI_STATUS_IGNORE);
}

#endif
