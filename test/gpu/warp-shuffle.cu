// Warp operations: a __shfl_down_sync sum per warp (float and int), a
// butterfly (__shfl_xor_sync) max, __shfl_up_sync inclusive scans within
// segments of 8 lanes (width), __shfl_sync broadcast, __ballot_sync,
// __any_sync / __all_sync, __activemask and warpSize, in blocks whose last
// warp is partial (48 threads); __syncwarp and a half-warp shuffle in a
// branch.  Compared with serial results.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
#include "gpu-check.h"

__global__ void warp_ops(const int *x, float *fsum, int *isum, int *imax,
                         int *scan, int *bcast, unsigned *ballot, int *anyall) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  unsigned mask = __activemask();
  int v = x[i];
  float f = v * 0.5f;
  int s = v, m = v;
  /* The partial warp (16 lanes) shuffles within segments of 16: lanes
   * beyond it do not exist. */
  int width = __popc(mask);
  for (int off = width / 2; off > 0; off /= 2) {
    f += __shfl_down_sync(mask, f, off, width);
    s += __shfl_down_sync(mask, s, off, width);
  }
  for (int off = 1; off < width; off *= 2)
    m = max(m, __shfl_xor_sync(mask, m, off, width));
  int sc = v;
  for (int off = 1; off < 8; off *= 2) {
    int up = __shfl_up_sync(mask, sc, off, 8);
    if (lane % 8 >= off)
      sc += up;
  }
  scan[i] = sc;
  bcast[i] = __shfl_sync(mask, v, 3);
  unsigned b = __ballot_sync(mask, v % 3 == 0);
  int any = __any_sync(mask, v == 7), all = __all_sync(mask, v >= 0);
  if (lane == 0) {
    int w = blockIdx.x * 2 + threadIdx.x / 32;
    fsum[w] = f, isum[w] = s, imax[w] = m, ballot[w] = b;
    anyall[2 * w] = any, anyall[2 * w + 1] = all;
  }
}

/* A warp exchanges values through shared memory ordered by __syncwarp,
 * and the lower half-warp shuffles among itself inside a branch (a
 * partial mask). */
__global__ void half_warps(int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  s[lane] = lane * lane;
  __syncwarp();
  int mirrored = s[31 - lane];
  __syncwarp();
  int r = -1;
  if (lane < 16)
    r = __shfl_sync(0x0000ffffu, mirrored, 15 - lane);
  out[lane] = r;
}

int main() {
  {
    int h[32], w[32], *d;
    for (int l = 0; l < 32; l++)
      w[l] = l < 16 ? (31 - (15 - l)) * (31 - (15 - l)) : -1;
    CK(cudaMalloc(&d, sizeof h));
    half_warps<<<1, 32>>>(d);
    to_host(h, d, 32);
    check_array("__syncwarp, half-warp __shfl_sync in a branch", h, w, 32);
  }
  const int nb = 3, bs = 48, n = nb * bs;
  const int nw = nb * 2; /* warps of 32 and 16 lanes */
  int x[n];
  for (int i = 0; i < n; i++)
    x[i] = (i * 7919) % 23;
  float fsum[nw], fw[nw];
  int isum[nw], iw[nw], imax[nw], mw[nw], scan[n], sw[n], bc[n], bw[n];
  int aa[2 * nw], aw[2 * nw];
  unsigned bal[nw], balw[nw];
  for (int b = 0; b < nb; b++)
    for (int w = 0; w < 2; w++) {
      int lanes = w == 0 ? 32 : 16, base = b * bs + 32 * w, k = 2 * b + w;
      fw[k] = 0, iw[k] = 0, mw[k] = 0, balw[k] = 0, aw[2 * k] = 0,
      aw[2 * k + 1] = 1;
      for (int l = 0; l < lanes; l++) {
        int v = x[base + l];
        fw[k] += v * 0.5f, iw[k] += v, mw[k] = v > mw[k] ? v : mw[k];
        balw[k] |= (unsigned)(v % 3 == 0) << l;
        aw[2 * k] |= v == 7, aw[2 * k + 1] &= v >= 0;
        int s = 0;
        for (int j = l - l % 8; j <= l; j++)
          s += x[base + j];
        sw[base + l] = s;
        bw[base + l] = x[base + 3];
      }
    }
  int *dx = to_device(x, n), *di, *dm, *ds, *db, *da;
  float *df;
  unsigned *dbal;
  CK(cudaMalloc(&df, sizeof fsum));
  CK(cudaMalloc(&di, sizeof isum));
  CK(cudaMalloc(&dm, sizeof imax));
  CK(cudaMalloc(&ds, sizeof scan));
  CK(cudaMalloc(&db, sizeof bc));
  CK(cudaMalloc(&dbal, sizeof bal));
  CK(cudaMalloc(&da, sizeof aa));
  warp_ops<<<nb, bs>>>(dx, df, di, dm, ds, db, dbal, da);
  CK(cudaGetLastError());
  to_host(fsum, df, nw), to_host(isum, di, nw), to_host(imax, dm, nw);
  to_host(scan, ds, n), to_host(bc, db, n), to_host(bal, dbal, nw);
  to_host(aa, da, 2 * nw);
  check_array("__shfl_down_sync float sum", fsum, fw, nw, 1e-6);
  check_array("__shfl_down_sync int sum", isum, iw, nw);
  check_array("__shfl_xor_sync max", imax, mw, nw);
  check_array("__shfl_up_sync scan, width 8", scan, sw, n);
  check_array("__shfl_sync broadcast", bc, bw, n);
  check_array("__ballot_sync", bal, balw, nw);
  check_array("__any_sync, __all_sync", aa, aw, 2 * nw);
  return gpu_report();
}
