// Kernels that are not differentiated compute what they compute without the
// plugin: libdevice's powf(x, 2.0f) (which the plugin once folded to 1.0 at
// -O2 in a module without gradients), cosf, sinf, expf, tanhf, exp, log,
// pow(x, 3.5), sqrt, against the host's libm, at -O0 and -O2, in a module
// without a gradient (-DNO_GRADIENT) and in one with a gradient (checked
// against its closed form), in the default GPU-on-CPU mode (libdevice
// linked, as for a GPU), with the host's libm (--host-libm) and natively
// (tools/gpu-native-check).
// REQUIRES: cuda
// RUN: %gpu-clang -O0 -DNO_GRADIENT %s -o %tn0 && %tn0
// RUN: %gpu-clang -O2 -DNO_GRADIENT %s -o %tn2 && %tn2
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %gpu-clang --host-libm -O2 %s -o %th && %th
#include "gpu-check.h"

#ifndef NO_GRADIENT
extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);
#endif

enum { POWF2, COSF, SINF, EXPF, TANHF, EXP, LOG, POW35, SQRT, NF };
static const char *const names[] = {"powf(x, 2)", "cosf", "sinf",
                                    "expf",       "tanhf", "exp",
                                    "log",        "pow(x, 3.5)", "sqrt"};

__global__ void floats(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  y[POWF2 * n + i] = powf(x[i], 2.0f);
  y[COSF * n + i] = cosf(x[i]);
  y[SINF * n + i] = sinf(x[i]);
  y[EXPF * n + i] = expf(x[i]);
  y[TANHF * n + i] = tanhf(x[i]);
}

__global__ void doubles(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  y[i] = exp(x[i]);
  y[n + i] = log(x[i]);
  y[2 * n + i] = pow(x[i], 3.5);
  y[3 * n + i] = sqrt(x[i]);
}

#ifndef NO_GRADIENT
/* A gradient in the same module: d/dx (powf(x, 2) cos x) per thread. */
__device__ float g(const float *x, int i) { return powf(x[i], 2.0f) * cosf(x[i]); }
__global__ void gradient(const float *x, float *dx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    __enzyme_autodiff((void *)g, enzyme_dup, x, dx, enzyme_const, i);
}
#endif

int main() {
  const int n = 200;
  float x[n], y[NF * n], want[NF * n], dx[n], wantdx[n];
  double xd[n], yd[4 * n], wantd[4 * n];
  for (int i = 0; i < n; i++) {
    x[i] = -3.0f + 0.031f * i;
    xd[i] = 0.05 + 0.04 * i;
  }
  for (int i = 0; i < n; i++) {
    want[POWF2 * n + i] = x[i] * x[i];
    want[COSF * n + i] = cosf(x[i]);
    want[SINF * n + i] = sinf(x[i]);
    want[EXPF * n + i] = expf(x[i]);
    want[TANHF * n + i] = tanhf(x[i]);
    wantd[i] = exp(xd[i]);
    wantd[n + i] = log(xd[i]);
    wantd[2 * n + i] = pow(xd[i], 3.5);
    wantd[3 * n + i] = sqrt(xd[i]);
    double c = x[i];
    wantdx[i] = (float)(2 * c * cos(c) - c * c * sin(c));
  }
  float *d_x = to_device(x, n), *d_y, *d_dx;
  double *d_xd = to_device(xd, n), *d_yd;
  CK(cudaMalloc(&d_y, sizeof y));
  CK(cudaMalloc(&d_yd, sizeof yd));
  CK(cudaMalloc(&d_dx, sizeof dx));
  CK(cudaMemset(d_dx, 0, sizeof dx));
  floats<<<(n + 63) / 64, 64>>>(d_x, d_y, n);
  doubles<<<(n + 63) / 64, 64>>>(d_xd, d_yd, n);
#ifndef NO_GRADIENT
  gradient<<<(n + 63) / 64, 64>>>(d_x, d_dx, n);
#endif
  CK(cudaGetLastError());
  to_host(y, d_y, NF * n);
  to_host(yd, d_yd, 4 * n);
  to_host(dx, d_dx, n);
  /* libdevice is within 2 ulp of the correctly rounded result. */
  for (int k = 0; k < EXP; k++)
    check_array(names[k], y + k * n, want + k * n, n, 4e-7);
  for (int k = 0; k < 4; k++)
    check_array(names[EXP + k], yd + k * n, wantd + k * n, n, 1e-15);
#ifndef NO_GRADIENT
  check_array("gradient of powf(x, 2) cos x", dx, wantdx, n, 2e-6);
#endif
  return gpu_report();
}
