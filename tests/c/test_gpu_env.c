/* The local rank from the launcher's environment and the GPU override (issue 14). */
#include <stdlib.h>

#include "check.h"
#include "util/gpu_env.h"

static const char *const vars[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "MV2_COMM_WORLD_LOCAL_RANK",
    "MVP_COMM_WORLD_LOCAL_RANK",  "LOCAL_RANK",      "COMMSCOPE_GPU"};

static void clear(void)
{
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
}

int main(void)
{
    const char *from = "x";
    clear();
    CHECK(cs_env_local_rank(&from) == -1 && from == NULL);
    /* OMB's get_local_rank exports LOCAL_RANK; read last, as OMB reads it */
    setenv("LOCAL_RANK", "7", 1);
    CHECK(cs_env_local_rank(&from) == 7 && strcmp(from, "LOCAL_RANK") == 0);
    setenv("MVP_COMM_WORLD_LOCAL_RANK", "6", 1);
    CHECK(cs_env_local_rank(&from) == 6 && strcmp(from, "MVP_COMM_WORLD_LOCAL_RANK") == 0);
    setenv("MV2_COMM_WORLD_LOCAL_RANK", "5", 1);
    CHECK(cs_env_local_rank(&from) == 5 && strcmp(from, "MV2_COMM_WORLD_LOCAL_RANK") == 0);
    setenv("SLURM_LOCALID", "4", 1);
    CHECK(cs_env_local_rank(&from) == 4 && strcmp(from, "SLURM_LOCALID") == 0);
    setenv("MPI_LOCALRANKID", "2", 1);
    CHECK(cs_env_local_rank(&from) == 2 && strcmp(from, "MPI_LOCALRANKID") == 0);
    /* mpirun inside a Slurm job: Open MPI's own variable wins over the inherited SLURM_LOCALID */
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
    CHECK(cs_env_local_rank(&from) == 1 && strcmp(from, "OMPI_COMM_WORLD_LOCAL_RANK") == 0);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "one", 1); /* not a number: the next variable */
    CHECK(cs_env_local_rank(&from) == 2);
    clear();

    cs_opts_t o;
    cs_opts_init(&o);
    char err[256];
    int device = 7;
    CHECK(cs_gpu_requested(&o, &device, err, sizeof err) == CS_OK && device == -1);
    setenv("COMMSCOPE_GPU", "3", 1);
    CHECK(cs_gpu_requested(&o, &device, err, sizeof err) == CS_OK && device == 3);
    o.gpu_device = 1, o.gpu_device_set = true; /* --gpu-device wins */
    CHECK(cs_gpu_requested(&o, &device, err, sizeof err) == CS_OK && device == 1);
    o.gpu_device_set = false;
    setenv("COMMSCOPE_GPU", "gpu0", 1);
    CHECK(cs_gpu_requested(&o, &device, err, sizeof err) == CS_ERR_USAGE && device == -1);
    CHECK_CONTAINS(err, "COMMSCOPE_GPU=gpu0: give a GPU index from 0 to 1023");
    clear();

    CHECK(!cs_opts_want_gpu(&o));
    o.mem_kinds[0] = CS_MEM_HOST, o.mem_kinds[1] = CS_MEM_MANAGED_HOST, o.mem_kinds_set = true;
    CHECK(cs_opts_want_gpu(&o));
    cs_opts_init(&o);
    o.accel = CS_ACCEL_CUDA, o.accel_set = true;
    CHECK(cs_opts_want_gpu(&o));

    return check_report("gpu_env");
}
