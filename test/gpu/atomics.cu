// Atomics are real atomics: every thread of a grid adds into one address
// (atomicAdd on int, float and double), a 16-bin histogram with atomicAdd,
// atomicMax / atomicMin / atomicExch / atomicCAS (a CAS loop computing a
// product); compared with serial results.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
#include "gpu-check.h"

struct Acc {
  int i;
  float f;
  double d;
  int mx, mn, xchg;
  unsigned long long prod;
};

__device__ void cas_mul(unsigned long long *p, unsigned long long k) {
  unsigned long long old = *p, seen;
  do {
    seen = old;
    old = atomicCAS(p, seen, seen * k);
  } while (old != seen);
}

__global__ void accumulate(const int *x, int n, Acc *acc, int *hist) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    int v = x[i];
    atomicAdd(&acc->i, v);
    atomicAdd(&acc->f, 0.25f);
    atomicAdd(&acc->d, v * 0.5);
    atomicMax(&acc->mx, v);
    atomicMin(&acc->mn, v);
    atomicAdd(&hist[v % 16], 1);
    if (v == 77)
      atomicExch(&acc->xchg, i);
    if (i % 1000 == 0)
      cas_mul(&acc->prod, 3);
  }
}

int main() {
  const int n = 20000;
  int x[n], hist[16] = {0}, hw[16] = {0};
  Acc a = {0, 0, 0, -1, 1 << 30, -1, 1}, w = a;
  for (int i = 0; i < n; i++) {
    x[i] = (i * 31 + 7) % 1009;
    w.i += x[i], w.f += 0.25f, w.d += x[i] * 0.5;
    w.mx = x[i] > w.mx ? x[i] : w.mx, w.mn = x[i] < w.mn ? x[i] : w.mn;
    hw[x[i] % 16]++;
    if (x[i] == 77)
      w.xchg = i; /* one i only: 77 appears once per 1009 */
    if (i % 1000 == 0)
      w.prod *= 3;
  }
  int count77 = 0;
  for (int i = 0; i < n; i++)
    count77 += x[i] == 77;
  int *dx = to_device(x, n), *dh = to_device(hist, 16);
  Acc *da = to_device(&a, 1);
  accumulate<<<8, 256>>>(dx, n, da, dh);
  CK(cudaGetLastError());
  to_host(&a, da, 1), to_host(hist, dh, 16);
  check_value("atomicAdd int, one address", a.i, w.i);
  check_value("atomicAdd float, one address", a.f, w.f);
  check_value("atomicAdd double, one address", a.d, w.d);
  check_value("atomicMax", a.mx, w.mx);
  check_value("atomicMin", a.mn, w.mn);
  check_value("atomicCAS loop (3^20)", (double)a.prod, (double)w.prod);
  int found = 0;
  for (int i = 0; i < n; i++)
    found |= x[i] == 77 && a.xchg == i;
  check_value("atomicExch wrote one of the writers", found, count77 > 0);
  check_array("histogram", hist, hw, 16);
  return gpu_report();
}
