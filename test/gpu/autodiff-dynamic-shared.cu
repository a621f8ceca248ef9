// Device AD through dynamic (extern) __shared__ memory
// (parallel/gpu_dynamic_shared.c): its shadow is a device-heap buffer per
// block as big as the launch's dynamic shared memory, zeroed on entry
// between barriers and freed after a last one; the gradient kernels are
// launched with the primal's byte count.  A stencil on a tile with a halo
// (float and double), a tree reduction in the dynamic array (barriers in a
// loop, cells overwritten, the gradient called twice per kernel), and two
// extern arrays of one function (the same memory: a cell written through
// one is read through the other); blocks of 32, 48 (a partial warp) and
// 128; closed forms, and central finite differences of the primal kernels;
// ThreadSanitizer finds no race, AddressSanitizer no access out of the
// shadow.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %s -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt %}
// RUN: %if !quick %{ %gpu-clang -O1 -g -fsanitize=address %s -o %ta && %ta %}
// RUN: %if cuda-native %{ %cuda-native -O2 %s -o %tn %}
// RUN: %if cuda-gpu %{ %tn %}
#include "gpu-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

/* y_i = s_t (s_{t-1} - 2 s_t + s_{t+1}) + sin(s_{t+1}), s the block's tile
 * of x (s_{t+1} = x_i) with one cell of halo on each side, clamped at the
 * ends of x.  A byte array cast to T: each instantiation's own extern
 * array would be the same symbol with two types. */
