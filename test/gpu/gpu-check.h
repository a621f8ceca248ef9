/* gpu-check.h - helpers for the GPU-on-CPU tests: CUDA calls checked, and
 * arrays compared with a serial reference; a test exits non-zero on any
 * mismatch.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_TEST_GPU_CHECK_H
#define ZY_TEST_GPU_CHECK_H

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

static int gpu_failures;

/* |got - want| <= tol * max(1, |want|), element by element. */
template <typename T>
static void check_array(const char *what, const T *got, const T *want, int n,
                        double tol = 0) {
  int bad = 0;
  for (int i = 0; i < n; i++) {
    double g = (double)got[i], w = (double)want[i];
    double scale = std::fabs(w) > 1 ? std::fabs(w) : 1;
    if (!(std::fabs(g - w) <= tol * scale)) {
      if (bad++ < 5)
        printf("FAIL %s[%d]: got %.17g, want %.17g\n", what, i, g, w);
    }
  }
  if (bad)
    gpu_failures++;
  else
    printf("ok   %s (%d values)\n", what, n);
}

static void check_value(const char *what, double got, double want,
                        double tol = 0) {
  check_array(what, &got, &want, 1, tol);
}

static int gpu_report(void) {
  printf("%d failed\n", gpu_failures);
  return gpu_failures != 0;
}

/* A device copy of n values of host array h. */
template <typename T> static T *to_device(const T *h, int n) {
  T *d;
  CK(cudaMalloc(&d, n * sizeof(T)));
  CK(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T> static void to_host(T *h, const T *d, int n) {
  CK(cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost));
}

#endif
