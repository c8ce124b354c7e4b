#include "bench.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

static cs_status_t plan_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return CS_ERR_USAGE;
}

/* Options that only some benchmarks accept: flag text and the capability it needs. */
static cs_status_t check_applicable(const cs_bench_t *b, const cs_opts_t *o, char *err, size_t errlen)
{
    const struct {
        bool given;
        unsigned cap;
        const char *flag;
    } rules[] = {
        {o->window_set, CS_CAP_WINDOW, "-W"},
        {o->buffers == CS_BUFFERS_MULTIPLE, CS_CAP_WINDOW, "-b multiple"},
        {o->pairs_set, CS_CAP_PAIRS, "-p"},
        {o->vary_window, CS_CAP_VARY_WINDOW, "-V"},
        {o->send_mode_set, CS_CAP_SEND_MODE, "--send-mode"},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].given && !(b->caps & rules[i].cap))
            return plan_error(err, errlen, "%s does not apply to %s", rules[i].flag, b->name);
    return CS_OK;
}

static cs_status_t check_ranks(const cs_bench_t *b, const cs_opts_t *o, int nranks, cs_plan_t *p,
                               char *err, size_t errlen)
{
    p->pairs = 1;
    if (b->caps & CS_CAP_TWO_RANKS) {
        if (nranks != 2)
            return plan_error(err, errlen, "%s needs exactly 2 ranks, got %d", b->name, nranks);
        return CS_OK;
    }
    if (nranks < 2 || ((b->caps & CS_CAP_ALL_PAIRS) && nranks % 2 != 0))
        return plan_error(err, errlen, "%s needs an even number of ranks (at least 2), got %d", b->name, nranks);
    p->pairs = nranks / 2;
    if (o->pairs_set) {
        if (o->pairs > nranks / 2)
            return plan_error(err, errlen, "-p %d: %d ranks make at most %d pairs", o->pairs, nranks, nranks / 2);
        p->pairs = o->pairs;
    }
    return CS_OK;
}

static const char *human_bytes(size_t v, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)v;
    int u = 0;
    while (x >= 1024 && u < 4) {
        x /= 1024;
        u++;
    }
    snprintf(buf, len, "%.4g %s", x, units[u]);
    return buf;
}

cs_status_t cs_bench_plan(const cs_bench_t *b, const cs_opts_t *o, int nranks, cs_plan_t *p,
                          char *err, size_t errlen)
{
    CS_CHECK(check_applicable(b, o, err, errlen));
    CS_CHECK(check_ranks(b, o, nranks, p, err, errlen));
    p->min_size = o->min_size_set ? o->min_size : b->default_min_size;
    p->max_size = o->max_size_set ? o->max_size : CS_DEFAULT_MAX_SIZE;
    if (p->min_size > p->max_size)
        return plan_error(err, errlen, "-m: MIN %zu is larger than MAX %zu", p->min_size, p->max_size);
    if (p->max_size > INT_MAX)
        return plan_error(err, errlen, "-m: message sizes above %d bytes are not supported (MPI counts are int)", INT_MAX);
    if (o->send_mode == CS_SEND_BUFFERED && p->max_size > CS_BSEND_MAX_SIZE)
        return plan_error(err, errlen, "--send-mode bsend: messages above %d bytes cannot be buffered; lower -m",
                          CS_BSEND_MAX_SIZE);
    p->window = (b->caps & CS_CAP_WINDOW) ? o->window : 1;
    int slots = p->window;
    if (o->vary_window) slots = 128; /* the largest window of the -V sweep */
    size_t per_buffer_slots = o->buffers == CS_BUFFERS_MULTIPLE ? (size_t)slots : 1;
    /* send + receive buffer per slot; guard the multiplication against overflow */
    if (p->max_size > o->mem_limit / 2 / per_buffer_slots) {
        char need[32], limit[32];
        double total = 2.0 * (double)p->max_size * (double)per_buffer_slots;
        return plan_error(err, errlen,
                          "message size %zu needs %s of buffers per process, over the memory limit "
                          "of %s (-M); lower -m or raise -M",
                          p->max_size, human_bytes((size_t)(total < 1e19 ? total : 1e19), need, sizeof need),
                          human_bytes(o->mem_limit, limit, sizeof limit));
    }
    p->buffer_bytes = 2 * p->max_size * per_buffer_slots;
    return CS_OK;
}

void cs_bench_iterations(const cs_bench_t *b, const cs_opts_t *o, size_t size, long *iterations,
                         long *warmup)
{
    /* OMB's tables (osu_util.h): [class][small, large] */
    static const long iters[2][2] = {{10000, 1000}, {100, 20}};
    static const long skips[2][2] = {{100, 10}, {10, 2}};
    int large = size > CS_LARGE_MESSAGE_SIZE;
    *iterations = o->iterations_set ? o->iterations : iters[b->iter_class][large];
    *warmup = o->warmup_set ? o->warmup : skips[b->iter_class][large];
}

double cs_bench_bytes_per_iteration(const cs_bench_t *b, size_t size, int window, int pairs)
{
    return (double)size * window * pairs * b->directions;
}
