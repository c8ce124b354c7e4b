/* The GPU a rank uses: whether this build has CUDA, choosing the device (OMB: the local
 * rank modulo the visible devices, before MPI_Init), what it is (for provenance), and the
 * stream and events the NCCL patterns time with. Declared without CUDA types so that the
 * rest of the core never includes the CUDA runtime's header; cuda.c implements it, and
 * gpu_none.c in builds without CUDA. */
#ifndef CS_GPU_H
#define CS_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "util/cs_status.h"

typedef struct cs_gpu_info {
    int device;          /* index among the visible devices (CUDA_VISIBLE_DEVICES) */
    int visible;         /* how many are visible */
    char name[256];      /* "NVIDIA H100 80GB HBM3" (cudaDeviceProp.name) */
    char pci_bus_id[32]; /* "0000:17:00.0" */
    int driver_version;  /* cudaDriverGetVersion: 12040 = 12.4 */
    int runtime_version; /* cudaRuntimeGetVersion */
} cs_gpu_info_t;

/* Whether this build has CUDA. */
bool cs_gpu_built(void);

/* Makes device `device` current, or local_rank % visible when device < 0 (device 0 when
 * local_rank < 0 too), and creates its context. On failure (no driver, no GPU, a bad
 * index) returns CS_ERR_USAGE with one line in err that starts "no NVIDIA GPU (...)" or
 * names the index. */
cs_status_t cs_gpu_select(int local_rank, int device, char *err, size_t errlen);

/* The current device, after cs_gpu_select. */
cs_status_t cs_gpu_describe(cs_gpu_info_t *info);

/* One stream for the NCCL patterns; events time it (milliseconds between two records). */
cs_status_t cs_gpu_stream_create(void **stream);
void cs_gpu_stream_destroy(void *stream);
cs_status_t cs_gpu_stream_sync(void *stream);

#endif
