// Forward mode in device code: kernels call __enzyme_fwddiff on __device__
// functions.  Scalars through libdevice math (__nv_sin, __nv_exp, __nv_log,
// __nv_pow, __nv_sqrt, __nv_tanh, __nv_sinf, __nv_expf) against closed
// forms; a kernel body (thread numbers, a grid-stride loop, global memory
// through enzyme_dup shadows) against central differences; a body with
// __shared__ memory and __syncthreads (its shadow __shared__ too), a block
// reduction tree (shared memory, then __shfl_down_sync and a
// __shfl_xor_sync butterfly, whose tangents are shuffled alike; one tree
// whose sum only lane 0 uses), and dynamic (extern) __shared__ memory
// against central differences; forward against reverse, dot(J^T w, v) ==
// dot(w, J v), through the stencil and the reduction; vector mode
// (enzyme_width 2) with shared memory, one shadow per direction; shared
// data the kernel sets between two calls; the program's atomicAdd (an
// atomic add of the tangent).  Forward mode adds no atomics: the device IR
// of the kernels whose primal makes none has none, and the emulator
// counts none while they run.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %if !quick %{ %gpu-clang -O1 %s -o %t1 && %t1 %}
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-count-atomics -DCOUNT_ATOMICS %s -o %tc && %tc
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm -DNO_ATOMICS %s -o %t.ll
// RUN: %FileCheck %s --check-prefix=IR < %t.ll
// RUN: %FileCheck %s --check-prefix=NOATOMIC < %t.ll
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm -DNO_ATOMICS %s -o %t0.ll
// RUN: %FileCheck %s --check-prefix=IR < %t0.ll
// RUN: %FileCheck %s --check-prefix=NOATOMIC < %t0.ll
// RUN: %if cuda-native %{ %cuda-native -O0 %s -o %tn0 %}
// RUN: %if cuda-native %{ %cuda-native -O2 %s -o %tn2 %}
// RUN: %if cuda-gpu %{ %tn0 && %tn2 %}
//
// NOATOMIC-NOT: atomicrmw
// NOATOMIC-NOT: cmpxchg
// IR: define internal {{.*}}@__zymase_fwd._Z7stencilPKdPdi
// IR: call void @llvm.nvvm.barrier
// IR: define internal {{.*}}@__zymase_fwd._Z9reductionPKdPdi
// IR: @zymase.shfl.sync.down.f64
// IR: @zymase.shfl.sync.bfly.f64
#include "gpu-check.h"

__device__ int enzyme_dup, enzyme_const, enzyme_width;
extern __device__ double __enzyme_fwddiff(void *, ...);
extern __device__ float __enzyme_fwddiff_f(void *, ...);
extern __device__ void __enzyme_fwddiff_v(void *, ...);
extern __device__ void __enzyme_autodiff(void *, ...);
#ifdef COUNT_ATOMICS
extern "C" unsigned long long zymase_gpu_atomics(void);
#endif

/* --- Scalars and libdevice math -------------------------------------- */

__device__ double scalar(double x, double y) {
  return sin(x) * exp(y) + log(1 + x * x) / y + pow(x, y) + sqrt(x * y) +
         tanh(x - y);
}
__device__ float scalarf(float x, float y) { return sinf(x) * expf(x * y); }

__global__ void scalar_tangents(const double *x, const double *y, double *t,
                                double *tc, float *tf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  t[i] = __enzyme_fwddiff((void *)scalar, x[i], 1.0, y[i], 0.5);
  tc[i] = __enzyme_fwddiff((void *)scalar, x[i], 1.0, enzyme_const, y[i]);
  tf[i] = __enzyme_fwddiff_f((void *)scalarf, (float)x[i], 1.0f, (float)y[i],
                             -2.0f);
}

