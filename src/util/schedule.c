#include "util/schedule.h"
#include "util/error.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static bool parse_int(const char *s, const char **end, int *out)
{
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (e == s || errno || v < 0 || v > INT_MAX) return false;
    *out = (int)v;
    *end = e;
    return true;
}

cs_status_t cs_schedule_parse_spec(const char *spec, cs_sched_kind_t *kind, int *root, const char **file, char *err,
                                   size_t errlen)
{
    static const char one_to_all[] = "one-to-all";
    *root = 0;
    *file = NULL;
    if (strcmp(spec, "all-pairs") == 0) *kind = CS_SCHED_ALL_PAIRS;
    else if (strcmp(spec, "ring") == 0) *kind = CS_SCHED_RING;
    else if (strncmp(spec, one_to_all, sizeof one_to_all - 1) == 0 &&
             (spec[sizeof one_to_all - 1] == '\0' || spec[sizeof one_to_all - 1] == ':')) {
        *kind = CS_SCHED_ONE_TO_ALL;
        const char *rest = spec + sizeof one_to_all - 1, *end;
        if (*rest == ':' && !(parse_int(rest + 1, &end, root) && *end == '\0'))
            return cs_usage_error(err, errlen, "--schedule %s: ROOT must be a rank number (one-to-all:ROOT)", spec);
    } else if (spec[0] == '\0') {
        return cs_usage_error(err, errlen, "--schedule: give one-to-all[:ROOT], all-pairs, ring or a FILE");
    } else {
        *kind = CS_SCHED_FILE;
        *file = spec;
    }
    return CS_OK;
}

cs_status_t cs_schedule_generated(cs_schedule_t *s, cs_sched_kind_t kind, int n, int root, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->n = n;
    s->root = root;
    if (n < 2) return cs_usage_error(err, errlen, "a pair schedule needs at least 2 ranks, got %d", n);
    if (kind == CS_SCHED_ONE_TO_ALL && root >= n)
        return cs_usage_error(err, errlen, "--schedule one-to-all:%d: root %d is outside the %d ranks", root, root, n);
    return CS_OK;
}

void cs_schedule_free(cs_schedule_t *s)
{
    free(s->pairs);
    free(s->first);
    memset(s, 0, sizeof *s);
}

/* ---- FILE ---- */

static cs_status_t parse_pair_line(const char *line, size_t len, int n, const char *file, long lineno,
                                   cs_sched_pair_t *p, bool *blank, char *err, size_t errlen)
{
    char buf[256];
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    char *hash = strchr(buf, '#');
    if (hash) *hash = '\0';
    const char *c = buf, *end;
    while (isspace((unsigned char)*c)) c++;
    *blank = *c == '\0';
    if (*blank) return CS_OK;
    if (!parse_int(c, &end, &p->src)) goto bad;
    c = end;
    while (isspace((unsigned char)*c) || *c == ',') c++;
    if (!parse_int(c, &end, &p->dst)) goto bad;
    for (c = end; isspace((unsigned char)*c); c++) {}
    if (*c != '\0') goto bad;
    if (p->src >= n || p->dst >= n)
        return cs_usage_error(err, errlen, "%s:%ld: rank %d is outside the %d ranks of this run", file, lineno,
                              p->src >= n ? p->src : p->dst, n);
    if (p->src == p->dst)
        return cs_usage_error(err, errlen, "%s:%ld: a pair needs two different ranks, got %d twice", file, lineno,
                              p->src);
    return CS_OK;
bad:;
    char shown[4 * sizeof buf];
    cs_escape(buf, shown, sizeof shown);
    return cs_usage_error(err, errlen, "%s:%ld: expected two rank numbers \"SRC DST\", got \"%s\"", file, lineno,
                          shown);
}

cs_status_t cs_schedule_parse_file(cs_schedule_t *s, const char *text, const char *file, int n, char *err,
                                   size_t errlen)
{
    CS_CHECK(cs_schedule_generated(s, CS_SCHED_FILE, n, 0, err, errlen));
    long cap = 0, lineno = 0;
    cs_sched_pair_t *raw = NULL;
    long *round_of = NULL, *next_free = calloc((size_t)n, sizeof *next_free);
    cs_status_t st = next_free ? CS_OK : CS_TRACE(CS_ERR_RUNTIME);
    for (const char *line = text; st == CS_OK && *line;) {
        size_t len = strcspn(line, "\n");
        lineno++;
        cs_sched_pair_t p;
        bool blank;
        st = parse_pair_line(line, len, n, file, lineno, &p, &blank, err, errlen);
        line += len + (line[len] == '\n');
        if (st != CS_OK || blank) continue;
        if (s->npairs == cap) {
            cap = cap ? 2 * cap : 64;
            cs_sched_pair_t *grown = realloc(raw, (size_t)cap * sizeof *raw);
            long *grown_rounds = realloc(round_of, (size_t)cap * sizeof *round_of);
            if (grown) raw = grown;
            if (grown_rounds) round_of = grown_rounds;
            if (!grown || !grown_rounds) {
                st = CS_TRACE(CS_ERR_RUNTIME);
                break;
            }
        }
        long r = next_free[p.src] > next_free[p.dst] ? next_free[p.src] : next_free[p.dst];
        next_free[p.src] = next_free[p.dst] = r + 1;
        raw[s->npairs] = p;
        round_of[s->npairs++] = r;
        if (r + 1 > s->nrounds_file) s->nrounds_file = r + 1;
    }
    if (st == CS_OK && s->npairs == 0) st = cs_usage_error(err, errlen, "%s: names no pairs", file);
    /* counting sort by round, file order kept within a round */
    if (st == CS_OK) {
        s->first = calloc((size_t)s->nrounds_file + 1, sizeof *s->first);
        s->pairs = malloc((size_t)s->npairs * sizeof *s->pairs);
        if (!s->first || !s->pairs) st = CS_TRACE(CS_ERR_RUNTIME);
    }
    if (st == CS_OK) {
        for (long i = 0; i < s->npairs; i++) s->first[round_of[i] + 1]++;
        for (long r = 0; r < s->nrounds_file; r++) s->first[r + 1] += s->first[r];
        for (long i = 0; i < s->npairs; i++) s->pairs[s->first[round_of[i]]++] = raw[i];
        for (long r = s->nrounds_file; r > 0; r--) s->first[r] = s->first[r - 1]; /* back to starts */
        s->first[0] = 0;
    }
    free(raw);
    free(round_of);
    free(next_free);
    if (st != CS_OK) cs_schedule_free(s);
    return st;
}

