#include "driver.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "mpi_check.h"
#include "pattern.h"
#include "sizes.h"
#include "validate.h"

#define MAX_SIZES 64
#define MAX_WINDOWS 8

typedef struct cs_buffers_state {
    void *send_block, *recv_block; /* slots laid out back to back */
    char **send_slots, **recv_slots;
    int nslots;    /* pointer slots (the largest window) */
    int distinct;  /* slots with their own memory: 1 with -b single */
    uint8_t *staging; /* host copy for filling and checking (-c) */
} cs_buffers_state_t;

typedef struct cs_sweep {
    MPI_Comm comm;
    int rank;
    const cs_run_info_t *info;
    const cs_mem_ops_t *mem;
    cs_pair_ctx_t pair;
    cs_buffers_state_t buf;
    double *samples;      /* this rank's samples, room for the most iterations */
    double *gathered;     /* rank 0: every timing rank's samples */
    int *counts, *displs; /* rank 0: for the gather */
} cs_sweep_t;

static int largest_window(const cs_run_info_t *info, const int *windows, size_t nwindows)
{
    int w = info->plan->window;
    for (size_t i = 0; i < nwindows; i++)
        if (windows[i] > w) w = windows[i];
    return w;
}

static cs_status_t alloc_slots(cs_sweep_t *s, int max_window)
{
    const cs_plan_t *plan = s->info->plan;
    cs_buffers_state_t *b = &s->buf;
    size_t slot_bytes = plan->max_size ? plan->max_size : 1;
    b->nslots = max_window;
    b->distinct = s->info->opts->buffers == CS_BUFFERS_MULTIPLE ? max_window : 1;
    CS_CHECK(s->mem->alloc(slot_bytes * (size_t)b->distinct, &b->send_block));
    CS_CHECK(s->mem->alloc(slot_bytes * (size_t)b->distinct, &b->recv_block));
    b->send_slots = calloc((size_t)b->nslots, sizeof *b->send_slots);
    b->recv_slots = calloc((size_t)b->nslots, sizeof *b->recv_slots);
    b->staging = malloc(slot_bytes);
    if (!b->send_slots || !b->recv_slots || !b->staging) return CS_TRACE(CS_ERR_RUNTIME);
    for (int i = 0; i < b->nslots; i++) {
        size_t at = (size_t)(i % b->distinct) * slot_bytes;
        b->send_slots[i] = (char *)b->send_block + at;
        b->recv_slots[i] = (char *)b->recv_block + at;
    }
    return CS_OK;
}

static long most_iterations(const cs_run_info_t *info, const size_t *sizes, size_t nsizes)
{
    long most = 1;
    for (size_t i = 0; i < nsizes; i++) {
        long it, wu;
        cs_bench_iterations(info->bench, info->opts, sizes[i], &it, &wu);
        if (it > most) most = it;
    }
    return most;
}

static cs_status_t sweep_setup(cs_sweep_t *s, int max_window, long max_iters)
{
    const cs_run_info_t *info = s->info;
    int pairs = info->plan->pairs, nranks = info->nranks;
    CS_CHECK(alloc_slots(s, max_window));
    cs_pair_ctx_t *c = &s->pair;
    c->comm = s->comm;
    c->active = s->rank < 2 * pairs;
    c->initiator = s->rank < pairs;
    c->peer = c->initiator ? s->rank + pairs : s->rank - pairs;
    c->send_slots = s->buf.send_slots;
    c->recv_slots = s->buf.recv_slots;
    c->requests = calloc(2 * (size_t)max_window, sizeof *c->requests);
    c->send_ops = cs_send_ops_for(info->opts->send_mode);
    c->p2p.comm = s->comm;
    s->samples = malloc((size_t)max_iters * sizeof *s->samples);
    if (!c->requests || !s->samples) return CS_TRACE(CS_ERR_RUNTIME);
    if (s->rank == 0) {
        s->gathered = malloc((size_t)max_iters * (size_t)pairs * sizeof *s->gathered);
        s->counts = calloc((size_t)nranks, sizeof *s->counts);
        s->displs = calloc((size_t)nranks, sizeof *s->displs);
        if (!s->gathered || !s->counts || !s->displs) return CS_TRACE(CS_ERR_RUNTIME);
    }
    if (c->active && (info->bench->caps & CS_CAP_SEND_MODE))
        CS_CHECK(c->send_ops->setup(&c->p2p, info->plan->max_size));
    return CS_OK;
}