static void check_scalars() {
  const int n = 150;
  double x[n], y[n], t[n], tc[n], wt[n], wc[n];
  float tf[n], wf[n];
  for (int i = 0; i < n; i++) {
    double a = x[i] = 0.3 + 0.01 * i, b = y[i] = 0.5 + 0.004 * i;
    double th = tanh(a - b), dth = 1 - th * th;
    double dx = cos(a) * exp(b) + 2 * a / ((1 + a * a) * b) +
                b * pow(a, b - 1) + 0.5 * b / sqrt(a * b) + dth;
    double dy = sin(a) * exp(b) - log(1 + a * a) / (b * b) +
                pow(a, b) * log(a) + 0.5 * a / sqrt(a * b) - dth;
    wt[i] = dx + 0.5 * dy, wc[i] = dx;
    float af = (float)a, bf = (float)b;
    wf[i] = (cosf(af) + sinf(af) * bf) * expf(af * bf) -
            2 * sinf(af) * af * expf(af * bf);
  }
  double *d_x = to_device(x, n), *d_y = to_device(y, n), *d_t, *d_tc;
  float *d_tf;
  CK(cudaMalloc(&d_t, sizeof t));
  CK(cudaMalloc(&d_tc, sizeof tc));
  CK(cudaMalloc(&d_tf, sizeof tf));
  scalar_tangents<<<3, 64>>>(d_x, d_y, d_t, d_tc, d_tf, n);
  CK(cudaGetLastError());
  to_host(t, d_t, n), to_host(tc, d_tc, n), to_host(tf, d_tf, n);
  check_array("scalar tangent along (1, 0.5)", t, wt, n, 1e-12);
  check_array("scalar tangent, y constant", tc, wc, n, 1e-12);
  check_array("float tangent along (1, -2)", tf, wf, n, 1e-5);
  CK(cudaFree(d_x));
  CK(cudaFree(d_y));
  CK(cudaFree(d_t));
  CK(cudaFree(d_tc));
  CK(cudaFree(d_tf));
}

/* --- Kernel bodies ----------------------------------------------------- */

/* Grid-stride: y[i] = exp(x[i]) x[i+1] + sum_k x[i]^k / (k + 1), k < 4. */
__device__ void body(const double *x, double *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    double s = exp(x[i]) * x[(i + 1) % n], p = 1;
    for (int k = 0; k < 4; k++, p *= x[i])
      s += p / (k + 1);
    y[i] = s;
  }
}

enum { B = 64 };

/* A tile in shared memory, neighbours read across a barrier. */
__device__ void stencil(const double *x, double *y, int n) {
  __shared__ double s[B];
  int t = threadIdx.x, i = blockIdx.x * B + t;
  s[t] = i < n ? exp(x[i]) * x[i] : 0.0;
  __syncthreads();
  double v = s[t] * s[(t + 1) % B] + sin(s[(t + B - 1) % B]);
  __syncthreads();
  s[t] = v * v; /* written again after the barrier */
  __syncthreads();
  if (i < n)
    y[i] = s[(t + 3) % B] + v;
}

/* Per block: a shared-memory tree down to 32 values, then warp 0 sums
 * them by __shfl_down_sync (lane l ends with a partial sum), by a
 * __shfl_xor_sync butterfly (every lane with the whole sum), and by a
 * third tree of which only lane 0's sum is used (the optimizer sinks the
 * last step's joining of a double's halves into lane 0's branch; the
 * shuffle must stay where the 32 lanes meet): 33 values per block. */
__device__ void reduction(const double *x, double *out, int n) {
  __shared__ double s[2 * B];
  int t = threadIdx.x, i = blockIdx.x * 2 * B + t;
  s[t] = i < n ? x[i] * x[i] : 0.0;
  __syncthreads();
  for (int h = B; h >= 32; h /= 2) {
    if (t < h)
      s[t] += cos(s[t + h]);
    __syncthreads();
  }
  if (t < 32) {
    double v = s[t], w = s[t], u = s[t] * s[t];
    for (int o = 16; o > 0; o /= 2)
      v += __shfl_down_sync(0xffffffffu, v, o);
    for (int o = 16; o > 0; o /= 2)
      w = w * 0.5 + __shfl_xor_sync(0xffffffffu, w, o);
    for (int o = 16; o > 0; o /= 2)
      u += __shfl_down_sync(0xffffffffu, u, o);
    out[blockIdx.x * 33 + t] = sin(v) + w * w;
    if (t == 0)
      out[blockIdx.x * 33 + 32] = cos(u);
  }
}

