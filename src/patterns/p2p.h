/* The point-to-point family's state seen from outside p2p.c: its buffers, validation data
 * and checks, shared with patterns that move the same messages another way
 * (patterns/nccl). */
#ifndef CS_P2P_H
#define CS_P2P_H

#include <stdbool.h>

#include "core/pattern.h"

typedef struct cs_pair_view {
    int peer;
    bool initiator;          /* sends first (ping-pong) or sends the data (windows) */
    char *const *send_slots; /* one per window slot */
    char *const *recv_slots;
} cs_pair_view_t;

cs_status_t cs_pair_setup(cs_ctx_t *c);
cs_status_t cs_pair_teardown(cs_ctx_t *c);
cs_status_t cs_pair_fill(cs_ctx_t *c, long iteration);
cs_status_t cs_pair_check_both(cs_ctx_t *c, long iteration, long *wrong);      /* both sides receive */
cs_status_t cs_pair_check_responder(cs_ctx_t *c, long iteration, long *wrong); /* one-way windows */
cs_pair_view_t cs_pair_view(const cs_ctx_t *c);

#endif
