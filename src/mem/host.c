/* Host memory, page-aligned so that every size starts on the same alignment as OMB's. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mem/mem.h"

static cs_status_t host_alloc(size_t bytes, void **out)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) page = 4096;
    void *p = NULL;
    if (posix_memalign(&p, (size_t)page, bytes ? bytes : 1) != 0) {
        fprintf(stderr, "commscope-bench: cannot allocate %zu bytes of host memory\n", bytes);
        return CS_TRACE(CS_ERR_RUNTIME);
    }
    memset(p, 0, bytes ? bytes : 1); /* touch every page before timing */
    *out = p;
    return CS_OK;
}

static void host_free(void *p) { free(p); }

static cs_status_t host_copy(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
    return CS_OK;
}

const cs_mem_ops_t cs_mem_host = {"host", host_alloc, host_free, host_copy, host_copy};
