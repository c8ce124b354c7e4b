/* GPU memory and the GPU a rank uses, through the CUDA runtime. The only file of the
 * core that includes cuda_runtime.h; built only when CMake finds the CUDA toolkit.
 * Filling and checking go through cudaMemcpy from and to a host staging buffer (the
 * patterns' own), never through a host loop over device memory. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "mem/gpu.h"
#include "mem/mem.h"

static cs_status_t cuda_failed(cudaError_t rc, const char *call)
{
    fprintf(stderr, "commscope-bench: %s: %s\n", call, cudaGetErrorString(rc));
    return CS_ERR_RUNTIME;
}

#define CS_CUDA(call)                                                                                                  \
    do {                                                                                                               \
        cudaError_t cs_rc_ = (call);                                                                                   \
        if (cs_rc_ != cudaSuccess) return cuda_failed(cs_rc_, #call);                                                  \
    } while (0)

static cs_status_t device_alloc(size_t bytes, void **out)
{
    CS_CUDA(cudaMalloc(out, bytes ? bytes : 1));
    CS_CUDA(cudaMemset(*out, 0, bytes ? bytes : 1)); /* as host memory is touched before timing */
    CS_CUDA(cudaDeviceSynchronize());
    return CS_OK;
}

/* managed memory, with the preferred location the word asked for (MD: the device, MH: the host) */
static cs_status_t managed_alloc(size_t bytes, void **out, bool on_device)
{
    size_t n = bytes ? bytes : 1;
    int device = 0;
    CS_CUDA(cudaGetDevice(&device));
    CS_CUDA(cudaMallocManaged(out, n, cudaMemAttachGlobal));
#if CUDART_VERSION >= 13000
    struct cudaMemLocation where = {.type = on_device ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost,
                                    .id = on_device ? device : 0};
#else
    int where = on_device ? device : cudaCpuDeviceId;
#endif
    /* advice is a hint: a device without concurrent managed access refuses it, and the
     * memory still works */
    if (cudaMemAdvise(*out, n, cudaMemAdviseSetPreferredLocation, where) != cudaSuccess) (void)cudaGetLastError();
    CS_CUDA(cudaMemset(*out, 0, n));
    CS_CUDA(cudaDeviceSynchronize());
    return CS_OK;
}

static cs_status_t managed_device_alloc(size_t bytes, void **out) { return managed_alloc(bytes, out, true); }
static cs_status_t managed_host_alloc(size_t bytes, void **out) { return managed_alloc(bytes, out, false); }

static void gpu_free(void *p) { (void)cudaFree(p); }

static cs_status_t gpu_from_host(void *dst, const void *host_src, size_t bytes)
{
    if (bytes == 0) return CS_OK;
    CS_CUDA(cudaMemcpy(dst, host_src, bytes, cudaMemcpyHostToDevice));
    /* from pageable memory cudaMemcpy may return before the DMA lands; work on another
     * stream (NCCL's) must see the data */
    CS_CUDA(cudaDeviceSynchronize());
    return CS_OK;
}

static cs_status_t gpu_to_host(void *host_dst, const void *src, size_t bytes)
{
    if (bytes == 0) return CS_OK;
    CS_CUDA(cudaMemcpy(host_dst, src, bytes, cudaMemcpyDeviceToHost));
    return CS_OK;
}

static const cs_mem_ops_t mem_device = {"device", device_alloc, gpu_free, gpu_from_host, gpu_to_host};
static const cs_mem_ops_t mem_managed_device = {"managed", managed_device_alloc, gpu_free, gpu_from_host, gpu_to_host};
static const cs_mem_ops_t mem_managed_host = {"managed_host", managed_host_alloc, gpu_free, gpu_from_host, gpu_to_host};

const cs_mem_ops_t *cs_mem_of(cs_mem_kind_t kind)
{
    switch (kind) {
    case CS_MEM_HOST: return &cs_mem_host;
    case CS_MEM_DEVICE: return &mem_device;
    case CS_MEM_MANAGED_DEVICE: return &mem_managed_device;
    case CS_MEM_MANAGED_HOST: return &mem_managed_host;
    default: return NULL;
    }
}

bool cs_gpu_built(void) { return true; }

cs_status_t cs_gpu_select(int local_rank, int device, char *err, size_t errlen)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
        snprintf(err, errlen, "no NVIDIA GPU (cudaGetDeviceCount: %s)", cudaGetErrorString(rc));
        return CS_ERR_USAGE;
    }
    if (count == 0) {
        snprintf(err, errlen, "no NVIDIA GPU (cudaGetDeviceCount: 0 devices)");
        return CS_ERR_USAGE;
    }
    if (device >= count) {
        snprintf(err, errlen, "GPU %d was asked for (--gpu-device or COMMSCOPE_GPU), but %d %s visible", device, count,
                 count == 1 ? "is" : "are");
        return CS_ERR_USAGE;
    }
    if (device < 0) device = local_rank >= 0 ? local_rank % count : 0;
    rc = cudaSetDevice(device);
    if (rc == cudaSuccess) rc = cudaFree(NULL); /* creates the context now, before MPI uses it */
    if (rc != cudaSuccess) {
        snprintf(err, errlen, "GPU %d cannot be used (cudaSetDevice: %s)", device, cudaGetErrorString(rc));
        return CS_ERR_USAGE;
    }
    return CS_OK;
}

cs_status_t cs_gpu_describe(cs_gpu_info_t *info)
{
    memset(info, 0, sizeof *info);
    struct cudaDeviceProp prop;
    CS_CUDA(cudaGetDevice(&info->device));
    CS_CUDA(cudaGetDeviceCount(&info->visible));
    CS_CUDA(cudaGetDeviceProperties(&prop, info->device));
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    CS_CUDA(cudaDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, info->device));
    CS_CUDA(cudaDriverGetVersion(&info->driver_version));
    CS_CUDA(cudaRuntimeGetVersion(&info->runtime_version));
    return CS_OK;
}

cs_status_t cs_gpu_stream_create(void **stream)
{
    cudaStream_t s;
    CS_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    *stream = s;
    return CS_OK;
}

void cs_gpu_stream_destroy(void *stream)
{
    if (stream) (void)cudaStreamDestroy((cudaStream_t)stream);
}

cs_status_t cs_gpu_stream_sync(void *stream)
{
    CS_CUDA(cudaStreamSynchronize((cudaStream_t)stream));
    return CS_OK;
}
