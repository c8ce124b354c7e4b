/* The point-to-point patterns' state, seen from outside p2p.c: the pairs benchmark
 * (patterns/pairs.c) runs the same ping-pong and windows with a partner its schedule
 * picks for each measurement instead of rank i + pairs. */
#ifndef CS_P2P_H
#define CS_P2P_H

#include <stdbool.h>

#include "core/pattern.h"

/* After setup: this rank's partner for the next measurements, or peer < 0 to sit them
 * out (it then only joins the barriers). The initiator sends first (ping-pong) or sends
 * the data (one-way window), and its clock makes the result. */
void cs_p2p_set_partner(cs_ctx_t *c, int peer, bool initiator);

#endif
