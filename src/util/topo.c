#include "util/topo.h"
#include "util/error.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static cs_status_t topo_alloc(cs_topo_t *t, int nranks)
{
    memset(t, 0, sizeof *t);
    t->nranks = nranks;
    t->indegree = calloc((size_t)nranks, sizeof *t->indegree);
    t->outdegree = calloc((size_t)nranks, sizeof *t->outdegree);
    t->sources = calloc((size_t)nranks, sizeof *t->sources);
    t->destinations = calloc((size_t)nranks, sizeof *t->destinations);
    if (!t->indegree || !t->outdegree || !t->sources || !t->destinations) return CS_TRACE(CS_ERR_RUNTIME);
    return CS_OK;
}

void cs_topo_free(cs_topo_t *t)
{
    for (int r = 0; r < t->nranks; r++) {
        if (t->sources) free(t->sources[r]);
        if (t->destinations) free(t->destinations[r]);
    }
    free(t->sources);
    free(t->destinations);
    free(t->indegree);
    free(t->outdegree);
    memset(t, 0, sizeof *t);
}

static void finish_degrees(cs_topo_t *t)
{
    for (int r = 0; r < t->nranks; r++) {
        if (t->indegree[r] > t->max_indegree) t->max_indegree = t->indegree[r];
        if (t->outdegree[r] > t->max_outdegree) t->max_outdegree = t->outdegree[r];
    }
}

cs_status_t cs_topo_cart(int nranks, const int *dims, int ndims, int radius, cs_topo_t *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (ndims < 1 || ndims > CS_MAX_NBR_DIMS)
        return cs_usage_error(err, errlen, "-N cart:%d:%d: use 1 to %d dimensions", ndims, radius, CS_MAX_NBR_DIMS);
    int min_dim = INT_MAX;
    for (int d = 0; d < ndims; d++)
        if (dims[d] < min_dim) min_dim = dims[d];
    if (radius > (min_dim - 1) / 2) {
        char grid[128] = "";
        for (int d = 0; d < ndims; d++)
            snprintf(grid + strlen(grid), sizeof grid - strlen(grid), d ? "x%d" : "%d", dims[d]);
        return cs_usage_error(
            err, errlen,
            "-N cart:%d:%d: %d ranks make a %s grid; radius %d needs at least %d ranks along every "
            "dimension (no duplicate neighbours); use more ranks, fewer dimensions or a smaller radius",
            ndims, radius, nranks, grid, radius, 2 * radius + 1);
    }
    CS_CHECK(topo_alloc(t, nranks));
    t->ndims = ndims;
    t->radius = radius;
    memcpy(t->dims, dims, (size_t)ndims * sizeof *dims);
    int side = 2 * radius + 1, cells = 1;
    for (int d = 0; d < ndims; d++) cells *= side;
    int degree = cells - 1;
    for (int r = 0; r < nranks; r++) {
        int coords[CS_MAX_NBR_DIMS];
        for (int d = ndims - 1, rest = r; d >= 0; d--) { /* row-major: the last dimension varies fastest */
            coords[d] = rest % dims[d];
            rest /= dims[d];
        }
        int *list = malloc((size_t)(degree > 0 ? degree : 1) * sizeof *list);
        int *copy = malloc((size_t)(degree > 0 ? degree : 1) * sizeof *copy);
        if (!list || !copy) {
            free(list);
            free(copy);
            return CS_TRACE(CS_ERR_RUNTIME);
        }
        int n = 0;
        /* every displacement in [-radius, radius]^ndims except zero, last dimension fastest (OMB's order) */
        for (int cell = 0; cell < cells; cell++) {
            int nbr = 0, moved = 0;
            for (int d = 0; d < ndims; d++) {
                int step = 1;
                for (int k = d + 1; k < ndims; k++) step *= side;
                int disp = (cell / step) % side - radius;
                moved |= disp != 0;
                int c = ((coords[d] + disp) % dims[d] + dims[d]) % dims[d];
                nbr = nbr * dims[d] + c;
            }
            if (moved) list[n++] = nbr;
        }
        memcpy(copy, list, (size_t)n * sizeof *list);
        t->destinations[r] = list;
        t->sources[r] = copy; /* symmetric: the neighbour at -v sends what it sends along +v */
        t->outdegree[r] = t->indegree[r] = n;
        t->nedges += n;
    }
    finish_degrees(t);
    return CS_OK;
}

static int append(int **list, int *n, int *cap, int v)
{
    if (*n == *cap) {
        int grown = *cap ? 2 * *cap : 8;
        int *p = realloc(*list, (size_t)grown * sizeof *p);
        if (p == NULL) return -1;
        *list = p;
        *cap = grown;
    }
    (*list)[(*n)++] = v;
    return 0;
}

/* A rank number: digits only, after optional blanks; *end points past it. */
static bool parse_rank(const char *s, const char **end, long *out)
{
    while (*s == ' ' || *s == '\t') s++;
    if (!isdigit((unsigned char)*s)) return false;
    errno = 0;
    char *e = NULL;
    long v = strtol(s, &e, 10);
    if (errno == ERANGE || v > INT_MAX) return false;
    while (*e == ' ' || *e == '\t') e++;
    *end = e;
    *out = v;
    return true;
}

cs_status_t cs_topo_parse_graph(const char *text, const char *file, int nranks, cs_topo_t *t, char *err, size_t errlen)
{
    CS_CHECK(topo_alloc(t, nranks));
    int *incap = calloc((size_t)nranks, sizeof *incap), *outcap = calloc((size_t)nranks, sizeof *outcap);
    cs_status_t st = (incap && outcap) ? CS_OK : CS_TRACE(CS_ERR_RUNTIME);
    int line = 0;
    for (const char *p = text; st == CS_OK && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        line++;
        char buf[512];
        if (len >= sizeof buf) {
            st = cs_usage_error(err, errlen, "%s:%d: line longer than %zu characters", file, line, sizeof buf - 1);
            break;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (len && buf[len - 1] == '\r') buf[len - 1] = '\0';
        p = eol ? eol + 1 : p + len;
        const char *s = buf;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\0' || *s == '#') continue;
        long src, dst;
        const char *after;
        if (!parse_rank(s, &after, &src) || *after != ',' || !parse_rank(after + 1, &after, &dst) || *after) {
            st = cs_usage_error(err, errlen, "%s:%d: expected 'SRC,DST' (two rank numbers and a comma), got '%s'", file,
                                line, s);
            break;
        }
        if (src >= nranks || dst >= nranks) {
            st = cs_usage_error(err, errlen, "%s:%d: rank %ld is outside the communicator of %d ranks", file, line,
                                src >= nranks ? src : dst, nranks);
            break;
        }
        if (append(&t->destinations[src], &t->outdegree[src], &outcap[src], (int)dst) ||
            append(&t->sources[dst], &t->indegree[dst], &incap[dst], (int)src)) {
            st = CS_TRACE(CS_ERR_RUNTIME);
            break;
        }
        t->nedges++;
    }
    free(incap);
    free(outcap);
    if (st == CS_OK && t->nedges == 0) st = cs_usage_error(err, errlen, "%s: no edges (lines 'SRC,DST')", file);
    if (st != CS_OK) {
        cs_topo_free(t);
        return st;
    }
    finish_degrees(t);
    return CS_OK;
}
