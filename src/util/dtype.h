/* The element types a sweep can use (-T) and exactly checkable values in them. MPI-free:
 * the MPI_Datatype for each entry lives with the MPI code (pattern_coll.c). */
#ifndef CS_DTYPE_H
#define CS_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum cs_dtype {
    CS_DT_CHAR,
    CS_DT_INT,
    CS_DT_FLOAT,
    CS_DT_DOUBLE,
    CS_DT_LONG_LONG, /* the one-sided atomics' element; -T does not offer it */
    CS_NDTYPES
} cs_dtype_t;

#define CS_DT_SELECTABLE 4 /* -T chooses among the first four */
#define CS_DT_MASK(t)    (1u << (t))

const char *cs_dtype_name(cs_dtype_t t);   /* "MPI_CHAR": what the tables print */
const char *cs_dtype_option(cs_dtype_t t); /* "mpi_char": what -T takes */
size_t cs_dtype_size(cs_dtype_t t);

/* The largest value every element of the type holds exactly: MPI_CHAR 127 (signed or
 * not), MPI_INT 2^31-1, MPI_FLOAT 2^24, MPI_DOUBLE 2^53. A reduction over n ranks stays
 * exact when each rank contributes at most this / n. */
long long cs_dtype_exact_max(cs_dtype_t t);

void cs_dtype_store(cs_dtype_t t, void *buf, size_t i, long long v);
/* Whether element i equals v, compared in the type itself. */
bool cs_dtype_equals(cs_dtype_t t, const void *buf, size_t i, long long v);

#endif
