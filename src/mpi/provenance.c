#include "mpi/provenance.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/check.h"

/* Variables that select or tune the MPI transport or identify the job. */
static const char *const kept_prefixes[] = {
    "OMPI_MCA_",
    "MPICH_",
    "MPIR_CVAR_",
    "UCX_",
    "FI_",
    "I_MPI_",
    "PSM2_",
    "HYDRA_",
    "LD_PRELOAD=",
    "SLURM_JOB_ID=",
    "SLURM_JOB_NODELIST=",
    "SLURM_NNODES=",
    "SLURM_NTASKS=",
    "OMP_NUM_THREADS=",
    "CUDA_VISIBLE_DEVICES=",
};

static bool kept(const char *entry)
{
    for (size_t i = 0; i < sizeof kept_prefixes / sizeof kept_prefixes[0]; i++)
        if (strncmp(entry, kept_prefixes[i], strlen(kept_prefixes[i])) == 0) return true;
    return false;
}

static cs_status_t filter_environment(char **envp, cs_run_info_t *info)
{
    size_t n = 0;
    for (char **e = envp; e && *e; e++) n += kept(*e);
    const char **list = calloc(n + 1, sizeof *list);
    if (list == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    n = 0;
    for (char **e = envp; e && *e; e++)
        if (kept(*e)) list[n++] = *e;
    info->environment = list;
    info->nenvironment = (int)n;
    return CS_OK;
}

static void read_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *colon = strchr(line, ':');
        if (colon == NULL) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        snprintf(buf, len, "%s", colon);
        buf[strcspn(buf, "\n")] = '\0';
        break;
    }
    fclose(f);
}

void cs_utc_now(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Rank 0 groups the gathered processor names into hosts, in order of first rank. */
static cs_status_t group_hosts(const char *names, int nranks, cs_run_info_t *info)
{
    info->hosts = calloc((size_t)nranks, sizeof *info->hosts);
    if (info->hosts == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    info->nhosts = 0;
    for (int r = 0; r < nranks; r++) {
        const char *name = names + (size_t)r * MPI_MAX_PROCESSOR_NAME;
        int h = 0;
        while (h < info->nhosts && strcmp(info->hosts[h].name, name) != 0) h++;
        cs_host_t *host = &info->hosts[h];
        if (h == info->nhosts) {
            snprintf(host->name, sizeof host->name, "%s", name);
            host->ranks = calloc((size_t)nranks, sizeof *host->ranks);
            if (host->ranks == NULL) return CS_TRACE(CS_ERR_RUNTIME);
            info->nhosts++;
        }
        host->ranks[host->nranks++] = r;
    }
    return CS_OK;
}

/* Which GPU each rank uses, gathered on rank 0 (as bytes: the struct is plain data). */
static cs_status_t gather_gpus(MPI_Comm comm, int rank, cs_run_info_t *info)
{
    cs_gpu_info_t mine;
    CS_CHECK(cs_gpu_describe(&mine));
    if (rank == 0) {
        info->gpus = calloc((size_t)info->nranks, sizeof *info->gpus);
        if (info->gpus == NULL) return CS_TRACE(CS_ERR_RUNTIME);
        info->ngpus = info->nranks;
    }
    CS_MPI(MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, info->gpus, (int)sizeof mine, MPI_BYTE, 0, comm));
    return CS_OK;
}

cs_status_t cs_provenance_collect(MPI_Comm comm, char **envp, cs_run_info_t *info)
{
    int rank, len, major, minor;
    CS_MPI(MPI_Comm_rank(comm, &rank));
    CS_MPI(MPI_Comm_size(comm, &info->nranks));
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    CS_MPI(MPI_Get_library_version(library, &len));
    library[strcspn(library, "\n")] = '\0'; /* the first line names library and version */
    size_t keep = strlen(library) < sizeof info->mpi_library ? strlen(library) : sizeof info->mpi_library - 1;
    memcpy(info->mpi_library, library, keep);
    info->mpi_library[keep] = '\0';
    CS_MPI(MPI_Get_version(&major, &minor));
    snprintf(info->mpi_standard, sizeof info->mpi_standard, "%d.%d", major, minor);

    char me[MPI_MAX_PROCESSOR_NAME] = {0};
    CS_MPI(MPI_Get_processor_name(me, &len));
    char *names = NULL;
    if (rank == 0) {
        names = calloc((size_t)info->nranks, MPI_MAX_PROCESSOR_NAME);
        if (names == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    }
    int rc = MPI_Gather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
    cs_status_t st = rc == MPI_SUCCESS ? CS_OK : CS_TRACE(CS_ERR_RUNTIME);
    if (st == CS_OK && rank == 0) st = group_hosts(names, info->nranks, info);
    free(names);
    CS_CHECK(st);
    if (rank == 0) {
        read_cpu_model(info->cpu_model, sizeof info->cpu_model);
        CS_CHECK(filter_environment(envp, info));
    }
    if (info->plan->gpu) CS_CHECK(gather_gpus(comm, rank, info));
    return CS_OK;
}

void cs_provenance_free(cs_run_info_t *info)
{
    for (int h = 0; h < info->nhosts; h++) free(info->hosts[h].ranks);
    free(info->hosts);
    free((void *)info->environment);
    free(info->gpus);
    info->gpus = NULL;
    info->ngpus = 0;
    info->hosts = NULL;
    info->environment = NULL;
    info->nhosts = info->nenvironment = 0;
}
