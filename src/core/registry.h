/* The benchmarks this program knows, from one const table. */
#ifndef CS_REGISTRY_H
#define CS_REGISTRY_H

#include <stdio.h>

#include "core/bench.h"

const cs_bench_t *cs_registry_find(const char *name);
size_t cs_registry_count(void);
const cs_bench_t *cs_registry_at(size_t i);
void cs_registry_print(FILE *out);

#endif
