// The kernels of accumulate-math-inactive.cu, numerically: a decay fit
// through libdevice's exp, whose two parameters every thread reads (one
// atomic per block), and an elementwise map reading an `enzyme_const`
// input that may overlap the thread's element (plain adds), with the
// constant input also the very array differentiated (c == x: its loads
// still carry no adjoint). Closed forms; blocks of 32, 100 and 128;
// ThreadSanitizer proves the plain adds race-free.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %s -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt %}
#include "gpu-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

__device__ double decay(const double *p, const double *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double r = p[0] * exp(-p[1] * t[i]) - 1;
  return r * r;
}
__global__ void k_decay(const double *p, double *dp, const double *t) {
  __enzyme_autodiff((void *)decay, enzyme_dup, p, dp, enzyme_const, t);
}

__device__ void scale(const double *x, double *y, const double *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sin(x[i]) * c[i] * c[i + 1];
}
__global__ void k_scale(const double *x, double *dx, double *y, double *dy,
                        const double *c, int n) {
  __enzyme_autodiff((void *)scale, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, c, enzyme_const, n);
}

static const int N = 1000;

static void test_decay(int bs, int blocks) {
  int n = bs * blocks;
  static double t[N];
  double p[2] = {2.0, 0.7}, dp[2] = {0.25, 0};
  for (int i = 0; i < n; i++)
    t[i] = 0.003 * i;
  double *d_p = to_device(p, 2), *d_dp = to_device(dp, 2);
  double *d_t = to_device(t, n);
  k_decay<<<blocks, bs>>>(d_p, d_dp, d_t);
  CK(cudaGetLastError());
  to_host(dp, d_dp, 2);
  double want[2] = {0.25, 0};
  for (int i = 0; i < n; i++) {
    double e = exp(-p[1] * t[i]), r = p[0] * e - 1;
    want[0] += 2 * r * e;
    want[1] += 2 * r * p[0] * e * -t[i];
  }
  char what[64];
  snprintf(what, sizeof what, "decay, %d blocks of %d: dp", blocks, bs);
  check_array(what, dp, want, 2, 1e-11);
  cudaFree(d_p), cudaFree(d_dp), cudaFree(d_t);
}

/* c separate from x, or c == x (then y_i = sin(x_i) x_i x_{i+1}, but the
 * loads through c are constant: dx_i = cos(x_i) c_i c_{i+1}). */
static void test_scale(int bs, int alias) {
  static double x[N + 1], c[N + 1], dx[N], dy[N], want[N];
  for (int i = 0; i <= N; i++)
    x[i] = 0.01 * i - 3, c[i] = 1 + 0.002 * i;
  for (int i = 0; i < N; i++)
    dx[i] = 0.5, dy[i] = 1 + 0.001 * i;
  double *d_x = to_device(x, N + 1), *d_dx = to_device(dx, N);
  double *d_dy = to_device(dy, N), *d_y;
  double *d_c = alias ? d_x : to_device(c, N + 1);
  const double *cc = alias ? x : c;
  CK(cudaMalloc(&d_y, N * sizeof(double)));
  k_scale<<<(N + bs - 1) / bs, bs>>>(d_x, d_dx, d_y, d_dy, d_c, N);
  CK(cudaGetLastError());
  to_host(dx, d_dx, N);
  for (int i = 0; i < N; i++)
    want[i] = 0.5 + (1 + 0.001 * i) * cos(x[i]) * cc[i] * cc[i + 1];
  char what[64];
  snprintf(what, sizeof what, "scale, blocks of %d%s: dx", bs,
           alias ? ", c == x" : "");
  check_array(what, dx, want, N, 1e-13);
  cudaFree(d_x), cudaFree(d_dx), cudaFree(d_dy), cudaFree(d_y);
  if (!alias)
    cudaFree(d_c);
}

int main() {
  int sizes[] = {32, 100, 128};
  for (int s = 0; s < 3; s++) {
    test_decay(sizes[s], 3);
    test_scale(sizes[s], 0);
    test_scale(sizes[s], 1);
  }
  return gpu_failures ? 1 : 0;
}
