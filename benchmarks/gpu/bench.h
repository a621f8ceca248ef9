/* bench.h - shared by the GPU-on-CPU benchmarks: timing, checks, and the
 * one line each prints ("<name>: serial <ms> ms, gpu-on-cpu <ms> ms").
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_BENCH_GPU_H
#define ZY_BENCH_GPU_H

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_));                  \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

static double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch())
      .count();
}

/* The largest relative difference between a and b; exits when above tol. */
template <typename T>
static void agree(const char *name, const T *a, const T *b, long n,
                  double tol) {
  double worst = 0;
  for (long i = 0; i < n; i++) {
    double d = std::fabs((double)a[i] - (double)b[i]) /
               std::fmax(1.0, std::fabs((double)b[i]));
    worst = d > worst ? d : worst;
  }
  if (!(worst <= tol)) {
    printf("FAIL %s: the kernel and the serial code differ by %g\n", name,
           worst);
    exit(1);
  }
}

static void report(const char *name, double serial_ms, double gpu_ms) {
  printf("%s: serial %.2f ms, gpu-on-cpu %.2f ms (x%.1f)\n", name, serial_ms,
         gpu_ms, gpu_ms / serial_ms);
}

#endif
