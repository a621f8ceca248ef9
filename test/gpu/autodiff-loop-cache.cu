// Loop caches of device gradients (cache/gpu_buffers.c), numerically: a
// loop of 8 iterations, a nest of 3 x 5, and a loop whose exit depends on
// data but whose trip count is at most 8 keep their values in a
// fixed-size buffer in each thread's local memory; a loop whose trip count
// is a kernel argument and a grid-stride loop keep them in buffers from
// the device heap (malloc and free, no realloc); a recurrence of an inner
// loop of 5 iterations is replayed into a fixed-size scratch buffer.  The loops are kept
// rolled (#pragma unroll 1).  Float and double, block sizes 32, 64, 100
// and 128; each thread's gradient and the parameters' gradient summed over
// all threads against central finite differences; the same with
// -zymase-gpu-local-cache-bytes=0 (every cache from the heap) and =64
// (some of each); ThreadSanitizer finds no race between the threads'
// buffers, AddressSanitizer no access out of them (a fixed-size buffer
// one value too small passes the numbers on the CPU's stack).
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-local-cache-bytes=0 %s -o %th && %th
// RUN: %gpu-clang -O1 -mllvm -zymase-gpu-local-cache-bytes=64 %s -o %tm && %tm
// RUN: %if !quick %{ %gpu-clang -O1 -g -fsanitize=address %s -o %ta && %ta %}
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %s -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt %}
#include "gpu-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

#define HD __host__ __device__

/* Thread i's value from parameters w[0..7] and its element x; n is the
 * trip count of the last one. */
template <typename T> HD T f_const(const T *w, T x, int i, int n) {
  T s = x;
#pragma unroll 1
  for (int k = 0; k < 8; k++)
    s = sin(s * w[k]) + s * (T)0.5;
  return s;
}
template <typename T> HD T f_nested(const T *w, T x, int i, int n) {
  T s = x;
#pragma unroll 1
  for (int a = 0; a < 3; a++)
#pragma unroll 1
    for (int k = 0; k < 5; k++)
      s = sin(s * w[k + a] + (T)0.1 * a) + s * (T)0.25;
  return s;
}
/* At most 8 iterations, i % 9 of them. */
template <typename T> HD T f_bounded(const T *w, T x, int i, int n) {
  T s = x;
  int m = i % 9;
#pragma unroll 1
  for (int k = 0; k < 8 && k < m; k++)
    s = cos(s * w[k]) * s + (T)0.3;
  return s;
}
template <typename T> HD T f_dynamic(const T *w, T x, int i, int n) {
  T s = x;
#pragma unroll 1
  for (int k = 0; k < n; k++)
    s = sin(s * w[k % 8]) + s * (T)0.5;
  return s;
}

/* A recurrence of an inner loop (tj *= t) is replayed in the reverse
 * sweep: its scratch is a fixed-size buffer of 5 values. */
template <typename T> HD T f_recurrence(const T *w, T x, int i, int n) {
  T sum = 0;
#pragma unroll 1
  for (int a = 0; a < n; a++) {
    T t = x + (T)0.05 * a, tj = 1, r = 1;
#pragma unroll 1
    for (int j = 0; j < 5; j++) {
      r -= w[j] * tj;
      tj *= t;
    }
    sum += r * r;
  }
  return (T)0.5 * sum;
}

#define DEVICE_BODY(name)                                                      \
  template <typename T>                                                        \
  __device__ T d_##name(const T *w, const T *x, int count, int n) {            \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (i >= count)                                                            \
      return 0;                                                                \
    return f_##name(w, x[i], i, n);                                            \
  }                                                                            \
  template <typename T>                                                        \
  __global__ void k_##name(const T *w, T *dw, const T *x, T *dx, int count,    \
                           int n) {                                            \
    __enzyme_autodiff((void *)d_##name<T>, enzyme_dup, w, dw, enzyme_dup, x,   \
                      dx, enzyme_const, count, enzyme_const, n);               \
  }
DEVICE_BODY(const)
DEVICE_BODY(nested)
DEVICE_BODY(bounded)
DEVICE_BODY(dynamic)
DEVICE_BODY(recurrence)

/* A grid-stride loop: s = sin(s w0 + x_j) over the thread's elements. */
template <typename T> __device__ T d_stride(const T *w, const T *x, int n) {
  T s = 0;
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n;
       j += blockDim.x * gridDim.x)
    s = sin(s * w[0] + x[j]) + w[1] * x[j];
  return s;
}
template <typename T>
__global__ void k_stride(const T *w, T *dw, const T *x, T *dx, int n) {
  __enzyme_autodiff((void *)d_stride<T>, enzyme_dup, w, dw, enzyme_dup, x, dx,
                    enzyme_const, n);
}
/* The same on the host: the sum over all threads of the grid. */
static double h_stride(const double *w, const double *x, int n, int threads) {
  double sum = 0;
  for (int t = 0; t < threads; t++) {
    double s = 0;
    for (int j = t; j < n; j += threads)
      s = sin(s * w[0] + x[j]) + w[1] * x[j];
    sum += s;
  }
  return sum;
}

enum { COUNT = 200, NW = 8, DYN = 11 };
typedef double (*HostF)(const double *, double, int, int);
static const double H = 1e-6;

