/* The reference for performance/overhead: the smallest honest MPI loops, written by hand with
 * nothing around them (no options, records or function pointers), timed the way OMB
 * times them: one clock read before and after all timed iterations.
 *   raw_loops latency|bw|allreduce|bcast|put_latency MIN MAX [ITERATIONS]
 * prints "SIZE VALUE" per size (latency in us, bandwidth in MB/s) with OMB's default
 * iteration counts, so its numbers line up with commscope-bench's defaults; ITERATIONS
 * replaces them (instructions.py counts instructions at two iteration counts). Collectives
 * are timed as osu_allreduce does (t_start; MPI_Allreduce; t_stop; MPI_Barrier) and report
 * the mean over ranks of each rank's mean; put_latency as osu_put_latency's default
 * (MPI_Win_allocate, one lock, MPI_Put + MPI_Win_flush per iteration). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE  8192
#define WINDOW 64

static double pingpong(char *s, char *r, int size, int iters, int skip, int rank)
{
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip) t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(s, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(r, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(r, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
}

static double window_bw(char *s, char *r, int size, int iters, int skip, int rank)
{
    MPI_Request req[WINDOW];
    char ack = 0;
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip) t0 = MPI_Wtime();
        if (rank == 0) {
            for (int w = 0; w < WINDOW; w++) MPI_Isend(s, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &req[w]);
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < WINDOW; w++) MPI_Irecv(r, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &req[w]);
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    return (double)size * WINDOW * iters / t / 1e6;
}

/* osu_allreduce / osu_bcast: a barrier after every timed call, outside the clock. */
static double collective(char *s, char *r, int size, int iters, int skip, int bcast)
{
    double timer = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
        double t0 = MPI_Wtime();
        if (bcast) MPI_Bcast(s, size, MPI_CHAR, 0, MPI_COMM_WORLD);
        else MPI_Allreduce(s, r, size, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        if (i >= skip) timer += t1 - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double mean = timer * 1e6 / iters, sum = 0;
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Reduce(&mean, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return sum / n;
}

/* osu_put_latency's default: MPI_Win_allocate, MPI_Win_flush; rank 0 times all iterations. */
static double put_flush(char *s, int size, int iters, int skip, int rank)
{
    char *base;
    MPI_Win win;
    MPI_Win_allocate(size > 64 ? size : 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    double t0 = 0, t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        for (int i = 0; i < iters + skip; i++) {
            if (i == skip) t0 = MPI_Wtime();
            MPI_Put(s, size, MPI_CHAR, 1, 0, size, MPI_CHAR, win);
            MPI_Win_flush(1, win);
        }
        t = MPI_Wtime() - t0;
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    return t * 1e6 / iters;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 4 && argc != 5) {
        if (rank == 0)
            fprintf(stderr, "usage: raw_loops latency|bw|allreduce|bcast|put_latency MIN MAX [ITERATIONS]\n");
        MPI_Finalize();
        return 2;
    }
    const char *bench = argv[1];
    long min = atol(argv[2]), max = atol(argv[3]);
    int fixed_iters = argc == 5 ? atoi(argv[4]) : 0;
    char *s = aligned_alloc(4096, (size_t)max + 4096), *r = aligned_alloc(4096, (size_t)max + 4096);
    memset(s, 1, (size_t)max);
    memset(r, 0, (size_t)max);
    for (long size = min; size <= max; size = size ? size * 2 : 1) {
        int large = size > LARGE, n = (int)size;
        int lat_iters = fixed_iters ? fixed_iters : large ? 1000 : 10000;
        int bw_iters = fixed_iters ? fixed_iters : large ? 20 : 100;
        int coll_iters = fixed_iters ? fixed_iters : large ? 100 : 1000;
        double v;
        if (strcmp(bench, "latency") == 0) v = pingpong(s, r, n, lat_iters, large ? 10 : 100, rank);
        else if (strcmp(bench, "bw") == 0) v = window_bw(s, r, n, bw_iters, large ? 2 : 10, rank);
        else if (strcmp(bench, "put_latency") == 0) v = put_flush(s, n, lat_iters, large ? 10 : 100, rank);
        else v = collective(s, r, n, coll_iters, large ? 10 : 100, strcmp(bench, "bcast") == 0);
        if (rank == 0) printf("%ld %.6g\n", size, v);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
