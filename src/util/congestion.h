/* The congestion benchmark's vocabulary and arithmetic: which congestors and canary tests
 * exist, what --canary-fraction, --placement, --congestor and --duration asked for, how
 * the ranks split into canaries and congestors, each canary's random ring, and the
 * impact factor of a canary test from its isolated and congested samples. Modelled on
 * GPCNeT's network_load_test (docs/congestion.md says where it differs). MPI-free. */
#ifndef CS_CONGESTION_H
#define CS_CONGESTION_H

#include <stdbool.h>
#include <stddef.h>

#include "util/cs_status.h"

struct cs_opts; /* util/opts.h: the typed values this reads */

/* Traffic the congestor ranks loop during a canary's congested phase, on their own
 * communicator; rank 0 of it is the incast's target and the broadcasts' source. */
typedef enum cs_congestor {
    CS_CONG_ALLTOALL,   /* MPI_Alltoall of CS_CONG_MSG_SIZE per peer */
    CS_CONG_INCAST,     /* every congestor MPI_Sends CS_CONG_MSG_SIZE to rank 0 */
    CS_CONG_PUT_INCAST, /* every congestor MPI_Puts CS_CONG_MSG_SIZE into rank 0's window, flush */
    CS_CONG_BCAST,      /* rank 0 MPI_Isends CS_CONG_MSG_SIZE to every congestor */
    CS_CONG_GET_BCAST,  /* every congestor MPI_Gets CS_CONG_MSG_SIZE from rank 0's window, flush */
    CS_NCONGESTORS
} cs_congestor_t;

/* The canary tests, measured on the canaries' communicator. */
typedef enum cs_canary {
    CS_CANARY_RR_LAT,     /* random ring: 8 B to and from both neighbours, us per message */
    CS_CANARY_RR_BW,      /* random ring: 8 x 128 KiB to and from both neighbours, MB/s per rank */
    CS_CANARY_RR_BW_SYNC, /* as RR_BW with a barrier of the canaries after each exchange */
    CS_CANARY_ALLREDUCE,  /* MPI_Allreduce of one double over the canaries, us */
    CS_NCANARIES
} cs_canary_t;

typedef enum cs_placement { CS_PLACE_RANDOM, CS_PLACE_NODE } cs_placement_t;

#define CS_CONG_MIN_RANKS        4
#define CS_CONG_DEFAULT_FRACTION 0.2
#define CS_CONG_MSG_SIZE         ((size_t)4096)   /* GPCNeT: 512 doubles */
#define CS_CANARY_LAT_SIZE       ((size_t)8)      /* one double */
#define CS_CANARY_BW_SIZE        ((size_t)131072) /* GPCNeT: 16384 doubles */
#define CS_CANARY_BW_OUTSTANDING 8                /* messages in flight to each neighbour */
#define CS_CANARY_RINGS          4                /* random rings per measurement (a new one each quarter) */
#define CS_CONG_DEFAULT_DURATION 10.0             /* congestor-only: seconds per congestor */
/* GPCNeT's set, in its order: what runs without --congestor */
#define CS_CONG_DEFAULT_SET                                                                                            \
    ((1u << CS_CONG_ALLTOALL) | (1u << CS_CONG_INCAST) | (1u << CS_CONG_PUT_INCAST) | (1u << CS_CONG_GET_BCAST))

typedef struct cs_congestion_spec {
    double fraction; /* of the ranks (random) or of the nodes (node); 0: congestors only */
    cs_placement_t placement;
    unsigned congestors; /* CS_MASK of cs_congestor_t, run in enum order */
    double duration_s;   /* congestor-only: how long each congestor runs */
    unsigned long seed;  /* the split and the rings */
} cs_congestion_spec_t;

cs_status_t cs_congestion_spec_parse(const struct cs_opts *o, int nranks, cs_congestion_spec_t *spec, char *err,
                                     size_t errlen);

const char *cs_congestor_name(cs_congestor_t c);  /* "alltoall", "incast", "put-incast", ... */
const char *cs_congestor_title(cs_congestor_t c); /* "Alltoall (4096 B)" */
const char *cs_canary_name(cs_canary_t t);        /* "rr_lat", "rr_bw", "rr_bw_sync", "allreduce" */
const char *cs_canary_title(cs_canary_t t);       /* "RR Two-sided Lat (8 B)" */
bool cs_canary_is_bandwidth(cs_canary_t t);
size_t cs_canary_size(cs_canary_t t);
/* Bytes one rank sends in one iteration of a bandwidth canary (both neighbours). */
double cs_canary_bytes(cs_canary_t t);
int cs_congestion_ncongestors(const cs_congestion_spec_t *spec);

/* Which ranks are canaries. node_of[r] is rank r's node (0..nnodes-1). Random: a shuffle
 * of the ranks, the first ceil(fraction * n) (at least 2) canaries; node: whole nodes,
 * ceil(fraction * nodes) of them (at least one). Refuses a split that leaves fewer than
 * 2 canaries or 2 congestors. canary gets n flags. */
typedef struct cs_congestion_split {
    int nranks, ncanaries, ncongestors, nnodes, canary_nodes;
    bool *canary;
} cs_congestion_split_t;

cs_status_t cs_congestion_split(const cs_congestion_spec_t *spec, int nranks, const int *node_of,
                                cs_congestion_split_t *out, char *err, size_t errlen);
void cs_congestion_split_free(cs_congestion_split_t *s);

/* Ring `ring` of n members: the left and right neighbour of member `me`. scratch holds n ints. */
void cs_congestion_ring(int n, unsigned long seed, int ring, int me, int *scratch, int *left, int *right);

/* A canary test's result, from every canary rank's samples of both phases. Latency: avg
 * and the 99th percentile (nearest rank, the slow tail); bandwidth (MB/s samples): avg
 * and the 1st percentile, the slow tail GPCNeT calls "99%". The impact factor is
 * congested / isolated for a latency and isolated / congested for a bandwidth, so above
 * 1 is always worse. Sorts both arrays. */
typedef struct cs_impact {
    double isolated_avg, isolated_p99, congested_avg, congested_p99;
    double impact_avg, impact_p99;
    size_t isolated_n, congested_n;
} cs_impact_t;

void cs_impact_compute(double *isolated, size_t nisolated, double *congested, size_t ncongested, bool bandwidth,
                       cs_impact_t *out);
/* avg and slow-tail of one set of samples (sorted in place) as above. */
void cs_impact_side(double *samples, size_t n, bool bandwidth, double *avg, double *tail);

#endif
