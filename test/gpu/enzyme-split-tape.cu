// Split mode in kernels as Enzyme's GPU programs write it: one kernel runs
// the augmented forward of a __device__ function per thread and stores the
// tape by value, `tape[idx] = __enzyme_augmentfwd((void *)body,
// enzyme_allocated, sizeof(Tape20), ...)`, a later kernel passes it back,
// `__enzyme_reverse(..., tape[idx])`.  Tapes of 8, 20 and 64 bytes (the
// last with a double result after the tape and a per-thread return
// adjoint), and the 4-byte float tape of Enzyme's CUDA guide in its
// heterogeneous pattern: a host wrapper `kern` launching the kernel gets
// the kernels' gradient pair through `void *__enzyme_register_gradient_kern[3]`,
// and __enzyme_autodiff differentiates the host loop calling it.  Values
// computed from the thread's numbers (indices, addresses, the `idx < 100`
// branch) are computed again in the reverse, as Enzyme does, so the tapes
// hold the loaded values only.  Gradients against central finite
// differences of the same __host__ __device__ code, -O0 and -O2; built
// for a real GPU too (ptxas takes the PTX), and run where there is one.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %if cuda-native %{ %cuda-native -O0 %s -o %tn0 %}
// RUN: %if cuda-native %{ %cuda-native -O2 %s -o %tn2 %}
// RUN: %if cuda-gpu %{ %tn0 && %tn2 %}
// RUN: %gpu-clang -O2 -mllvm -zymase-print-cache %s -o %t2 2>&1 | %FileCheck %s --check-prefix=TAPE
// TAPE-LABEL: cache of the gradient of '_Z5body8PKdPd' (split mode)
// TAPE-COUNT-1: load: double, 8 bytes, once, in a stack slot
// TAPE-NOT: in a stack slot
// TAPE-LABEL: cache of the gradient of '_Z6body20PKdPd' (split mode)
// TAPE-COUNT-2: load: double, 8 bytes, once, in a stack slot
// TAPE-NOT: in a stack slot
// TAPE-LABEL: cache of the gradient of '_Z6body64PKdd' (split mode)
// TAPE-COUNT-6: load: double, 8 bytes, once, in a stack slot
// TAPE-NOT: in a stack slot
// TAPE-LABEL: cache of the gradient of '_Z12collide_bodyPfS_' (split mode)
// TAPE: load: float, 4 bytes, once, in a stack slot
// TAPE-NOT: in a stack slot
// TAPE-LABEL: cache of the gradient of '_Z4iteriPfS_'
#include "gpu-check.h"

__device__ int enzyme_dup, enzyme_const, enzyme_allocated;

struct Tape8 {
  char b[8];
};
struct Tape20 {
  char b[20];
};
struct Tape64 {
  char b[64];
};
struct Aug64 {
  Tape64 tape;
  double loss;
};

extern __device__ Tape8 __enzyme_augmentfwd8(void *, ...);
extern __device__ Tape20 __enzyme_augmentfwd20(void *, ...);
extern __device__ Aug64 __enzyme_augmentfwd64(void *, ...);
extern __device__ void __enzyme_reverse(void *, ...);

/* The thread's number; on the host (finite differences), host_idx. */
static int host_idx;
#ifdef __CUDA_ARCH__
#define IDX (blockIdx.x * blockDim.x + threadIdx.x)
#else
#define IDX host_idx
#endif

/* Tape: src[i] (8 bytes; sin is computed again from it). */
__device__ __host__ void body8(const double *src, double *dst) {
  int i = IDX;
  dst[i] = sin(src[i]) * src[i];
}

/* Tape: two loads (16 bytes). */
__device__ __host__ void body20(const double *src, double *dst) {
  int i = IDX;
  dst[i] += src[2 * i] * src[2 * i + 1] + exp(src[2 * i + 1]);
}

/* Tape: six loads (48 bytes); returns a per-thread loss. */
__device__ __host__ double body64(const double *x, double c) {
  int i = 6 * IDX;
  return x[i] * x[i + 1] + x[i + 2] * x[i + 3] + sin(x[i + 4]) * x[i + 5] * c;
}

__global__ void aug8(const double *s, double *ds, double *d, double *dd,
                     Tape8 *tape) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  tape[idx] = __enzyme_augmentfwd8((void *)body8, enzyme_allocated,
                                   sizeof(Tape8), enzyme_dup, s, ds,
                                   enzyme_dup, d, dd);
}
__global__ void rev8(const double *s, double *ds, double *d, double *dd,
                     Tape8 *tape) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  __enzyme_reverse((void *)body8, enzyme_allocated, sizeof(Tape8), enzyme_dup,
                   s, ds, enzyme_dup, d, dd, tape[idx]);
}

