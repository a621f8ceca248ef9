// -mllvm -zymase-gpu-count-atomics: zymase_gpu_atomics() counts the atomic
// read-modify-writes and compare-exchanges device code executes, exactly:
// N threads making K atomics each (atomicAdd on int and double, atomicMax,
// atomicCAS, a CAS loop) give N*K; a gradient whose threads all add into
// the same two parameters makes one atomic per block and parameter (two
// per thread with -zymase-gpu-all-atomic), also when the kernel has its
// pointers in a struct passed by value; a thread-owned elementwise
// gradient none; a neighbour's adjoint (atomic) one per thread whose
// adjoint is not zero (every thread with -zymase-gpu-all-atomic); without
// the option nothing is counted.
// NATIVE: skip, zymase_gpu_atomics() is the emulator's counter
// REQUIRES: cuda
// RUN: %gpu-clang -O0 -mllvm -zymase-gpu-count-atomics %s -o %t0 && %t0
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-count-atomics %s -o %t2 && %t2
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-count-atomics -mllvm -zymase-gpu-all-atomic -DALL_ATOMIC %s -o %ta && %ta
// RUN: %gpu-clang -O2 -DNOT_COUNTED %s -o %tn && %tn
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-count-atomics %s -o %tf && env ZYMASE_GPU_FAST=1 %tf
#include "gpu-check.h"

extern "C" unsigned long long zymase_gpu_atomics(void);
extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

enum { K = 6 }; /* atomics per thread of `many` */

__device__ void cas_add(unsigned long long *p, unsigned long long k) {
  unsigned long long old = *p, seen;
  do { /* one compare-exchange per try: one try when uncontended */
    seen = old;
    old = atomicCAS(p, seen, seen + k);
  } while (old != seen);
}

__global__ void many(int *i, double *d, int *mx, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  atomicAdd(i, 1);
  atomicAdd(d, 0.5);
  atomicAdd(&i[1 + t % 7], t);
  atomicMax(mx, t);
  atomicCAS(&mx[1], -1, t); /* succeeds once, counted every time */
  atomicExch(&i[8], t);
}

/* One thread makes the CAS loop, uncontended: one compare-exchange. */
__global__ void one_cas(unsigned long long *u) { cas_add(u, 3); }

/* Every thread adds into w[0], w[1] (class 2). */
__device__ double fit(const double *w, const double *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double r = w[0] * t[i] + w[1] - t[i] * t[i];
  return r * r;
}
__global__ void fit_gradient(const double *w, double *dw, const double *t) {
  __enzyme_autodiff((void *)fit, enzyme_dup, w, dw, enzyme_const, t);
}

/* The same with the kernel's pointers in a struct passed by value (as
 * XSBench and RSBench pass their data): its fields are the same in every
 * thread, so still one atomic per block and parameter. */
struct FitArgs {
  const double *w, *t;
  double *dw;
};
__global__ void fit_gradient_byval(FitArgs a) {
  __enzyme_autodiff((void *)fit, enzyme_dup, a.w, a.dw, enzyme_const, a.t);
}

