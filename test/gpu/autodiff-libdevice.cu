// Device math with CUDA's libdevice linked, as for a real GPU: the
// plugin keeps libdevice's functions calls until the gradients are made
// (their rules apply; their bodies of nvvm arithmetic are not
// differentiated), the math the derivatives need (cos for sin, ...) is
// linked from libdevice, and all of it is inlined after AD
// (gpu/device_math.c).  Run here with --libdevice, whose runtime emulates
// libdevice's nvvm arithmetic, and as usual (-nocudalib, the runtime's
// __nv_* on libm): double and float gradients of a sum of math functions
// against central finite differences of the same kernel, -O0 and -O2;
// built for a real GPU too (sm_80; ptxas must accept it), and run there
// when nvidia-smi finds one.
// REQUIRES: cuda
// RUN: %gpu-clang --libdevice -O0 %s -o %t0 && %t0
// RUN: %gpu-clang --libdevice -O2 %s -o %t2 && %t2
// RUN: %gpu-clang -O2 %s -o %th && %th
// For a real GPU: ptxas takes the PTX (-O0 and -O2); run where a GPU is.
// RUN: %if cuda-native %{ %cuda-native -O0 %s -o %tn0 %}
// RUN: %if cuda-native %{ %cuda-native -O2 %s -o %tn2 %}
// RUN: %if cuda-gpu %{ %tn0 && %tn2 %}
#include "gpu-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

template <typename T> __device__ __host__ T g(T x) {
  return sin(x) * tanh(x) + log1p(x * x) + pow(x, (T)1.5) + atan2(x, (T)2) +
         exp(-x) * cos(x) + erf(x) + cbrt(x) + sqrt(x) / (1 + x) +
         asinh(x) * log(x) + exp2(x / 3) + tan(x / 4);
}

template <typename T> __device__ void f(const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = g(x[i]);
}
template <typename T>
__global__ void primal(const T *x, T *y, int n) {
  f(x, y, n);
}
template <typename T>
__global__ void gradient(const T *x, T *dx, T *y, T *dy, int n) {
  __enzyme_autodiff((void *)f<T>, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
}

template <typename T> static void test(const char *what, double h, double tol) {
  const int n = 300;
  T x[n], dx[n], ones[n], yp[n], ym[n], xp[n], xm[n];
  for (int i = 0; i < n; i++) {
    x[i] = (T)(0.2 + 0.01 * i), dx[i] = 0, ones[i] = 1;
    xp[i] = x[i] + (T)h, xm[i] = x[i] - (T)h;
  }
  T *d_x = to_device(x, n), *d_dx = to_device(dx, n), *d_dy = to_device(ones, n);
  T *d_y, *d_xp = to_device(xp, n), *d_xm = to_device(xm, n);
  CK(cudaMalloc(&d_y, n * sizeof(T)));
  gradient<T><<<(n + 63) / 64, 64>>>(d_x, d_dx, d_y, d_dy, n);
  CK(cudaGetLastError());
  to_host(dx, d_dx, n);
  /* Central differences of the same device code. */
  primal<T><<<(n + 63) / 64, 64>>>(d_xp, d_y, n);
  to_host(yp, d_y, n);
  primal<T><<<(n + 63) / 64, 64>>>(d_xm, d_y, n);
  to_host(ym, d_y, n);
  double got[n], want[n];
  for (int i = 0; i < n; i++)
    got[i] = dx[i], want[i] = ((double)yp[i] - (double)ym[i]) / (2 * h);
  check_array(what, got, want, n, tol);
  cudaFree(d_x), cudaFree(d_dx), cudaFree(d_dy), cudaFree(d_y);
  cudaFree(d_xp), cudaFree(d_xm);
}

int main() {
  test<double>("double: dx vs central differences", 1e-6, 1e-7);
  test<float>("float: dx vs central differences", 1e-2, 2e-3);
  return gpu_failures ? 1 : 0;
}
