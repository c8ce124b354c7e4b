#include "core/registry.h"

#include <string.h>

#define CS_BENCH(name, family) extern const cs_bench_t cs_bench_##name;
#define CS_COLLECTIVE(name, family)                                                                                    \
    extern const cs_bench_t cs_bench_##name, cs_bench_i##name, cs_bench_##name##_persistent;
#include "core/benchmarks.def"
#undef CS_BENCH
#undef CS_COLLECTIVE
#if CS_HAVE_NCCL
#define CS_NCCL_BENCH(name) extern const cs_bench_t cs_bench_##name;
#include "core/nccl.def"
#undef CS_NCCL_BENCH
#endif

static const cs_bench_t *const registry[] = {
#define CS_BENCH(name, family)      &cs_bench_##name,
#define CS_COLLECTIVE(name, family) &cs_bench_##name, &cs_bench_i##name, &cs_bench_##name##_persistent,
#include "core/benchmarks.def"
#undef CS_BENCH
#undef CS_COLLECTIVE
#if CS_HAVE_NCCL
#define CS_NCCL_BENCH(name) &cs_bench_##name,
#include "core/nccl.def"
#undef CS_NCCL_BENCH
#endif
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
    int width = 14;
    for (size_t i = 0; i < NBENCH; i++)
        if ((int)strlen(registry[i]->name) > width) width = (int)strlen(registry[i]->name);
    for (size_t i = 0; i < NBENCH; i++) {
        fprintf(out, "%-*s %s", width, registry[i]->name, registry[i]->description);
        if (registry[i]->unavailable) fprintf(out, " [unavailable: %s]", registry[i]->unavailable);
        fputc('\n', out);
    }
}
