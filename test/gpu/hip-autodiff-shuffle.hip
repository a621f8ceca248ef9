// HIP device AD through HIP's warp shuffles (__shfl_down, __shfl_xor,
// __shfl, __shfl_up: a float's bits, or a double's two halves, through
// llvm.amdgcn.ds.bpermute), float and double, warps of 64: the adjoint is
// the transposed exchange, each lane adding the adjoints of the lanes that
// read it.  A __shfl_down tree sum (dx_i = 2 x_i), a __shfl_xor butterfly
// (every lane holds the warp's sum: dx_i = 2 x_i * sum of the lanes'
// weights), a __shfl broadcast from lane 45 (64 readers of one lane), and
// a __shfl_up by 3 within segments of 16, and __builtin_amdgcn_ds_bpermute
// of a float's bits; two blocks of 128 threads, and one block of 96 (a
// partial warp of 32 lanes).
// REQUIRES: hip
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
#include "hip-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

#define B 128
#define NB 2
#define N (B * NB)

/* Lane 0 of each warp: the sum of the warp's x_i^2. */
template <typename T> __device__ T tree(const T *x) {
  T v = x[blockIdx.x * blockDim.x + threadIdx.x];
  v = v * v;
  for (int off = 32; off > 0; off /= 2)
    v += __shfl_down(v, off);
  return threadIdx.x % 64 == 0 ? v : 0;
}

/* Every lane: (lane + 1) * the sum of the warp's x_i^2. */
template <typename T> __device__ T butterfly(const T *x) {
  T v = x[blockIdx.x * blockDim.x + threadIdx.x];
  v = v * v;
  for (int off = 1; off < 64; off *= 2)
    v += __shfl_xor(v, off);
  return v * (T)(threadIdx.x % 64 + 1);
}

/* Every lane: (lane + 1) * x_45^2 + (lane + 1) * x_{src}^3 with src the
 * lane __shfl_up(., 3, 16) reads (lane - 3 within its 16, else itself). */
template <typename T> __device__ T bcast(const T *x) {
  T v = x[blockIdx.x * blockDim.x + threadIdx.x];
  T c = (T)(threadIdx.x % 64 + 1);
  return c * __shfl(v * v, 45) + c * __shfl_up(v * v * v, 3, 16);
}

/* The builtin itself on a float's bits: lane l reads lane l ^ 1. */
__device__ float raw(const float *x) {
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  int src = (threadIdx.x % 64) ^ 1;
  float r = __int_as_float(
      __builtin_amdgcn_ds_bpermute(4 * src, __float_as_int(v * v)));
  return r * (float)(threadIdx.x % 64 + 1);
}

__global__ void raw_grad(const float *x, float *dx) {
  __enzyme_autodiff((void *)raw, enzyme_dup, x, dx);
}

template <typename T> __global__ void grads(const T *x, T *dt, T *db, T *dc) {
  __enzyme_autodiff((void *)tree<T>, enzyme_dup, x, dt);
  __enzyme_autodiff((void *)butterfly<T>, enzyme_dup, x, db);
  __enzyme_autodiff((void *)bcast<T>, enzyme_dup, x, dc);
}

/* nb blocks of b threads (b = 96: a partial warp of 32 lanes, whose reads
 * of the absent lanes give 0). */
template <typename T>
static void run(const char *name, double tol, int nb = NB, int b = B) {
  T x[N], z[N] = {0}, dt[N], db[N], dc[N], wt[N], wb[N], wc[N];
  for (int i = 0; i < N; i++)
    x[i] = (T)(0.5 + 0.01 * i - 0.0001 * i * (i % 7));
  T *d_x = to_device(x, N), *d_t = to_device(z, N), *d_b = to_device(z, N),
    *d_c = to_device(z, N);
  int n = nb * b;
  hipLaunchKernelGGL(grads<T>, dim3(nb), dim3(b), 0, 0, d_x, d_t, d_b, d_c);
  CK(hipDeviceSynchronize());
  to_host(dt, d_t, N);
  to_host(db, d_b, N);
  to_host(dc, d_c, N);
  for (int i = 0; i < n; i++) {
    int l = i % 64, s = l % 16;
    int p = b - (i % b) / 64 * 64 < 64 ? b - (i % b) / 64 * 64 : 64;
    wt[i] = 2 * x[i];
    wb[i] = 2 * x[i] * (T)(p * (p + 1) / 2); /* sum of lane + 1 */
    /* read by lane l + 3 (weight l + 4) when s < 13; by itself when s < 3 */
    double up = (s < 13 ? l + 4 : 0) + (s < 3 ? l + 1 : 0);
    wc[i] = (T)((l == 45 ? 2 * (double)x[i] * 2080 : 0) +
                3 * (double)x[i] * x[i] * up);
  }
  char what[64];
  snprintf(what, sizeof what, "%s __shfl_down tree (%dx%d)", name, nb, b);
  check_array(what, dt, wt, n, tol);
  snprintf(what, sizeof what, "%s __shfl_xor butterfly (%dx%d)", name, nb, b);
  check_array(what, db, wb, n, tol);
  snprintf(what, sizeof what, "%s __shfl broadcast + __shfl_up (%dx%d)", name,
           nb, b);
  check_array(what, dc, wc, n, tol);
}

int main() {
  run<float>("float", 1e-5);
  run<double>("double", 1e-12);
  run<float>("float", 1e-5, 1, 96);
  run<double>("double", 1e-12, 1, 96);
  float x[N], z[N] = {0}, dx[N], want[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.25f + 0.003f * i;
    want[i] = 2 * x[i] * (float)(((i % 64) ^ 1) + 1);
  }
  float *d_x = to_device(x, N), *d_dx = to_device(z, N);
  hipLaunchKernelGGL(raw_grad, dim3(NB), dim3(B), 0, 0, d_x, d_dx);
  CK(hipDeviceSynchronize());
  to_host(dx, d_dx, N);
  check_array("float __builtin_amdgcn_ds_bpermute (lane ^ 1)", dx, want, N,
              1e-5);
  return gpu_report();
}
