// HIP on CPU: an elementwise map launched with hipLaunchKernelGGL and with
// <<<>>> on a stream, a 2-D launch (dim3 grid and block), __constant__
// data written by hipMemcpyToSymbol, device math (ocml: sinf, exp) and
// atomics from every thread into one address (int, float, double, max,
// CAS); hipMemset, hipMemcpy device to device, hipGetLastError,
// hipGetErrorString.  Compared with serial results.
// REQUIRES: hip
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
#include "hip-check.h"

__constant__ float coef[3];

__global__ void map(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = coef[0] * sinf(x[i]) + coef[1] * (float)exp((double)x[i]) + coef[2];
}

__global__ void grid2d(int *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = 1000 * y + x + 7 * (int)(gridDim.x * gridDim.y) +
                     (int)(blockDim.x * blockDim.y);
}

__global__ void atomics(int *count, float *fsum, double *dsum, int *mx,
                        int *cas) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(count, 1);
  atomicAdd(fsum, 0.5f);
  atomicAdd(dsum, (double)i);
  atomicMax(mx, (i * 37) % 1001);
  int old = *cas, seen;
  while ((seen = atomicCAS(cas, old, old + 2)) != old)
    old = seen;
}

int main() {
  const int n = 1000;
  float x[n], y[n], want[n];
  const float c[3] = {2.0f, -0.5f, 0.25f};
  for (int i = 0; i < n; i++) {
    x[i] = -1 + 0.002f * i;
    want[i] = c[0] * sinf(x[i]) + c[1] * (float)exp((double)x[i]) + c[2];
  }
  CK(hipMemcpyToSymbol(HIP_SYMBOL(coef), c, sizeof c));
  float *d_x = to_device(x, n), *d_y, *d_z;
  CK(hipMalloc(&d_y, sizeof y));
  CK(hipMalloc(&d_z, sizeof y));
  hipLaunchKernelGGL(map, dim3((n + 127) / 128), dim3(128), 0, 0, d_x, d_y, n);
  CK(hipGetLastError());
  CK(hipMemcpy(d_z, d_y, sizeof y, hipMemcpyDeviceToDevice));
  to_host(y, d_z, n);
  check_array("map (hipLaunchKernelGGL)", y, want, n, 1e-6);
  hipStream_t s;
  CK(hipStreamCreate(&s));
  CK(hipMemset(d_y, 0, sizeof y));
  map<<<(n + 63) / 64, 64, 0, s>>>(d_x, d_y, n);
  CK(hipStreamSynchronize(s));
  CK(hipStreamDestroy(s));
  to_host(y, d_y, n);
  check_array("map (<<<>>> on a stream)", y, want, n, 1e-6);

  const int w = 37, h = 21;
  static int g[w * h], gw[w * h];
  dim3 block(8, 4), grid((w + 7) / 8, (h + 3) / 4);
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++)
      gw[j * w + i] = 1000 * j + i + 7 * (int)(grid.x * grid.y) + 32;
  int *d_g;
  CK(hipMalloc(&d_g, sizeof g));
  grid2d<<<grid, block>>>(d_g, w, h);
  CK(hipDeviceSynchronize());
  to_host(g, d_g, w * h);
  check_array("2-D launch", g, gw, w * h);

  int zero = 0;
  float fz = 0;
  double dz = 0;
  int *d_count = to_device(&zero, 1), *d_mx = to_device(&zero, 1),
      *d_cas = to_device(&zero, 1);
  float *d_f = to_device(&fz, 1);
  double *d_d = to_device(&dz, 1);
  const int blocks = 5, threads = 192, m = blocks * threads;
  atomics<<<blocks, threads>>>(d_count, d_f, d_d, d_mx, d_cas);
  CK(hipGetLastError());
  int count, mx, cas;
  float fsum;
  double dsum;
  to_host(&count, d_count, 1);
  to_host(&fsum, d_f, 1);
  to_host(&dsum, d_d, 1);
  to_host(&mx, d_mx, 1);
  to_host(&cas, d_cas, 1);
  int wmx = 0;
  for (int i = 0; i < m; i++)
    wmx = (i * 37) % 1001 > wmx ? (i * 37) % 1001 : wmx;
  check_value("atomicAdd int", count, m);
  check_value("atomicAdd float", fsum, 0.5 * m);
  check_value("atomicAdd double", dsum, (double)m * (m - 1) / 2);
  check_value("atomicMax", mx, wmx);
  check_value("atomicCAS loop", cas, 2 * m);
  if (strcmp(hipGetErrorString(hipSuccess), "no error"))
    gpu_failures++;
  CK(hipFree(d_x));
  return gpu_report();
}