/* y_i = x_i^2: thread i owns x[i] (class 1). */
__device__ void square(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i];
}
__global__ void square_gradient(const double *x, double *dx, double *y,
                                double *dy, int n) {
  __enzyme_autodiff((void *)square, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
}

/* y_i = c_i (x_i + x_{i+1}): x_{i+1} is also thread i+1's x_i, so both
 * updates are atomic; c_i = 0 for even i (their zero adjoints make no
 * atomic). */
__device__ void shift(const double *x, const double *c, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = c[i] * (x[i] + x[i + 1]);
}
__global__ void shift_gradient(const double *x, double *dx, const double *c,
                               double *y, double *dy, int n) {
  __enzyme_autodiff((void *)shift, enzyme_dup, x, dx, enzyme_const, c,
                    enzyme_dup, y, dy, enzyme_const, n);
}

#ifdef NOT_COUNTED
#define COUNTED(n) 0ull
#else
#define COUNTED(n) (unsigned long long)(n)
#endif

int main() {
  const int n = 1000, bs = 128, blocks = (n + bs - 1) / bs;
  int ih[9] = {0}, mh[2] = {0, -1};
  double dh = 0;
  unsigned long long uh = 1;
  int *i = to_device(ih, 9), *mx = to_device(mh, 2);
  double *d = to_device(&dh, 1);
  unsigned long long *u = to_device(&uh, 1);
  unsigned long long before = zymase_gpu_atomics();
  many<<<blocks, bs>>>(i, d, mx, n);
  CK(cudaDeviceSynchronize());
  check_value("many: atomics", (double)(zymase_gpu_atomics() - before),
              (double)COUNTED(n * K));
  to_host(ih, i, 9);
  to_host(&dh, d, 1);
  check_value("many: atomicAdd (int) result", ih[0], n);
  check_value("many: atomicAdd (double) result", dh, 0.5 * n);

  before = zymase_gpu_atomics();
  one_cas<<<1, 1>>>(u);
  CK(cudaDeviceSynchronize());
  check_value("CAS loop: atomics", (double)(zymase_gpu_atomics() - before),
              (double)COUNTED(1));

  /* The class-2 gradient: 2 atomics per block, 2 per thread all-atomic. */
  const int fb = 4, fn = fb * bs;
  double t[fn], w[2] = {0.7, -0.3}, dw[2] = {0, 0}, want[2] = {0, 0};
  for (int k = 0; k < fn; k++) {
    t[k] = 0.2 + 0.001 * k;
    double r = w[0] * t[k] + w[1] - t[k] * t[k];
    want[0] += 2 * r * t[k];
    want[1] += 2 * r;
  }
  double *d_t = to_device(t, fn), *d_w = to_device(w, 2);
  double *d_dw = to_device(dw, 2);
  before = zymase_gpu_atomics();
  fit_gradient<<<fb, bs>>>(d_w, d_dw, d_t);
  CK(cudaDeviceSynchronize());
#ifdef ALL_ATOMIC
  const int fit_atomics = 2 * fn;
#else
  const int fit_atomics = 2 * fb;
#endif
  check_value("fit gradient: atomics", (double)(zymase_gpu_atomics() - before),
              (double)COUNTED(fit_atomics));
  to_host(dw, d_dw, 2);
  check_array("fit gradient: dw", dw, want, 2, 1e-12);
  CK(cudaMemset(d_dw, 0, 2 * sizeof(double)));
  before = zymase_gpu_atomics();
  fit_gradient_byval<<<fb, bs>>>(FitArgs{d_w, d_t, d_dw});
  CK(cudaDeviceSynchronize());
  check_value("fit gradient, arguments by value: atomics",
              (double)(zymase_gpu_atomics() - before),
              (double)COUNTED(fit_atomics));
  to_host(dw, d_dw, 2);
  check_array("fit gradient, arguments by value: dw", dw, want, 2, 1e-12);

  /* The class-1 gradient: no atomic (n per array all-atomic). */
  double *d_dx, *d_y, *d_dy;
  double ones[fn], dx[fn], wantx[fn];
  for (int k = 0; k < fn; k++)
    ones[k] = 1, wantx[k] = 2 * t[k];
  d_dy = to_device(ones, fn);
  CK(cudaMalloc(&d_dx, fn * sizeof(double)));
  CK(cudaMemset(d_dx, 0, fn * sizeof(double)));
  CK(cudaMalloc(&d_y, fn * sizeof(double)));
  before = zymase_gpu_atomics();
  square_gradient<<<fb, bs>>>(d_t, d_dx, d_y, d_dy, fn);
  CK(cudaDeviceSynchronize());
#ifdef ALL_ATOMIC
  const int square_atomics = fn;
#else
  const int square_atomics = 0;
#endif
  check_value("square gradient: atomics",
              (double)(zymase_gpu_atomics() - before),
              (double)COUNTED(square_atomics));
  to_host(dx, d_dx, fn);
  check_array("square gradient: dx", dx, wantx, fn, 1e-14);

  /* The neighbour: an atomic per odd thread (zero adjoints skipped). */
  double c[fn];
  for (int k = 0; k < fn; k++)
    c[k] = k % 2 ? 0.5 + k : 0, wantx[k] = c[k] + (k ? c[k - 1] : 0);
  double *d_c = to_device(c, fn), *d_x1;
  CK(cudaMalloc(&d_x1, (fn + 1) * sizeof(double)));
  CK(cudaMemset(d_x1, 0, (fn + 1) * sizeof(double)));
  CK(cudaMemset(d_dx, 0, fn * sizeof(double)));
  CK(cudaMemcpy(d_dy, ones, fn * sizeof(double), cudaMemcpyHostToDevice));
  double *d_dx1;
  CK(cudaMalloc(&d_dx1, (fn + 1) * sizeof(double)));
  CK(cudaMemset(d_dx1, 0, (fn + 1) * sizeof(double)));
  before = zymase_gpu_atomics();
  shift_gradient<<<fb, bs>>>(d_x1, d_dx1, d_c, d_y, d_dy, fn);
  CK(cudaDeviceSynchronize());
#ifdef ALL_ATOMIC
  const int shift_atomics = 2 * fn;
#else
  const int shift_atomics = fn; /* two per odd thread */
#endif
  check_value("shift gradient: atomics",
              (double)(zymase_gpu_atomics() - before),
              (double)COUNTED(shift_atomics));
  to_host(dx, d_dx1, fn);
  check_array("shift gradient: dx", dx, wantx, fn, 1e-14);
  return gpu_report();
}
