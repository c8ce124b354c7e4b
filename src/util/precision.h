/* --precision: when to stop measuring one size. MPI-free, so the rule is unit-tested
 * without mpirun; the loop (core/pattern.c) feeds it rounds and obeys its decision.
 *
 * The method (docs/precision.md): samples come in ROUNDS, blocks of batches measured back
 * to back. The reported number is OMB's mean time per operation, so the interval is the
 * batch-means confidence interval of that mean: Student's t over the means of the rounds,
 * not over single samples. Neighbouring samples are correlated (a noisy spell slows many
 * in a row), which makes an interval over samples far too narrow; means of long rounds
 * are nearly independent. The round slots are few and fixed: when they are full,
 * neighbours are merged, so rounds grow longer as a size runs on (memory stays bounded,
 * and the rounds outgrow the correlation). The decision is taken only after a whole
 * round, at least CS_PRECISION_MIN_ROUNDS rounds and --min-samples samples, so one
 * quick or slow stretch cannot end a size. */
#ifndef CS_PRECISION_H
#define CS_PRECISION_H

#include <stdbool.h>
#include <stddef.h>

/* Round slots kept; when full, neighbours merge (a power of two keeps them equal). */
#define CS_PRECISION_SLOTS      32
/* Fewer rounds than this give no interval worth trusting (t with 4 degrees of freedom
 * is 2.78; with 1 it is 12.7). */
#define CS_PRECISION_MIN_ROUNDS 5
/* How long a round of small operations lasts at first (seconds): short enough that the
 * easy sizes end within a few milliseconds, long enough to hold many batches. */
#define CS_PRECISION_ROUND_S    1e-3

#define CS_PRECISION_DEFAULT_MAX_TIME_S  2.0
#define CS_PRECISION_DEFAULT_MIN_SAMPLES 10

typedef struct cs_precision_cfg {
    double target_pct; /* half-width of the 95% interval, percent of the mean; 0: fixed counts */
    double max_time_s; /* per size, the timed rounds and the decisions between them */
    long min_samples;  /* samples (batches) before the target or the time may end a size */
} cs_precision_cfg_t;

typedef enum cs_stop {
    CS_STOP_NONE,        /* measure another round */
    CS_STOP_TARGET,      /* the interval is narrow enough */
    CS_STOP_MAX_TIME,    /* the time per size is spent */
    CS_STOP_MAX_SAMPLES, /* the sample array is full */
} cs_stop_t;

typedef struct cs_precision {
    cs_precision_cfg_t cfg;
    size_t capacity; /* samples the caller has room for */
    double slot_time[CS_PRECISION_SLOTS];
    long slot_iterations[CS_PRECISION_SLOTS];
    int width;           /* rounds per complete slot */
    int nslots, filling; /* complete slots; rounds in the slot being filled */
    long rounds, iterations;
    size_t samples;
    double time; /* seconds of all rounds, per operation summed over iterations */
} cs_precision_t;

/* cfg with the defaults for what it leaves 0 (target 0 stays 0: precision off). */
cs_precision_cfg_t cs_precision_resolve(const cs_precision_cfg_t *cfg);

void cs_precision_start(cs_precision_t *p, const cs_precision_cfg_t *cfg, size_t capacity);

/* One round: `seconds` of operations (after the pattern's divisor), `iterations`
 * operations in `samples` samples. */
void cs_precision_add_round(cs_precision_t *p, double seconds, long iterations, size_t samples);

/* Half-width of the 95% batch-means interval of the mean, percent of the mean; INFINITY
 * while fewer than two complete slots exist or the mean is not positive. */
double cs_precision_achieved_pct(const cs_precision_t *p);

/* The decision after a round. `achieved_pct`, `elapsed_s` (since the first round began)
 * and `round_s` (wall time of the last round) are the values every rank agreed on (the
 * worst rank's interval, the longest times), so every rank decides the same.
 * `next_samples` is what one more round would add. */
cs_stop_t cs_precision_decide(const cs_precision_t *p, double achieved_pct, double elapsed_s, double round_s,
                              size_t next_samples);

/* "target", "max_time", "max_samples" (the JSON's names). */
const char *cs_stop_name(cs_stop_t s);

/* Batches per round for a batch lasting `batch_s` seconds. */
long cs_precision_round_batches(double batch_s);

/* Batches per round after a round of `batches` took `round_s` seconds, so that the next
 * lasts about CS_PRECISION_ROUND_S; never fewer than `batches`, at most `most`. */
long cs_precision_rescale_round(long batches, double round_s, long most);

#endif
