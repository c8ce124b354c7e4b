/* cudaMemcpy's own bandwidth on this GPU, the reference for commscope's H->D, D->H and
 * D->D figures: `memcpy_bw [BYTES [ITERATIONS]]` prints one line per direction,
 * "h2d BYTES MB/s" (MB = 10^6 B, as OMB), with page-aligned pageable host memory as
 * commscope's host buffers are. Exit 2 without a GPU. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int check(cudaError_t rc, const char *what)
{
    if (rc == cudaSuccess) return 0;
    fprintf(stderr, "memcpy_bw: %s: %s\n", what, cudaGetErrorString(rc));
    return 1;
}

static int measure(const char *name, void *dst, const void *src, size_t bytes, long iterations,
                   enum cudaMemcpyKind kind)
{
    for (int i = 0; i < 2; i++) /* warm-up */
        if (check(cudaMemcpy(dst, src, bytes, kind), name)) return 1;
    if (check(cudaDeviceSynchronize(), name)) return 1;
    double t0 = now();
    for (long i = 0; i < iterations; i++)
        if (check(cudaMemcpy(dst, src, bytes, kind), name)) return 1;
    if (check(cudaDeviceSynchronize(), name)) return 1;
    double seconds = now() - t0;
    printf("%s %zu %.2f\n", name, bytes, (double)bytes * (double)iterations / seconds / 1e6);
    return 0;
}

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)64 << 20;
    long iterations = argc > 2 ? strtol(argv[2], NULL, 10) : 20;
    if (bytes == 0 || iterations < 1) {
        fprintf(stderr, "usage: memcpy_bw [BYTES [ITERATIONS]]\n");
        return 2;
    }
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0) {
        fprintf(stderr, "memcpy_bw: no NVIDIA GPU (cudaGetDeviceCount: %s)\n",
                rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices");
        return 2;
    }
    void *host = NULL, *dev_a = NULL, *dev_b = NULL;
    if (posix_memalign(&host, (size_t)sysconf(_SC_PAGESIZE), bytes) != 0) return 1;
    memset(host, 1, bytes);
    if (check(cudaMalloc(&dev_a, bytes), "cudaMalloc") || check(cudaMalloc(&dev_b, bytes), "cudaMalloc")) return 1;
    int failed = measure("h2d", dev_a, host, bytes, iterations, cudaMemcpyHostToDevice) ||
                 measure("d2h", host, dev_a, bytes, iterations, cudaMemcpyDeviceToHost) ||
                 measure("d2d", dev_b, dev_a, bytes, iterations, cudaMemcpyDeviceToDevice);
    cudaFree(dev_a);
    cudaFree(dev_b);
    free(host);
    return failed;
}
