/* How point-to-point patterns send: the vocabulary of patterns/p2p.c and send_mode.c,
 * the options (--send-mode, -b) and the reporters. MPI-free. */
#ifndef CS_P2P_MODES_H
#define CS_P2P_MODES_H

typedef enum cs_send_mode {
    CS_SEND_STANDARD,  /* MPI_Send */
    CS_SEND_SYNC,      /* MPI_Ssend */
    CS_SEND_BUFFERED,  /* MPI_Bsend */
    CS_SEND_READY,     /* MPI_Rsend */
    CS_SEND_IMMEDIATE, /* MPI_Isend + MPI_Wait */
    /* persistent requests made once per size (MPI_Send_init / MPI_Recv_init), each message
     * an MPI_Start + MPI_Wait: OMB's osu_*_persistent */
    CS_SEND_PERSISTENT,
    /* MPI-4 partitioned requests (MPI_Psend_init / MPI_Precv_init), every partition marked
     * ready with MPI_Pready: OMB 7.5's osu_partitioned_latency (not a --send-mode) */
    CS_SEND_PARTITIONED,
} cs_send_mode_t;

/* -b: one buffer for every message of a window, or one per message */
typedef enum cs_buffers { CS_BUFFERS_SINGLE, CS_BUFFERS_MULTIPLE } cs_buffers_t;

const char *cs_send_mode_name(cs_send_mode_t m); /* "send", "ssend", ..., "persistent" */

#endif
