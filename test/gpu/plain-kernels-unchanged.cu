// Loading the plugin changes nothing in device code without gradients: the
// kernels of issue 28 (cosf, sinf and exp crashed clang in instcombine at
// -O1..-O3; powf(x, 2.0f) became 1.0 at -O2) and their siblings compile
// with the plugin at -O0..-O3, host and nvptx, to the same IR as without it
// (tools/check-unchanged).  The checker fails when the plugin is made to
// mark a kernel (-zymase-test-touch).
// REQUIRES: cuda
// RUN: %check-unchanged %s
// RUN: %not %check-unchanged --levels 2 --side nvptx --plugin-arg=-mllvm --plugin-arg=-zymase-test-touch=_Z5k_cosPKfPfi %s | %FileCheck %s --check-prefix=TOUCHED
// TOUCHED: FAIL {{.*}}plain-kernels-unchanged.cu nvptx -O2
// TOUCHED: changed: function @_Z5k_cosPKfPfi
#include <cuda_runtime.h>

__global__ void k_cos(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = cosf(x[i]);
}

__global__ void k_sin(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sinf(x[i]);
}

__global__ void k_exp(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = exp(x[i]);
}

__global__ void k_pow(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = powf(x[i], 2.0f);
}

__global__ void k_mixed(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = cos(x[i]) * sin(x[i]) + log(x[i]) + tanhf((float)x[i]) +
           pow(x[i], 3.5) + sqrtf((float)x[i]) + expf((float)x[i]);
}