/* ---- the generated schedules ---- */

/* The circle method: ranks 0..m-1 (m odd) on a circle and one fixed rank m (the bye
 * when n is odd). Round r pairs the fixed rank with r, and r+k with r-k (mod m). */
static int circle_ranks(int n) { return n % 2 ? n + 1 : n; }

static long ring_slots(int n, long round)
{
    if (n == 2) return 1;
    if (n % 2 == 0) return n / 2;
    return round < 2 ? (n - 1) / 2 : 1;
}

long cs_schedule_rounds(const cs_schedule_t *s)
{
    switch (s->kind) {
    case CS_SCHED_ONE_TO_ALL: return s->n - 1;
    case CS_SCHED_ALL_PAIRS: return circle_ranks(s->n) - 1;
    case CS_SCHED_RING: return s->n == 2 ? 1 : (s->n % 2 ? 3 : 2);
    default: return s->nrounds_file;
    }
}

long cs_schedule_slots(const cs_schedule_t *s, long round)
{
    switch (s->kind) {
    case CS_SCHED_ONE_TO_ALL: return 1;
    case CS_SCHED_ALL_PAIRS: return circle_ranks(s->n) / 2;
    case CS_SCHED_RING: return ring_slots(s->n, round);
    default: return s->first[round + 1] - s->first[round];
    }
}

static cs_sched_pair_t ordered(int a, int b) { return a < b ? (cs_sched_pair_t){a, b} : (cs_sched_pair_t){b, a}; }

bool cs_schedule_pair(const cs_schedule_t *s, long round, long slot, cs_sched_pair_t *out)
{
    int n = s->n;
    switch (s->kind) {
    case CS_SCHED_ONE_TO_ALL: {
        int other = round < s->root ? (int)round : (int)round + 1;
        *out = (cs_sched_pair_t){s->root, other};
        return true;
    }
    case CS_SCHED_ALL_PAIRS: {
        int m = circle_ranks(n) - 1, r = (int)round, k = (int)slot;
        if (k == 0) {
            if (m == n) return false; /* n odd: the fixed rank is the bye */
            *out = ordered(m, r);
            return true;
        }
        *out = ordered((r + k) % m, (r - k + m) % m);
        return true;
    }
    case CS_SCHED_RING: {
        int first = round == 2 ? n - 1 : (int)(2 * slot + round); /* the sender, i of (i, i+1) */
        *out = (cs_sched_pair_t){first, (first + 1) % n};
        return true;
    }
    default: *out = s->pairs[s->first[round] + slot]; return true;
    }
}

long cs_schedule_slot_of(const cs_schedule_t *s, long round, int rank, cs_sched_pair_t *out)
{
    int n = s->n;
    switch (s->kind) {
    case CS_SCHED_ONE_TO_ALL: {
        int other = round < s->root ? (int)round : (int)round + 1;
        if (rank != s->root && rank != other) return -1;
        *out = (cs_sched_pair_t){s->root, other};
        return 0;
    }
    case CS_SCHED_ALL_PAIRS: {
        int m = circle_ranks(n) - 1, r = (int)round;
        if (rank == m || rank == r) {
            if (m == n) return -1; /* bye */
            *out = ordered(m, r);
            return 0;
        }
        int d = ((rank - r) % m + m) % m, k = d <= m / 2 ? d : m - d;
        *out = ordered(rank, ((2 * r - rank) % m + m) % m);
        return k;
    }
    case CS_SCHED_RING: {
        if (n == 2) return cs_schedule_pair(s, 0, 0, out), 0;
        if (round == 2) {
            if (rank != n - 1 && rank != 0) return -1;
            cs_schedule_pair(s, 2, 0, out);
            return 0;
        }
        /* the sender of (i, i+1) in this round has i % 2 == round */
        int sender = rank % 2 == round ? rank : (rank - 1 + n) % n;
        if (sender % 2 != round) return -1; /* odd n: the wrap-around pair waits for round 2 */
        if (n % 2 && sender == n - 1) return -1;
        long slot = (sender - round) / 2;
        cs_schedule_pair(s, round, slot, out);
        return slot;
    }
    default:
        for (long i = s->first[round]; i < s->first[round + 1]; i++)
            if (s->pairs[i].src == rank || s->pairs[i].dst == rank) {
                *out = s->pairs[i];
                return i - s->first[round];
            }
        return -1;
    }
}

long cs_schedule_npairs(const cs_schedule_t *s)
{
    long n = s->n;
    switch (s->kind) {
    case CS_SCHED_ONE_TO_ALL: return n - 1;
    case CS_SCHED_ALL_PAIRS: return n * (n - 1) / 2;
    case CS_SCHED_RING: return n == 2 ? 1 : n;
    default: return s->npairs;
    }
}
