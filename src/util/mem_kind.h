/* Where buffers live: the vocabulary of mem/, the plan and the options (-d, OMB's trailing
 * H/D/M words). MPI-free. */
#ifndef CS_MEM_KIND_H
#define CS_MEM_KIND_H

/* Where a side's buffer lives, as OMB's trailing arguments name it (`osu_latency D H`):
 * H host, D device, M or MD managed memory preferring the device, MH preferring the host. */
typedef enum cs_mem_kind {
    CS_MEM_HOST,
    CS_MEM_DEVICE,
    CS_MEM_MANAGED_DEVICE,
    CS_MEM_MANAGED_HOST,
    CS_NMEM_KINDS
} cs_mem_kind_t;

/* -d: OMB's accelerator. CUDA device memory (cudaMalloc), or managed memory
 * (cudaMallocManaged) for the device words. */
typedef enum cs_accel { CS_ACCEL_NONE, CS_ACCEL_CUDA, CS_ACCEL_MANAGED } cs_accel_t;

const char *cs_accel_name(cs_accel_t a);       /* "none", "cuda", "managed" */
const char *cs_mem_kind_name(cs_mem_kind_t k); /* "host", "device", "managed", "managed_host" */

#endif
