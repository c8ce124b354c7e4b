#include "util/gpu_env.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "util/error.h"

static int whole_number(const char *s, int *out)
{
    if (s == NULL || *s < '0' || *s > '9') return 0;
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v > INT_MAX) return 0;
    *out = (int)v;
    return 1;
}

int cs_env_local_rank(const char **from)
{
    /* the MPI launchers' own first: inside a Slurm allocation mpirun's processes inherit
     * the batch step's SLURM_LOCALID, which is not theirs; LOCAL_RANK last, as OMB reads it
     * (its get_local_rank wrapper, compat/get_local_rank here, exports it) */
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",           "SLURM_LOCALID",
                                       "MV2_COMM_WORLD_LOCAL_RANK",  "MVP_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        int v;
        if (whole_number(getenv(vars[i]), &v)) {
            if (from) *from = vars[i];
            return v;
        }
    }
    if (from) *from = NULL;
    return -1;
}

cs_status_t cs_gpu_requested(const cs_opts_t *o, int *device, char *err, size_t errlen)
{
    *device = -1;
    if (o->gpu_device_set) {
        *device = o->gpu_device;
        return CS_OK;
    }
    const char *env = getenv("COMMSCOPE_GPU");
    if (env == NULL || *env == '\0') return CS_OK;
    if (!whole_number(env, device) || *device > 1023) {
        *device = -1;
        return cs_usage_error(err, errlen, "COMMSCOPE_GPU=%s: give a GPU index from 0 to 1023", env);
    }
    return CS_OK;
}

int cs_opts_want_gpu(const cs_opts_t *o)
{
    if (o->accel_set && o->accel != CS_ACCEL_NONE) return 1;
    return o->mem_kinds_set && (o->mem_kinds[0] != CS_MEM_HOST || o->mem_kinds[1] != CS_MEM_HOST);
}
