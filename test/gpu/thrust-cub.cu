// Thrust and CUB as CUDA 13 ships them (include/cccl, which the pipeline
// adds as nvcc does) run in the GPU-on-CPU mode: their inline PTX
// (ld.global.nc, shfl.sync with lane predicates, vote.ballot, %laneid,
// lane masks, bmsk, relaxed 64- and 128-bit tile-state loads and stores,
// nanosleep, exit) is interpreted into IR, each kernel's __shared__ memory
// is its own, cudaDeviceGetAttribute, cudaFuncGetAttributes,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor and cudaLaunchKernelExC
// answer.  Reduce, transform_reduce, count, sort (ascending, descending,
// by key), partition, scans, copy_if, unique, min/max_element through
// Thrust; DeviceReduce, DeviceRadixSort, DeviceScan and BlockReduce through
// CUB; each against a serial reference, -O0 and -O2.  A gradient made in a
// kernel is summed by thrust::reduce and checked against central finite
// differences.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
#include "gpu-check.h"

#include <algorithm>
#include <cub/cub.cuh>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>
#include <vector>

struct is_neg {
  __host__ __device__ bool operator()(double x) const { return x < 0; }
};
struct square {
  __host__ __device__ double operator()(double x) const { return x * x; }
};

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ double __enzyme_autodiff(void *, ...);

__device__ __host__ double loss(double x, double c) {
  return sin(c * x) * x + exp(-x * x);
}
__global__ void grad(const double *x, double c, double *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    g[i] = __enzyme_autodiff((void *)loss, x[i], enzyme_const, c);
}

/* A block sum through cub::BlockReduce (shared memory, warp shuffles). */
template <int B> __global__ void block_sums(const int *in, int *out, int n) {
  typedef cub::BlockReduce<int, B> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  int i = blockIdx.x * B + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int s = Reduce(tmp).Sum(v);
  if (threadIdx.x == 0)
    out[blockIdx.x] = s;
}