template <typename T>
static void launch(int kind, int bs, const T *w, T *dw, const T *x, T *dx) {
  int blocks = (COUNT + bs - 1) / bs;
  switch (kind) {
  case 0: k_const<T><<<blocks, bs>>>(w, dw, x, dx, COUNT, DYN); break;
  case 1: k_nested<T><<<blocks, bs>>>(w, dw, x, dx, COUNT, DYN); break;
  case 2: k_bounded<T><<<blocks, bs>>>(w, dw, x, dx, COUNT, DYN); break;
  case 3: k_dynamic<T><<<blocks, bs>>>(w, dw, x, dx, COUNT, DYN); break;
  default: k_recurrence<T><<<blocks, bs>>>(w, dw, x, dx, COUNT, DYN); break;
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
}

template <typename T> static void test_loop(int kind, int bs, double tol) {
  static const char *names[] = {"constant trip", "nested", "bounded",
                                "kernel-argument trip", "recurrence"};
  static const HostF refs[] = {f_const<double>, f_nested<double>,
                               f_bounded<double>, f_dynamic<double>,
                               f_recurrence<double>};
  HostF f = refs[kind];
  T w[NW], x[COUNT], dw[NW] = {0}, dx[COUNT] = {0};
  double wd[NW], xd[COUNT], want_w[NW] = {0}, want_x[COUNT];
  for (int k = 0; k < NW; k++)
    wd[k] = w[k] = (T)(0.6 + 0.1 * k);
  for (int i = 0; i < COUNT; i++)
    xd[i] = x[i] = (T)(0.2 + 0.9 * ((i * 37) % 101) / 101.0);
  T *d_w = to_device(w, NW), *d_dw = to_device(dw, NW);
  T *d_x = to_device(x, COUNT), *d_dx = to_device(dx, COUNT);
  launch<T>(kind, bs, d_w, d_dw, d_x, d_dx);
  to_host(dw, d_dw, NW);
  to_host(dx, d_dx, COUNT);
  for (int i = 0; i < COUNT; i++) {
    want_x[i] = (f(wd, xd[i] + H, i, DYN) - f(wd, xd[i] - H, i, DYN)) / (2 * H);
    for (int k = 0; k < NW; k++) {
      double save = wd[k];
      wd[k] = save + H;
      double up = f(wd, xd[i], i, DYN);
      wd[k] = save - H;
      double down = f(wd, xd[i], i, DYN);
      wd[k] = save;
      want_w[k] += (up - down) / (2 * H);
    }
  }
  double got_w[NW], got_x[COUNT];
  for (int k = 0; k < NW; k++)
    got_w[k] = dw[k];
  for (int i = 0; i < COUNT; i++)
    got_x[i] = dx[i];
  char what[128];
  snprintf(what, sizeof what, "%s loop, %s, block %d: dx", names[kind],
           sizeof(T) == 4 ? "float" : "double", bs);
  check_array(what, got_x, want_x, COUNT, tol);
  snprintf(what, sizeof what, "%s loop, %s, block %d: dw", names[kind],
           sizeof(T) == 4 ? "float" : "double", bs);
  check_array(what, got_w, want_w, NW, tol);
  CK(cudaFree(d_w));
  CK(cudaFree(d_dw));
  CK(cudaFree(d_x));
  CK(cudaFree(d_dx));
}

template <typename T> static void test_stride(int bs, double tol) {
  const int blocks = 2, threads = blocks * bs, n = 3 * threads + 7;
  T w[2] = {(T)0.7, (T)0.3}, dw[2] = {0}, *x = new T[n], *dx = new T[n]();
  double wd[2] = {0.7, 0.3}, *xd = new double[n];
  for (int j = 0; j < n; j++)
    xd[j] = x[j] = (T)(0.1 + 0.8 * ((j * 53) % 97) / 97.0);
  T *d_w = to_device(w, 2), *d_dw = to_device(dw, 2);
  T *d_x = to_device(x, n), *d_dx = to_device(dx, n);
  k_stride<T><<<blocks, bs>>>(d_w, d_dw, d_x, d_dx, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  to_host(dw, d_dw, 2);
  to_host(dx, d_dx, n);
  double got[2] = {dw[0], dw[1]}, want[2];
  for (int k = 0; k < 2; k++) {
    double save = wd[k];
    wd[k] = save + H;
    double up = h_stride(wd, xd, n, threads);
    wd[k] = save - H;
    want[k] = (up - h_stride(wd, xd, n, threads)) / (2 * H);
    wd[k] = save;
  }
  double *got_x = new double[n], *want_x = new double[n];
  for (int j = 0; j < n; j++) {
    double save = xd[j];
    xd[j] = save + H;
    double up = h_stride(wd, xd, n, threads);
    xd[j] = save - H;
    want_x[j] = (up - h_stride(wd, xd, n, threads)) / (2 * H);
    xd[j] = save;
    got_x[j] = dx[j];
  }
  char what[128];
  snprintf(what, sizeof what, "grid-stride loop, %s, block %d: dx",
           sizeof(T) == 4 ? "float" : "double", bs);
  check_array(what, got_x, want_x, n, tol);
  snprintf(what, sizeof what, "grid-stride loop, %s, block %d: dw",
           sizeof(T) == 4 ? "float" : "double", bs);
  check_array(what, got, want, 2, tol);
  CK(cudaFree(d_w));
  CK(cudaFree(d_dw));
  CK(cudaFree(d_x));
  CK(cudaFree(d_dx));
  delete[] x;
  delete[] dx;
  delete[] xd;
  delete[] got_x;
  delete[] want_x;
}

int main() {
  const int sizes[] = {32, 64, 100, 128};
  for (int bs : sizes) {
    for (int kind = 0; kind < 5; kind++) {
      test_loop<double>(kind, bs, 1e-6);
      test_loop<float>(kind, bs, 2e-3);
    }
    test_stride<double>(bs, 1e-6);
    test_stride<float>(bs, 2e-3);
  }
  return gpu_report();
}
