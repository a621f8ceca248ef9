// The plugin runs on the device IR in GPU-on-CPU mode, as in a real GPU
// build: each GPU thread calls __enzyme_autodiff on a __device__ function
// of its own scalars (active arguments, no shared shadow memory), and the
// gradients match closed forms.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
#include "gpu-check.h"

struct Grad {
  double dx, dy;
};
/* Without markers: the double arguments are active (markers, globals of
 * the device address space, are device AD's business, issue 18). */
extern __device__ Grad __enzyme_autodiff(void *, ...);

/* Arithmetic only: libdevice's __nv_* math has no derivative rules yet. */
__device__ double f(double x, double y) { return x * x * y + x / y + y * y * y; }

__global__ void gradients(const double *x, const double *y, double *dx,
                          double *dy, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Grad g = __enzyme_autodiff((void *)f, x[i], y[i]);
    dx[i] = g.dx;
    dy[i] = g.dy;
  }
}

int main() {
  const int n = 200;
  double x[n], y[n], dx[n], dy[n], wx[n], wy[n];
  for (int i = 0; i < n; i++) {
    x[i] = 0.01 * i - 1, y[i] = 0.5 + 0.003 * i;
    wx[i] = 2 * x[i] * y[i] + 1 / y[i];
    wy[i] = x[i] * x[i] - x[i] / (y[i] * y[i]) + 3 * y[i] * y[i];
  }
  double *d_x = to_device(x, n), *d_y = to_device(y, n), *d_dx, *d_dy;
  CK(cudaMalloc(&d_dx, sizeof dx));
  CK(cudaMalloc(&d_dy, sizeof dy));
  gradients<<<4, 64>>>(d_x, d_y, d_dx, d_dy, n);
  CK(cudaGetLastError());
  to_host(dx, d_dx, n), to_host(dy, d_dy, n);
  check_array("df/dx per thread", dx, wx, n, 1e-12);
  check_array("df/dy per thread", dy, wy, n, 1e-12);
  return gpu_report();
}
