/* The timed loops. Each communication pattern is one row of function pointers; the
 * warm-up, batching, clock reads and barriers around it are written once, here. */
#ifndef CS_PATTERN_H
#define CS_PATTERN_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "cs_status.h"
#include "send_mode.h"

/* One rank's view of its pair. */
typedef struct cs_pair_ctx {
    MPI_Comm comm;
    int peer;
    bool active;    /* false for ranks outside the -p pairs: they only join barriers */
    bool initiator; /* sends first (ping-pong) or sends the data (one-way windows) */
    char **send_slots, **recv_slots; /* one per window slot; all equal with -b single */
    MPI_Request *requests;           /* room for two windows */
    char ack;
    const cs_send_ops_t *send_ops;
    cs_p2p_t p2p;
} cs_pair_ctx_t;

typedef struct cs_pattern {
    const char *name;
    /* OMB's multi-pair tests put a barrier before every iteration (outside the timing) */
    bool barrier_each_iteration;
    /* a sample of a ping-pong is a round trip; report half of it */
    double time_divisor;
    bool initiator_receives_data, responder_receives_data;
    cs_status_t (*begin)(cs_pair_ctx_t *c, size_t size);
    /* n iterations back to back: the loop lives with the operation so that nothing but
     * the MPI calls runs between two iterations */
    cs_status_t (*iterations)(cs_pair_ctx_t *c, size_t size, int window, long n);
    cs_status_t (*end)(cs_pair_ctx_t *c);
} cs_pattern_t;

extern const cs_pattern_t cs_pattern_pingpong;
extern const cs_pattern_t cs_pattern_multi_pingpong;
extern const cs_pattern_t cs_pattern_window_uni;
extern const cs_pattern_t cs_pattern_multi_window_uni;
extern const cs_pattern_t cs_pattern_window_bi;

typedef struct cs_loop {
    size_t size;
    int window;
    long iterations, warmup;
    long batch; /* 0: choose from the warm-up so one sample lasts about CS_BATCH_TARGET_S */
} cs_loop_t;

#define CS_BATCH_TARGET_S 20e-6

typedef struct cs_timing {
    size_t nsamples;
    long batch;
    double total; /* seconds for all timed iterations, after time_divisor */
} cs_timing_t;

/* Runs warm-up and timed iterations; samples (room for loop->iterations) receive seconds
 * per iteration. Every rank of the communicator must call it. */
cs_status_t cs_pattern_run(const cs_pattern_t *p, cs_pair_ctx_t *c, const cs_loop_t *loop,
                           double *samples, cs_timing_t *out);

/* One untimed iteration (validation pass), with the same begin/end. */
cs_status_t cs_pattern_once(const cs_pattern_t *p, cs_pair_ctx_t *c, size_t size, int window);

#endif
