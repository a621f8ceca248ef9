/* bench.h - shared by the GPU-on-CPU benchmarks: timing, checks, the
 * line each prints for its primal ("<name>: serial <ms> ms, gpu-on-cpu
 * <ms> ms") and the one for its gradients ("<name> gradient: ...").
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_BENCH_GPU_H
#define ZY_BENCH_GPU_H

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_));                  \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

static double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch())
      .count();
}

/* The largest relative difference between a and b; exits when above tol. */
template <typename T>
static void agree(const char *name, const T *a, const T *b, long n,
                  double tol) {
  double worst = 0;
  for (long i = 0; i < n; i++) {
    double d = std::fabs((double)a[i] - (double)b[i]) /
               std::fmax(1.0, std::fabs((double)b[i]));
    worst = d > worst ? d : worst;
  }
  if (!(worst <= tol)) {
    printf("FAIL %s: the kernel and the serial code differ by %g\n", name,
           worst);
    exit(1);
  }
}

static void report(const char *name, double serial_ms, double gpu_ms) {
  printf("%s: serial %.2f ms, gpu-on-cpu %.2f ms (x%.1f)\n", name, serial_ms,
         gpu_ms, gpu_ms / serial_ms);
}

/* Device AD: Enzyme's interface (Zymase differentiates the device IR). */
extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

/* What device code has done so far: the atomics executed and the
 * device-heap allocations (and their bytes) that succeeded; counted when
 * built with -mllvm -zymase-gpu-count-atomics -DZY_COUNT_ATOMICS (GPU on
 * CPU), else -1 (not counted). */
struct Counts {
  long long atomics, allocs, bytes;
};
#ifdef ZY_COUNT_ATOMICS
extern "C" unsigned long long zymase_gpu_atomics(void);
extern "C" unsigned long long zymase_gpu_heap_allocs(void);
extern "C" unsigned long long zymase_gpu_heap_bytes(void);
static Counts counts_now() {
  return {(long long)zymase_gpu_atomics(), (long long)zymase_gpu_heap_allocs(),
          (long long)zymase_gpu_heap_bytes()};
}
#else
static Counts counts_now() { return {-1, -1, -1}; }
#endif
/* What a launch did: counts_now() after it minus `before`. */
static Counts counts_since(Counts before) {
  if (before.atomics < 0)
    return before;
  Counts now = counts_now();
  return {now.atomics - before.atomics, now.allocs - before.allocs,
          now.bytes - before.bytes};
}

/* The hand-written adjoints' sum of `v` over the block (of whole warps)
 * added to *dst: shuffles down each warp, the warps' sums in shared
 * memory, one atomic add per block. */
