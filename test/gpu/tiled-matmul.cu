// A tiled matrix product with 2-D blocks: each 16x16 block stages tiles of
// A and B in __shared__ memory between two __syncthreads, for sizes that
// are not multiples of the tile (edge blocks pad with zeros), then a
// transpose through a padded shared tile; compared with serial loops.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
#include "gpu-check.h"

#define T 16

__global__ void matmul(const float *a, const float *b, float *c, int n, int k,
                       int m) {
  __shared__ float ta[T][T], tb[T][T];
  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float s = 0;
  for (int t = 0; t < (k + T - 1) / T; t++) {
    int ka = t * T + threadIdx.x, kb = t * T + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = row < n && ka < k ? a[row * k + ka] : 0;
    tb[threadIdx.y][threadIdx.x] = kb < k && col < m ? b[kb * m + col] : 0;
    __syncthreads();
    for (int j = 0; j < T; j++)
      s += ta[threadIdx.y][j] * tb[j][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < m)
    c[row * m + col] = s;
}

__global__ void transpose(const float *in, float *out, int n, int m) {
  __shared__ float tile[T][T + 1];
  int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  if (x < m && y < n)
    tile[threadIdx.y][threadIdx.x] = in[y * m + x];
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x, y = blockIdx.x * T + threadIdx.y;
  if (x < n && y < m)
    out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
  const int n = 37, k = 50, m = 29;
  static float a[n * k], b[k * m], c[n * m], w[n * m], ct[m * n], wt[m * n];
  for (int i = 0; i < n * k; i++)
    a[i] = (float)((i * 7) % 11) - 5;
  for (int i = 0; i < k * m; i++)
    b[i] = (float)((i * 5) % 13) * 0.25f;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      float s = 0;
      for (int l = 0; l < k; l++)
        s += a[i * k + l] * b[l * m + j];
      w[i * m + j] = s;
      wt[j * n + i] = s;
    }
  float *da = to_device(a, n * k), *db = to_device(b, k * m), *dc, *dt;
  CK(cudaMalloc(&dc, sizeof c));
  CK(cudaMalloc(&dt, sizeof ct));
  dim3 block(T, T);
  matmul<<<dim3((m + T - 1) / T, (n + T - 1) / T), block>>>(da, db, dc, n, k, m);
  transpose<<<dim3((m + T - 1) / T, (n + T - 1) / T), block>>>(dc, dt, n, m);
  CK(cudaGetLastError());
  to_host(c, dc, n * m), to_host(ct, dt, m * n);
  check_array("tiled matmul", c, w, n * m, 1e-5);
  check_array("transpose through a shared tile", ct, wt, m * n, 1e-5);
  return gpu_report();
}
