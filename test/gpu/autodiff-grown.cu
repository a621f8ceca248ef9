// A device gradient whose loop has a data-dependent exit: the values the
// reverse sweep needs are kept in a buffer grown geometrically, which in
// device code is reallocated by malloc, a copy and free (the device heap
// has no realloc: a native build would not link).  Each thread runs from
// 60 to 200 iterations (several growths); checked against the derivative
// carried along the same loop on the host.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 -mllvm -zymase-print-cache %s -o %t2 2> %t2.report && %t2
// RUN: %FileCheck %s < %t2.report
// CHECK: buffer grown geometrically
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=IR
// IR-LABEL: define {{.*}} @__zymase_grad.
// IR-NOT: @realloc
// IR-DAG: call {{.*}}ptr @zymase.gpu.cache.alloc(
// IR-DAG: call void @llvm.memcpy
// IR-DAG: call void @free(
#include "gpu-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

/* y_i = s: s = x_i; while (s < 100) s *= 1 + 0.05 x_i. */
__device__ void grow(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double s = x[i], r = 1 + 0.05 * x[i];
  while (s < 100)
    s = s * r;
  y[i] = s;
}
__global__ void grow_gradient(const double *x, double *dx, double *y,
                              double *dy, int n) {
  __enzyme_autodiff((void *)grow, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
}

int main() {
  const int n = 200;
  double x[n], dx[n], ones[n], want[n];
  for (int i = 0; i < n; i++) {
    x[i] = 0.5 + 0.005 * i, dx[i] = 0, ones[i] = 1;
    double s = x[i], ds = 1, r = 1 + 0.05 * x[i];
    while (s < 100)
      ds = ds * r + s * 0.05, s = s * r;
    want[i] = ds;
  }
  double *d_x = to_device(x, n), *d_dx = to_device(dx, n);
  double *d_dy = to_device(ones, n), *d_y;
  CK(cudaMalloc(&d_y, n * sizeof(double)));
  grow_gradient<<<4, 64>>>(d_x, d_dx, d_y, d_dy, n);
  CK(cudaGetLastError());
  to_host(dx, d_dx, n);
  check_array("grow: dx", dx, want, n, 1e-12);
  return gpu_report();
}
