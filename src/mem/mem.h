/* Where message buffers live. Only mem_*.c know about a memory type; everything else
 * goes through this table (host now; device memory plugs in as another table). */
#ifndef CS_MEM_H
#define CS_MEM_H

#include <stddef.h>

#include "util/cs_status.h"

typedef struct cs_mem_ops {
    const char *name;
    cs_status_t (*alloc)(size_t bytes, void **out);
    void (*free)(void *p);
    /* copies between host memory and a buffer of this type (used only outside timed loops) */
    cs_status_t (*from_host)(void *dst, const void *host_src, size_t bytes);
    cs_status_t (*to_host)(void *host_dst, const void *src, size_t bytes);
} cs_mem_ops_t;

extern const cs_mem_ops_t cs_mem_host;

#endif
