/* The congestion pattern's state, shared by its two files: congestion.c (the groups, the
 * canary tests, the two phases and the records) and congestors.c (the congestors'
 * traffic, looped until the canaries are done, or for --duration alone). */
#ifndef CS_PATTERN_CONGESTION_H
#define CS_PATTERN_CONGESTION_H

#include <mpi.h>
#include <stdbool.h>

#include "core/pattern.h"
#include "util/congestion.h"

typedef struct cs_cong {
    const cs_congestion_spec_t *spec;
    bool canary;
    MPI_Comm group; /* the canaries' or the congestors' communicator */
    int grank, gsize;
    /* canary: the test being measured, its rings' neighbours, buffers */
    cs_canary_t test;
    long per_ring; /* iterations on one ring before the next */
    int left[CS_CANARY_RINGS], right[CS_CANARY_RINGS];
    char *sbuf, *rbuf;
    MPI_Request *requests;
    /* congestor: the traffic and its buffers; rank 0 of the group is the incast's target */
    cs_congestor_t congestor;
    char *csend, *crecv; /* alltoall: gsize blocks each; incast target: gsize blocks */
    MPI_Request *crequests;
    MPI_Status *cstatuses;
    MPI_Win win; /* put-incast and get-bcast: rank 0's gsize blocks */
    void *win_base;
    int win_error;     /* the MPI error class of MPI_Win_allocate on the congestors, MPI_SUCCESS if it worked */
    double duration_s; /* congestors only: this congestor's time (--duration, or its share of --time-limit) */
} cs_cong_t;

/* Congestors: buffers and the window on the group (collective over it), and their release.
 * A window the MPI library cannot open (Open MPI 4.1's osc/rdma over TCP: MPI_ERR_WIN) is
 * no error: win_error says why, and the one-sided congestors are skipped. */
cs_status_t cs_congestors_setup(cs_cong_t *s);
bool cs_congestor_one_sided(cs_congestor_t c);
void cs_congestors_teardown(cs_cong_t *s);

/* The congested phase of a congestor: one operation to load the network, the start barrier
 * (world: it releases the canaries), then operations until the canaries' done barrier
 * completes. Every congestor stops after the same operation. *ops: operations run. */
cs_status_t cs_congestors_load(cs_cong_t *s, MPI_Comm world, long *ops);

/* Bytes this congestor moves in one operation (0: the incasts' target, the broadcasts' source). */
double cs_congestor_bytes(const cs_cong_t *s);

/* Congestors only: operations for duration_s; samples get the seconds of each that
 * moved this rank's bytes (none for a rank of 0 bytes), at most cap of them. */
cs_status_t cs_congestors_alone(cs_cong_t *s, double *samples, long cap, long *nsamples, long *ops);

#endif