int main() {
  const int n = 5000;
  std::vector<double> h(n);
  for (int i = 0; i < n; i++)
    h[i] = (i * 37 % 1013) - 500.25;
  thrust::device_vector<double> v(h.begin(), h.end());

  double sum = 0, sq = 0;
  long neg = 0;
  for (double x : h)
    sum += x, sq += x * x, neg += x < 0;
  check_value("thrust::reduce", thrust::reduce(v.begin(), v.end()), sum, 1e-12);
  check_value("thrust::reduce max",
              thrust::reduce(v.begin(), v.end(), -1e300, thrust::maximum<double>()),
              *std::max_element(h.begin(), h.end()));
  check_value("thrust::transform_reduce",
              thrust::transform_reduce(v.begin(), v.end(), square(), 0.0,
                                       thrust::plus<double>()),
              sq, 1e-12);
  check_value("thrust::count_if",
              (double)thrust::count_if(v.begin(), v.end(), is_neg()),
              (double)neg);
  check_value("thrust::min_element",
              *thrust::min_element(v.begin(), v.end()),
              *std::min_element(h.begin(), h.end()));

  /* Sorts of doubles (8 radix passes) on a shorter array: the emulation
   * of their blocks of 256 threads is slow. */
  const int ns = 1500;
  std::vector<double> s(h.begin(), h.begin() + ns);
  std::sort(s.begin(), s.end());
  thrust::device_vector<double> w(v.begin(), v.begin() + ns);
  thrust::sort(w.begin(), w.end());
  thrust::host_vector<double> got = w;
  check_array("thrust::sort", got.data(), s.data(), ns);
  thrust::sort(w.begin(), w.end(), thrust::greater<double>());
  got = w;
  std::reverse(s.begin(), s.end());
  check_array("thrust::sort descending", got.data(), s.data(), ns);

  /* sort_by_key: integer keys, values follow. */
  std::vector<int> hk(n);
  std::vector<double> hv(n);
  for (int i = 0; i < n; i++)
    hk[i] = (i * 7919) % 977, hv[i] = i;
  thrust::device_vector<int> dk(hk.begin(), hk.end());
  thrust::device_vector<double> dv(hv.begin(), hv.end());
  thrust::stable_sort_by_key(dk.begin(), dk.end(), dv.begin());
  std::vector<int> order(n);
  for (int i = 0; i < n; i++)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return hk[a] < hk[b]; });
  std::vector<double> want_v(n);
  for (int i = 0; i < n; i++)
    want_v[i] = hv[order[i]];
  thrust::host_vector<double> got_v = dv;
  check_array("thrust::stable_sort_by_key values", got_v.data(), want_v.data(), n);

  /* partition: the negatives first. */
  w = v;
  auto mid = thrust::partition(w.begin(), w.end(), is_neg());
  got = w;
  int bad = 0;
  for (int i = 0; i < n; i++)
    bad += (i < mid - w.begin()) != (got[i] < 0);
  check_value("thrust::partition split", (double)(mid - w.begin()), (double)neg);
  check_value("thrust::partition order", (double)bad, 0);
  std::sort(got.begin(), got.end());
  s = h;
  std::sort(s.begin(), s.end());
  check_array("thrust::partition keeps the values", got.data(), s.data(), n);

  /* Scans, copy_if, unique. */
  std::vector<double> inc(n), exc(n);
  double acc = 0;
  for (int i = 0; i < n; i++)
    exc[i] = acc, acc += h[i], inc[i] = acc;
  thrust::device_vector<double> o(n);
  thrust::inclusive_scan(v.begin(), v.end(), o.begin());
  got = o;
  check_array("thrust::inclusive_scan", got.data(), inc.data(), n, 1e-12);
  thrust::exclusive_scan(v.begin(), v.end(), o.begin());
  got = o;
  check_array("thrust::exclusive_scan", got.data(), exc.data(), n, 1e-12);
  auto end = thrust::copy_if(v.begin(), v.end(), o.begin(), is_neg());
  check_value("thrust::copy_if", (double)(end - o.begin()), (double)neg);
  thrust::device_vector<int> u(hk.begin(), hk.end());
  thrust::sort(u.begin(), u.end());
  auto uend = thrust::unique(u.begin(), u.end());
  std::vector<int> hu = hk;
  std::sort(hu.begin(), hu.end());
  check_value("thrust::unique",
              (double)(uend - u.begin()),
              (double)(std::unique(hu.begin(), hu.end()) - hu.begin()));

  /* CUB's device-wide algorithms, with their temporary storage. */
  std::vector<int> hi(n);
  long isum = 0;
  for (int i = 0; i < n; i++)
    hi[i] = (i * 131) % 1009 - 400, isum += hi[i];
  int *d_in = to_device(hi.data(), n), *d_out, *d_sorted;
  CK(cudaMalloc(&d_out, n * sizeof(int)));
  CK(cudaMalloc(&d_sorted, n * sizeof(int)));
  void *tmp = NULL;
  size_t bytes = 0;
  CK(cub::DeviceReduce::Sum(tmp, bytes, d_in, d_out, n));
  CK(cudaMalloc(&tmp, bytes));
  CK(cub::DeviceReduce::Sum(tmp, bytes, d_in, d_out, n));
  int r;
  to_host(&r, d_out, 1);
  check_value("cub::DeviceReduce::Sum", r, (double)isum);
  CK(cudaFree(tmp));
  tmp = NULL, bytes = 0;
  CK(cub::DeviceRadixSort::SortKeys(tmp, bytes, d_in, d_sorted, n));
  CK(cudaMalloc(&tmp, bytes));
  CK(cub::DeviceRadixSort::SortKeys(tmp, bytes, d_in, d_sorted, n));
  std::vector<int> si = hi, gi(n);
  std::sort(si.begin(), si.end());
  to_host(gi.data(), d_sorted, n);
  check_array("cub::DeviceRadixSort::SortKeys", gi.data(), si.data(), n);
  CK(cudaFree(tmp));
  tmp = NULL, bytes = 0;
  CK(cub::DeviceScan::InclusiveSum(tmp, bytes, d_in, d_out, n));
  CK(cudaMalloc(&tmp, bytes));
  CK(cub::DeviceScan::InclusiveSum(tmp, bytes, d_in, d_out, n));
  std::vector<int> is(n);
  int iacc = 0;
  for (int i = 0; i < n; i++)
    is[i] = iacc += hi[i];
  to_host(gi.data(), d_out, n);
  check_array("cub::DeviceScan::InclusiveSum", gi.data(), is.data(), n);
  CK(cudaFree(tmp));
  const int B = 128, nb = (n + B - 1) / B;
  block_sums<B><<<nb, B>>>(d_in, d_out, n);
  CK(cudaGetLastError());
  std::vector<int> bs(nb, 0), gb(nb);
  for (int i = 0; i < n; i++)
    bs[i / B] += hi[i];
  to_host(gb.data(), d_out, nb);
  check_array("cub::BlockReduce::Sum", gb.data(), bs.data(), nb);

  /* A gradient from a kernel, summed by Thrust: d(sum_i loss(x_i))/dc is
   * not it, but sum_i dloss/dx_i is d(sum_i loss(x_i + t))/dt. */
  const int m = 1000;
  const double c = 0.8;
  std::vector<double> hx(m);
  for (int i = 0; i < m; i++)
    hx[i] = 0.003 * i - 1.2;
  thrust::device_vector<double> x(hx.begin(), hx.end()), g(m);
  grad<<<(m + 127) / 128, 128>>>(thrust::raw_pointer_cast(x.data()), c,
                                 thrust::raw_pointer_cast(g.data()), m);
  CK(cudaGetLastError());
  double total = thrust::reduce(g.begin(), g.end());
  const double t = 1e-6;
  double up = 0, down = 0;
  for (int i = 0; i < m; i++)
    up += loss(hx[i] + t, c), down += loss(hx[i] - t, c);
  check_value("thrust::reduce of a kernel's gradient", total,
              (up - down) / (2 * t), 1e-7);
  return gpu_report();
}