/* Dynamic shared memory: y[i] = tile[t] tile[t+1], tile[t] = sqrt(x[i]). */
__device__ void dynamic(const double *x, double *y, int n) {
  extern __shared__ double tile[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  tile[t] = i < n ? sqrt(x[i]) : 0.0;
  __syncthreads();
  if (i < n)
    y[i] = tile[t] * tile[(t + 1) % blockDim.x];
}

/* A __shared__ array that the kernel also writes outside the
 * differentiated functions: what the second call reads there was set by
 * the kernel and has tangent zero, though the first call left tangents in
 * its shadow (each call's block zeroes the shadows where it starts). */
__shared__ double board[B];
__device__ void fill(const double *x) {
  board[threadIdx.x] = 3 * x[blockIdx.x * B + threadIdx.x];
  __syncthreads();
}
__device__ void use(const double *x, double *y) {
  __syncthreads();
  int t = threadIdx.x, i = blockIdx.x * B + t;
  y[i] = board[(t + 1) % B] * x[i];
}
__global__ void refill(const double *x, const double *v, double *y,
                       double *dy) {
  __enzyme_fwddiff_v((void *)fill, enzyme_dup, x, v);
  __syncthreads();
  board[threadIdx.x] = 2.0 + threadIdx.x;
  __enzyme_fwddiff_v((void *)use, enzyme_dup, x, v, enzyme_dup, y, dy);
}

static void check_refill() {
  const int n = 2 * B;
  double x[n], v[n], dy[n], want[n];
  for (int i = 0; i < n; i++) {
    x[i] = 1 + 0.01 * i, v[i] = 1 - 0.003 * i;
    want[i] = (2.0 + (i + 1) % B) * v[i];
  }
  double *d_x = to_device(x, n), *d_v = to_device(v, n), *d_y, *d_dy;
  CK(cudaMalloc(&d_y, sizeof dy));
  CK(cudaMalloc(&d_dy, sizeof dy));
  refill<<<2, B>>>(d_x, d_v, d_y, d_dy);
  CK(cudaGetLastError());
  to_host(dy, d_dy, n);
  check_array("__shared__ data set outside: tangent zero", dy, want, n, 1e-15);
  CK(cudaFree(d_x));
  CK(cudaFree(d_v));
  CK(cudaFree(d_y));
  CK(cudaFree(d_dy));
}

#define KERNELS(name)                                                          \
  __global__ void name##_primal(const double *x, double *y, int n) {           \
    name(x, y, n);                                                             \
  }                                                                            \
  __global__ void name##_tangent(const double *x, const double *v, double *y,  \
                                 double *dy, int n) {                          \
    __enzyme_fwddiff_v((void *)name, enzyme_dup, x, v, enzyme_dup, y, dy,      \
                       enzyme_const, n);                                       \
  }
KERNELS(body)
KERNELS(stencil)
KERNELS(reduction)
KERNELS(dynamic)

/* Two directions at once: dy = (J v0, J v1). */
__global__ void stencil_tangent2(const double *x, const double *v0,
                                 const double *v1, double *y, double *dy0,
                                 double *dy1, int n) {
  __enzyme_fwddiff_v((void *)stencil, enzyme_width, 2, enzyme_dup, x, v0, v1,
                     enzyme_dup, y, dy0, dy1, enzyme_const, n);
}

/* The kernels that make atomics are left out of the IR checked for them
 * and of the count: reverse mode (its adjoints of shared memory are
 * atomic), and the tangent of the program's own atomicAdd. */
#if !defined(NO_ATOMICS) && !defined(COUNT_ATOMICS)
#define ATOMICS
#endif

#ifdef ATOMICS
/* The program's atomicAdd: the same atomic add of the tangent. */
__device__ void atomic_sum(const double *x, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, sin(x[i]) * x[i]);
}
__global__ void atomic_sum_tangent(const double *x, const double *v,
                                   double *out, double *dout, int n) {
  __enzyme_fwddiff_v((void *)atomic_sum, enzyme_dup, x, v, enzyme_dup, out,
                     dout, enzyme_const, n);
}

