// HIP device AD: the CUDA test autodiff-shared.cu as a HIP program.  Each
// GPU thread calls __enzyme_autodiff with Enzyme's markers on a __device__
// function reading its element and its neighbour's through ocml math
// (__ocml_exp_f64, __ocml_sin_f64: the plugin knows them as exp and sin);
// neighbouring threads add to the same gradient entries, so the adds are
// atomic in device code.  The plugin runs on the amdgcn IR; the kernels
// run on CPU threads, warps of 64.  Closed forms, and ThreadSanitizer,
// which reports the plain adds a non-atomic update would make.
// REQUIRES: hip
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// Plain adds would race: ThreadSanitizer must find none.
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %s -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt %}
#include "hip-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

/* e_i = exp(-x_i x_{i+1}) + sin(x_i), indices mod n. */
__device__ double energy(const double *x, int i, int n) {
  double a = x[i], b = x[(i + 1) % n];
  return exp(-a * b) + sin(a);
}

/* Every thread adds to the same two entries: (w0 t_i + w1 - t_i^2)^2. */
__device__ double fit(const double *w, const double *t, int i) {
  double r = w[0] * t[i] + w[1] - t[i] * t[i];
  return r * r;
}

__global__ void fit_gradient(const double *w, double *dw, const double *t,
                             int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    __enzyme_autodiff((void *)fit, enzyme_dup, w, dw, enzyme_const, t,
                      enzyme_const, i);
}

__global__ void gradient(const double *x, double *dx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, i,
                      enzyme_const, n);
}

int main() {
  const int n = 300;
  double x[n], dx[n], want[n];
  for (int i = 0; i < n; i++)
    x[i] = 0.2 + 0.004 * i;
  /* d/dx_i sum_j e_j = -x_{i+1} exp(-x_i x_{i+1}) + cos(x_i)
   *                   - x_{i-1} exp(-x_{i-1} x_i) */
  for (int i = 0; i < n; i++) {
    int p = (i + n - 1) % n, q = (i + 1) % n;
    want[i] = -x[q] * exp(-x[i] * x[q]) + cos(x[i]) - x[p] * exp(-x[p] * x[i]);
  }
  double *d_x = to_device(x, n), *d_dx;
  CK(hipMalloc(&d_dx, sizeof dx));
  CK(hipMemset(d_dx, 0, sizeof dx));
  for (int rep = 0; rep < 3; rep++) { /* three launches: three gradients */
    gradient<<<3, 128>>>(d_x, d_dx, n);
    CK(hipGetLastError());
  }
  to_host(dx, d_dx, n);
  for (int i = 0; i < n; i++)
    want[i] *= 3;
  check_array("sum over threads of the gradients", dx, want, n, 1e-12);

  double w[2] = {0.7, -0.3}, dw[2], wantw[2] = {0, 0};
  for (int i = 0; i < n; i++) {
    double r = w[0] * x[i] + w[1] - x[i] * x[i];
    wantw[0] += 2 * r * x[i];
    wantw[1] += 2 * r;
  }
  double *d_w = to_device(w, 2), *d_dw;
  CK(hipMalloc(&d_dw, sizeof dw));
  CK(hipMemset(d_dw, 0, sizeof dw));
  fit_gradient<<<3, 128>>>(d_w, d_dw, d_x, n);
  CK(hipGetLastError());
  to_host(dw, d_dw, 2);
  check_array("one gradient entry for every thread", dw, wantw, 2, 1e-11);
  return gpu_report();
}