__device__ static void block_add(double *dst, double v) {
  __shared__ double warp_sum[32];
  unsigned tid =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned nt = blockDim.x * blockDim.y * blockDim.z;
  for (int off = 16; off; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  if (tid % 32 == 0)
    warp_sum[tid / 32] = v;
  __syncthreads();
  if (tid == 0) {
    double s = 0;
    for (unsigned w = 0; w < nt / 32; w++)
      s += warp_sum[w];
    atomicAdd(dst, s);
  }
}

/* The fastest of `reps` runs of `run` (which synchronizes), in ms. */
template <typename F> static double best_ms(int reps, F run) {
  double best = 1e300;
  for (int r = 0; r < reps; r++) {
    double t0 = now_ms();
    run();
    double t = now_ms() - t0;
    best = t < best ? t : best;
  }
  return best;
}

/* Zymase's gradient against the hand-written adjoint (relative to the
 * largest magnitude of `b`): exits when they differ by more than tol. */
static void grad_agree(const char *name, const double *a, const double *b,
                       long n, double tol) {
  double scale = 1e-300, worst = 0;
  for (long i = 0; i < n; i++)
    scale = std::fmax(scale, std::fabs(b[i]));
  for (long i = 0; i < n; i++)
    worst = std::fmax(worst, std::fabs(a[i] - b[i]) / scale);
  if (!(worst <= tol)) {
    printf("FAIL %s: Zymase's gradient and the hand-written adjoint differ "
           "by %g (relative to %g)\n",
           name, worst, scale);
    exit(1);
  }
}

/* The serial checks at GPU sizes (up to 10^7 lookups): every stride-th
 * lookup, about 4096 of them, so that the serial reference and the finite
 * differences take seconds whatever the size. */
static long sample_stride(long n) { return n > 4096 ? n / 4096 : 1; }

/* The timed launches: `setup` (restoring the seed the previous gradient
 * consumed, outside the clock), then the fastest of `reps` runs of `run`
 * (which synchronizes), in ms.  Without the setup a gradient would run on
 * a zero seed, where Zymase skips the atomics of zero adjoints and a
 * hand-written adjoint does not. */
template <typename S, typename F>
static double best_ms_seeded(int reps, S setup, F run) {
  double best = 1e300;
  for (int r = 0; r < reps; r++) {
    setup();
    double t0 = now_ms();
    run();
    double t = now_ms() - t0;
    best = t < best ? t : best;
  }
  return best;
}

/* A central difference of J = sum_k seed[k] out[k] taken term by term:
 * sum_k seed[k] (op[k] - om[k]) / 2h, in long double, with the sum of the
 * terms' magnitudes beside it (printed on a failure: how much the sum
 * cancels).  The checks take it over a bounded number of outputs (sampled
 * lookups, the cells reading one value), so that its rounding does not
 * grow with the size; LBM's omega, which every cell reads, is differenced
 * in long double. */
struct Fd {
  double d, mag;
};
static Fd fd_terms(const double *seed, const double *op, const double *om,
                   long m, double h) {
  long double d = 0, mag = 0;
  for (long k = 0; k < m; k++) {
    long double t = (long double)seed[k] * ((long double)op[k] - om[k]);
    d += t, mag += t < 0 ? -t : t;
  }
  return {(double)(d / (2 * h)), (double)(mag / (2 * h))};
}
/* One derivative against such a difference (relative, as fd_agree). */
static void fd_check(const char *name, double grad, Fd fd, double tol) {
  double err = std::fabs(grad - fd.d) / std::fmax(1e-3, std::fabs(fd.d));
  if (!(err <= tol)) {
    printf("FAIL %s: gradient %.12g, finite difference %.12g (relative "
           "%.3g; sum of |terms| %.6g)\n",
           name, grad, fd.d, err, fd.mag);
    exit(1);
  }
}

/* One derivative against a central finite difference. */
static void fd_agree(const char *name, double grad, double fd, double tol) {
  double err = std::fabs(grad - fd) / std::fmax(1e-3, std::fabs(fd));
  if (!(err <= tol)) {
    printf("FAIL %s: gradient %.12g, finite difference %.12g\n", name, grad,
           fd);
    exit(1);
  }
}

/* The index of the largest |v[i]|. */
static long argmax_abs(const double *v, long n) {
  long k = 0;
  for (long i = 1; i < n; i++)
    if (std::fabs(v[i]) > std::fabs(v[k]))
      k = i;
  return k;
}

/* The gradient line, which benchmarks/gpu/run reads (-1: not counted):
 * the atomics of one launch of each gradient, and the device-heap
 * allocations and bytes of one launch of Zymase's two gradients. */
static void grad_report(const char *name, double primal, double zymase,
                        double hand, Counts zy, Counts scalar, Counts hw) {
  printf("%s gradient: primal %.2f ms, zymase %.2f ms (x%.2f), hand-written "
         "%.2f ms (x%.2f), atomics zymase %lld, scalar-only %lld, "
         "hand-written %lld, heap zymase %lld allocs %lld bytes, heap "
         "scalar %lld allocs\n",
         name, primal, zymase, zymase / primal, hand, hand / primal, zy.atomics,
         scalar.atomics, hw.atomics, zy.allocs, zy.bytes, scalar.allocs);
}

#endif
