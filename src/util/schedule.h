/* Schedules of rank pairs for link sweeps (the pairs benchmark), MPI-free.
 *
 * A schedule is a list of rounds; a round is a list of slots, each holding one pair
 * (src, dst) or nothing (the bye of an odd all-pairs). No rank is in two pairs of a
 * round, so a round's pairs can be measured at once. Generated schedules are computed
 * on the fly from (round, slot) or (round, rank) in O(1): no rank stores an n x n
 * matrix. Only a FILE schedule is held in memory (its pairs, sorted into rounds). */
#ifndef CS_SCHEDULE_H
#define CS_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/cs_status.h"

typedef enum cs_sched_kind {
    CS_SCHED_ONE_TO_ALL, /* ROOT with every other rank, one pair a round (a one-to-every-node table) */
    CS_SCHED_ALL_PAIRS,  /* every unordered pair once: the circle method, n-1 rounds (n odd: n) */
    CS_SCHED_RING,       /* rank i with i+1 (mod n): 2 rounds (n odd: 3; n = 2: one pair) */
    CS_SCHED_FILE,       /* "SRC DST" lines; rounds assigned in file order */
} cs_sched_kind_t;

typedef struct cs_sched_pair {
    int src, dst;
} cs_sched_pair_t;

typedef struct cs_schedule {
    cs_sched_kind_t kind;
    int n;    /* ranks */
    int root; /* one-to-all */
    /* FILE: the pairs sorted by round; round r is pairs[first[r] .. first[r + 1]) */
    cs_sched_pair_t *pairs;
    long npairs;
    long *first;
    long nrounds_file;
} cs_schedule_t;

/* "one-to-all[:ROOT]", "all-pairs", "ring" or a file name. Generated schedules need no
 * file; for a FILE, *file points into spec. Errors name --schedule and the value. */
cs_status_t cs_schedule_parse_spec(const char *spec, cs_sched_kind_t *kind, int *root, const char **file, char *err,
                                   size_t errlen);

/* A generated schedule over n ranks (n >= 2; one-to-all's root < n). */
cs_status_t cs_schedule_generated(cs_schedule_t *s, cs_sched_kind_t kind, int n, int root, char *err, size_t errlen);

/* A FILE schedule from its text: one "SRC DST" pair of ranks a line (blank lines and
 * '#' comments allowed, a comma may separate the two). Each pair goes into the first
 * round after the last round either rank is in, so the file's order is kept per rank.
 * Errors name FILE:LINE. */
cs_status_t cs_schedule_parse_file(cs_schedule_t *s, const char *text, const char *file, int n, char *err,
                                   size_t errlen);

void cs_schedule_free(cs_schedule_t *s);

long cs_schedule_rounds(const cs_schedule_t *s);
/* Slots of round r (all-pairs with odd n: one of them is the bye). */
long cs_schedule_slots(const cs_schedule_t *s, long round);
/* The pair in slot k of round r; false for a bye. src is the sender of one-way
 * bandwidth and the initiator of the ping-pong: the root, or the lower rank. */
bool cs_schedule_pair(const cs_schedule_t *s, long round, long slot, cs_sched_pair_t *out);
/* This rank's slot in round r and its pair, or -1 when it sits the round out. */
long cs_schedule_slot_of(const cs_schedule_t *s, long round, int rank, cs_sched_pair_t *out);
/* Pairs over all rounds (byes not counted). */
long cs_schedule_npairs(const cs_schedule_t *s);

#endif
