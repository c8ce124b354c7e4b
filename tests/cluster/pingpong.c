/* Two-rank ping-pong for the virtual-cluster tests: prints where each rank runs, then
 * the one-way latency (half the round trip) and the bandwidth at one message size.
 *   pingpong [SIZE [ITERATIONS]]      defaults: 8 bytes, 1000 round trips */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "pingpong: needs exactly 2 ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bytes = argc > 1 ? atol(argv[1]) : 8;
    int iters = argc > 2 ? atoi(argv[2]) : 1000;
    char host[MPI_MAX_PROCESSOR_NAME], other[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(host, &len);
    MPI_Sendrecv(host, sizeof host, MPI_CHAR, 1 - rank, 0, other, sizeof other, MPI_CHAR,
                 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
    memset(buf, rank, bytes > 0 ? (size_t)bytes : 1);
    for (int warm = 0; warm < 2; warm++) {
        int n = warm == 0 ? (iters < 10 ? iters : 10) : iters;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(buf, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        if (warm == 1 && rank == 0) {
            double one_way = t / (2.0 * iters);
            printf("rank0=%s rank1=%s bytes=%ld iterations=%d latency_us=%.2f MBps=%.1f\n",
                   host, other, bytes, iters, one_way * 1e6, bytes / one_way / 1e6);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