template <typename T> __device__ void stencil(const T *x, T *y, int n) {
  extern __shared__ __align__(8) unsigned char raw[];
  T *s = (T *)raw;
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t + 1] = x[i];
  if (t == 0)
    s[0] = x[i > 0 ? i - 1 : 0];
  if (t == blockDim.x - 1)
    s[t + 2] = x[i + 1 < n ? i + 1 : n - 1];
  __syncthreads();
  y[i] = s[t + 1] * (s[t] - 2 * s[t + 1] + s[t + 2]) + sin(s[t + 2]);
}
template <typename T>
__global__ void stencil_primal(const T *x, T *y, int n) {
  stencil(x, y, n);
}
template <typename T>
__global__ void stencil_gradient(const T *x, T *dx, T *y, T *dy, int n) {
  __enzyme_autodiff((void *)stencil<T>, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
}

/* out_b = (sum over the block of x_i sin x_i)^2, the sum by a tree in the
 * dynamic array (any block size). */
__device__ void block_sum(const double *x, double *out) {
  extern __shared__ double s[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = x[i] * sin(x[i]);
  __syncthreads();
  for (int m = blockDim.x; m > 1;) {
    int h = (m + 1) / 2;
    if (t < m - h)
      s[t] += s[t + h];
    __syncthreads();
    m = h;
  }
  if (t == 0)
    out[blockIdx.x] = s[0] * s[0];
}
__global__ void sum_primal(const double *x, double *out) { block_sum(x, out); }
__global__ void sum_gradient(const double *x, double *dx, double *out,
                             double *dout, int twice) {
  __enzyme_autodiff((void *)block_sum, enzyme_dup, x, dx, enzyme_dup, out,
                    dout);
  if (twice) /* a fresh shadow: no adjoint left from the first call */
    __enzyme_autodiff((void *)block_sum, enzyme_dup, x, dx, enzyme_dup, out,
                      dout);
}

/* Two extern arrays, one memory: a holds the block's x (n doubles), b's
 * floats from 2n on the block's v; a cell of a is read back through b.
 * y_i = a_{t+1} b_{2n+t-1} + cos(((double *)b)_{t+2}) (indices mod n). */
__device__ void two_arrays(const double *x, const float *v, double *y) {
  extern __shared__ double a[];
  extern __shared__ float b[];
  int t = threadIdx.x, n = blockDim.x, i = blockIdx.x * n + t;
  a[t] = x[i];
  b[2 * n + t] = v[i];
  __syncthreads();
  y[i] = a[(t + 1) % n] * b[2 * n + (t + n - 1) % n] +
         cos(((double *)b)[(t + 2) % n]);
}
__global__ void two_primal(const double *x, const float *v, double *y) {
  two_arrays(x, v, y);
}
__global__ void two_gradient(const double *x, double *dx, const float *v,
                             float *dv, double *y, double *dy) {
  __enzyme_autodiff((void *)two_arrays, enzyme_dup, x, dx, enzyme_dup, v, dv,
                    enzyme_dup, y, dy);
}

static const int N = 384; /* 12, 8 and 3 blocks of 32, 48, 128 threads */
#ifndef BLOCK_SIZES
#define BLOCK_SIZES 32, 48, 128
#endif

/* sum_i w_i y_i of the primal stencil on x (dynamic bytes `bytes`). */
template <typename T>
static void stencil_outputs(const T *x, T *y, int bs, size_t bytes) {
  T *d_x = to_device(x, N), *d_y;
  CK(cudaMalloc(&d_y, N * sizeof(T)));
  stencil_primal<T><<<N / bs, bs, bytes>>>(d_x, d_y, N);
  CK(cudaGetLastError());
  to_host(y, d_y, N);
  cudaFree(d_x), cudaFree(d_y);
}

/* The stencil's gradient against its closed form, and against central
 * differences of the primal kernel: x_j for j = c mod 5 moved together,
 * y_i only depending on x_{i-1..i+1} (and x_0 twice at the left end). */
template <typename T>
static void test_stencil(int bs, const char *type, double tol,
                         double fd_tol) {
  T x[N], w[N], dx[N], want[N], y0[N], y1[N], xp[N];
  size_t bytes = (bs + 2) * sizeof(T);
  for (int i = 0; i < N; i++)
    x[i] = (T)(0.4 + 0.3 * sin(0.7 * i)), w[i] = (T)(1 + 0.01 * i);
  T *d_x = to_device(x, N), *d_dy = to_device(w, N), *d_y, *d_dx;
  CK(cudaMalloc(&d_y, N * sizeof(T)));
  CK(cudaMalloc(&d_dx, N * sizeof(T)));
  CK(cudaMemset(d_dx, 0, N * sizeof(T)));
  stencil_gradient<T><<<N / bs, bs, bytes>>>(d_x, d_dx, d_y, d_dy, N);
  CK(cudaGetLastError());
  to_host(dx, d_dx, N);
  for (int i = 0; i < N; i++)
    want[i] = 0;
  for (int i = 0; i < N; i++) {
    int l = i > 0 ? i - 1 : 0, r = i + 1 < N ? i + 1 : N - 1;
    double c = x[i], lv = x[l], rv = x[r], wi = w[i];
    want[i] += (T)(wi * (lv - 4 * c + rv));
    want[l] += (T)(wi * c);
    want[r] += (T)(wi * (c + cos(rv)));
  }
  char what[80];
  snprintf(what, sizeof what, "stencil<%s>, blocks of %d: dx", type, bs);
  check_array(what, dx, want, N, tol);
  T h = sizeof(T) == 4 ? (T)1e-2 : (T)1e-5;
  for (int c = 0; c < 5; c++) {
    for (int i = 0; i < N; i++)
      xp[i] = x[i] + (i % 5 == c ? h : 0);
    stencil_outputs(xp, y1, bs, bytes);
    for (int i = 0; i < N; i++)
      xp[i] = x[i] - (i % 5 == c ? h : 0);
    stencil_outputs(xp, y0, bs, bytes);
    for (int j = c; j < N; j += 5) {
      double d = 0;
      for (int i = j - 2; i <= j + 2; i++)
        if (i >= 0 && i < N)
          d += (double)w[i] * ((double)y1[i] - (double)y0[i]);
      want[j] = (T)(d / (2 * (double)h));
    }
  }
  snprintf(what, sizeof what,
           "stencil<%s>, blocks of %d: dx by finite differences", type, bs);
  check_array(what, dx, want, N, fd_tol);
  cudaFree(d_x), cudaFree(d_y), cudaFree(d_dy), cudaFree(d_dx);
}

static double x[N], w[N];
static float v[N];

static double sum_loss(const double *xs, int bs) {
  int blocks = N / bs;
  double out[N], *d_x = to_device(xs, N), *d_out, L = 0;
  CK(cudaMalloc(&d_out, blocks * sizeof(double)));
  sum_primal<<<blocks, bs, bs * sizeof(double)>>>(d_x, d_out);
  CK(cudaGetLastError());
  to_host(out, d_out, blocks);
  for (int b = 0; b < blocks; b++)
    L += w[b] * out[b];
  cudaFree(d_x), cudaFree(d_out);
  return L;
}

static void test_sum(int bs, int twice) {
  int blocks = N / bs;
  double dx[N], want[N], xp[N], *d_x = to_device(x, N), *d_out, *d_dx,
                                *d_dout = to_device(w, blocks);
  CK(cudaMalloc(&d_out, blocks * sizeof(double)));
  CK(cudaMalloc(&d_dx, N * sizeof(double)));
  CK(cudaMemset(d_dx, 0, N * sizeof(double)));
  sum_gradient<<<blocks, bs, bs * sizeof(double)>>>(d_x, d_dx, d_out, d_dout,
                                                     twice);
  CK(cudaGetLastError());
  to_host(dx, d_dx, N);
  /* The second call finds dout consumed (the store's reverse zeroes it). */
  for (int b = 0; b < blocks; b++) {
    double S = 0;
    for (int t = 0; t < bs; t++)
      S += x[b * bs + t] * sin(x[b * bs + t]);
    for (int t = 0; t < bs; t++) {
      double xi = x[b * bs + t];
      want[b * bs + t] = w[b] * 2 * S * (sin(xi) + xi * cos(xi));
    }
  }
  char what[80];
  snprintf(what, sizeof what, "tree sum, blocks of %d%s: dx", bs,
           twice ? ", twice" : "");
  check_array(what, dx, want, N, 1e-12);
  if (!twice) { /* a few entries by finite differences: block edges */
    int js[] = {0, bs - 1, bs, N / 2 + 1, N - 1};
    double got[5], fd[5], h = 1e-5;
    for (int k = 0; k < 5; k++) {
      for (int i = 0; i < N; i++)
        xp[i] = x[i];
      xp[js[k]] = x[js[k]] + h;
      double up = sum_loss(xp, bs);
      xp[js[k]] = x[js[k]] - h;
      fd[k] = (up - sum_loss(xp, bs)) / (2 * h);
      got[k] = dx[js[k]];
    }
    snprintf(what, sizeof what,
             "tree sum, blocks of %d: dx by finite differences", bs);
    check_array(what, got, fd, 5, 1e-6);
  }
  cudaFree(d_x), cudaFree(d_out), cudaFree(d_dx), cudaFree(d_dout);
}

static void two_outputs(const double *xs, const float *vs, double *y, int bs) {
  double *d_x = to_device(xs, N), *d_y;
  float *d_v = to_device(vs, N);
  CK(cudaMalloc(&d_y, N * sizeof(double)));
  two_primal<<<N / bs, bs, bs * (sizeof(double) + sizeof(float))>>>(d_x, d_v,
                                                                      d_y);
  CK(cudaGetLastError());
  to_host(y, d_y, N);
  cudaFree(d_x), cudaFree(d_v), cudaFree(d_y);
}

static void test_two(int bs) {
  double dx[N], want[N], y0[N], y1[N], xp[N];
  float dv[N], wantv[N], vp[N];
  double *d_x = to_device(x, N), *d_dy = to_device(w, N), *d_y, *d_dx;
  float *d_v = to_device(v, N), *d_dv;
  CK(cudaMalloc(&d_y, N * sizeof(double)));
  CK(cudaMalloc(&d_dx, N * sizeof(double)));
  CK(cudaMalloc(&d_dv, N * sizeof(float)));
  CK(cudaMemset(d_dx, 0, N * sizeof(double)));
  CK(cudaMemset(d_dv, 0, N * sizeof(float)));
  two_gradient<<<N / bs, bs, bs * (sizeof(double) + sizeof(float))>>>(
      d_x, d_dx, d_v, d_dv, d_y, d_dy);
  CK(cudaGetLastError());
  to_host(dx, d_dx, N);
  to_host(dv, d_dv, N);
  for (int i = 0; i < N; i++)
    want[i] = 0, wantv[i] = 0;
  for (int b = 0; b < N / bs; b++)
    for (int t = 0; t < bs; t++) {
      int i = b * bs + t, q = b * bs + (t + 1) % bs,
          p = b * bs + (t + bs - 1) % bs, r = b * bs + (t + 2) % bs;
      want[q] += w[i] * v[p];
      wantv[p] += (float)(w[i] * x[q]);
      want[r] -= w[i] * sin(x[r]);
    }
  char what[80];
  snprintf(what, sizeof what, "two extern arrays, blocks of %d: dx", bs);
  check_array(what, dx, want, N, 1e-12);
  snprintf(what, sizeof what, "two extern arrays, blocks of %d: dv", bs);
  check_array(what, dv, wantv, N, 1e-5);
  /* Finite differences in x (each y_i reads x at t+1 and t+2 in its block:
   * x_j moved for j = c mod 4 at once, y_i for i = j-1, j-2 in its block). */
  double h = 1e-5;
  for (int c = 0; c < 4; c++) {
    for (int i = 0; i < N; i++)
      xp[i] = x[i] + (i % 4 == c ? h : 0);
    two_outputs(xp, v, y1, bs);
    for (int i = 0; i < N; i++)
      xp[i] = x[i] - (i % 4 == c ? h : 0);
    two_outputs(xp, v, y0, bs);
    for (int j = c; j < N; j += 4) {
      int b = j / bs, t = j % bs;
      double d = 0;
      for (int k = 1; k <= 2; k++) {
        int i = b * bs + (t - k + bs) % bs;
        d += w[i] * (y1[i] - y0[i]);
      }
      want[j] = d / (2 * h);
    }
  }
  snprintf(what, sizeof what,
           "two extern arrays, blocks of %d: dx by finite differences", bs);
  check_array(what, dx, want, N, 1e-6);
  /* and in v, one entry per block (y_i reads v at t-1 in its block) */
  int blocks = N / bs;
  double got[N], fd[N];
  for (int b = 0; b < blocks; b++) {
    int j = b * bs + (5 * b) % bs, i = b * bs + ((5 * b) % bs + 1) % bs;
    float hv = 1e-2f;
    for (int k = 0; k < N; k++)
      vp[k] = v[k];
    vp[j] = v[j] + hv;
    two_outputs(x, vp, y1, bs);
    vp[j] = v[j] - hv;
    two_outputs(x, vp, y0, bs);
    fd[b] = w[i] * (y1[i] - y0[i]) / ((double)(v[j] + hv) - (v[j] - hv));
    got[b] = dv[j];
  }
  snprintf(what, sizeof what,
           "two extern arrays, blocks of %d: dv by finite differences", bs);
  check_array(what, got, fd, blocks, 1e-5);
  cudaFree(d_x), cudaFree(d_dx), cudaFree(d_v), cudaFree(d_dv);
  cudaFree(d_y), cudaFree(d_dy);
}

int main() {
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 + 0.004 * i;
    v[i] = (float)(1.5 - 0.003 * i);
    w[i] = 1 + 0.02 * (i % 17);
  }
  const int sizes[] = {BLOCK_SIZES};
  for (int bs : sizes) {
    test_stencil<double>(bs, "double", 1e-12, 1e-7);
    test_stencil<float>(bs, "float", 1e-5, 2e-2);
    test_sum(bs, 0);
    test_two(bs);
  }
  test_sum(128, 1);
  return gpu_report();
}