__global__ void aug20(const double *s, double *ds, double *d, double *dd,
                      Tape20 *tape) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  tape[idx] = __enzyme_augmentfwd20((void *)body20, enzyme_allocated,
                                    sizeof(Tape20), enzyme_dup, s, ds,
                                    enzyme_dup, d, dd);
}
__global__ void rev20(const double *s, double *ds, double *d, double *dd,
                      Tape20 *tape) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  __enzyme_reverse((void *)body20, enzyme_allocated, sizeof(Tape20),
                   enzyme_dup, s, ds, enzyme_dup, d, dd, tape[idx]);
}

__global__ void aug64(const double *x, double *dx, double c, Tape64 *tape,
                      double *loss) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  Aug64 a = __enzyme_augmentfwd64((void *)body64, enzyme_allocated,
                                  sizeof(Tape64), enzyme_dup, x, dx,
                                  enzyme_const, c);
  tape[idx] = a.tape;
  loss[idx] = a.loss;
}
__global__ void rev64(const double *x, double *dx, double c, Tape64 *tape,
                      const double *w) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  __enzyme_reverse((void *)body64, enzyme_allocated, sizeof(Tape64),
                   enzyme_dup, x, dx, enzyme_const, c, w[idx], tape[idx]);
}

/* Enzyme's CUDA guide: a kernel body whose tape is one float. */
template <typename... Args> __device__ float __enzyme_augmentfwd(Args...);
template <typename... Args> __device__ void __enzyme_reverse(Args...);

__device__ __host__ void collide_body(float *src, float *dst) {
  size_t idx = IDX;
  if (idx < 100)
    dst[idx] += src[idx] * src[idx] - 3 * src[idx];
}
__global__ void collide(float *src, float *dst) { collide_body(src, dst); }
__global__ void aug_collide(float *src, float *dsrc, float *dst, float *ddst,
                            float *tape) {
  size_t idx = threadIdx.x;
  tape[idx] = __enzyme_augmentfwd((void *)collide_body, enzyme_allocated,
                                  sizeof(float), src, dsrc, dst, ddst);
}
__global__ void rev_collide(float *src, float *dsrc, float *dst, float *ddst,
                            float *tape) {
  size_t idx = threadIdx.x;
  __enzyme_reverse((void *)collide_body, enzyme_allocated, sizeof(float), src,
                   dsrc, dst, ddst, tape[idx]);
}

const int NT = 128; /* threads of the guide's kernels (100 do work) */
__attribute__((noinline)) void kern(float *src, float *dst) {
  collide<<<1, NT>>>(src, dst);
}
void *aug_kern(float *src, float *dsrc, float *dst, float *ddst) {
  float *tape;
  CK(cudaMalloc(&tape, sizeof(float) * NT));
  aug_collide<<<1, NT>>>(src, dsrc, dst, ddst, tape);
  return (void *)tape;
}
void rev_kern(float *src, float *dsrc, float *dst, float *ddst, void *tape) {
  rev_collide<<<1, NT>>>(src, dsrc, dst, ddst, (float *)tape);
  CK(cudaFree(tape));
}
void *__enzyme_register_gradient_kern[3] = {(void *)kern, (void *)aug_kern,
                                            (void *)rev_kern};
void iter(int steps, float *src, float *dst) {
  for (int i = 0; i < steps / 2; i++) {
    kern(src, dst);
    kern(dst, src);
  }
}
template <typename... Args> void __enzyme_autodiff(Args...);
void grad_iter(int steps, float *src, float *dsrc, float *dst, float *ddst) {
  __enzyme_autodiff(iter, steps, src, dsrc, dst, ddst);
}