static cs_status_t sweep_teardown(cs_sweep_t *s)
{
    cs_status_t st = CS_OK;
    if (s->pair.active && s->pair.send_ops && (s->info->bench->caps & CS_CAP_SEND_MODE))
        st = s->pair.send_ops->teardown(&s->pair.p2p);
    s->mem->free(s->buf.send_block);
    s->mem->free(s->buf.recv_block);
    free(s->buf.send_slots);
    free(s->buf.recv_slots);
    free(s->buf.staging);
    free(s->pair.requests);
    free(s->samples);
    free(s->gathered);
    free(s->counts);
    free(s->displs);
    return st;
}

/* Samples of every timing rank (the pair initiators) go to rank 0, and the mean time
 * per iteration is averaged over them (OMB's multi-pair definition). */
static cs_status_t collect(cs_sweep_t *s, const cs_timing_t *t, long iterations, cs_measurement_t *m)
{
    bool timing = s->pair.active && s->pair.initiator;
    int mine = timing ? (int)t->nsamples : 0;
    double my_total = timing ? t->total : 0.0, sum_total = 0;
    CS_MPI(MPI_Gather(&mine, 1, MPI_INT, s->counts, 1, MPI_INT, 0, s->comm));
    int all = 0;
    if (s->rank == 0)
        for (int r = 0; r < s->info->nranks; r++) {
            s->displs[r] = all;
            all += s->counts[r];
        }
    CS_MPI(MPI_Gatherv(s->samples, mine, MPI_DOUBLE, s->gathered, s->counts, s->displs, MPI_DOUBLE, 0, s->comm));
    CS_MPI(MPI_Reduce(&my_total, &sum_total, 1, MPI_DOUBLE, MPI_SUM, 0, s->comm));
    m->samples_s = s->gathered;
    m->nsamples = (size_t)all;
    m->mean_iteration_s = sum_total / s->info->plan->pairs / (double)iterations;
    m->batch = t->batch;
    return CS_OK;
}

static cs_status_t fill_buffers(cs_sweep_t *s, size_t size, int window)
{
    cs_buffers_state_t *b = &s->buf;
    int slots = window < b->distinct ? window : b->distinct;
    for (int w = 0; w < slots; w++) {
        cs_pattern_fill(b->staging, size, s->rank, size, w);
        CS_CHECK(s->mem->from_host(b->send_slots[w], b->staging, size));
        cs_pattern_fill_unlike(b->staging, size, s->pair.peer, size, w);
        CS_CHECK(s->mem->from_host(b->recv_slots[w], b->staging, size));
    }
    return CS_OK;
}

static bool receives_data(const cs_pattern_t *p, const cs_pair_ctx_t *c)
{
    if (!c->active) return false;
    return c->initiator ? p->initiator_receives_data : p->responder_receives_data;
}

/* Untimed: known data through one iteration of the same pattern, counted byte by byte. */
static cs_status_t validate(cs_sweep_t *s, size_t size, int window, long *errors)
{
    const cs_pattern_t *p = s->info->bench->pattern;
    cs_buffers_state_t *b = &s->buf;
    CS_CHECK(fill_buffers(s, size, window));
    CS_CHECK(cs_pattern_once(p, &s->pair, size, window));
    long wrong = 0;
    if (receives_data(p, &s->pair)) {
        int slots = window < b->distinct ? window : b->distinct;
        for (int w = 0; w < slots; w++) {
            CS_CHECK(s->mem->to_host(b->staging, b->recv_slots[w], size));
            if (s->info->opts->corrupt_size == (long)size && size > 0 && w == 0) b->staging[size - 1] ^= 0x5a;
            wrong += cs_pattern_mismatches(b->staging, size, s->pair.peer, size, w);
        }
    }
    CS_MPI(MPI_Allreduce(&wrong, errors, 1, MPI_LONG, MPI_SUM, s->comm));
    return CS_OK;
}

