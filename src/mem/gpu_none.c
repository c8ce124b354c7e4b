/* A build without CUDA: host memory only, and no GPU to select. */
#include <stdio.h>

#include "mem/gpu.h"
#include "mem/mem.h"

const cs_mem_ops_t *cs_mem_of(cs_mem_kind_t kind) { return kind == CS_MEM_HOST ? &cs_mem_host : NULL; }

bool cs_gpu_built(void) { return false; }

cs_status_t cs_gpu_select(int local_rank, int device, char *err, size_t errlen)
{
    (void)local_rank;
    (void)device;
    snprintf(err, errlen, "GPU buffers are not supported by this build (it was built without CUDA)");
    return CS_ERR_USAGE;
}

cs_status_t cs_gpu_describe(cs_gpu_info_t *info)
{
    (void)info;
    return CS_ERR_USAGE;
}

cs_status_t cs_gpu_stream_create(void **stream)
{
    *stream = NULL;
    return CS_ERR_USAGE;
}

void cs_gpu_stream_destroy(void *stream) { (void)stream; }

cs_status_t cs_gpu_stream_sync(void *stream)
{
    (void)stream;
    return CS_ERR_USAGE;
}
