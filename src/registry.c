#include "registry.h"

#include <string.h>

extern const cs_bench_t cs_bench_latency, cs_bench_bw, cs_bench_bibw, cs_bench_mbw_mr, cs_bench_multi_lat;

static const cs_bench_t *const registry[] = {
    &cs_bench_latency, &cs_bench_bw, &cs_bench_bibw, &cs_bench_mbw_mr, &cs_bench_multi_lat,
};

#define NBENCH (sizeof registry / sizeof registry[0])

const cs_bench_t *cs_registry_find(const char *name)
{
    for (size_t i = 0; i < NBENCH; i++)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}

size_t cs_registry_count(void) { return NBENCH; }

const cs_bench_t *cs_registry_at(size_t i) { return i < NBENCH ? registry[i] : NULL; }

void cs_registry_print(FILE *out)
{
    for (size_t i = 0; i < NBENCH; i++) fprintf(out, "%-14s %s\n", registry[i]->name, registry[i]->description);
}
