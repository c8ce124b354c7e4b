#define _GNU_SOURCE /* sched_getaffinity */
#include "mpi/provenance.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi/check.h"
#include "util/cpulist.h"

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

/* What each rank tells rank 0 about where it runs. */
typedef struct where {
    char name[MPI_MAX_PROCESSOR_NAME];
    char affinity[CS_AFFINITY_LEN]; /* the CPUs this rank may run on: the binding in effect */
    int cpu_count;
} where_t;

static void where_am_i(where_t *w)
{
    int len;
    memset(w, 0, sizeof *w);
    MPI_Get_processor_name(w->name, &len);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    w->cpu_count = online > 0 ? (int)online : 0;
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int cpus[CPU_SETSIZE], n = 0;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) cpus[n++] = c;
        cs_cpulist_format(cpus, n, w->affinity, sizeof w->affinity);
    }
#endif
}

/* Rank 0 groups the gathered places into hosts, in order of first rank. */
static cs_status_t group_hosts(const where_t *all, int nranks, cs_run_info_t *info)
{
    info->hosts = calloc((size_t)nranks, sizeof *info->hosts);
    if (info->hosts == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    info->nhosts = 0;
    for (int r = 0; r < nranks; r++) {
        const where_t *w = &all[r];
        int h = 0;
        while (h < info->nhosts && strcmp(info->hosts[h].name, w->name) != 0) h++;
        cs_host_t *host = &info->hosts[h];
        if (h == info->nhosts) {
            snprintf(host->name, sizeof host->name, "%s", w->name);
            host->ranks = calloc((size_t)nranks, sizeof *host->ranks);
            host->affinity = calloc((size_t)nranks, sizeof *host->affinity);
            if (host->ranks == NULL || host->affinity == NULL) return CS_TRACE(CS_ERR_RUNTIME);
            host->cpu_count = w->cpu_count;
            info->nhosts++;
        }
        memcpy(host->affinity[host->nranks], w->affinity, sizeof w->affinity);
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

    where_t me, *all = NULL;
    where_am_i(&me);
    if (rank == 0) {
        all = calloc((size_t)info->nranks, sizeof *all);
        if (all == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    }
    int rc = MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, comm);
    cs_status_t st = rc == MPI_SUCCESS ? CS_OK : CS_TRACE(CS_ERR_RUNTIME);
    if (st == CS_OK && rank == 0) st = group_hosts(all, info->nranks, info);
    free(all);
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
    for (int h = 0; h < info->nhosts; h++) {
        free(info->hosts[h].ranks);
        free(info->hosts[h].affinity);
    }
    free(info->hosts);
    free((void *)info->environment);
    free(info->gpus);
    info->gpus = NULL;
    info->ngpus = 0;
    info->hosts = NULL;
    info->environment = NULL;
    info->nhosts = info->nenvironment = 0;
}
