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

/* An element in the C type of its MPI type; the first cs_dtype_size(t) bytes are the
 * element's bytes, every member starting at the union's first byte. */
typedef union element {
    char c;
    int i;
    float f;
    double d;
    long long ll;
} element_t;

/* v converted to type t, as an element of that type holds it */
static element_t element_of(cs_dtype_t t, long long v)
{
    element_t e = {0};
    switch (t) {
    case CS_DT_CHAR: e.c = (char)v; break;
    case CS_DT_INT: e.i = (int)v; break;
    case CS_DT_FLOAT: e.f = (float)v; break;
    case CS_DT_DOUBLE: e.d = (double)v; break;
    default: e.ll = v; break;
    }
    return e;
}

/* memcpy, not a cast of the pointer: buffers are only byte-aligned in general */
void cs_dtype_store(cs_dtype_t t, void *buf, size_t i, long long v)
{
    element_t e = element_of(t, v);
    memcpy((char *)buf + i * types[t].size, &e, types[t].size);
}

bool cs_dtype_equals(cs_dtype_t t, const void *buf, size_t i, long long v)
{
    element_t got = {0}, want = element_of(t, v);
    memcpy(&got, (const char *)buf + i * types[t].size, types[t].size);
    switch (t) {
    case CS_DT_CHAR: return got.c == want.c;
    case CS_DT_INT: return got.i == want.i;
    case CS_DT_FLOAT: return got.f == want.f;
    case CS_DT_DOUBLE: return got.d == want.d;
    default: return got.ll == want.ll;
    }
}
