// Enzyme's markers declared the usual CUDA way, as device variables
// defined in this file (`__device__ int enzyme_dup, ...;`): the host side's
// module constructor registers each with __cudaRegisterVar, which is
// neither a use nor an unknown marker, also for the ones the program never
// passes (enzyme_out, enzyme_dupnoneed here).  enzyme_active marks an
// active scalar as enzyme_out does (OUT_DIFF, its name in Enzyme's activity
// strings).  A gradient registered on the device side
// (`__device__ void *__enzyme_register_gradient_cube[3]`) is the device's
// registration; its host copy is skipped.  Gradients against central finite
// differences of the same __host__ __device__ code, -O0 and -O2; built
// for a real GPU too (ptxas takes the PTX), and run where there is one.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %if cuda-native %{ %cuda-native -O0 %s -o %tn0 %}
// RUN: %if cuda-native %{ %cuda-native -O2 %s -o %tn2 %}
// RUN: %if cuda-gpu %{ %tn0 && %tn2 %}
#include "gpu-check.h"

__device__ int enzyme_dup, enzyme_const, enzyme_active, enzyme_out,
    enzyme_dupnoneed;

struct G2 {
  double dx, dz;
};
extern __device__ G2 __enzyme_autodiff(void *, ...);
extern __device__ double __enzyme_autodiff1(void *, ...);

/* cube has a custom gradient on the device: its reverse returns the exact
 * derivative, so the gradient through it matches finite differences. */
__device__ __host__ double cube(double v) { return v * v * v; }
__device__ double cube_aug(double v) { return v * v * v; }
__device__ double cube_rev(double v, double d) { return 3 * v * v * d; }
__device__ void *__enzyme_register_gradient_cube[3] = {
    (void *)cube, (void *)cube_aug, (void *)cube_rev};

/* x and z are active, y constant, p[0..1] dup. */
__device__ __host__ double f(double x, double y, const double *p, double z) {
  return sin(x * y) * p[0] + cube(z) * p[1] + x * z / (1 + y * y);
}

__global__ void grads(const double *x, const double *y, const double *p,
                      double *dp, const double *z, double *dx, double *dz,
                      double *dx1, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double pl[2] = {p[2 * i], p[2 * i + 1]}, dpl[2] = {0, 0};
  G2 g = __enzyme_autodiff((void *)f, enzyme_active, x[i], enzyme_const, y[i],
                           enzyme_dup, pl, dpl, z[i]);
  dx[i] = g.dx;
  dz[i] = g.dz;
  dp[2 * i] = dpl[0];
  dp[2 * i + 1] = dpl[1];
  /* One active argument: the derivative itself; z marked constant. */
  dx1[i] = __enzyme_autodiff1((void *)f, x[i], enzyme_const, y[i],
                              enzyme_const, pl, enzyme_const, z[i]);
}

int main() {
  const int n = 96;
  double x[n], y[n], p[2 * n], z[n], dx[n], dz[n], dp[2 * n], dx1[n];
  double wx[n], wz[n], wp[2 * n];
  for (int i = 0; i < n; i++) {
    x[i] = 0.05 * i - 1.3, y[i] = 0.7 + 0.01 * i, z[i] = 1.1 - 0.02 * i;
    p[2 * i] = 0.3 + 0.004 * i, p[2 * i + 1] = -0.2 + 0.006 * i;
  }
  const double h = 1e-6;
  for (int i = 0; i < n; i++) {
    double *pi = p + 2 * i;
    wx[i] = (f(x[i] + h, y[i], pi, z[i]) - f(x[i] - h, y[i], pi, z[i])) / (2 * h);
    wz[i] = (f(x[i], y[i], pi, z[i] + h) - f(x[i], y[i], pi, z[i] - h)) / (2 * h);
    for (int k = 0; k < 2; k++) {
      double q[2] = {pi[0], pi[1]};
      q[k] = pi[k] + h;
      double up = f(x[i], y[i], q, z[i]);
      q[k] = pi[k] - h;
      wp[2 * i + k] = (up - f(x[i], y[i], q, z[i])) / (2 * h);
    }
  }
  double *d_x = to_device(x, n), *d_y = to_device(y, n), *d_z = to_device(z, n);
  double *d_p = to_device(p, 2 * n), *d_dx, *d_dz, *d_dp, *d_dx1;
  CK(cudaMalloc(&d_dx, sizeof dx));
  CK(cudaMalloc(&d_dz, sizeof dz));
  CK(cudaMalloc(&d_dp, sizeof dp));
  CK(cudaMalloc(&d_dx1, sizeof dx1));
  grads<<<3, 32>>>(d_x, d_y, d_p, d_dp, d_z, d_dx, d_dz, d_dx1, n);
  CK(cudaGetLastError());
  to_host(dx, d_dx, n), to_host(dz, d_dz, n), to_host(dp, d_dp, 2 * n);
  to_host(dx1, d_dx1, n);
  check_array("df/dx (enzyme_active)", dx, wx, n, 1e-7);
  check_array("df/dz (through cube's custom gradient)", dz, wz, n, 1e-7);
  check_array("df/dp (enzyme_dup)", dp, wp, 2 * n, 1e-7);
  check_array("df/dx alone", dx1, wx, n, 1e-7);
  return gpu_report();
}
