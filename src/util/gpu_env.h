/* What the environment says about the GPU a rank should use, before MPI exists: the
 * launcher's local rank, and the user's override. MPI-free and CUDA-free. */
#ifndef CS_GPU_ENV_H
#define CS_GPU_ENV_H

#include <stddef.h>

#include "util/cs_status.h"
#include "util/opts.h"

/* The local rank the launcher exported, from the first of OMPI_COMM_WORLD_LOCAL_RANK (Open
 * MPI), MPI_LOCALRANKID (MPICH's Hydra), SLURM_LOCALID (srun), MV2_COMM_WORLD_LOCAL_RANK and
 * MVP_COMM_WORLD_LOCAL_RANK (MVAPICH), LOCAL_RANK (OMB's get_local_rank wrapper, or any
 * launcher that exports it) that holds a whole number; -1 when none does. *from names the
 * variable. */
int cs_env_local_rank(const char **from);

/* The GPU asked for: --gpu-device N, else COMMSCOPE_GPU, else -1 (the local rank's).
 * A COMMSCOPE_GPU that is not an index is a usage error naming it. */
cs_status_t cs_gpu_requested(const cs_opts_t *o, int *device, char *err, size_t errlen);

/* Whether the options ask for a GPU at all (-d, or a device word), before planning. */
int cs_opts_want_gpu(const cs_opts_t *o);

#endif
