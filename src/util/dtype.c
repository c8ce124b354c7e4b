#include "util/dtype.h"

#include <string.h>

static const struct {
    const char *name, *option;
    size_t size;
    long long exact_max;
} types[CS_NDTYPES] = {
    [CS_DT_CHAR] = {"MPI_CHAR", "mpi_char", 1, 127},
    [CS_DT_INT] = {"MPI_INT", "mpi_int", sizeof(int), 2147483647LL},
    [CS_DT_FLOAT] = {"MPI_FLOAT", "mpi_float", sizeof(float), 1LL << 24},
    [CS_DT_DOUBLE] = {"MPI_DOUBLE", "mpi_double", sizeof(double), 1LL << 53},
    [CS_DT_LONG_LONG] = {"MPI_LONG_LONG", "mpi_long_long", sizeof(long long), 1LL << 62},
};

const char *cs_dtype_name(cs_dtype_t t) { return types[t].name; }
const char *cs_dtype_option(cs_dtype_t t) { return types[t].option; }
size_t cs_dtype_size(cs_dtype_t t) { return types[t].size; }
long long cs_dtype_exact_max(cs_dtype_t t) { return types[t].exact_max; }

/* memcpy, not a cast of the pointer: buffers are only byte-aligned in general */
void cs_dtype_store(cs_dtype_t t, void *buf, size_t i, long long v)
{
    char *at = (char *)buf + i * types[t].size;
    switch (t) {
    case CS_DT_CHAR: {
        char x = (char)v;
        memcpy(at, &x, sizeof x);
        break;
    }
    case CS_DT_INT: {
        int x = (int)v;
        memcpy(at, &x, sizeof x);
        break;
    }
    case CS_DT_FLOAT: {
        float x = (float)v;
        memcpy(at, &x, sizeof x);
        break;
    }
    case CS_DT_DOUBLE: {
        double x = (double)v;
        memcpy(at, &x, sizeof x);
        break;
    }
    default: memcpy(at, &v, sizeof v); break;
    }
}

bool cs_dtype_equals(cs_dtype_t t, const void *buf, size_t i, long long v)
{
    const char *at = (const char *)buf + i * types[t].size;
    switch (t) {
    case CS_DT_CHAR: {
        char x;
        memcpy(&x, at, sizeof x);
        return x == (char)v;
    }
    case CS_DT_INT: {
        int x;
        memcpy(&x, at, sizeof x);
        return x == (int)v;
    }
    case CS_DT_FLOAT: {
        float x;
        memcpy(&x, at, sizeof x);
        return x == (float)v;
    }
    case CS_DT_DOUBLE: {
        double x;
        memcpy(&x, at, sizeof x);
        return x == (double)v;
    }
    default: {
        long long x;
        memcpy(&x, at, sizeof x);
        return x == v;
    }
    }
}
