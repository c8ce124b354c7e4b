#include "core/bench.h"
#include "util/error.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/flow.h"
#include "util/sizes.h"

/* Options that only some benchmarks accept (util/options.def): an option typed applies
 * when the benchmark has any capability of `needs` (0: every benchmark) and none of
 * `excludes`; with `when`, only that value of it is checked. */
static cs_status_t check_applicable(const cs_bench_t *b, const cs_opts_t *o, char *err, size_t errlen)
{
    static const struct {
        unsigned needs, excludes;
        const char *when;
    } rules[CS_NOPTIONS] = {
#define CS_OPTION(id, s, l, arg, metavar, needs, excludes, when, help) [CS_OPT_##id] = {needs, excludes, when},
#include "util/options.def"
#include "util/mask.h"
#undef CS_OPTION
    };
    for (int i = 0; i < CS_NOPTIONS; i++) {
        if (!cs_opts_given(o, (cs_option_id_t)i)) continue;
        if (rules[i].when && strcasecmp(o->given_value[i], rules[i].when) != 0) continue;
        if ((rules[i].needs && !(b->caps & rules[i].needs)) || (b->caps & rules[i].excludes)) {
            char flag[32];
            cs_option_flag((cs_option_id_t)i, flag, sizeof flag);
            return cs_usage_error(err, errlen, "%s%s%s does not apply to %s", flag, rules[i].when ? " " : "",
                                  rules[i].when ? rules[i].when : "", b->name);
        }
    }
    return CS_OK;
}

