// HIP device AD through __shared__ memory and __syncthreads
// (parallel/gpu_sync.c, amdgcn row of gpu_target.c): HIP's __syncthreads
// (fences around s_barrier; at -O0 the header's wrappers, inlined before
// AD) is mirrored in the reverse sweep with its fences, the __shared__
// shadow zeroed on entry by the block's threads.  The kernels of
// autodiff-shared-memory.cu: a stencil on a shared tile and a tree
// reduction (barriers in a loop), the gradient called twice per kernel;
// blocks of 64, 96 (a partial second wavefront) and 128; closed forms;
// ThreadSanitizer finds no race.
// REQUIRES: hip
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %s -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt %}
#include "hip-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

/* y_i = sin(s_t) s_{(t+1) mod B}, s the block's tile of x. */
__device__ void tile(const double *x, double *y) {
  __shared__ double s[128];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = x[i];
  __syncthreads();
  y[i] = sin(s[t]) * s[(t + 1) % blockDim.x];
}
__global__ void tile_gradient(const double *x, double *dx, double *y,
                              double *dy) {
  __enzyme_autodiff((void *)tile, enzyme_dup, x, dx, enzyme_dup, y, dy);
}

/* out_b = sum over the block of x_i^2, by a tree in shared memory (the
 * block size a power of two). */
__device__ void block_sum(const double *x, double *out) {
  __shared__ double s[128];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = x[i] * x[i];
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (t < h)
      s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}
__global__ void sum_gradient(const double *x, double *dx, double *out,
                             double *dout, int twice) {
  __enzyme_autodiff((void *)block_sum, enzyme_dup, x, dx, enzyme_dup, out,
                    dout);
  if (twice) /* the shadow is zeroed again: no adjoint left from the first */
    __enzyme_autodiff((void *)block_sum, enzyme_dup, x, dx, enzyme_dup, out,
                      dout);
}

static const int N = 384;
static double x[N], dx[N], want[N], ones[N];

static void test_tile(int bs) {
  int blocks = N / bs, n = blocks * bs;
  double *d_x = to_device(x, n), *d_y, *d_dy = to_device(ones, n), *d_dx;
  CK(cudaMalloc(&d_dx, n * sizeof(double)));
  CK(hipMemset(d_dx, 0, n * sizeof(double)));
  CK(cudaMalloc(&d_y, n * sizeof(double)));
  tile_gradient<<<blocks, bs>>>(d_x, d_dx, d_y, d_dy);
  CK(hipGetLastError());
  to_host(dx, d_dx, n);
  /* dy_i/dx_i = cos(x_i) x_q; dy_p/dx_i = sin(x_p), p the left neighbour */
  for (int b = 0; b < blocks; b++)
    for (int t = 0; t < bs; t++) {
      int i = b * bs + t, p = b * bs + (t + bs - 1) % bs,
          q = b * bs + (t + 1) % bs;
      want[i] = cos(x[i]) * x[q] + sin(x[p]);
    }
  char what[64];
  snprintf(what, sizeof what, "tile, blocks of %d: dx", bs);
  check_array(what, dx, want, n, 1e-13);
  hipFree(d_x), hipFree(d_y), hipFree(d_dy), hipFree(d_dx);
}

static void test_sum(int bs, int twice) {
  int blocks = N / bs;
  double dout[N], *d_x = to_device(x, N), *d_out, *d_dx, *d_dout;
  for (int b = 0; b < blocks; b++)
    dout[b] = 1 + b;
  d_dout = to_device(dout, blocks);
  CK(cudaMalloc(&d_out, blocks * sizeof(double)));
  CK(cudaMalloc(&d_dx, N * sizeof(double)));
  CK(hipMemset(d_dx, 0, N * sizeof(double)));
  sum_gradient<<<blocks, bs>>>(d_x, d_dx, d_out, d_dout, twice);
  CK(hipGetLastError());
  to_host(dx, d_dx, N);
  /* The second call finds dout consumed (the store's reverse zeroes it). */
  for (int i = 0; i < N; i++)
    want[i] = 2 * x[i] * (1 + i / bs);
  char what[64];
  snprintf(what, sizeof what, "tree sum, blocks of %d%s: dx", bs,
           twice ? ", twice" : "");
  check_array(what, dx, want, N, 1e-13);
  hipFree(d_x), hipFree(d_out), hipFree(d_dx), hipFree(d_dout);
}

int main() {
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 + 0.005 * i;
    ones[i] = 1;
  }
  test_tile(64);
  test_tile(96);
  test_tile(128);
  test_sum(64, 0);
  test_sum(128, 0);
  test_sum(128, 1);
  return gpu_report();
}
