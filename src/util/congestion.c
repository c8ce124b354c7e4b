#include "util/congestion.h"
#include "util/error.h"
#include "util/mask.h"
#include "util/opts.h"
#include "util/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const congestor_names[CS_NCONGESTORS] = {"alltoall", "incast", "put-incast", "bcast", "get-bcast"};
static const char *const congestor_titles[CS_NCONGESTORS] = {"Alltoall (4096 B)", "Two-sided Incast (4096 B)",
                                                             "Put Incast (4096 B)", "Two-sided Bcast (4096 B)",
                                                             "Get Bcast (4096 B)"};
static const char *const canary_names[CS_NCANARIES] = {"rr_lat", "rr_bw", "rr_bw_sync", "allreduce"};
static const char *const canary_titles[CS_NCANARIES] = {"RR Two-sided Lat (8 B)", "RR Two-sided BW (131072 B)",
                                                        "RR Two-sided BW+Sync (131072 B)", "Multiple Allreduce (8 B)"};

const char *cs_congestor_name(cs_congestor_t c) { return congestor_names[c]; }
const char *cs_congestor_title(cs_congestor_t c) { return congestor_titles[c]; }
const char *cs_canary_name(cs_canary_t t) { return canary_names[t]; }
const char *cs_canary_title(cs_canary_t t) { return canary_titles[t]; }
bool cs_canary_is_bandwidth(cs_canary_t t) { return t == CS_CANARY_RR_BW || t == CS_CANARY_RR_BW_SYNC; }
size_t cs_canary_size(cs_canary_t t) { return cs_canary_is_bandwidth(t) ? CS_CANARY_BW_SIZE : CS_CANARY_LAT_SIZE; }
double cs_canary_bytes(cs_canary_t t) { return 2.0 * CS_CANARY_BW_OUTSTANDING * (double)cs_canary_size(t); }

int cs_congestion_ncongestors(const cs_congestion_spec_t *spec)
{
    int n = 0;
    for (int c = 0; c < CS_NCONGESTORS; c++) n += (spec->congestors & CS_MASK(c)) != 0;
    return n;
}

static cs_status_t parse_congestors(const char *arg, unsigned *mask, char *err, size_t errlen)
{
    *mask = 0;
    for (const char *p = arg; *p;) {
        size_t len = strcspn(p, ",");
        int found = -1;
        if (len == 3 && strncmp(p, "all", 3) == 0) *mask |= CS_MASK(CS_NCONGESTORS) - 1, found = CS_NCONGESTORS;
        for (int c = 0; c < CS_NCONGESTORS && found < 0; c++)
            if (strlen(congestor_names[c]) == len && strncmp(p, congestor_names[c], len) == 0) found = c;
        if (found < 0)
            return cs_usage_error(err, errlen,
                                  "--congestor %s: unknown congestor; choose alltoall, incast, put-incast, bcast, "
                                  "get-bcast, all or a comma-separated list",
                                  arg);
        if (found < CS_NCONGESTORS) *mask |= CS_MASK(found);
        p += len + (p[len] == ',');
    }
    if (*mask == 0) return cs_usage_error(err, errlen, "--congestor %s: name at least one congestor", arg);
    return CS_OK;
}

/* "0.2" or "20%" */
static bool parse_fraction(const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg) return false;
    if (*end == '%') v /= 100, end++;
    *out = v;
    return *end == '\0' && v >= 0 && v <= 1;
}

static int canaries_of(double fraction, int n)
{
    if (fraction <= 0) return 0;
    int k = (int)ceil(fraction * n - 1e-9);
    return k < 2 ? 2 : k;
}

cs_status_t cs_congestion_spec_parse(const cs_opts_t *o, int nranks, cs_congestion_spec_t *spec, char *err,
                                     size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    spec->fraction = CS_CONG_DEFAULT_FRACTION;
    spec->congestors = CS_CONG_DEFAULT_SET;
    spec->duration_s = CS_CONG_DEFAULT_DURATION;
    spec->seed = 20190321ul; /* fixed: a run's split and rings can be repeated */
    const char *v = o->given_value[CS_OPT_CANARY_FRACTION];
    if (cs_opts_given(o, CS_OPT_CANARY_FRACTION) && !parse_fraction(v, &spec->fraction))
        return cs_usage_error(err, errlen, "--canary-fraction %s: give a fraction from 0 to 1 (0.2 or 20%%)", v);
    if (spec->fraction >= 1)
        return cs_usage_error(err, errlen, "--canary-fraction %s leaves no congestor: give less than 1",
                              o->given_value[CS_OPT_CANARY_FRACTION]);
    v = o->given_value[CS_OPT_CANARY_PLACEMENT];
    if (cs_opts_given(o, CS_OPT_CANARY_PLACEMENT)) {
        if (strcmp(v, "random") == 0) spec->placement = CS_PLACE_RANDOM;
        else if (strcmp(v, "node") == 0) spec->placement = CS_PLACE_NODE;
        else return cs_usage_error(err, errlen, "--canary-placement %s: choose random or node", v);
    }
    if (cs_opts_given(o, CS_OPT_CONGESTOR))
        CS_CHECK(parse_congestors(o->given_value[CS_OPT_CONGESTOR], &spec->congestors, err, errlen));
    v = o->given_value[CS_OPT_DURATION];
    if (cs_opts_given(o, CS_OPT_DURATION)) {
        char *end;
        spec->duration_s = strtod(v, &end);
        if (end == v || (*end && strcmp(end, "s") != 0) || !(spec->duration_s > 0 && spec->duration_s <= 86400))
            return cs_usage_error(err, errlen, "--duration %s: give seconds from 0 to 86400 (e.g. 10 or 2.5s)", v);
        if (spec->fraction > 0) /* with canaries the congestors run as long as the canaries measure */
            return cs_usage_error(err, errlen,
                                  "--duration %s applies to congestors alone (--canary-fraction 0); with canaries "
                                  "the congestors run while the canaries measure (-i and -x set how long)",
                                  v);
    }
    int k = canaries_of(spec->fraction, nranks);
    if (spec->placement == CS_PLACE_RANDOM && nranks - k < 2)
        return cs_usage_error(err, errlen,
                              "--canary-fraction %g makes %d of %d ranks canaries and leaves %d congestor%s: "
                              "at least 2 are needed",
                              spec->fraction, k, nranks, nranks - k, nranks - k == 1 ? "" : "s");
    return CS_OK;
}

