// A tape by value in a kernel (enzyme_allocated without enzyme_tape) that
// needs more bytes than enzyme_allocated gives is a located error at the
// augmented forward call and at the reverse call, naming the size needed
// (16 bytes here: the two loaded values), at -O0 and -O2.
// REQUIRES: cuda
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -g -S -emit-llvm %s -o /dev/null 2>&1 | %FileCheck %s
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -g -S -emit-llvm %s -o /dev/null 2>&1 | %FileCheck %s

__device__ int enzyme_dup, enzyme_allocated;

struct Tape8 {
  char b[8];
};
extern __device__ Tape8 __enzyme_augmentfwd(void *, ...);
extern __device__ void __enzyme_reverse(void *, ...);

__device__ void body(const double *src, double *dst) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  dst[i] = src[2 * i] * src[2 * i + 1];
}

__global__ void aug(const double *s, double *ds, double *d, double *dd,
                    Tape8 *tape) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: enzyme-split-tape-errors.cu:[[@LINE+3]]:15: error: [zymase:bad-call] cannot differentiate '_Z4bodyPKdPd': the tape needs 16 bytes but enzyme_allocated gives 8
  // CHECK-NEXT: instruction: {{.*}}@_Z19__enzyme_augmentfwdPvz(ptr
  // CHECK-NEXT: hint: give enzyme_allocated at least 16 in both calls, and the tape a type of as many bytes
  tape[idx] = __enzyme_augmentfwd((void *)body, enzyme_allocated,
                                  sizeof(Tape8), enzyme_dup, s, ds,
                                  enzyme_dup, d, dd);
}

__global__ void rev(const double *s, double *ds, double *d, double *dd,
                    Tape8 *tape) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: enzyme-split-tape-errors.cu:[[@LINE+2]]:3: error: [zymase:bad-call] cannot differentiate '_Z4bodyPKdPd': the tape needs 16 bytes but enzyme_allocated gives 8
  // CHECK-NEXT: instruction: {{.*}}@_Z16__enzyme_reversePvz(ptr
  __enzyme_reverse((void *)body, enzyme_allocated, sizeof(Tape8), enzyme_dup,
                   s, ds, enzyme_dup, d, dd, tape[idx]);
}
