/* The reference for bench/overhead: the smallest honest MPI loops, written by hand with
 * nothing around them (no options, records or function pointers), timed the way OMB
 * times them: one clock read before and after all timed iterations.
 *   raw_loops latency|bw MIN MAX
 * prints "SIZE VALUE" per size (latency in us, bandwidth in MB/s) with OMB's default
 * iteration counts, so its numbers line up with commscope-bench's defaults. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE 8192
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 4) {
        if (rank == 0) fprintf(stderr, "usage: raw_loops latency|bw MIN MAX\n");
        MPI_Finalize();
        return 2;
    }
    int latency = strcmp(argv[1], "latency") == 0;
    long min = atol(argv[2]), max = atol(argv[3]);
    char *s = aligned_alloc(4096, (size_t)max + 4096), *r = aligned_alloc(4096, (size_t)max + 4096);
    memset(s, 1, (size_t)max);
    memset(r, 0, (size_t)max);
    for (long size = min; size <= max; size = size ? size * 2 : 1) {
        int large = size > LARGE;
        double v = latency ? pingpong(s, r, (int)size, large ? 1000 : 10000, large ? 10 : 100, rank)
                           : window_bw(s, r, (int)size, large ? 20 : 100, large ? 2 : 10, rank);
        if (rank == 0) printf("%ld %.4f\n", size, v);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