/* A small, portable generator (xorshift64*), so every rank draws the same numbers. */
static unsigned long long next_random(unsigned long long *state)
{
    unsigned long long x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

static void shuffle(int *v, int n, unsigned long long seed)
{
    unsigned long long state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int i = 0; i < n; i++) v[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(next_random(&state) % (unsigned long long)(i + 1));
        int t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

cs_status_t cs_congestion_split(const cs_congestion_spec_t *spec, int nranks, const int *node_of,
                                cs_congestion_split_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->nranks = nranks;
    for (int r = 0; r < nranks; r++)
        if (node_of[r] + 1 > out->nnodes) out->nnodes = node_of[r] + 1;
    if (nranks < 1) return cs_usage_error(err, errlen, "congestion needs ranks");
    out->canary = calloc((size_t)nranks, sizeof *out->canary);
    int units = spec->placement == CS_PLACE_NODE ? out->nnodes : nranks;
    int *order = malloc((size_t)(unsigned)(units > 0 ? units : 1) * sizeof *order);
    if (!out->canary || !order) {
        free(order);
        cs_congestion_split_free(out);
        return CS_TRACE(CS_ERR_RUNTIME);
    }
    shuffle(order, units, spec->seed);
    int chosen = 0;
    if (spec->fraction > 0)
        chosen = spec->placement == CS_PLACE_NODE ? (int)fmax(1, ceil(spec->fraction * units - 1e-9))
                                                  : canaries_of(spec->fraction, units);
    for (int i = 0; i < chosen && i < units; i++) {
        if (spec->placement == CS_PLACE_RANDOM) out->canary[order[i]] = true;
        else
            for (int r = 0; r < nranks; r++) out->canary[r] |= node_of[r] == order[i];
    }
    free(order);
    out->canary_nodes = spec->placement == CS_PLACE_NODE ? chosen : 0;
    for (int r = 0; r < nranks; r++) out->ncanaries += out->canary[r];
    out->ncongestors = nranks - out->ncanaries;
    if (spec->fraction > 0 && (out->ncanaries < 2 || out->ncongestors < 2)) {
        int canaries = out->ncanaries, congestors = out->ncongestors, nodes = out->nnodes;
        cs_congestion_split_free(out);
        return cs_usage_error(err, errlen,
                              "--canary-fraction %g --canary-placement %s: %d canar%s and %d congestor%s on %d "
                              "node%s; both groups need at least 2 ranks",
                              spec->fraction, spec->placement == CS_PLACE_NODE ? "node" : "random", canaries,
                              canaries == 1 ? "y" : "ies", congestors, congestors == 1 ? "" : "s", nodes,
                              nodes == 1 ? "" : "s");
    }
    return CS_OK;
}

void cs_congestion_split_free(cs_congestion_split_t *s)
{
    free(s->canary);
    s->canary = NULL;
}

void cs_congestion_ring(int n, unsigned long seed, int ring, int me, int *scratch, int *left, int *right)
{
    shuffle(scratch, n, (unsigned long long)seed + 7919ull * (unsigned long long)(ring + 1));
    int at = 0;
    for (int i = 0; i < n; i++)
        if (scratch[i] == me) at = i;
    *left = scratch[(at + n - 1) % n];
    *right = scratch[(at + 1) % n];
}

void cs_impact_side(double *samples, size_t n, bool bandwidth, double *avg, double *tail)
{
    if (n == 0) {
        *avg = *tail = NAN;
        return;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += samples[i];
    *avg = sum / (double)n;
    cs_sort_doubles(samples, n);
    *tail = cs_percentile_sorted(samples, n, bandwidth ? 1 : 99);
}

void cs_impact_compute(double *isolated, size_t nisolated, double *congested, size_t ncongested, bool bandwidth,
                       cs_impact_t *out)
{
    memset(out, 0, sizeof *out);
    out->isolated_n = nisolated;
    out->congested_n = ncongested;
    cs_impact_side(isolated, nisolated, bandwidth, &out->isolated_avg, &out->isolated_p99);
    cs_impact_side(congested, ncongested, bandwidth, &out->congested_avg, &out->congested_p99);
    if (bandwidth) {
        out->impact_avg = out->isolated_avg / out->congested_avg;
        out->impact_p99 = out->isolated_p99 / out->congested_p99;
    } else {
        out->impact_avg = out->congested_avg / out->isolated_avg;
        out->impact_p99 = out->congested_p99 / out->isolated_p99;
    }
}
