// HIP warps of 64 lanes (AMD's wavefront): warpSize is 64, and a
// __shfl_down sum over a full warp adds all 64 lanes (a runtime with warps
// of 32 would give the sum of lanes 0-31 only); __shfl_xor max, __shfl
// broadcast from lane 45, __shfl_up scans within segments of 16 (width),
// double shuffles, __ballot (64-bit), __any, __all, __lane_id; HIP's
// shuffles are ds_bpermute, its ballot llvm.amdgcn.icmp/fcmp.  Compared
// with serial results, in blocks of 192 threads (three warps).
// REQUIRES: hip
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
#include "hip-check.h"

#define B 192
#define NB 3

__global__ void warp_ops(const int *x, int *isum, double *dsum, int *imax,
                         int *scan, int *bcast, unsigned long long *ballot,
                         int *anyall, int *ws) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int v = x[i];
  int s = v, m = v;
  double d = v * 0.25;
  for (int off = warpSize / 2; off > 0; off /= 2) {
    s += __shfl_down(s, off);
    d += __shfl_down(d, off);
  }
  for (int off = 1; off < warpSize; off *= 2)
    m = max(m, __shfl_xor(m, off));
  int sc = v;
  for (int off = 1; off < 16; off *= 2) {
    int up = __shfl_up(sc, off, 16);
    if (lane % 16 >= off)
      sc += up;
  }
  scan[i] = sc;
  bcast[i] = __shfl(v, 45);
  unsigned long long b = __ballot(v % 3 == 0);
  int any = __any(v == 7), all = __all(v >= 0);
  if (lane == 0) {
    int w = i / 64;
    isum[w] = s;
    dsum[w] = d;
    imax[w] = m;
    ballot[w] = b;
    anyall[w] = any * 2 + all;
  }
  if (i == 0)
    *ws = warpSize * 1000 + (int)__lane_id();
  if (i == 65)
    ws[1] = (int)__lane_id();
}

int main() {
  const int n = B * NB, nw = n / 64;
  int x[n];
  for (int i = 0; i < n; i++)
    x[i] = (i * 7919) % 101;
  x[70] = 7;
  int *d_x = to_device(x, n), *d_isum, *d_imax, *d_scan, *d_bcast, *d_any,
      *d_ws;
  double *d_dsum;
  unsigned long long *d_ballot;
  CK(hipMalloc(&d_isum, nw * sizeof(int)));
  CK(hipMalloc(&d_dsum, nw * sizeof(double)));
  CK(hipMalloc(&d_imax, nw * sizeof(int)));
  CK(hipMalloc(&d_scan, n * sizeof(int)));
  CK(hipMalloc(&d_bcast, n * sizeof(int)));
  CK(hipMalloc(&d_ballot, nw * sizeof(unsigned long long)));
  CK(hipMalloc(&d_any, nw * sizeof(int)));
  CK(hipMalloc(&d_ws, 2 * sizeof(int)));
  hipLaunchKernelGGL(warp_ops, dim3(NB), dim3(B), 0, 0, d_x, d_isum, d_dsum,
                     d_imax, d_scan, d_bcast, d_ballot, d_any, d_ws);
  CK(hipGetLastError());
  int isum[nw], imax[nw], scan[n], bcast[n], anyall[nw], ws[2];
  double dsum[nw];
  unsigned long long ballot[nw];
  to_host(isum, d_isum, nw);
  to_host(dsum, d_dsum, nw);
  to_host(imax, d_imax, nw);
  to_host(scan, d_scan, n);
  to_host(bcast, d_bcast, n);
  to_host(ballot, d_ballot, nw);
  to_host(anyall, d_any, nw);
  to_host(ws, d_ws, 2);
  int wsum[nw], wmax[nw], wscan[n], wb[n], wany[nw];
  double wdsum[nw];
  unsigned long long wballot[nw];
  for (int w = 0; w < nw; w++) {
    wsum[w] = wmax[w] = 0;
    wdsum[w] = 0;
    wballot[w] = 0;
    int any = 0;
    for (int l = 0; l < 64; l++) {
      int v = x[w * 64 + l];
      wsum[w] += v;
      wdsum[w] += v * 0.25;
      wmax[w] = v > wmax[w] ? v : wmax[w];
      if (v % 3 == 0)
        wballot[w] |= 1ull << l;
      any |= v == 7;
      wb[w * 64 + l] = x[w * 64 + 45];
    }
    wany[w] = any * 2 + 1;
  }
  for (int i = 0; i < n; i++) {
    wscan[i] = 0;
    for (int j = i - i % 16; j <= i; j++)
      wscan[i] += x[j];
  }
  check_value("warpSize, lane of thread 0", ws[0], 64000);
  check_value("lane of thread 65", ws[1], 1);
  check_array("__shfl_down sum over 64 lanes (int)", isum, wsum, nw);
  check_array("__shfl_down sum over 64 lanes (double)", dsum, wdsum, nw,
              1e-15);
  check_array("__shfl_xor max", imax, wmax, nw);
  check_array("__shfl_up scan (width 16)", scan, wscan, n);
  check_array("__shfl broadcast from lane 45", bcast, wb, n);
  check_array("__ballot (64 bits)", ballot, wballot, nw);
  check_array("__any / __all", anyall, wany, nw);
  return gpu_report();
}