static cs_status_t measure(cs_sweep_t *s, size_t size, int window, cs_record_t *rec)
{
    const cs_run_info_t *info = s->info;
    const cs_opts_t *o = info->opts;
    cs_loop_t loop = {.size = size, .window = window};
    cs_bench_iterations(info->bench, o, size, &loop.iterations, &loop.warmup);
    /* -z wants the tail of single operations, as OMB reports it */
    loop.batch = o->npercentiles > 0 ? 1 : o->batch;
    cs_timing_t timing;
    CS_CHECK(cs_pattern_run(info->bench->pattern, &s->pair, &loop, s->samples, &timing));
    cs_measurement_t m = {.size = size, .window = window, .pairs = info->plan->pairs,
                          .iterations = loop.iterations, .warmup = loop.warmup};
    CS_CHECK(collect(s, &timing, loop.iterations, &m));
    memset(rec, 0, sizeof *rec);
    if (s->rank == 0) cs_record_compute(info->bench, o, &m, rec);
    if (o->validate) {
        rec->validated = true;
        CS_CHECK(validate(s, size, window, &rec->errors));
    }
    return CS_OK;
}

static void emit(const cs_output_t *out, const cs_run_info_t *info, const cs_record_t *rec)
{
    for (int i = 0; i < out->nreporters; i++) out->reporters[i].ops->record(&out->reporters[i], info, rec);
}

static cs_status_t sweep(cs_sweep_t *s, const size_t *sizes, size_t nsizes, const int *windows,
                         size_t nwindows, const cs_output_t *out, cs_run_status_t *status)
{
    for (size_t i = 0; i < nsizes; i++) {
        for (size_t w = 0; w < nwindows; w++) {
            cs_record_t rec;
            CS_CHECK(measure(s, sizes[i], windows[w], &rec));
            if (s->rank == 0) emit(out, s->info, &rec);
            if (rec.validated && rec.errors > 0) {
                /* like OMB: the first failing size ends the sweep */
                *status = CS_RUN_VALIDATION_FAILED;
                if (s->rank == 0)
                    fprintf(stderr, "DATA VALIDATION ERROR: %s exited with status 1 on message size %zu "
                                    "(%ld wrong bytes).\n",
                            s->info->argv[0], sizes[i], rec.errors);
                return CS_OK;
            }
        }
    }
    return CS_OK;
}

cs_status_t cs_driver_run(MPI_Comm comm, const cs_run_info_t *info, const cs_mem_ops_t *mem,
                          const cs_output_t *output, cs_run_status_t *status)
{
    size_t sizes[MAX_SIZES];
    size_t nsizes = cs_sizes(info->plan->min_size, info->plan->max_size, sizes, MAX_SIZES);
    int windows[MAX_WINDOWS] = {info->plan->window};
    size_t nwindows = info->opts->vary_window ? cs_vary_windows(windows, MAX_WINDOWS) : 1;

    cs_sweep_t s = {.comm = comm, .info = info, .mem = mem};
    CS_MPI(MPI_Comm_rank(comm, &s.rank));
    *status = CS_RUN_COMPLETE;
    cs_status_t st = sweep_setup(&s, largest_window(info, windows, nwindows),
                                 most_iterations(info, sizes, nsizes));
    if (st == CS_OK) st = sweep(&s, sizes, nsizes, windows, nwindows, output, status);
    cs_status_t st_free = sweep_teardown(&s);
    return st != CS_OK ? st : st_free;
}
