// Refused with a located error, never a wrong gradient: __shared__ memory
// holding derivatives in a function without __syncthreads (its shadow
// could not be zeroed by the block), static or dynamic; dynamic (extern)
// __shared__ memory holding derivatives with -zymase-gpu-no-device-malloc
// (its shadow comes from the device heap); and a pointer to shared memory
// (address space 3) into the dynamic array that the pass cannot make a
// generic pointer (here passed to a function), whose shadow, in device
// memory, it could not address.
// REQUIRES: cuda
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o /dev/null -DNOSYNC 2>&1 | %FileCheck %s --check-prefix=NOSYNC
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o /dev/null -DDYNNOSYNC 2>&1 | %FileCheck %s --check-prefix=DYNNOSYNC
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o /dev/null -mllvm -zymase-gpu-no-device-malloc 2>&1 | %FileCheck %s --check-prefix=NOMALLOC
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o /dev/null
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o /dev/null -DSPACE 2>&1 | %FileCheck %s --check-prefix=SPACE
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o /dev/null -DSPACE 2>&1 | %FileCheck %s --check-prefix=SPACE

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

#if defined(NOSYNC)
// NOSYNC: error: {{.*}}the __shared__ variable '{{.*}}' holds derivatives in a function without __syncthreads
__device__ void f(const double *x, double *y) {
  __shared__ double s[64];
  int t = threadIdx.x;
  s[t] = x[t];
  y[t] = s[t] * s[t];
}
#elif defined(DYNNOSYNC)
// DYNNOSYNC: error: {{.*}}the __shared__ variable 's' holds derivatives in a function without __syncthreads
__device__ void f(const double *x, double *y) {
  extern __shared__ double s[];
  int t = threadIdx.x;
  s[t] = x[t];
  y[t] = s[t] * s[t];
}
#elif defined(SPACE)
// SPACE: autodiff-shared-errors.cu:[[@LINE+4]]:{{.*}}error: {{.*}}the dynamic (extern) __shared__ array 's' holds derivatives, and this instruction takes it as a pointer to shared memory (address space 3)
// SPACE-NEXT: instruction: {{.*}}call {{.*}}@_Z3getPU3AS3di(ptr addrspace(3)
typedef __attribute__((address_space(3))) double shared_double;
__device__ __noinline__ double get(shared_double *p, int t) { return p[t]; }
__device__ void f(const double *x, double *y) {
  extern __shared__ double s[];
  int t = threadIdx.x;
  s[t] = x[t];
  __syncthreads();
  shared_double *p = (shared_double *)s;
  y[t] = get(p, t) * s[(t + 1) % blockDim.x];
}
#else
// NOMALLOC: autodiff-shared-errors.cu:[[@LINE+2]]:{{.*}}error: {{.*}}the dynamic (extern) __shared__ array 's' holds derivatives; its shadow, as big as the launch's dynamic shared memory, would come from device malloc, which is turned off
// NOMALLOC: hint: use a static __shared__ array
__device__ void f(const double *x, double *y) {
  extern __shared__ double s[];
  int t = threadIdx.x;
  s[t] = x[t];
  __syncthreads();
  y[t] = s[t] * s[(t + 1) % blockDim.x];
}
#endif
__global__ void g(const double *x, double *dx, double *y, double *dy) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
