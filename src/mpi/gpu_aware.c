/* Open MPI answers MPIX_Query_cuda_support() (mpi-ext.h), MPICH 4
 * MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &flag); CMake finds which one the library
 * has (CS_HAVE_MPIX_QUERY_CUDA, CS_HAVE_MPIX_GPU_QUERY). A library with neither cannot be
 * asked. */
#include "mpi/gpu_aware.h"

#include <mpi.h>
#include <stdio.h>
#if CS_HAVE_MPIX_QUERY_CUDA
#include <mpi-ext.h>
#endif

cs_cuda_aware_t cs_mpi_cuda_aware(char *how, size_t howlen)
{
#if CS_HAVE_MPIX_QUERY_CUDA
    snprintf(how, howlen, "MPIX_Query_cuda_support()");
    return MPIX_Query_cuda_support() ? CS_CUDA_AWARE_YES : CS_CUDA_AWARE_NO;
#elif CS_HAVE_MPIX_GPU_QUERY
    int flag = 0;
    snprintf(how, howlen, "MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA)");
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &flag) != MPI_SUCCESS) return CS_CUDA_AWARE_UNKNOWN;
    return flag ? CS_CUDA_AWARE_YES : CS_CUDA_AWARE_NO;
#else
    snprintf(how, howlen, "this MPI library has neither MPIX_Query_cuda_support nor MPIX_GPU_query_support");
    return CS_CUDA_AWARE_UNKNOWN;
#endif
}