static void check_atomic_sum() {
  const int n = 300;
  double x[n], v[n], zero = 0, t, want = 0;
  for (int i = 0; i < n; i++) {
    x[i] = 0.01 * i - 1, v[i] = 1 + 0.002 * i;
    want += (cos(x[i]) * x[i] + sin(x[i])) * v[i];
  }
  double *d_x = to_device(x, n), *d_v = to_device(v, n),
         *d_out = to_device(&zero, 1), *d_dout = to_device(&zero, 1);
  atomic_sum_tangent<<<3, 128>>>(d_x, d_v, d_out, d_dout, n);
  CK(cudaGetLastError());
  to_host(&t, d_dout, 1);
  check_value("atomicAdd: the tangents' atomic sum", t, want, 1e-12);
  CK(cudaFree(d_x));
  CK(cudaFree(d_v));
  CK(cudaFree(d_out));
  CK(cudaFree(d_dout));
}

/* Reverse mode of the same bodies: dx = J^T w. */
#define GRADIENT(name)                                                         \
  __global__ void name##_gradient(const double *x, double *dx, double *y,      \
                                  double *w, int n) {                          \
    __enzyme_autodiff((void *)name, enzyme_dup, x, dx, enzyme_dup, y, w,       \
                      enzyme_const, n);                                        \
  }
GRADIENT(stencil)
GRADIENT(reduction)
#endif

typedef void (*Primal)(const double *, double *, int);
typedef void (*Tangent)(const double *, const double *, double *, double *,
                        int);

struct Launch {
  int grid, block, shared;
};

/* The tangent along v against central differences of the primal kernel
 * (m outputs), tolerance tol. */
static void check_body(const char *what, Primal primal, Tangent tangent,
                       Launch l, int n, int m, double tol) {
  double *x = new double[n], *v = new double[n], *xp = new double[n],
         *xm = new double[n], *dy = new double[m], *yp = new double[m],
         *ym = new double[m], *want = new double[m];
  const double h = 1e-6;
  for (int i = 0; i < n; i++) {
    x[i] = 0.4 + 0.3 * sin(0.7 * i);
    v[i] = cos(0.3 * i);
    xp[i] = x[i] + h * v[i], xm[i] = x[i] - h * v[i];
  }
  double *d_x = to_device(x, n), *d_v = to_device(v, n), *d_y, *d_dy;
  CK(cudaMalloc(&d_y, m * sizeof *dy));
  CK(cudaMalloc(&d_dy, m * sizeof *dy));
  tangent<<<l.grid, l.block, l.shared>>>(d_x, d_v, d_y, d_dy, n);
  CK(cudaGetLastError());
  to_host(dy, d_dy, m);
  double *d_xp = to_device(xp, n), *d_xm = to_device(xm, n);
  primal<<<l.grid, l.block, l.shared>>>(d_xp, d_y, n);
  to_host(yp, d_y, m);
  primal<<<l.grid, l.block, l.shared>>>(d_xm, d_y, n);
  to_host(ym, d_y, m);
  for (int i = 0; i < m; i++)
    want[i] = (yp[i] - ym[i]) / (2 * h);
  check_array(what, dy, want, m, tol);
  CK(cudaFree(d_x));
  CK(cudaFree(d_v));
  CK(cudaFree(d_y));
  CK(cudaFree(d_dy));
  CK(cudaFree(d_xp));
  CK(cudaFree(d_xm));
  delete[] x, delete[] v, delete[] xp, delete[] xm, delete[] dy, delete[] yp;
  delete[] ym, delete[] want;
}

#ifdef ATOMICS
typedef void (*Gradient)(const double *, double *, double *, double *, int);

/* Forward against reverse: dot(J^T w, v) == dot(w, J v), relative to
 * sum |(J^T w)_i v_i|. */
