/* The registry the program is built from (CMake's cs_registry_pure) against
 * src/core/benchmarks.def: every line there is a descriptor here, in --list order, and
 * every descriptor is whole and plans with OMB's defaults. */
#include <string.h>

#include "check.h"
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
    CHECK(strcmp(family, "pt2pt") == 0 || want != 0);
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
    int nranks = (b->caps & CS_CAP_NEIGHBOR) ? 3 : 2;
    cs_status_t st = cs_bench_plan(b, &o, nranks, &p, err, sizeof err);
    if (st != CS_OK) fprintf(stderr, "%s: default plan: %s\n", b->name, err);
    CHECK(st == CS_OK);
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
    }
    CHECK(cs_registry_find("osu_latency") == NULL && cs_registry_find("") == NULL);
    return check_report("test_registry");
}
