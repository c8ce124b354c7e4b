/* The registry the program is built from (CMake's cs_registry_pure) against
 * src/core/benchmarks.def: every line there is a descriptor here, in --list order, and
 * every descriptor is whole and plans with OMB's defaults. */
#include <string.h>

#include "check.h"
#include "util/flow.h"
#include "core/bench.h"
#include "core/registry.h"
#include "patterns/rma_op.h"

typedef struct def_entry {
    const char *name, *family;
} def_entry_t;

static const def_entry_t def[] = {
#define CS_BENCH(name, family)      {#name, #family},
#define CS_COLLECTIVE(name, family) {#name, #family}, {"i" #name, #family}, {#name "_persistent", #family},
#include "core/benchmarks.def"
#include "util/mask.h"
#undef CS_BENCH
#undef CS_COLLECTIVE
};
#define NDEF (sizeof def / sizeof def[0])

/* The capabilities a family's descriptors must have, and must not. */
static void check_family(const cs_bench_t *b, const char *family)
{
    unsigned kinds = CS_CAP_COLLECTIVE | CS_CAP_RMA | CS_CAP_STARTUP | CS_CAP_NEIGHBOR;
    unsigned want = strcmp(family, "collective") == 0  ? CS_CAP_COLLECTIVE
                    : strcmp(family, "neighbor") == 0  ? CS_CAP_COLLECTIVE | CS_CAP_NEIGHBOR
                    : strcmp(family, "one_sided") == 0 ? CS_CAP_RMA
                    : strcmp(family, "startup") == 0   ? CS_CAP_STARTUP
                                                       : 0;
    /* pt2pt, sweep (pairs) and congestion are plain point-to-point: none of the kinds above */
    CHECK(strcmp(family, "pt2pt") == 0 || strcmp(family, "sweep") == 0 || strcmp(family, "congestion") == 0 ||
          want != 0);
    if ((b->caps & kinds) != want) fprintf(stderr, "%s (family %s): caps %#x\n", b->name, family, b->caps);
    CHECK((b->caps & kinds) == want);
}

static void check_descriptor(const cs_bench_t *b)
{
    CHECK(b->description && b->description[0] && b->osu_title && b->osu_value_label);
    CHECK(b->pattern < CS_NPATTERNS);
    CHECK(b->directions >= 1 || (b->caps & CS_CAP_STARTUP));
    if (b->caps & CS_CAP_COLLECTIVE) CHECK(b->flow != NULL && b->iter_class == CS_ITERS_COLLECTIVE);
    if (b->caps & CS_CAP_RMA) {
        CHECK(b->rma != NULL && b->rma_syncs != 0);
        CHECK(b->rma_syncs & CS_MASK(b->default_sync));
    }
    /* OMB's defaults plan on the smallest world the benchmark takes */
    cs_opts_t o;
    cs_plan_t p;
    char err[256] = "";
    cs_opts_init(&o);
    int nranks = (b->caps & CS_CAP_NEIGHBOR) ? 3 : (b->caps & CS_CAP_CONGESTION) ? CS_CONG_MIN_RANKS : 2;
    cs_status_t st = cs_bench_plan(b, &o, nranks, &p, err, sizeof err);
    if (st != CS_OK) fprintf(stderr, "%s: default plan: %s\n", b->name, err);
    CHECK(st == CS_OK);
}

/* OMB 7.4's defaults for every osu_* program (suites.md 1.2, the benchmarks' main()):
 * sizes, iterations and warm-up per size class, datatype, and for one-sided the window
 * creation and synchronisation. One row per family; the exceptions are named. */
static void check_omb_defaults(const cs_bench_t *b, const char *family)
{
    cs_opts_t o;
    cs_plan_t p;
    char err[256];
    cs_opts_init(&o);
    if (cs_bench_plan(b, &o, (b->caps & CS_CAP_NEIGHBOR) ? 3 : 2, &p, err, sizeof err) != CS_OK) return;
    long it_small, wu_small, it_large, wu_large;
    cs_bench_iterations(b, &o, CS_LARGE_MESSAGE_SIZE, &it_small, &wu_small);
    cs_bench_iterations(b, &o, CS_LARGE_MESSAGE_SIZE + 1, &it_large, &wu_large);
    /* MPI_CHAR, except OMB 7.5's MPI_INT for the reductions */
    cs_dtype_t dtype = b->flow && b->flow->reduces ? CS_DT_INT : CS_DT_CHAR;
    bool ok = p.ndtypes == 1 && p.dtypes[0] == dtype;
    if (strcmp(family, "collective") == 0 || strcmp(family, "neighbor") == 0) {
        ok &= it_small == 1000 && wu_small == 100 && it_large == 100 && wu_large == 10;
        ok &= (b->caps & CS_CAP_SIZELESS) ? p.max_size == 0 : (p.min_size == 1 && p.max_size == (size_t)1 << 20);
    } else if (strcmp(family, "one_sided") == 0) {
        bool bw = b->metric == CS_METRIC_BANDWIDTH;
        ok &= bw ? (it_small == 100 && wu_small == 10 && it_large == 20 && wu_large == 2)
                 : (it_small == 10000 && wu_small == 100 && it_large == 1000 && wu_large == 10);
        bool atomic = b->caps & CS_CAP_FIXED_SIZE;
        /* the atomics' size is one element; their window, MAX, is 4 MiB as the others' sizes */
        ok &= p.min_size == 1 && p.max_size == (size_t)1 << 22;
        if (atomic) ok &= cs_bench_sizes(b, &p, CS_DT_CHAR, NULL, 0) == 1;
        cs_win_mode_t win = strcmp(b->name, "get_acc_latency") == 0 ? CS_WIN_CREATE : CS_WIN_ALLOCATE;
        cs_rma_sync_t sync = strcmp(b->name, "get_acc_latency") == 0 ? CS_SYNC_LOCK
                             : strcmp(b->name, "put_bibw") == 0      ? CS_SYNC_PSCW
                                                                     : CS_SYNC_FLUSH;
        ok &= p.nwin_modes == 1 && p.win_modes[0] == win && p.nsync_modes == 1 && p.sync_modes[0] == sync;
    } else if (strcmp(family, "pt2pt") == 0) {
        bool lat = b->metric == CS_METRIC_LATENCY;
        ok &= lat ? (it_small == 10000 && wu_small == 100 && it_large == 1000 && wu_large == 10)
                  : (it_small == 100 && wu_small == 10 && it_large == 20 && wu_large == 2);
        ok &= p.min_size == (lat ? 0u : 1u) && p.max_size == (size_t)1 << 22;
        ok &= (b->caps & CS_CAP_WINDOW) ? p.window == 64 : p.window == 1;
    }
    if (!ok) fprintf(stderr, "%s: not OMB's defaults\n", b->name);
    CHECK(ok);
}

int main(void)
{
    CHECK(cs_registry_count() == NDEF);
    for (size_t i = 0; i < NDEF && i < cs_registry_count(); i++) {
        const cs_bench_t *b = cs_registry_at(i);
        if (strcmp(b->name, def[i].name) != 0)
            fprintf(stderr, "registry[%zu] is %s, benchmarks.def says %s\n", i, b->name, def[i].name);
        CHECK(strcmp(b->name, def[i].name) == 0);
        CHECK(cs_registry_find(def[i].name) == b);
        check_family(b, def[i].family);
        check_descriptor(b);
        check_omb_defaults(b, def[i].family);
    }
    CHECK(cs_registry_find("osu_latency") == NULL && cs_registry_find("") == NULL);
    return check_report("test_registry");
}
