/* Whether the MPI library takes GPU memory (CUDA-aware), asked of the library itself. */
#ifndef CS_GPU_AWARE_H
#define CS_GPU_AWARE_H

#include <stddef.h>

typedef enum cs_cuda_aware { CS_CUDA_AWARE_NO, CS_CUDA_AWARE_YES, CS_CUDA_AWARE_UNKNOWN } cs_cuda_aware_t;

/* After MPI_Init. `how` names the question asked ("MPIX_Query_cuda_support()"), or why
 * none could be. */
cs_cuda_aware_t cs_mpi_cuda_aware(char *how, size_t howlen);

#endif