static cs_status_t check_ranks(const cs_bench_t *b, const cs_opts_t *o, int nranks, cs_plan_t *p, char *err,
                               size_t errlen)
{
    p->pairs = 1;
    if (b->caps & CS_CAP_TWO_RANKS) {
        if (nranks != 2) return cs_usage_error(err, errlen, "%s needs exactly 2 ranks, got %d", b->name, nranks);
        return CS_OK;
    }
    if (b->caps & (CS_CAP_STARTUP | CS_CAP_NCCL)) return CS_OK; /* NCCL collectives run on one GPU too */
    if (b->caps & CS_CAP_CONGESTION) {
        if (nranks < CS_CONG_MIN_RANKS)
            return cs_usage_error(err, errlen, "%s needs at least %d ranks (2 canaries and 2 congestors), got %d",
                                  b->name, CS_CONG_MIN_RANKS, nranks);
        return CS_OK;
    }
    if (b->caps & (CS_CAP_COLLECTIVE | CS_CAP_FAN)) {
        if (nranks < 2) return cs_usage_error(err, errlen, "%s needs at least 2 ranks, got %d", b->name, nranks);
        if (!(b->caps & CS_CAP_FAN)) return CS_OK;
        p->pairs = nranks - 1; /* one hub, every other rank a peer */
        if (o->pairs_set) {
            if (o->pairs > nranks - 1)
                return cs_usage_error(err, errlen, "-p %d: %d ranks have at most %d peers besides the hub", o->pairs,
                                      nranks, nranks - 1);
            p->pairs = o->pairs;
        }
        return CS_OK;
    }
    if (nranks < 2 || ((b->caps & CS_CAP_ALL_PAIRS) && nranks % 2 != 0))
        return cs_usage_error(err, errlen, "%s needs an even number of ranks (at least 2), got %d", b->name, nranks);
    p->pairs = nranks / 2;
    if (o->pairs_set) {
        if (o->pairs > nranks / 2)
            return cs_usage_error(err, errlen, "-p %d: %d ranks make at most %d pairs", o->pairs, nranks, nranks / 2);
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

/* The axes a descriptor declares: datatypes (-T), root (-k), window creation (-w) and
 * synchronisation (-s). */
static cs_status_t plan_axes(const cs_bench_t *b, const cs_opts_t *o, int nranks, cs_plan_t *p, char *err,
                             size_t errlen)
{
    p->ndtypes = 0;
    if (b->caps & CS_CAP_DATATYPES) {
        unsigned typed = o->dtypes_set ? o->dtypes : CS_MASK(cs_bench_default_dtype(b));
        unsigned dtypes = o->dtypes_all && b->dtypes_allowed ? typed & b->dtypes_allowed : typed;
        for (int t = 0; t < CS_DT_SELECTABLE; t++) {
            if (!(dtypes & CS_MASK(t))) continue;
            if (b->dtypes_allowed && !(b->dtypes_allowed & CS_MASK(t))) {
                char allowed[128] = "";
                for (int a = 0; a < CS_DT_SELECTABLE; a++)
                    if (b->dtypes_allowed & CS_MASK(a))
                        snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                                 allowed[0] ? ", " : "", cs_dtype_option((cs_dtype_t)a));
                return cs_usage_error(err, errlen, "-T %s: %s is defined on %s only", cs_dtype_option((cs_dtype_t)t),
                                      b->name, allowed);
            }
            p->dtypes[p->ndtypes++] = (cs_dtype_t)t;
        }
    } else {
        p->dtypes[p->ndtypes++] = b->dtype;
    }
    p->root = 0;
    if (o->root_set && o->root_mode == CS_ROOT_ROTATE) p->root = -1;
    else if (o->root_set && o->root >= nranks)
        return cs_usage_error(err, errlen, "-k fixed:%d: root %d is outside the communicator of %d ranks", o->root,
                              o->root, nranks);
    else if (o->root_set) p->root = o->root;

    p->nwin_modes = p->nsync_modes = 0;
    if (!(b->caps & CS_CAP_RMA)) return CS_OK;
    unsigned wins = o->win_modes_set ? o->win_modes : CS_MASK(b->default_win);
    for (int w = 0; w < CS_NWIN_MODES; w++)
        if (wins & CS_MASK(w)) p->win_modes[p->nwin_modes++] = (cs_win_mode_t)w;
    unsigned syncs = o->sync_modes_set ? (o->sync_all ? b->rma_syncs : o->sync_modes) : CS_MASK(b->default_sync);
    for (int s = 0; s < CS_NSYNC_MODES; s++) {
        if (!(syncs & CS_MASK(s))) continue;
        if (!(b->rma_syncs & CS_MASK(s))) {
            char accepted[128] = "";
            for (int a = 0; a < CS_NSYNC_MODES; a++)
                if (b->rma_syncs & CS_MASK(a))
                    snprintf(accepted + strlen(accepted), sizeof accepted - strlen(accepted), "%s%s",
                             accepted[0] ? ", " : "", cs_sync_option((cs_rma_sync_t)a));
            return cs_usage_error(err, errlen, "-s %s: %s supports %s", cs_sync_option((cs_rma_sync_t)s), b->name,
                                  accepted);
        }
        p->sync_modes[p->nsync_modes++] = (cs_rma_sync_t)s;
    }
    return CS_OK;
}

/* Buffer bytes per process per byte of message size, for the largest message. */
static size_t buffer_blocks(const cs_bench_t *b, const cs_opts_t *o, const cs_world_t *w, const cs_plan_t *p)
{
    if (b->flow) return cs_flow_buffer_bytes(b->flow, 1, w->nranks, w->max_indegree, w->max_outdegree);
    int slots = p->window;
    if (o->vary_window) slots = CS_VARY_WINDOW_MAX; /* the largest window of the -V sweep */
    size_t per_buffer_slots = o->buffers == CS_BUFFERS_MULTIPLE ? (size_t)slots : 1;
    /* one-sided: the window and one local buffer per slot for the bandwidth tests (put or
     * get), window, origin, result and comparand for the latency tests (the atomics) */
    if (b->caps & CS_CAP_RMA) return (b->caps & CS_CAP_WINDOW) ? 2 * (size_t)p->window : 4;
    if (b->caps & CS_CAP_FAN) return ((size_t)p->pairs + 1) * per_buffer_slots; /* the hub's, one per peer */
    if (b->caps & CS_CAP_THREADS) /* a send and a receive buffer per thread */
        return 2 * (size_t)(p->workers[0] > p->workers[1] ? p->workers[0] : p->workers[1]);
    return 2 * per_buffer_slots; /* send + receive */
}

static cs_status_t plan_memory(const cs_bench_t *b, const cs_opts_t *o, const cs_world_t *w, cs_plan_t *p, char *err,
                               size_t errlen)
{
    size_t blocks = buffer_blocks(b, o, w, p);
    p->max_size_clipped = false;
    if (blocks == 0) {
        p->buffer_bytes = 0;
        return CS_OK;
    }
    if ((b->caps & CS_CAP_COLLECTIVE) && p->max_size > o->mem_limit / blocks) {
        /* OMB clips a collective's sweep to the limit instead of refusing it */
        p->max_size = o->mem_limit / blocks;
        p->max_size_clipped = true;
        if (p->max_size < p->min_size || p->max_size == 0)
            return cs_usage_error(err, errlen,
                                  "-M %zu: not even the smallest message size %zu fits in the memory limit",
                                  o->mem_limit, p->min_size);
    }
    /* guard the multiplication against overflow */
    if (p->max_size > o->mem_limit / blocks) {
        char need[32], limit[32];
        double total = (double)p->max_size * (double)blocks;
        return cs_usage_error(err, errlen,
                              "message size %zu needs %s of buffers per process, over the memory limit "
                              "of %s (-M); lower -m or raise -M",
                              p->max_size, human_bytes((size_t)(total < 1e19 ? total : 1e19), need, sizeof need),
                              human_bytes(o->mem_limit, limit, sizeof limit));
    }
    p->buffer_bytes = blocks * p->max_size;
    return CS_OK;
}

/* OMB's buffer placement. -d names the accelerator; without it a device word implies
 * CUDA in a build that has it (OMB's setAccel) and is ignored in one that does not (as
 * OMB built without an accelerator ignores it). Point-to-point and one-sided sides take
 * the trailing words (default H H, OMB's); collectives put every buffer on the device. */
static cs_status_t plan_placement(const cs_bench_t *b, const cs_opts_t *o, const cs_world_t *w, cs_plan_t *p, char *err,
                                  size_t errlen)
{
    p->mem[0] = p->mem[1] = CS_MEM_HOST;
    bool device_words = o->mem_kinds_set && (o->mem_kinds[0] != CS_MEM_HOST || o->mem_kinds[1] != CS_MEM_HOST);
    cs_accel_t accel = o->accel;
    if (accel != CS_ACCEL_NONE && !w->cuda_built)
        return cs_usage_error(err, errlen,
                              "-d %s: GPU buffers are not supported by this build (it was built without CUDA; "
                              "configure with -DCS_WITH_CUDA=ON on a machine with the CUDA toolkit)",
                              cs_accel_name(accel));
    if (!w->cuda_built) return CS_OK;
    if (b->caps & CS_CAP_NCCL) { /* MPI never sees these buffers */
        p->gpu = true;
        p->mem[0] = p->mem[1] = accel == CS_ACCEL_MANAGED ? CS_MEM_MANAGED_DEVICE : CS_MEM_DEVICE;
        return CS_OK;
    }
    if (accel == CS_ACCEL_NONE && device_words) {
        if (b->caps & (CS_CAP_COLLECTIVE | CS_CAP_STARTUP))
            return cs_usage_error(err, errlen,
                                  "%s: buffer placement words are for point-to-point and one-sided benchmarks; "
                                  "collectives take -d cuda (every buffer on the GPU)",
                                  b->name);
        accel = CS_ACCEL_CUDA;
    }
    if (accel == CS_ACCEL_NONE) return CS_OK;
    p->gpu = true;
    cs_mem_kind_t device = accel == CS_ACCEL_MANAGED ? CS_MEM_MANAGED_DEVICE : CS_MEM_DEVICE;
    for (int side = 0; side < 2; side++) {
        cs_mem_kind_t k = CS_MEM_HOST;
        if (b->caps & CS_CAP_COLLECTIVE) k = device;
        else if (o->mem_kinds_set) k = o->mem_kinds[side] == CS_MEM_DEVICE ? device : o->mem_kinds[side];
        p->mem[side] = k;
        if (k != CS_MEM_HOST) p->mpi_gpu_mem = true;
    }
    /* MPI_Win_allocate makes host memory: GPU windows are made with MPI_Win_create (OMB does
     * the same with its default), and the record says so */
    if ((b->caps & CS_CAP_RMA) && p->mpi_gpu_mem) {
        int n = 0;
        bool has_create = false;
        for (int i = 0; i < p->nwin_modes; i++) has_create |= p->win_modes[i] == CS_WIN_CREATE;
        for (int i = 0; i < p->nwin_modes; i++) {
            cs_win_mode_t m = p->win_modes[i] == CS_WIN_ALLOCATE ? CS_WIN_CREATE : p->win_modes[i];
            if (m == CS_WIN_CREATE && p->win_modes[i] == CS_WIN_ALLOCATE && has_create) continue;
            p->win_modes[n++] = m;
        }
        p->nwin_modes = n;
    }
    return CS_OK;
}

/* -t SEND:RECV of latency_mt and latency_mp: OMB's defaults, 1 to 127 each; elsewhere -t
 * counts MPI_Test calls and the colon form is refused */
static cs_status_t plan_workers(const cs_bench_t *b, const cs_opts_t *o, cs_plan_t *p, char *err, size_t errlen)
{
    bool given = cs_opts_given(o, CS_OPT_NUM_TEST_CALLS);
    if (!(b->caps & CS_CAP_WORKERS)) {
        if (given && o->workers_pair)
            return cs_usage_error(err, errlen, "-t %s: SEND:RECV counts are for latency_mt and latency_mp; %s takes N",
                                  o->given_value[CS_OPT_NUM_TEST_CALLS], b->name);
        return CS_OK;
    }
    /* OMB's -t N sets the receivers only; the sender count needs SEND:RECV */
    p->workers[0] = given && o->workers_pair ? o->workers[0] : CS_DEFAULT_SEND_WORKERS;
    p->workers[1] = given ? o->workers[1] : CS_DEFAULT_RECV_WORKERS;
    for (int side = 0; side < 2; side++)
        if (p->workers[side] < 1 || p->workers[side] > CS_MAX_WORKERS)
            return cs_usage_error(err, errlen, "-t %s: %s %s must be 1 to %d", o->given_value[CS_OPT_NUM_TEST_CALLS],
                                  side ? "receiver" : "sender", (b->caps & CS_CAP_THREADS) ? "threads" : "processes",
                                  CS_MAX_WORKERS);
    return CS_OK;
}

/* pairs: the schedule and the two sizes (-m does not apply); a FILE schedule's pairs are
 * counted once it is loaded (mpi/schedule_load.c). */
static cs_status_t plan_pairs(const cs_opts_t *o, int nranks, cs_plan_t *p, char *err, size_t errlen)
{
    CS_CHECK(cs_pairs_spec_parse(o, nranks, &p->pairs_spec, err, errlen));
    size_t lat = p->pairs_spec.lat_size, bw = p->pairs_spec.bw_size;
    p->min_size = lat < bw ? lat : bw;
    p->max_size = lat > bw ? lat : bw;
    if (p->pairs_spec.kind != CS_SCHED_FILE) {
        cs_schedule_t s;
        CS_CHECK(cs_schedule_generated(&s, p->pairs_spec.kind, nranks, p->pairs_spec.root, err, errlen));
        p->scheduled_pairs = cs_schedule_npairs(&s);
    }
    return CS_OK;
}

const char *cs_bench_placement(const cs_bench_t *b, const cs_plan_t *plan, char *buf, size_t len)
{
    static const char *const where[] = {"host memory", "device memory", "managed memory",
                                        "managed memory (host preferred)"};
    if ((b->caps & (CS_CAP_COLLECTIVE | CS_CAP_NCCL)) || plan->mem[0] == plan->mem[1])
        snprintf(buf, len, "every buffer in %s", where[plan->mem[0]]);
    else snprintf(buf, len, "rank 0's buffers in %s, its peer's in %s", where[plan->mem[0]], where[plan->mem[1]]);
    return buf;
}

int cs_bench_side(const cs_bench_t *b, const cs_plan_t *plan, int rank)
{
    if (b->caps & CS_CAP_FAN) return rank == 0 ? 0 : 1;
    return rank < plan->pairs ? 0 : 1;
}

cs_status_t cs_bench_plan_world(const cs_bench_t *b, const cs_opts_t *o, const cs_world_t *w, cs_plan_t *p, char *err,
                                size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (b->unavailable)
        return cs_usage_error(err, errlen, "%s is not available in this build: %s", b->name, b->unavailable);
    CS_CHECK(check_applicable(b, o, err, errlen));
    CS_CHECK(check_ranks(b, o, w->nranks, p, err, errlen));
    CS_CHECK(plan_workers(b, o, p, err, errlen));
    p->partitions = cs_opts_given(o, CS_OPT_PARTITIONS) ? o->partitions : CS_DEFAULT_PARTITIONS;
    CS_CHECK(plan_axes(b, o, w->nranks, p, err, errlen));
    CS_CHECK(plan_placement(b, o, w, p, err, errlen));
    size_t default_max = b->default_max_size ? b->default_max_size : CS_DEFAULT_MAX_SIZE;
    p->min_size = o->min_size_set ? o->min_size : b->default_min_size;
    p->max_size = o->max_size_set ? o->max_size : default_max;
    if (b->caps & CS_CAP_SIZELESS) p->min_size = p->max_size = 0;
    if (b->caps & CS_CAP_FIXED_SIZE) {
        /* one element of each datatype; MAX is the window's size, as OMB's atomics make
         * their window of options.max_message_size: 4 MiB unless -m says otherwise (the
         * element never changes) */
        size_t smallest = SIZE_MAX, largest = 0;
        for (int d = 0; d < p->ndtypes; d++) {
            size_t e = cs_dtype_size(p->dtypes[d]);
            if (e < smallest) smallest = e;
            if (e > largest) largest = e;
        }
        p->min_size = smallest;
        p->max_size = p->max_size > largest ? p->max_size : largest;
    }
    if (p->min_size > p->max_size)
        return cs_usage_error(err, errlen, "-m: MIN %zu is larger than MAX %zu", p->min_size, p->max_size);
    if (p->max_size > INT_MAX)
        return cs_usage_error(err, errlen, "-m: message sizes above %d bytes are not supported (MPI counts are int)",
                              INT_MAX);
    if (o->send_mode == CS_SEND_BUFFERED && p->max_size > CS_BSEND_MAX_SIZE)
        return cs_usage_error(err, errlen, "--send-mode bsend: messages above %d bytes cannot be buffered; lower -m",
                              CS_BSEND_MAX_SIZE);
    p->window = (b->caps & CS_CAP_WINDOW) ? o->window : 1;
    if (b->caps & CS_CAP_SCHEDULE) CS_CHECK(plan_pairs(o, w->nranks, p, err, errlen));
    if (b->caps & CS_CAP_CONGESTION) CS_CHECK(cs_congestion_spec_parse(o, w->nranks, &p->congestion, err, errlen));
    CS_CHECK(plan_memory(b, o, w, p, err, errlen));
    /* v- and w-forms place rank j's block at displacement j x block, in elements and for
     * alltoallw in bytes, all of them int in MPI-3; the pattern builds them for every
     * collective. Refused here rather than overflowing inside MPI. */
    if ((b->caps & CS_CAP_COLLECTIVE) && w->nranks > 1 && p->max_size > (size_t)INT_MAX / (size_t)(w->nranks - 1))
        return cs_usage_error(err, errlen,
                              "-m: %zu-byte blocks at %d ranks put the last block %zu bytes in, beyond the int "
                              "displacements of MPI collectives (%d); lower -m to at most %zu",
                              p->max_size, w->nranks, p->max_size * (size_t)(w->nranks - 1), INT_MAX,
                              (size_t)INT_MAX / (size_t)(w->nranks - 1));
    return CS_OK;
}

cs_status_t cs_bench_plan(const cs_bench_t *b, const cs_opts_t *o, int nranks, cs_plan_t *plan, char *err,
                          size_t errlen)
{
    cs_world_t w = {.nranks = nranks};
    return cs_bench_plan_world(b, o, &w, plan, err, errlen);
}

cs_bench_t cs_bench_pair_view(const cs_bench_t *b, cs_pair_metric_t m)
{
    static const cs_pattern_id_t patterns[CS_NPAIR_METRICS] = {
        [CS_PM_LATENCY] = CS_PATTERN_PINGPONG, [CS_PM_BW] = CS_PATTERN_WINDOW_UNI, [CS_PM_BIBW] = CS_PATTERN_WINDOW_BI};
    cs_bench_t v = *b;
    v.pattern = patterns[m];
    v.metric = m == CS_PM_LATENCY ? CS_METRIC_LATENCY : CS_METRIC_BANDWIDTH;
    v.iter_class = m == CS_PM_LATENCY ? CS_ITERS_LATENCY : CS_ITERS_BANDWIDTH;
    v.directions = m == CS_PM_BIBW ? 2 : 1;
    return v;
}

double cs_bench_bytes_per_iteration(const cs_bench_t *b, size_t size, int window, int pairs)
{
    return (double)size * window * pairs * b->directions;
}
