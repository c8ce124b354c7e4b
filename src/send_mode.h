/* The point-to-point calls of a ping-pong, one table per --send-mode. */
#ifndef CS_SEND_MODE_H
#define CS_SEND_MODE_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "cs_status.h"
#include "opts.h"

typedef struct cs_p2p {
    MPI_Comm comm;
    MPI_Request pending; /* MPI_Rsend: the receive posted ahead of the peer's send */
    void *attached;      /* MPI_Bsend: the buffer attached to MPI */
} cs_p2p_t;

typedef struct cs_send_ops {
    /* once per run, with the largest message size */
    cs_status_t (*setup)(cs_p2p_t *p, size_t max_size);
    cs_status_t (*teardown)(cs_p2p_t *p);
    /* around every loop; begin is followed by a barrier, so a receive it posts is
     * in place before any peer sends */
    cs_status_t (*begin)(cs_p2p_t *p, void *rbuf, int n, int peer, bool initiator);
    cs_status_t (*end)(cs_p2p_t *p);
    /* rbuf is where the next incoming message of this loop will land */
    cs_status_t (*send)(cs_p2p_t *p, const void *sbuf, void *rbuf, int n, int peer);
    cs_status_t (*recv)(cs_p2p_t *p, void *rbuf, int n, int peer);
} cs_send_ops_t;

const cs_send_ops_t *cs_send_ops_for(cs_send_mode_t mode);

#endif