int main() {
  const int n = 64;
  const double h = 1e-6;
  /* body8 and body20: d(sum_i w_i dst_i)/d src, seeds w in ddst. */
  double s[2 * n], w[n], ds[2 * n], zero[2 * n] = {0}, d[n];
  for (int k = 0; k < 2 * n; k++)
    s[k] = 0.03 * k - 1.1;
  for (int k = 0; k < n; k++)
    w[k] = 1 + 0.01 * k;
  double *d_s = to_device(s, 2 * n), *d_ds = to_device(zero, 2 * n);
  double *d_d = to_device(zero, n), *d_dd = to_device(w, n);
  Tape8 *t8;
  CK(cudaMalloc(&t8, n * sizeof(Tape8)));
  aug8<<<2, n / 2>>>(d_s, d_ds, d_d, d_dd, t8);
  rev8<<<2, n / 2>>>(d_s, d_ds, d_d, d_dd, t8);
  CK(cudaGetLastError());
  to_host(ds, d_ds, n);
  double want[2 * n];
  for (int k = 0; k < n; k++) {
    double x0 = s[k];
    auto val = [&](double x) {
      double a[2 * n], o[n];
      for (int j = 0; j < 2 * n; j++)
        a[j] = s[j];
      a[k] = x;
      host_idx = k;
      body8(a, o);
      return o[k];
    };
    want[k] = w[k] * (val(x0 + h) - val(x0 - h)) / (2 * h);
  }
  check_array("body8 (8-byte tape) d/dsrc", ds, want, n, 1e-7);

  CK(cudaMemcpy(d_ds, zero, sizeof zero, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_d, zero, n * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_dd, w, sizeof w, cudaMemcpyHostToDevice));
  Tape20 *t20;
  CK(cudaMalloc(&t20, n * sizeof(Tape20)));
  aug20<<<2, n / 2>>>(d_s, d_ds, d_d, d_dd, t20);
  rev20<<<2, n / 2>>>(d_s, d_ds, d_d, d_dd, t20);
  CK(cudaGetLastError());
  to_host(ds, d_ds, 2 * n);
  to_host(d, d_d, n);
  double wantd[n];
  for (int k = 0; k < 2 * n; k++) {
    int i = k / 2;
    auto val = [&](double x) {
      double a[2 * n], o[n] = {0};
      for (int j = 0; j < 2 * n; j++)
        a[j] = s[j];
      a[k] = x;
      host_idx = i;
      body20(a, o);
      return o[i];
    };
    want[k] = w[i] * (val(s[k] + h) - val(s[k] - h)) / (2 * h);
  }
  for (int i = 0; i < n; i++)
    wantd[i] = s[2 * i] * s[2 * i + 1] + exp(s[2 * i + 1]);
  check_array("body20 (20-byte tape) primal", d, wantd, n, 1e-14);
  check_array("body20 (20-byte tape) d/dsrc", ds, want, 2 * n, 1e-7);

  /* body64: d(sum_i w_i loss_i)/dx, the per-thread seeds as the return
   * adjoints. */
  double x[6 * n], dx[6 * n], loss[n], wantx[6 * n], wantl[n], c = 0.7;
  for (int k = 0; k < 6 * n; k++)
    x[k] = 0.5 + 0.01 * k - 0.3 * (k % 3);
  double *d_x = to_device(x, 6 * n), *d_dx, *d_loss, *d_w = to_device(w, n);
  double zx[6 * n] = {0};
  d_dx = to_device(zx, 6 * n);
  CK(cudaMalloc(&d_loss, n * sizeof(double)));
  Tape64 *t64;
  CK(cudaMalloc(&t64, n * sizeof(Tape64)));
  aug64<<<2, n / 2>>>(d_x, d_dx, c, t64, d_loss);
  rev64<<<2, n / 2>>>(d_x, d_dx, c, t64, d_w);
  CK(cudaGetLastError());
  to_host(dx, d_dx, 6 * n);
  to_host(loss, d_loss, n);
  for (int i = 0; i < n; i++) {
    host_idx = i;
    wantl[i] = body64(x, c);
  }
  for (int k = 0; k < 6 * n; k++) {
    int i = k / 6;
    double x0 = x[k];
    x[k] = x0 + h;
    host_idx = i;
    double up = body64(x, c);
    x[k] = x0 - h;
    double down = body64(x, c);
    x[k] = x0;
    wantx[k] = w[i] * (up - down) / (2 * h);
  }
  check_array("body64 (64-byte tape) loss", loss, wantl, n, 1e-14);
  check_array("body64 (64-byte tape) d/dx", dx, wantx, 6 * n, 1e-7);

  /* The guide's heterogeneous program: grad_iter through the registered
   * pair of kern, each kernel pair with a 4-byte tape per thread. */
  const int steps = 4;
  float src[NT], dsrc[NT], g[NT], fz[NT] = {0}, ones[NT];
  for (int k = 0; k < NT; k++)
    src[k] = 0.01f * k - 0.4f, ones[k] = 1;
  float *f_s = to_device(src, NT), *f_ds = to_device(fz, NT);
  float *f_d = to_device(fz, NT), *f_dd = to_device(ones, NT);
  grad_iter(steps, f_s, f_ds, f_d, f_dd);
  CK(cudaGetLastError());
  to_host(dsrc, f_ds, NT);
  /* iter on the host, in double: d(dst at the end)/d src (the seeds are
   * 0 on src, 1 on dst). */
  for (int k = 0; k < NT; k++) {
    auto run = [&](double x) {
      double a = x, b = 0;
      for (int i = 0; i < steps / 2; i++) {
        if (k < 100)
          b += a * a - 3 * a;
        if (k < 100)
          a += b * b - 3 * b;
      }
      return b;
    };
    g[k] = (float)((run(src[k] + 1e-4) - run(src[k] - 1e-4)) / 2e-4);
  }
  check_array("heterogeneous iter (4-byte tapes) d/dsrc", dsrc, g, NT, 2e-3);
  return gpu_report();
}