static void check_dot(const char *what, Tangent tangent, Gradient gradient,
                      Launch l, int n, int m) {
  double *x = new double[n], *v = new double[n], *g = new double[n](),
         *w = new double[m], *dy = new double[m];
  for (int i = 0; i < n; i++)
    x[i] = 0.3 + 0.2 * cos(0.9 * i), v[i] = sin(0.4 * i + 1);
  for (int i = 0; i < m; i++)
    w[i] = 1 + 0.5 * sin(0.25 * i);
  double *d_x = to_device(x, n), *d_v = to_device(v, n), *d_g = to_device(g, n),
         *d_w = to_device(w, m), *d_y, *d_dy;
  CK(cudaMalloc(&d_y, m * sizeof *w));
  CK(cudaMalloc(&d_dy, m * sizeof *w));
  tangent<<<l.grid, l.block, l.shared>>>(d_x, d_v, d_y, d_dy, n);
  gradient<<<l.grid, l.block, l.shared>>>(d_x, d_g, d_y, d_w, n);
  CK(cudaGetLastError());
  to_host(dy, d_dy, m);
  to_host(g, d_g, n);
  double rev = 0, fwd = 0, scale = 0;
  for (int i = 0; i < n; i++)
    rev += g[i] * v[i], scale += fabs(g[i] * v[i]);
  for (int i = 0; i < m; i++)
    fwd += w[i] * dy[i];
  check_value(what, rev / scale, fwd / scale, 1e-13);
  CK(cudaFree(d_x));
  CK(cudaFree(d_v));
  CK(cudaFree(d_g));
  CK(cudaFree(d_w));
  CK(cudaFree(d_y));
  CK(cudaFree(d_dy));
  delete[] x, delete[] v, delete[] g, delete[] w, delete[] dy;
}
#endif

/* Vector mode against two runs of width 1. */
static void check_stencil_directions(int n) {
  int grid = (n + B - 1) / B;
  double *x = new double[n], *v0 = new double[n], *v1 = new double[n],
         *a = new double[n], *b = new double[n], *a1 = new double[n],
         *b1 = new double[n];
  for (int i = 0; i < n; i++)
    x[i] = 0.2 + 0.002 * i, v0[i] = sin(0.1 * i), v1[i] = 1.0 / (1 + i);
  double *d_x = to_device(x, n), *d_v0 = to_device(v0, n),
         *d_v1 = to_device(v1, n), *d_y, *d_a, *d_b;
  CK(cudaMalloc(&d_y, n * sizeof *x));
  CK(cudaMalloc(&d_a, n * sizeof *x));
  CK(cudaMalloc(&d_b, n * sizeof *x));
  stencil_tangent2<<<grid, B>>>(d_x, d_v0, d_v1, d_y, d_a, d_b, n);
  CK(cudaGetLastError());
  to_host(a, d_a, n), to_host(b, d_b, n);
  stencil_tangent<<<grid, B>>>(d_x, d_v0, d_y, d_a, n);
  to_host(a1, d_a, n);
  stencil_tangent<<<grid, B>>>(d_x, d_v1, d_y, d_b, n);
  to_host(b1, d_b, n);
  check_array("stencil, width 2: direction 0", a, a1, n, 1e-14);
  check_array("stencil, width 2: direction 1", b, b1, n, 1e-14);
  CK(cudaFree(d_x));
  CK(cudaFree(d_v0));
  CK(cudaFree(d_v1));
  CK(cudaFree(d_y));
  CK(cudaFree(d_a));
  CK(cudaFree(d_b));
  delete[] x, delete[] v0, delete[] v1, delete[] a, delete[] b;
  delete[] a1, delete[] b1;
}

int main() {
#ifdef COUNT_ATOMICS
  unsigned long long before = zymase_gpu_atomics();
#endif
  check_scalars();
  check_body("grid-stride body", body_primal, body_tangent, {3, 32, 0}, 500,
             500, 1e-7);
  check_body("shared-memory stencil", stencil_primal, stencil_tangent,
             {5, B, 0}, 300, 300, 1e-7);
  check_body("reduction tree and shuffles", reduction_primal, reduction_tangent,
             {3, 2 * B, 0}, 360, 3 * 33, 1e-7);
  check_body("dynamic shared memory", dynamic_primal, dynamic_tangent,
             {4, 48, 48 * sizeof(double)}, 190, 190, 1e-7);
  check_stencil_directions(250);
#ifdef ATOMICS
  check_dot("stencil: dot(J^T w, v) == dot(w, J v)", stencil_tangent,
            stencil_gradient, {4, B, 0}, 250, 250);
#ifndef NO_REDUCTION_GRADIENT
  check_dot("reduction: dot(J^T w, v) == dot(w, J v)", reduction_tangent,
            reduction_gradient, {3, 2 * B, 0}, 360, 3 * 33);
#endif
#endif
  check_refill();
#ifdef ATOMICS
  check_atomic_sum();
#endif
#ifdef COUNT_ATOMICS
  check_value("atomics made by the tangent kernels",
              (double)(zymase_gpu_atomics() - before), 0);
#endif
  return gpu_report();
}
