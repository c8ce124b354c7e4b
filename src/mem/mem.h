/* Where message buffers live. Only the files of mem/ know about a memory type; everything else
 * goes through this table: host memory (host.c) and, in builds with CUDA, device and
 * managed memory (cuda.c, the only file that includes the CUDA runtime's header). */
#ifndef CS_MEM_H
#define CS_MEM_H

#include <stddef.h>

#include "util/cs_status.h"
#include "util/mem_kind.h"

typedef struct cs_mem_ops {
    const char *name;
    cs_status_t (*alloc)(size_t bytes, void **out);
    void (*free)(void *p);
    /* copies between host memory and a buffer of this type (used only outside timed
     * loops); for GPU memory a cudaMemcpy, never a host loop over device memory */
    cs_status_t (*from_host)(void *dst, const void *host_src, size_t bytes);
    cs_status_t (*to_host)(void *host_dst, const void *src, size_t bytes);
} cs_mem_ops_t;

extern const cs_mem_ops_t cs_mem_host;

/* The table of a memory kind, or NULL where this build has none (GPU kinds without CUDA). */
const cs_mem_ops_t *cs_mem_of(cs_mem_kind_t kind);

#endif
