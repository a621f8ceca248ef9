// HIP device AD accumulation classes (parallel/gpu_accumulate.c on amdgcn,
// wavefronts of 64), numerically: an elementwise map whose thread owns
// x[i] (plain adds); every thread adding into the same parameters of a fit
// (summed per thread, then where the gradient returns across the
// wavefront by ds_bpermute shuffles under the exec mask, the block in LDS,
// one atomic per block), in float and double; the same with threads past
// n returning early (a partial last block); the same called by only some
// threads (one atomic per thread); a grid-stride loop with an active
// scalar; a thread-owned element in two-dimensional launches (atomic
// there); blocks of 32 x 3 (waves of 64 and 32).  Block sizes 64, 96 (a
// last wave of 32), 128, 256 and 100 (a last wave of 36); closed forms;
// ThreadSanitizer proves the plain adds race-free.
// REQUIRES: hip
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-all-atomic %s -o %ta && %ta
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %s -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt %}
#include "hip-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

/* y_i = sin(x_i) x_i: thread i owns x[i] and y[i]. */
__device__ void map(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sin(x[i]) * x[i];
}
__global__ void map_gradient(const double *x, double *dx, double *y,
                             double *dy, int n) {
  __enzyme_autodiff((void *)map, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
}

/* Every thread adds into w[0], w[1]: (w0 t_i + w1 - t_i^2)^2. */
template <typename T> __device__ T fit(const T *w, const T *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T r = w[0] * t[i] + w[1] - t[i] * t[i];
  return r * r;
}
template <typename T>
__global__ void fit_gradient(const T *w, T *dw, const T *t) {
  __enzyme_autodiff((void *)fit<T>, enzyme_dup, w, dw, enzyme_const, t);
}

/* Threads past n return early inside the function: their sums are zero,
 * and they still take part in the block's sum where the gradient
 * returns. */
template <typename T> __device__ T fit_n(const T *w, const T *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return 0;
  T r = w[0] * t[i] + w[1] - t[i] * t[i];
  return r * r;
}
template <typename T>
__global__ void fit_n_gradient(const T *w, T *dw, const T *t, int n) {
  __enzyme_autodiff((void *)fit_n<T>, enzyme_dup, w, dw, enzyme_const, t,
                    enzyme_const, n);
}

/* Called under a branch of the kernel (threads i >= n skip it): summed
 * per thread, one atomic per thread. */
__device__ double fit_some(const double *w, const double *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double r = w[0] * t[i] + w[1] - t[i] * t[i];
  return r * r;
}
__global__ void fit_some_gradient(const double *w, double *dw, const double *t,
                                  int n) {
  if (blockIdx.x * blockDim.x + threadIdx.x < n)
    __enzyme_autodiff((void *)fit_some, enzyme_dup, w, dw, enzyme_const, t);
}

/* Grid-stride loop: y_i = a x_i^2 for all i < n, a active. */
__device__ void scale(const double *__restrict__ x, double *__restrict__ y,
                      const double *__restrict__ a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a[0] * x[i] * x[i];
}
__global__ void scale_gradient(const double *x, double *dx, double *y,
                               double *dy, const double *a, double *da,
                               int n) {
  __enzyme_autodiff((void *)scale, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_dup, a, da, enzyme_const, n);
}

/* x_i^2 for the thread's element x[i], i from the x coordinates only: in
 * a launch with 2 threads in y (or 2 blocks in y) two threads share x[i],
 * so the plain add is taken only in one-dimensional launches. */
__device__ double square(const double *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  return x[i] * x[i];
}
__global__ void square_gradient(const double *x, double *dx) {
  __enzyme_autodiff((void *)square, enzyme_dup, x, dx);
}

static const int N = 1000;
static double x[N], dx[N], dy[N], want[N], ones[N];

static void test_map(int bs) {
  double *d_x = to_device(x, N), *d_y, *d_dx, *d_dy;
  for (int i = 0; i < N; i++)
    dx[i] = 0.5; /* the gradient adds to what is there */
  d_dx = to_device(dx, N);
  d_dy = to_device(ones, N);
  CK(hipMalloc(&d_y, N * sizeof(double)));
  map_gradient<<<(N + bs - 1) / bs, bs>>>(d_x, d_dx, d_y, d_dy, N);
  CK(hipGetLastError());
  to_host(dx, d_dx, N);
  to_host(dy, d_dy, N);
  for (int i = 0; i < N; i++)
    want[i] = 0.5 + cos(x[i]) * x[i] + sin(x[i]);
  char what[64];
  snprintf(what, sizeof what, "map, blocks of %d: dx", bs);
  check_array(what, dx, want, N, 1e-14);
  double zero[N] = {0};
  snprintf(what, sizeof what, "map, blocks of %d: dy consumed", bs);
  check_array(what, dy, zero, N);
  CK(hipFree(d_x));
  CK(hipFree(d_y));
  CK(hipFree(d_dx));
  CK(hipFree(d_dy));
}

/* The fit over the first n of blocks * bs threads (all of them, or the
 * later ones returning early). */
template <typename T>
static void test_fit(int bs, int blocks, int n, double tol) {
  T t[N], w[2] = {(T)0.7, (T)-0.3}, dw[2] = {(T)1, (T)2};
  double wantw[2] = {1, 2};
  for (int i = 0; i < blocks * bs; i++)
    t[i] = (T)x[i];
  for (int i = 0; i < n; i++) {
    double r = (double)w[0] * t[i] + w[1] - (double)t[i] * t[i];
    wantw[0] += 2 * r * t[i];
    wantw[1] += 2 * r;
  }
  T *d_t = to_device(t, blocks * bs), *d_w = to_device(w, 2);
  T *d_dw = to_device(dw, 2);
  if (n == blocks * bs)
    fit_gradient<T><<<blocks, bs>>>(d_w, d_dw, d_t);
  else
    fit_n_gradient<T><<<blocks, bs>>>(d_w, d_dw, d_t, n);
  CK(hipGetLastError());
  to_host(dw, d_dw, 2);
  double got[2] = {(double)dw[0], (double)dw[1]};
  char what[96];
  snprintf(what, sizeof what, "fit (%s), %d of %d blocks of %d: dw",
           sizeof(T) == 4 ? "float" : "double", n, blocks, bs);
  check_array(what, got, wantw, 2, tol);
  CK(hipFree(d_t));
  CK(hipFree(d_w));
  CK(hipFree(d_dw));
}

static void test_some(int bs, int blocks, int some) {
  int n = blocks * bs;
  double w[2] = {0.7, -0.3}, dw[2] = {0, 0}, wantw[2] = {0, 0};
  for (int i = 0; i < some; i++) {
    double r = w[0] * x[i] + w[1] - x[i] * x[i];
    wantw[0] += 2 * r * x[i];
    wantw[1] += 2 * r;
  }
  double *d_t = to_device(x, n), *d_w = to_device(w, 2);
  double *d_dw = to_device(dw, 2);
  fit_some_gradient<<<blocks, bs>>>(d_w, d_dw, d_t, some);
  CK(hipGetLastError());
  to_host(dw, d_dw, 2);
  char what[80];
  snprintf(what, sizeof what, "fit, %d of %d threads: dw", some, n);
  check_array(what, dw, wantw, 2, 1e-12);
  CK(hipFree(d_t));
  CK(hipFree(d_w));
  CK(hipFree(d_dw));
}

static void test_scale(int bs, int blocks) {
  double a = 1.3, da = 0.25;
  double *d_x = to_device(x, N), *d_y, *d_dx, *d_dy = to_device(ones, N);
  double *d_a = to_device(&a, 1), *d_da = to_device(&da, 1);
  for (int i = 0; i < N; i++)
    dx[i] = 0;
  d_dx = to_device(dx, N);
  CK(hipMalloc(&d_y, N * sizeof(double)));
  scale_gradient<<<blocks, bs>>>(d_x, d_dx, d_y, d_dy, d_a, d_da, N);
  CK(hipGetLastError());
  to_host(dx, d_dx, N);
  to_host(&da, d_da, 1);
  double wantda = 0.25;
  for (int i = 0; i < N; i++) {
    want[i] = 2 * a * x[i];
    wantda += x[i] * x[i];
  }
  char what[80];
  snprintf(what, sizeof what, "grid-stride, %d blocks of %d: dx", blocks, bs);
  check_array(what, dx, want, N, 1e-14);
  snprintf(what, sizeof what, "grid-stride, %d blocks of %d: da", blocks, bs);
  check_value(what, da, wantda, 1e-12);
  CK(hipFree(d_x));
  CK(hipFree(d_y));
  CK(hipFree(d_dx));
  CK(hipFree(d_dy));
  CK(hipFree(d_a));
  CK(hipFree(d_da));
}

static void test_square(int bs) {
  int blocks = N / bs, n = blocks * bs;
  double *d_x = to_device(x, n), *d_dx;
  CK(hipMalloc(&d_dx, n * sizeof(double)));
  const dim3 shapes[3][2] = {{dim3(blocks), dim3(bs)},
                             {dim3(blocks), dim3(bs, 2)},
                             {dim3(blocks, 2), dim3(bs)}};
  for (int s = 0; s < 3; s++) {
    CK(hipMemset(d_dx, 0, n * sizeof(double)));
    square_gradient<<<shapes[s][0], shapes[s][1]>>>(d_x, d_dx);
    CK(hipGetLastError());
    to_host(dx, d_dx, n);
    for (int i = 0; i < n; i++)
      want[i] = (s ? 4 : 2) * x[i]; /* one or two threads per element */
    char what[80];
    snprintf(what, sizeof what, "square, blocks of %d, %s: dx", bs,
             s == 0 ? "1-D" : s == 1 ? "2 threads in y" : "2 blocks in y");
    check_array(what, dx, want, n, 1e-14);
  }
  CK(hipFree(d_x));
  CK(hipFree(d_dx));
}

int main() {
  for (int i = 0; i < N; i++) {
    x[i] = 0.2 + 0.001 * i;
    ones[i] = 1;
  }
  const int sizes[] = {64, 96, 128, 256, 100};
  for (int bs : sizes) {
    int blocks = N / bs < 3 ? N / bs : 3;
    test_map(bs);
    test_fit<double>(bs, blocks, blocks * bs, 1e-12);
    test_fit<float>(bs, blocks, blocks * bs, 1e-4);
    /* A partial last block: its threads past n (and whole waves of it)
     * return early. */
    test_fit<double>(bs, blocks, blocks * bs - bs / 2 - 5, 1e-12);
    test_fit<float>(bs, blocks, blocks * bs - bs + 1, 1e-4);
    test_some(bs, blocks, blocks * bs - 37);
    test_scale(bs, 2);
    test_square(bs);
  }
  /* Blocks of 32 x 3 threads (waves of 64 and 32 across rows): each
   * t_i, i from the x coordinates, counted 3 times. */
  {
    double t[64], w[2] = {0.7, -0.3}, dw[2] = {0, 0}, wantw[2] = {0, 0};
    for (int i = 0; i < 64; i++) {
      t[i] = x[i];
      double r = w[0] * t[i] + w[1] - t[i] * t[i];
      wantw[0] += 3 * 2 * r * t[i];
      wantw[1] += 3 * 2 * r;
    }
    double *d_t = to_device(t, 64), *d_w = to_device(w, 2);
    double *d_dw = to_device(dw, 2);
    fit_gradient<double><<<2, dim3(32, 3)>>>(d_w, d_dw, d_t);
    CK(hipGetLastError());
    to_host(dw, d_dw, 2);
    check_array("fit (double), 2 blocks of 32 x 3: dw", dw, wantw, 2, 1e-12);
  }
  return gpu_report();
}
