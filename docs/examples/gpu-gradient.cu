/* gpu-gradient.cu - a gradient computed on the GPU: each thread fits one
 * data point of y = a exp(-b t) and differentiates its squared residual
 * with Zymase; the per-thread gradients of the two parameters are summed
 * by the generated code (warp shuffles, shared memory, one atomic per
 * block), the gradient of each point's own input stays thread-owned.
 * Checked against central finite differences of the loss on the host.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *   tools/zymase-clang --gpu-on-cpu -O2 docs/examples/gpu-gradient.cu -o gpu-gradient
 *   (on a machine with a GPU: clang++-22 -x cuda --cuda-gpu-arch=sm_80 -O2
 *    -fpass-plugin=build/lib/Zymase-22.so ... -lcudart) */
#include <cmath>
#include <cstdio>

/* Enzyme's interface, declared on the device. */
extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

/* The per-thread code: the squared residual of point i (0 past the
 * end, so that every thread of the last block takes part).  With
 * `__restrict__` the compiler knows that p and t do not overlap, so
 * thread i is the only one adding to dt[i]: a plain add, no atomic. */
__device__ double residual2(const double *__restrict__ p,
                            const double *__restrict__ t,
                            const double *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return 0;
  double r = p[0] * exp(-p[1] * t[i]) - y[i];
  return r * r;
}

/* Adds d(residual2)/dp to dp and d(residual2)/dt[i] to dt[i]. */
__global__ void gradient(const double *p, double *dp, const double *t,
                         double *dt, const double *y, int n) {
  __enzyme_autodiff((void *)residual2, enzyme_dup, p, dp, enzyme_dup, t, dt,
                    enzyme_const, y, enzyme_const, n);
}

static double loss(const double *p, const double *t, const double *y,
                   int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double r = p[0] * std::exp(-p[1] * t[i]) - y[i];
    s += r * r;
  }
  return s;
}

int main() {
  const int n = 1000;
  static double t[n], y[n];
  double p[2] = {2.0, 0.7};
  for (int i = 0; i < n; i++) {
    t[i] = 0.004 * i;
    y[i] = 1.8 * std::exp(-0.5 * t[i]) + 0.01 * std::sin(7.0 * i);
  }
  double *d_p, *d_dp, *d_t, *d_dt, *d_y;
  cudaMalloc(&d_p, sizeof p);
  cudaMalloc(&d_dp, sizeof p);
  cudaMalloc(&d_t, sizeof t);
  cudaMalloc(&d_dt, sizeof t);
  cudaMalloc(&d_y, sizeof y);
  cudaMemcpy(d_p, p, sizeof p, cudaMemcpyHostToDevice);
  cudaMemcpy(d_t, t, sizeof t, cudaMemcpyHostToDevice);
  cudaMemcpy(d_y, y, sizeof y, cudaMemcpyHostToDevice);
  cudaMemset(d_dp, 0, sizeof p);
  cudaMemset(d_dt, 0, sizeof t);
  gradient<<<(n + 127) / 128, 128>>>(d_p, d_dp, d_t, d_dt, d_y, n);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    printf("the kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  double dp[2];
  static double dt[n];
  cudaMemcpy(dp, d_dp, sizeof dp, cudaMemcpyDeviceToHost);
  cudaMemcpy(dt, d_dt, sizeof dt, cudaMemcpyDeviceToHost);

  /* Central finite differences of the whole loss. */
  int ok = 1;
  for (int k = 0; k < 2; k++) {
    double h = 1e-6, q[2] = {p[0], p[1]};
    q[k] = p[k] + h;
    double up = loss(q, t, y, n);
    q[k] = p[k] - h;
    double fd = (up - loss(q, t, y, n)) / (2 * h);
    printf("dL/dp%d   Zymase % .10f   finite differences % .10f\n", k, dp[k],
           fd);
    ok &= std::fabs(dp[k] - fd) <= 1e-6 * (1 + std::fabs(fd));
  }
  for (int i = 0; i < n; i += 333) {
    double h = 1e-6, save = t[i];
    t[i] = save + h;
    double up = loss(p, t, y, n);
    t[i] = save - h;
    double fd = (up - loss(p, t, y, n)) / (2 * h);
    t[i] = save;
    printf("dL/dt%-4d Zymase % .10f   finite differences % .10f\n", i, dt[i],
           fd);
    ok &= std::fabs(dt[i] - fd) <= 1e-6 * (1 + std::fabs(fd));
  }
  printf("%s\n", ok ? "the gradient matches finite differences"
                    : "the gradient DOES NOT match finite differences");
  return ok ? 0 : 1;
}
